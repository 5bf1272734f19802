#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time from a seed
# corpus made of the project's test-data. Exits non-zero on any crash; the
# crashing input is left in $out/<target>/ (add it to the test-data once fixed).
# Without a crash the working directory (its corpora grow to 300 MB) is
# removed, unless it was given as FUZZ_OUT.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]      default: 60 s, every target,
#                                            FUZZ_JOBS (default: cores) at a time
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(
    //proj/comp/sham-parser:sham_parser_fuzz
    //proj/comp/sham-action-parser:parse_sham_response_fuzz
    //proj/comp/fs-ops:text_edit_fuzz
    //proj/comp/hunk-apply:hunk_apply_fuzz
    //proj/comp/apply-patch-reader:apply_patch_reader_fuzz
    //proj/comp/cml-parser:cml_parser_fuzz
    //proj/comp/csl-parser:csl_parser_fuzz
    //proj/comp/aider-reader:aider_reader_fuzz
    //proj/comp/udiff-reader:udiff_reader_fuzz
    //proj/comp/patch-text:patch_text_fuzz
    //proj/comp/mcp:mcp_message_fuzz
    //proj/comp/replacer-reader:replacer_reader_fuzz
    //proj/comp/readers:readers_fuzz
    //proj/comp/listener:listener_scan_fuzz
    //proj:run_json_fuzz
  )
fi

bazel build --config=fuzz "${targets[@]}"
bin_dir=$(bazel info --config=fuzz bazel-bin 2>/dev/null)
out=${FUZZ_OUT:-$(mktemp -d /tmp/clada-fuzz.XXXXXX)}

# Seeds: every answer-shaped input in the test-data (conformance cases,
# execute and security cases, action-parser cases, fs-ops cases, patches).
python3 tools/fuzz_seeds.py "$out/seeds"

# Runs one target; its output goes to $out/<name>/log.txt.
run_target() {
  local t=$1 name=${1##*:}
  local bin=$bin_dir/$(echo "${t#//}" | tr ':' '/')
  mkdir -p "$out/$name/corpus"
  cp -n "$out/seeds/"* "$out/$name/corpus/" 2>/dev/null || true
  (cd "$out/$name" && "$bin" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 corpus >log.txt 2>&1)
}

# FUZZ_JOBS targets at a time (default: one per core).
jobs=${FUZZ_JOBS:-$(nproc)}
status=0
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  pids=()
  for t in "${batch[@]}"; do
    echo "== ${t##*:}: ${seconds}s"
    run_target "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    name=${batch[$k]##*:}
    if ! wait "${pids[$k]}"; then
      status=1
      echo "FAILED: $name crashed; see $out/$name/log.txt and the crash-* file there"
      tail -30 "$out/$name/log.txt"
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$name/log.txt" | sed "s/^/  $name /" || true
  done
done
if ((status == 0)) && [[ -z "${FUZZ_OUT:-}" ]]; then
  rm -rf "$out"
fi
exit "$status"
