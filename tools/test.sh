#!/usr/bin/env bash
# Runs every test: installs missing dependencies, then `bazel test //...`.
# Ends with one line `N passed, M failed`, counted from Bazel's test summary.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh || exit 2

log=$(mktemp)
bazel test //... "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)' "$log")
# A build failure leaves tests unrun: count it as a failure, never as a pass.
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
echo "${passed} passed, ${failed} failed"
exit "$status"
