#!/bin/sh
# Times `clada validate` on one block with N unknown keys (the 3M-key answer
# of issue 17 #11 is 44 MB). Validation must grow linearly with N.
# Usage: proj/comp/sham-action-parser/bench/unknown_keys.sh [CLADA] [N...]
# (default: bazel-bin/proj/clada, and 40000 80000 1000000 3000000).
set -eu
clada=${1:-bazel-bin/proj/clada}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 40000 80000 1000000 3000000
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for n in "$@"; do
  python3 - "$n" > "$dir/answer.md" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout
out.write('#!SHAM [@three-char-SHA-256: big]\naction = "file_read"\npath = "a.txt"\n')
out.write(''.join('unknown_key_%d = "v"\n' % i for i in range(n)))
out.write('#!END_SHAM_big\n')
PY
  bytes=$(wc -c < "$dir/answer.md")
  start=$(date +%s.%N)
  "$clada" validate "$dir/answer.md" > /dev/null || true
  end=$(date +%s.%N)
  printf '%8d keys %10d bytes  %.2f s\n' "$n" "$bytes" "$(echo "$end - $start" | bc)"
done
