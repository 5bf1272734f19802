#!/usr/bin/env bash
# Runs every test: installs missing dependencies, then
#   1. bazel test //...                      (the whole suite)
#   2. bazel test --config=asan --build_tests_only //...
#                                            (again under ASan + UBSan, clang-14;
#                                             the benchmarks are built in stage 1 only)
#   3. tools/fuzz.sh                         (each libFuzzer target for $FUZZ_SECONDS, default 20)
#   4. tools/release.sh --allow-dirty        (the release's checks: the binary needs only the C
#                                             library and runs with an empty environment, the npm
#                                             package installs offline and passes the MCP SDK
#                                             client's test; counted as one test)
# Ends with one line `N passed, M failed`, counted from Bazel's test
# summaries (a fuzz target that finds a crash counts as one failed test).
# `tools/test.sh --quick` runs stage 1 only.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh || exit 2
# The disk cache (.bazelrc) only grows: start it afresh past 20 GB.
cache=~/.cache/clada-bazel-disk
if [[ -d $cache ]] && (( $(du -sk "$cache" | cut -f1) > 20 * 1024 * 1024 )); then rm -rf "$cache"; fi

quick=0
if [[ ${1:-} == --quick ]]; then quick=1; shift; fi

log=$(mktemp)
status=0
run_stage() {
  echo "=== $*"
  "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  if [[ $rc -ne 0 ]]; then status=1; fi
  return "$rc"
}

run_stage bazel test //... "$@"
if [[ $quick -eq 0 ]]; then
  run_stage bazel test --config=asan --build_tests_only //... "$@"
  run_stage tools/fuzz.sh "${FUZZ_SECONDS:-20}"
  if run_stage tools/release.sh --allow-dirty; then
    echo "//tools:release_checks PASSED" >>"$log"
  else
    echo "//tools:release_checks FAILED" >>"$log"
  fi
fi

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)' "$log")
failed=$((failed + $(grep -c '^FAILED: .* crashed' "$log")))
# A build failure leaves tests unrun: count it as a failure, never as a pass.
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
echo "${passed} passed, ${failed} failed"
exit "$status"
