// Scanner internals shared by the public text functions and the watcher.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/readers/src/all_readers.h"

namespace clada::listener::internal {

// One block of a scan, 32 bytes: where it is and its key, no copy of its
// text (a listened file of 50 MB can hold a million blocks; a ScannedBlock
// of one takes over 140 bytes).
struct BlockSpan {
  uint64_t key = 0;                  // KeyCode(BlockKey(dialect, text)); 0 until the scan's end
  uint32_t begin = 0, end = 0;       // the block's lines: bytes [begin, end) of the scanned text
  int start_line = 0, end_line = 0;  // 1-based, as ScannedBlock's
  uint32_t dialect = 0;              // its reader: an index into Scan::dialects
  bool closed = false;               // ScannedBlock::closed
};

// The blocks of a text, in file order, and the names of their dialects.
struct Scan {
  std::vector<BlockSpan> blocks;
  std::vector<std::string> dialects;  // the registry's readers' names, in registry order
  absl::string_view dialect(const BlockSpan& b) const { return dialects[b.dialect]; }
};

// What ScanBlocks finds, as spans with their keys: the watcher's scan. The
// offsets are of `text` after a leading byte order mark.
Scan ScanSpans(absl::string_view text, const readers::ReaderOptions& options);

// True when `line` is `marker` exactly, from column 0 (a trailing '\r' is
// not part of Line::content). Only such lines delimit a results section;
// EscapeSummaryLine keeps every body line of a summary from being one.
bool IsMarkerLine(const Line& line, absl::string_view marker);

// One line of a summary's body as written into FILE: each piece of it (the
// line, or its parts between lone '\r's, which some editors break lines at)
// that, trimmed, is a section marker or starts with `#!` gets a '\' before
// its first non-blank character; anything else is kept byte for byte.
std::string EscapeSummaryLine(absl::string_view line);

// The listener's own section at the top of `text`: after blank lines, the
// exact results marker line, a line starting with kSummaryPrefix, through
// the next exact END line (its line break included), as a part of `text`;
// nullopt when the top holds none. Reads only as far as the section.
std::optional<absl::string_view> TopSection(absl::string_view text);

// The lines of `summary` (a RunReport::summary) that go into a section's
// body: without blank lines at either end, its own leading results marker
// and trailing END marker (trimmed compares). A part of `summary`; "" when
// nothing is left.
absl::string_view SummaryBody(absl::string_view summary);

// The blocks of `all` that `state` has not run, first occurrence of each key.
std::vector<ScannedBlock> FilterNewBlocks(const std::vector<ScannedBlock>& all, const ListenState& state);
// The same for the watcher's scan, as pointers into `all` (no copies).
std::vector<const BlockSpan*> NewBlocksOf(const std::vector<BlockSpan>& all, const ListenState& state);

// Lines first..last of a text, 1-based and inclusive.
struct LineSpan {
  int first = 0, last = 0;
};

// BuildRunText of the blocks on these lines.
std::string BuildRunText(absl::string_view file_text, const std::vector<LineSpan>& blocks);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_
