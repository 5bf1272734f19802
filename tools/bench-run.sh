#!/usr/bin/env bash
# Times a whole `clada run` of one small file_write block with hyperfine,
# without git and in a fresh git repository.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { apt-get install -y -qq hyperfine >/dev/null; }
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
hyperfine -N --warmup 10 --runs 100 \
  -n "clada run --no-git" "$bin run $dir/answer.md --root $dir/plain --no-git --quiet" \
  -n "clada run (git)" "$bin run $dir/answer.md --root $dir/repo --quiet" \
  -n "clada --version (start-up only)" "$bin --version"
