#!/usr/bin/env bash
# fs-ops benchmarks, each comparison in one run (figures: doc/ARCH.md).
#
#   proj/comp/fs-ops/bench/bench.sh [--quick]
#
# Inputs are generated under $CLADA_BENCH_DIR (default /tmp/clada-fsops-bench),
# never in the repository, and reused when present:
#   tree/       a git work tree: 20,000 source-like files, ~100 MB, with a
#               .gitignore'd build/ directory
#   rep/orig.txt  10 MB of text holding "old_name" exactly 10,000 times
#   src2mb.txt  2 MB of source-like text for the miss diagnosis
# Steps:
#   1. hyperfine: file_replace_all_text (count = 10,000) vs `cp` of the file,
#      as whole processes (the edit restored before each run, untimed)
#   2. hyperfine: grep over the tree vs `rg -n` and `grep -rn`, a literal and a
#      regex pattern
#   3. fs_ops_bench (Google Benchmark): in-process figures, including the miss
#      diagnosis on 2 MB
set -euo pipefail
cd "$(dirname "$0")/../../../.."
runs=15
[[ "${1:-}" == "--quick" ]] && runs=5

for tool in hyperfine rg; do command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine ripgrep >/dev/null; break; }; done
bazel build -c opt //proj/comp/fs-ops:run_action //proj/comp/fs-ops:make_tree //proj/comp/fs-ops:fs_ops_bench
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/proj/comp/fs-ops"
dir="${CLADA_BENCH_DIR:-/tmp/clada-fsops-bench}"
mkdir -p "$dir/rep"
[[ -d "$dir/tree/src" ]] || "$bin/make_tree" tree "$dir/tree" 20000 100000000
[[ -f "$dir/rep/orig.txt" ]] || "$bin/make_tree" replace "$dir/rep/orig.txt" 10485000 10000
[[ -f "$dir/src2mb.txt" ]] || "$bin/make_tree" source "$dir/src2mb.txt" 2097152
cd "$dir"
echo "== inputs: $(find tree -type f -not -path '*/.git/*' | wc -l) files, $(du -sb --exclude=.git tree | cut -f1) bytes in tree/; rep/orig.txt $(stat -c %s rep/orig.txt) bytes"
echo "== machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== 1. file_replace_all_text, 10,000 occurrences in 10 MB, vs cp"
replace='{"name":"file_replace_all_text","params":{"path":"big.txt","old_text":"old_name","new_text":"new_name","count":10000}}'
# The prepare step syncs, so that our fsync does not also pay for flushing
# the untimed copy (ext4 data=ordered commits all dirty data together).
hyperfine -N -w 3 -r "$runs" --prepare "sh -c 'cp rep/orig.txt rep/big.txt && sync'" \
  -n "fs-ops file_replace_all_text" "$bin/run_action rep '$replace'" \
  -n "cp" "cp rep/orig.txt rep/copy.txt" \
  -n "cp + fsync (dd conv=fsync)" "dd if=rep/orig.txt of=rep/copy.txt bs=1M conv=fsync status=none" \
  -n "run_action start-up only (dir_create .)" "$bin/run_action rep '{\"name\":\"dir_create\",\"params\":{\"path\":\".\"}}'"

echo "== 2. grep over the tree vs rg and grep -rn"
literal='{"name":"grep","params":{"pattern":"TODO\\(fsops\\)","path":"."}}'
regex='{"name":"grep","params":{"pattern":"handler_1234[0-9]\\\\b","path":"."}}'
hyperfine -N -w 3 -r "$runs" \
  -n "fs-ops grep (literal)" "$bin/run_action tree '$literal'" \
  -n "rg -n (literal)" "rg -n 'TODO\(fsops\)' tree" \
  -n "grep -rn (literal)" "grep -rn 'TODO(fsops)' tree"
hyperfine -N -w 3 -r "$runs" \
  -n "fs-ops grep (regex)" "$bin/run_action tree '$regex'" \
  -n "rg -n (regex)" "rg -n 'handler_1234[0-9]\b' tree" \
  -n "grep -rn (regex)" "grep -rn 'handler_1234[0-9]\b' tree"
echo "matches: fs-ops $("$bin/run_action" tree "$literal") / rg $(rg -n 'TODO\(fsops\)' tree | wc -l) / grep $(grep -rn 'TODO(fsops)' tree | wc -l)"

echo "== 3. in-process (Google Benchmark)"
CLADA_BENCH_DIR="$dir" "$bin/fs_ops_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
