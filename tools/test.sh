#!/usr/bin/env bash
# Runs every test: installs missing dependencies, then
#   1. the optimised build (the configuration clada ships in): every target
#      that is not a test (clada, the benchmarks, the tools), and the tests
#      that check the real binary (tagged no_asan: crash safety, load, the
#      MCP client's test)
#   2. bazel test --config=asan --build_tests_only //...
#                                            (every other test, once, under ASan + UBSan, clang-14)
#   3. tools/fuzz.sh                         (each libFuzzer target for $FUZZ_SECONDS, default 20)
#   4. tools/release.sh --allow-dirty        (the release's checks: the binary needs only the C
#                                             library and runs with an empty environment, the npm
#                                             package installs offline and passes the MCP SDK
#                                             client's test; counted as one test)
# Each source is compiled once per configuration, and each test is built
# and run once: under the sanitizers, or, for the no_asan tests, optimised.
# Ends with one line `N passed, M failed`, counted from Bazel's test
# summaries (a fuzz target that finds a crash counts as one failed test).
# `tools/test.sh --quick` runs the whole suite once, optimised, without the
# sanitizers (`bazel test //...`), and nothing else.
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

if [[ $quick -eq 1 ]]; then
  run_stage bazel test //... "$@"
else
  # Stage 1: everything but the tests, and the no_asan tests, optimised, in
  # one invocation (a test starts as soon as what it needs is built).
  mapfile -t not_tests < <(bazel query --noshow_progress 'kind(rule, //...) except tests(//...) except attr(tags, manual, //...)' 2>/dev/null)
  mapfile -t real_binary_tests < <(bazel query --noshow_progress 'attr(tags, no_asan, tests(//...))' 2>/dev/null)
  if ((${#not_tests[@]} == 0 || ${#real_binary_tests[@]} == 0)); then
    echo "test.sh: bazel query found no targets" >&2
    status=1
  fi
  run_stage bazel test --test_tag_filters=no_asan "$@" -- "${not_tests[@]}" "${real_binary_tests[@]}"
  # Stage 2: every other test under ASan and UBSan.
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
