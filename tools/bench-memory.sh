#!/usr/bin/env bash
# Peak memory of `clada run` on the answers of issue 17 #9, measured with
# /usr/bin/time -v, against the bound SECURITY.md promises:
#   peak RSS < 4 x the answer's size + 100 MB + the largest single file read.
# Inputs: 200 file_reads of one 4.5 MB file (17 KB); 600,000 valid small
# blocks (file_read of a 1-line file, 47 MB: as many as fit the parser's
# 50 MiB cap); a million empty blocks (48 MB); the first also with --json;
# and 300,000 one-line operations in each other dialect (CML, CSL, replacer,
# SEARCH/REPLACE, apply_patch, unified diff), each on a file that does not
# exist, so that each fails at once. Prints one line per input and exits 1
# when a run is over its bound or ends on a signal (a crash, the OOM killer). With --large, measures instead the
# same one-line operations in each of those six dialects as many as fit the
# input limit (50 MiB: about 0.8 to 2 million; each run takes a minute or
# two). With --listen, measures `clada listen` instead: the answer
# saved into the listened file at once, the listener stopped (SIGINT) once
# it has written its report; the 300k inputs of the other dialects, the
# 600k small blocks and a million empty ones; with --large as well, the
# listener on the six answers at the input limit.
# With --git, runs `clada run` as the standard inputs do but in a git
# repository (the root made one, with one commit), as a user runs it.
# With --replace-all, measures instead one file_replace_all_text on a 100 MB
# file of 2,941,176 lines with a place on each (fs-ops' run_action, -c opt;
# fs-ops ARCH.md), against the input + 100 MB: the result is never built,
# so what it holds is the input, the places (16 bytes each) and the diff's
# bounded text (16 MiB); before it streamed it peaked at 392 MB.
# Usage: tools/bench-memory.sh [--large] [--listen|--git|--replace-all] [CLADA_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
large=0
listen=0
git_mode=0
replace_all=0
while [ $# -ge 1 ]; do
  case "$1" in
    --replace-all) replace_all=1 ;;
    --large) large=1 ;;
    --listen) listen=1 ;;
    --git) git_mode=1 ;;
    *) break ;;
  esac
  shift
done
if [ $# -ge 1 ]; then
  bin=$1
else
  bazel build -c opt //proj:clada >/dev/null 2>&1
  bin=$PWD/bazel-bin/proj/clada
fi
dir=$(mktemp -d /tmp/clada-bench-memory.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/root"
if [ "$replace_all" = 1 ]; then
  bazel build -c opt //proj/comp/fs-ops:run_action >/dev/null 2>&1
  python3 -c "open('$dir/root/big.txt', 'w').write('    value = compute(alpha, beta);\\n' * 2941176)"
  input_bytes=$(stat -c %s "$dir/root/big.txt")
  run_status=0
  /usr/bin/time -v -o "$dir/time.txt" bazel-bin/proj/comp/fs-ops/run_action "$dir/root" \
    '{"name":"file_replace_all_text","params":{"path":"big.txt","old_text":"alpha","new_text":"alpha_renamed"},"max_file_bytes":300000000}' \
    >/dev/null || run_status=$?
  peak_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
  bound_kb=$(((input_bytes + 100 * 1024 * 1024) / 1024))
  verdict=ok
  status=0
  [ -n "$peak_kb" ] && [ "$peak_kb" -lt "$bound_kb" ] && [ "$run_status" = 0 ] || { verdict=OVER; status=1; }
  [ "$run_status" = 0 ] || verdict="$verdict, FAILED (exit $run_status)"
  printf '%-34s input %6.1f MB  peak RSS %7.1f MB  bound %7.1f MB  %s\n' "file_replace_all_text, 2.9M places" \
    "$(echo "$input_bytes / 1048576" | bc -l)" "$(echo "$peak_kb / 1024" | bc -l)" \
    "$(echo "$bound_kb / 1024" | bc -l)" "$verdict"
  exit $status
fi
python3 - "$dir" "$large" <<'PY'
import sys
d = sys.argv[1]
if sys.argv[2] == "1":  # --large: each dialect's operations up to the 50 MiB input limit
    cap = 50 * 1024 * 1024 - 4096
    def fill(name, op, head="", tail=""):
        with open(d + "/" + name, "w") as f:
            f.write(head)
            size, i = len(head) + len(tail), 0
            while size + len(op(i)) <= cap:
                f.write(op(i))
                size += len(op(i))
                i += 1
            f.write(tail)
    fill("cml.md", lambda i: f'<remove path="no{i}"/>\n')
    fill("csl.md", lambda i: f'<---SEARCH file="no{i}"--->\nx\n<---REPLACE--->\ny\n<---END--->\n')
    fill("replacer.md", lambda i: f"<<<FILE>>>\nno{i}\n<<<SEARCH>>>\nx\n<<<REPLACE>>>\ny\n<<<END>>>\n")
    fill("aider.md", lambda i: f"no{i}\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n")
    fill("patch.md", lambda i: f"*** Delete File: no{i}\n", "*** Begin Patch\n", "*** End Patch\n")
    fill("udiff.md", lambda i: f"--- a/no{i}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
    sys.exit(0)
line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789\n"
with open(d + "/root/big.txt", "w") as f:
    f.write(line * (4_500_000 // len(line)))
with open(d + "/root/s", "w") as f:
    f.write("small\n")
def ident(i):  # a unique 4-8 character block id
    s = ""
    i += 36 ** 3
    while i:
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36] + s
        i //= 36
    return s
with open(d + "/reads.md", "w") as f:
    for i in range(200):
        b = ident(i)
        f.write(f'#!SHAM [@three-char-SHA-256: {b}]\naction = "file_read"\npath = "big.txt"\n#!END_SHAM_{b}\n')
with open(d + "/small.md", "w") as f:
    for i in range(600_000):
        b = ident(i)
        f.write(f'#!SHAM [@three-char-SHA-256: {b}]\naction="file_read"\npath="s"\n#!END_SHAM_{b}\n')
with open(d + "/empty.md", "w") as f:
    for i in range(1_000_000):
        b = ident(i)
        f.write(f'#!SHAM [@three-char-SHA-256: {b}]\n#!END_SHAM_{b}\n')
N = 300_000
with open(d + "/cml.md", "w") as f:
    for i in range(N):
        f.write(f'<remove path="no{i}"/>\n')
with open(d + "/csl.md", "w") as f:
    for i in range(N):
        f.write(f'<---SEARCH file="no{i}"--->\nx\n<---REPLACE--->\ny\n<---END--->\n')
with open(d + "/replacer.md", "w") as f:
    for i in range(N):
        f.write(f"<<<FILE>>>\nno{i}\n<<<SEARCH>>>\nx\n<<<REPLACE>>>\ny\n<<<END>>>\n")
with open(d + "/aider.md", "w") as f:
    for i in range(N):
        f.write(f"no{i}\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n")
with open(d + "/patch.md", "w") as f:
    f.write("*** Begin Patch\n")
    for i in range(N):
        f.write(f"*** Delete File: no{i}\n")
    f.write("*** End Patch\n")
with open(d + "/udiff.md", "w") as f:
    for i in range(N):
        f.write(f"--- a/no{i}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
PY
status=0
if [ "$git_mode" = 1 ]; then
  git -C "$dir/root" init -q
  git -C "$dir/root" add -A
  git -C "$dir/root" -c user.name=bench -c user.email=bench@localhost commit -qm base
  git -C "$dir/root" tag base
fi
# `clada listen` on a chat file in a fresh root: saves `answer` into it,
# waits for the report beside it, stops the listener; the report is that
# file.
listen_once() {  # answer
  local answer=$1 root="$dir/listen-root" pid i
  rm -rf "$root"
  mkdir -p "$root"
  : >"$root/chat.md"
  /usr/bin/time -v -o "$dir/time.txt" "$bin" listen "$root/chat.md" --root "$root" --no-git \
    2>"$dir/listen.log" &
  pid=$!
  for i in $(seq 300); do grep -q "Ctrl-C stops" "$dir/listen.log" && break; sleep 0.1; done
  cp "$answer" "$root/chat.tmp"
  mv "$root/chat.tmp" "$root/chat.md"
  for i in $(seq 3000); do [ -s "$root/.clada-output-latest.txt" ] && break; sleep 0.2; done
  sleep 1  # the summary is written into chat.md after the report
  pkill -INT -P "$pid" || true
  wait "$pid" || true
  cp "$root/.clada-output-latest.txt" "$dir/report.txt"
}
measure() {  # name, answer, largest file read (bytes), extra flags...
  local name=$1 answer=$2 largest=$3
  shift 3
  local input_bytes peak_kb bound_kb report_bytes run_status=0
  input_bytes=$(stat -c %s "$answer")
  if [ "$listen" = 1 ]; then
    listen_once "$answer"
  else
    local git_flag=--no-git
    if [ "$git_mode" = 1 ]; then
      git_flag=--git=require
      # Each run starts from the one commit: no AI commit of the last run to build on.
      git -C "$dir/root" reset -q --hard base && git -C "$dir/root" clean -qfdx -e .clada
    fi
    /usr/bin/time -v -o "$dir/time.txt" "$bin" run "$answer" --root "$dir/root" $git_flag --quiet "$@" \
      >"$dir/report.txt" 2>/dev/null || run_status=$?
  fi
  peak_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
  bound_kb=$(((4 * input_bytes + 100 * 1024 * 1024 + largest) / 1024))
  report_bytes=$(stat -c %s "$dir/report.txt")
  local verdict=ok
  [ -n "$peak_kb" ] && [ "$peak_kb" -lt "$bound_kb" ] || { verdict=OVER; status=1; }
  # A run that ends on a signal (a crash, the OOM killer) peaks low and
  # proves nothing: it fails the row too. Exits 0 to 2 are reports.
  if [ "$run_status" -gt 2 ]; then
    verdict="$verdict, FAILED (exit $run_status)"
    status=1
  fi
  printf '%-34s input %6.1f MB  peak RSS %7.1f MB  bound %7.1f MB  report %8.1f KB  %s\n' "$name" \
    "$(echo "$input_bytes / 1048576" | bc -l)" "$(echo "$peak_kb / 1024" | bc -l)" \
    "$(echo "$bound_kb / 1024" | bc -l)" "$(echo "$report_bytes / 1024" | bc -l)" "$verdict"
}
if [ "$large" = 1 ]; then
  how=$([ "$listen" = 1 ] && echo "listen: " || true)
  measure "${how}CML <remove> tasks to the limit" "$dir/cml.md" 0
  measure "${how}CSL SEARCH operations to the limit" "$dir/csl.md" 0
  measure "${how}replacer blocks to the limit" "$dir/replacer.md" 0
  measure "${how}SEARCH/REPLACE blocks to the limit" "$dir/aider.md" 0
  measure "${how}apply_patch deletes to the limit" "$dir/patch.md" 0
  measure "${how}unified-diff deletes to the limit" "$dir/udiff.md" 0
  exit $status
fi
if [ "$listen" = 1 ]; then
  measure "listen: 600k small file_read blocks" "$dir/small.md" 6
  measure "listen: a million empty blocks" "$dir/empty.md" 0
  measure "listen: 300k CML <remove> tasks" "$dir/cml.md" 0
  measure "listen: 300k CSL SEARCH operations" "$dir/csl.md" 0
  measure "listen: 300k replacer blocks" "$dir/replacer.md" 0
  measure "listen: 300k SEARCH/REPLACE blocks" "$dir/aider.md" 0
  measure "listen: 300k apply_patch deletes" "$dir/patch.md" 0
  measure "listen: 300k unified-diff deletes" "$dir/udiff.md" 0
  exit $status
fi
big=$(stat -c %s "$dir/root/big.txt")
measure "200 file_reads of a 4.5 MB file" "$dir/reads.md" "$big"
measure "the same, --json" "$dir/reads.md" "$big" --json
measure "600k small file_read blocks" "$dir/small.md" 6
measure "the same, --json" "$dir/small.md" 6 --json
measure "a million empty blocks" "$dir/empty.md" 0
measure "the same, --json" "$dir/empty.md" 0 --json
measure "300k CML <remove> tasks" "$dir/cml.md" 0
measure "300k CSL SEARCH operations" "$dir/csl.md" 0
measure "300k replacer blocks" "$dir/replacer.md" 0
measure "300k SEARCH/REPLACE blocks" "$dir/aider.md" 0
measure "300k apply_patch deletes" "$dir/patch.md" 0
measure "300k unified-diff deletes" "$dir/udiff.md" 0
exit $status
