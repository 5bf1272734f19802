#!/usr/bin/env bash
# One file's patch applied by clada against the reference tools, each a
# whole process run with hyperfine (the file restored before each, untimed):
#   - an apply_patch envelope: `clada run --no-git` against the Codex
#     binary's `codex --codex-run-as-apply-patch "<patch>"`, when the npm
#     package @openai/codex is installed (never installed by this script);
#   - a unified diff: `clada run --no-git` against `git apply`.
# The file has 100,000 lines (4.7 MB); HUNKS lines are changed, spread evenly
# (default 500: the patch is passed to Codex as one argument, and Linux caps
# one argument at 128 KiB, about 650 such hunks). Prints min and median of
# each and the ratio of the medians (above 1: clada is slower).
#   tools/bench-apply.sh [HUNKS] [RUNS]
# Codex is looked for in $CODEX_BIN, then in the npm cache directory
#   npm install --prefix "${XDG_CACHE_HOME:-$HOME/.cache}/clada-bench/codex" @openai/codex
# (its native binary is called, not the Node launcher: the launcher's own
# start-up would be timed too), then on PATH. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
hunks=${1:-500}
runs=${2:-20}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
bazel build -c opt //proj:clada
clada=$PWD/bazel-bin/proj/clada
cache=${XDG_CACHE_HOME:-$HOME/.cache}/clada-bench/codex
codex=${CODEX_BIN:-}
if [[ -z "$codex" ]]; then
  codex=$(find "$cache/node_modules/@openai" -path '*/vendor/*/bin/codex' -type f 2>/dev/null | head -1 || true)
fi
if [[ -z "$codex" ]] && command -v codex >/dev/null; then codex=$(command -v codex); fi
dir=$(mktemp -d /tmp/clada-bench-apply.XXXXXX)
trap 'rm -rf "$dir"' EXIT
tools/bench-patch-run.sh --inputs "$dir" "$hunks"
mkdir -p "$dir/codex" "$dir/git"
# With -N hyperfine runs the prepare command without a shell too: a script.
printf '#!/bin/sh\nfor d in root codex git; do cp %s/big.txt %s/$d/big.txt; done\n' "$dir" "$dir" > "$dir/restore.sh"
chmod +x "$dir/restore.sh"
restore=$dir/restore.sh
# Each tool must really apply its patch (every changed line says "cat").
check() {
  local file=$1 who=$2
  [[ $(grep -c "brown cat" "$file") == "$hunks" ]] || { echo "bench-apply: $who did not apply the patch" >&2; exit 1; }
}
"$restore"
"$clada" run "$dir/patch.md" --root "$dir/root" --no-git --quiet >/dev/null 2>&1 && check "$dir/root/big.txt" "clada (apply_patch)"
"$restore"
"$clada" run "$dir/diff.md" --root "$dir/root" --no-git --quiet >/dev/null 2>&1 && check "$dir/root/big.txt" "clada (diff)"
(cd "$dir/git" && git apply -p1 "$dir/diff.md") && check "$dir/git/big.txt" "git apply"
commands=(-n "clada apply_patch" "$clada run $dir/patch.md --root $dir/root --no-git --quiet")
if [[ -n "$codex" ]]; then
  (cd "$dir/codex" && "$codex" --codex-run-as-apply-patch "$(cat "$dir/patch.md")" >/dev/null) && check "$dir/codex/big.txt" "codex"
  # hyperfine -N splits its command at blanks: a wrapper passes the patch as one argument.
  printf '#!/bin/sh\ncd %s && exec %s --codex-run-as-apply-patch "$(cat %s)" >/dev/null\n' \
    "$dir/codex" "$codex" "$dir/patch.md" > "$dir/codex.sh"
  chmod +x "$dir/codex.sh"
  commands+=(-n "codex apply_patch" "$dir/codex.sh")
  # The wrapper's own shell, timed alone, is taken off codex's figure.
  printf '#!/bin/sh\ncd %s && exec true "$(cat %s)"\n' "$dir/codex" "$dir/patch.md" > "$dir/floor.sh"
  chmod +x "$dir/floor.sh"
  commands+=(-n "sh wrapper alone" "$dir/floor.sh")
else
  echo "bench-apply: no Codex binary (npm install --prefix $cache @openai/codex); apply_patch is timed for clada only" >&2
fi
commands+=(-n "clada diff" "$clada run $dir/diff.md --root $dir/root --no-git --quiet")
commands+=(-n "git apply" "git -C $dir/git apply -p1 $dir/diff.md")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N --warmup 3 --runs "$runs" --prepare "$restore" --export-json "$dir/results.json" "${commands[@]}" >/dev/null
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -n "$codex" ]] && echo "codex: $("$codex" --version 2>/dev/null | head -1)"
python3 - "$dir/results.json" "$hunks" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print("one file of 100,000 lines, %s hunks:" % sys.argv[2])
for name, r in results.items():
    print("  %-18s min %6.1f ms  median %6.1f ms" % (name, min(r["times"]) * 1e3, r["median"] * 1e3))
def ratio(a, b, floor=None):
    if a not in results or b not in results:
        return
    ours, theirs = results[a]["median"], results[b]["median"]
    if floor in results:
        theirs -= results[floor]["median"]
    print("  %s / %s (median): %.2f" % (a, b + (" minus its wrapper" if floor in results else ""), ours / theirs))
ratio("clada apply_patch", "codex apply_patch", "sh wrapper alone")
ratio("clada diff", "git apply")
PY
