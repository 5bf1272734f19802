#!/usr/bin/env bash
# How `clada listen`'s work grows with the answer: N SHAM blocks each
# followed by an Aider SEARCH/REPLACE block, N SHAM blocks each followed by
# a CML task, for N and 2N; and N/10 headers the parser refuses (a no-break
# space before `#!SHAM`, no ID), each followed by 20 lines of prose, for
# N/10 and 2N/10. Each answer is
# saved into an empty listened file; the listener's user CPU time is
# measured (/usr/bin/time) until it has written its report. Linear work
# doubles from N to 2N; a loop over every block for each block quadruples.
# Prints the CPU seconds and the ratio for each binary given.
#
#   tools/bench-listen-scan.sh [N] BIN [BIN...]     default N = 50000
set -euo pipefail
n=50000
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  n=$1
  shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [N] CLADA_BINARY [CLADA_BINARY...]" >&2; exit 2; }
dir=$(mktemp -d /tmp/clada-bench-scan.XXXXXX)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$n" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
def ident(i):
    s = ""
    i += 36 ** 3
    while i:
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36] + s
        i //= 36
    return s
for count in (n, 2 * n):
    with open(f"{d}/sr-{count}.md", "w") as f:
        for i in range(count):
            b = ident(i)
            f.write(f'#!SHAM [@three-char-SHA-256: {b}]\naction="file_read"\npath="s"\n#!END_SHAM_{b}\n')
            f.write(f"no{i}\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n")
    with open(f"{d}/cml-{count}.md", "w") as f:
        for i in range(count):
            b = ident(i)
            f.write(f'#!SHAM [@three-char-SHA-256: {b}]\naction="file_read"\npath="s"\n#!END_SHAM_{b}\n')
            f.write(f'<remove path="no{i}"/>\n')
    with open(f"{d}/refused-{count}.md", "w") as f:
        for i in range(count // 10):
            f.write("\u00a0#!SHAM no id here\n" + "prose\n" * 20)
PY
listen_cpu() {  # binary answer -> user CPU seconds of the listener
  local bin=$1 answer=$2 root="$dir/root" pid i
  rm -rf "$root"
  mkdir -p "$root"
  echo small >"$root/s"
  : >"$root/chat.md"
  /usr/bin/time -f "%U" -o "$dir/time.txt" "$bin" listen "$root/chat.md" --root "$root" --no-git \
    2>"$dir/listen.log" &
  pid=$!
  for i in $(seq 300); do grep -q "Ctrl-C stops" "$dir/listen.log" && break; sleep 0.1; done
  cp "$answer" "$root/chat.tmp"
  mv "$root/chat.tmp" "$root/chat.md"
  for i in $(seq 6000); do [ -s "$root/.clada-output-latest.txt" ] && break; sleep 0.2; done
  sleep 1
  pkill -INT -P "$pid" || true
  wait "$pid" || true
  cat "$dir/time.txt"
}
for bin in "$@"; do
  for kind in sr cml refused; do
    one=$(listen_cpu "$bin" "$dir/$kind-$n.md")
    two=$(listen_cpu "$bin" "$dir/$kind-$((2 * n)).md")
    printf '%-40s %-8s N=%-7d %6.2f s   N=%-7d %6.2f s   ratio %.2f\n' "$bin" "$kind" \
      "$n" "$one" "$((2 * n))" "$two" "$(echo "$two / $one" | bc -l)"
  done
done
