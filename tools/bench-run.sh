#!/usr/bin/env bash
# Times a whole `clada run` of one small file_write block with hyperfine:
# without git, and in a git repository where every run makes its AI commit
# (the repository is reset to its first commit before each run, untimed).
# Prints the median, mean and min of each.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
bazel build -c opt //proj:clada
bin=$PWD/bazel-bin/proj/clada
dir=$(mktemp -d /tmp/clada-bench.XXXXXX)
cat > "$dir/answer.md" <<'ANSWER'
#!SHAM [@three-char-SHA-256: k7m]
action = "file_write"
path = "a.txt"
content = "hello"
#!END_SHAM_k7m
ANSWER
mkdir -p "$dir/plain" "$dir/repo"
git -C "$dir/repo" init -q
git -C "$dir/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
first=$(git -C "$dir/repo" rev-parse HEAD)
hyperfine -N --warmup 10 --runs 200 --export-json "$dir/results.json" \
  -n "clada --version (start-up only)" "$bin --version" \
  -n "clada run --no-git" "$bin run $dir/answer.md --root $dir/plain --no-git --quiet" >/dev/null
hyperfine --warmup 10 --runs 200 --export-json "$dir/results-git.json" \
  --prepare "git -C $dir/repo reset -q --hard $first && rm -rf $dir/repo/.clada" \
  -n "clada run (git, one AI commit)" "$bin run $dir/answer.md --root $dir/repo --quiet" >/dev/null
git -C "$dir/repo" log --oneline | grep -q "AI: " || { echo "bench-run: the git run made no AI commit" >&2; exit 1; }
python3 - "$dir/results.json" "$dir/results-git.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    for r in json.load(open(f))["results"]:
        print("%-34s median %6.2f ms  mean %6.2f ms  min %6.2f ms" %
              (r["command"], r["median"] * 1e3, r["mean"] * 1e3, r["min"] * 1e3))
PY
