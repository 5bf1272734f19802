#!/bin/sh
# Save -> write-back latency of `clada listen` with a callback that does
# nothing (see latency_bench.cc). Arg is the debounce in ms (30 = default).
# LATENCY_DIR=/some/disk/dir measures on that filesystem instead of /tmp.
set -eu
cd "$(dirname "$0")/../../../.."
bazel run -c opt //proj/comp/listener:latency_bench -- \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
