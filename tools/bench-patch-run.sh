#!/usr/bin/env bash
# Times a whole `clada run --no-git` of a 1,000-hunk edit of a 100,000-line
# file (every 100th line changed), once as a unified diff and once as a
# Codex apply_patch envelope: the issue's target is under 100 ms for each.
# The file is restored before each run (untimed). Prints min, median and
# mean of each with hyperfine, and the load average.
#   tools/bench-patch-run.sh [runs]        (default 20)
# `--inputs DIR [HUNKS]` only writes the inputs into DIR (for perf,
# callgrind, strace, tools/bench-apply.sh): HUNKS changes (default 1,000),
# one every 100,000/HUNKS lines.
set -euo pipefail
cd "$(dirname "$0")/.."
make_inputs() {
  python3 - "$1" "${2:-1000}" <<'PY'
import os, sys
d, hunks = sys.argv[1], int(sys.argv[2])
step = 100000 // hunks
os.makedirs(d, exist_ok=True)
lines = ["line %06d: the quick brown fox jumps over it\n" % i for i in range(1, 100001)]
open(os.path.join(d, "big.txt"), "w").write("".join(lines))
diff = ["--- a/big.txt\n", "+++ b/big.txt\n"]
patch = ["*** Begin Patch\n", "*** Update File: big.txt\n"]
for k in range(hunks):
    n = step // 2 + step * k  # 1-based line changed
    before, old, after = lines[n - 2], lines[n - 1], lines[n]
    new = old.replace("fox", "cat")
    diff += ["@@ -%d,3 +%d,3 @@\n" % (n - 1, n - 1), " " + before, "-" + old, "+" + new, " " + after]
    patch += ["@@\n", " " + before, "-" + old, "+" + new, " " + after]
patch.append("*** End Patch\n")
open(os.path.join(d, "diff.md"), "w").write("".join(diff))
open(os.path.join(d, "patch.md"), "w").write("".join(patch))
PY
  mkdir -p "$1/root"
  cp "$1/big.txt" "$1/root/big.txt"
}
if [[ "${1:-}" == "--inputs" ]]; then
  make_inputs "$2" "${3:-1000}"
  exit 0
fi
runs=${1:-20}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
bazel build -c opt //proj:clada
bin=$PWD/bazel-bin/proj/clada
dir=$(mktemp -d /tmp/clada-bench-patch.XXXXXX)
make_inputs "$dir"
for kind in diff patch; do
  "$bin" run "$dir/$kind.md" --root "$dir/root" --no-git --quiet >/dev/null
  grep -q "the quick brown cat" "$dir/root/big.txt" || { echo "bench-patch-run: the $kind was not applied" >&2; exit 1; }
  cp "$dir/big.txt" "$dir/root/big.txt"
done
uptime
hyperfine -N --warmup 3 --runs "$runs" --export-json "$dir/results.json" \
  --prepare "cp $dir/big.txt $dir/root/big.txt" \
  -n "unified diff (clada run --no-git)" "$bin run $dir/diff.md --root $dir/root --no-git --quiet" \
  -n "apply_patch (clada run --no-git)" "$bin run $dir/patch.md --root $dir/root --no-git --quiet" >/dev/null
uptime
python3 - "$dir/results.json" <<'PY'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%-36s min %6.1f ms  median %6.1f ms  mean %6.1f ms  user %5.1f ms  sys %5.1f ms" %
          (r["command"], r["min"] * 1e3, r["median"] * 1e3, r["mean"] * 1e3, r["user"] * 1e3, r["system"] * 1e3))
PY
rm -rf "$dir"
