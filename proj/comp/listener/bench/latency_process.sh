#!/usr/bin/env bash
# Save -> write-back latency of the real `clada listen` process: builds
# //proj:clada with -c opt, starts `clada listen FILE --root DIR --no-git` on
# a temp directory, then N times saves FILE (truncate-and-write, as nano or
# VS Code do) with an answer holding one new file_write block and times
# until the block's line is in the summary at the top of FILE. Prints
# min / median / p90 / max in ms.
#
# Unlike latency.sh (Google Benchmark, Listen() on a thread with a callback
# that does nothing), this includes the orchestrator running the action:
# parse, validate, one file_write, the report.
#
# Usage: latency_process.sh [N]          (default 50 saves)
#   DEBOUNCE_MS=0 latency_process.sh     (default: the listener's 30 ms)
#   LATENCY_DIR=/some/disk/dir           (default: a new dir under /tmp)
set -euo pipefail
n="${1:-50}"
cd "$(dirname "$0")/../../../.."

bazel build -c opt //proj:clada >&2
work="$(mktemp -d "${LATENCY_DIR:-/tmp}/clada-latency-XXXXXX")"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
# A private copy: other builds may replace bazel-bin while this runs.
cp "$(bazel info -c opt bazel-bin 2>/dev/null)/proj/clada" "$work/clada"
mkdir "$work/root" "$work/bin"

debounce=()
if [[ -n "${DEBOUNCE_MS:-}" ]]; then debounce=(--debounce "$DEBOUNCE_MS"); fi
# PATH without clipboard tools and no display: the figure is the listener's
# and the orchestrator's, not a clipboard tool's start-up.
env -i PATH="$work/bin" HOME="$work" "$work/clada" listen "$work/root/answer.md" \
  --root "$work/root" --no-git "${debounce[@]}" 2>"$work/stderr" &
pid=$!

python3 - "$work/root/answer.md" "$work/stderr" "$n" <<'EOF'
import statistics, sys, time

file, stderr, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

def wait_for(cond, limit=10.0):
    deadline = time.monotonic() + limit
    while not cond():
        if time.monotonic() > deadline:
            sys.exit("timed out; listener stderr:\n" + open(stderr).read())
        time.sleep(0.0002)

def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""

wait_for(lambda: "clada listen: watching" in read(stderr))
times = []
for i in range(n):
    bid = "b%02d" % (i % 100)  # an id seen before is fine: the text differs
    answer = ("Answer %d:\n#!SHAM [@three-char-SHA-256: %s]\naction = \"file_write\"\n"
              "path = \"out/%d.txt\"\ncontent = \"%d\"\n#!END_SHAM_%s\n" % (i, bid, i, i, bid))
    want = "%s \u2705 file_write out/%d.txt" % (bid, i)
    start = time.perf_counter()
    with open(file, "w") as f:  # truncate and write, then close: IN_CLOSE_WRITE
        f.write(answer)
    wait_for(lambda: want in read(file).split("=== END ===")[0])
    times.append((time.perf_counter() - start) * 1000)
    time.sleep(0.1)  # let the write-back's own event pass

times.sort()
p90 = times[min(len(times) - 1, int(round(0.9 * len(times))) - 1)]
print("clada listen save -> write-back, %d saves: min %.1f ms, median %.1f ms, p90 %.1f ms, max %.1f ms"
      % (n, times[0], statistics.median(times), p90, times[-1]))
EOF
