// libFuzzer target for the listener's scan: ScanBlocks (with and without
// the blocks' texts), FindNewBlocks, BuildRunText, StripResultsSections.
//
//   bazel build --config=fuzz //proj/comp/listener:listener_scan_fuzz
//   tools/fuzz.sh 30 //proj/comp/listener:listener_scan_fuzz
//
// Besides crashes and sanitizer reports it checks what the scan promises:
// blocks in file order, their lines inside the text, each block's text
// within its lines and its key that of its id and text; the scan without
// texts finds the same blocks and keys; an empty state finds every key once;
// the run text keeps the blocks' lines and never has more lines than the
// text (and the one line saying the file is not quoted).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/line_starts.h"
#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/listener/src/listener.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::listener;
  const std::string input(reinterpret_cast<const char*>(data), size);
  absl::string_view text = input;
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
  const clada::core::LineStarts lines(text);
  const int line_count = static_cast<int>(lines.size());

  const std::vector<ScannedBlock> blocks = ScanBlocks(input);
  int previous = 0;
  for (const ScannedBlock& b : blocks) {
    Check(b.start_line >= 1 && b.start_line <= b.end_line && b.end_line <= line_count);
    Check(b.start_line >= previous);
    previous = b.start_line;
    const size_t first = lines.Begin(static_cast<size_t>(b.start_line - 1));
    Check(absl::StrContains(text.substr(first, lines.End(static_cast<size_t>(b.end_line - 1)) - first), b.text));
    Check(b.key == BlockKey(b.dialect, b.text));
  }

  const std::vector<ScannedBlock> bare = ScanBlocks(input, {}, /*with_texts=*/false);
  Check(bare.size() == blocks.size());
  for (size_t i = 0; i < bare.size(); ++i) {
    Check(bare[i].text.empty());
    Check(bare[i].dialect == blocks[i].dialect && bare[i].key == blocks[i].key);
    Check(bare[i].start_line == blocks[i].start_line && bare[i].end_line == blocks[i].end_line);
    Check(bare[i].closed == blocks[i].closed);
  }

  const std::vector<ScannedBlock> fresh = FindNewBlocks(input, ListenState());
  absl::flat_hash_set<std::string> keys;
  for (const ScannedBlock& b : blocks) keys.insert(b.key);
  Check(fresh.size() == keys.size());

  const std::string run = BuildRunText(input, fresh);
  const int run_lines = static_cast<int>(clada::core::LineStarts(run).size());
  Check(run_lines <= std::max(line_count, 0) + 1);
  for (const ScannedBlock& b : fresh) {
    Check(absl::StrContains(run, absl::string_view(b.text).substr(0, b.text.find('\n'))));
  }

  const std::string stripped = StripResultsSections(input);
  Check(stripped.size() <= input.size());
  return 0;
}
