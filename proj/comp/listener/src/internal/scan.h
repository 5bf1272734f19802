// Scanner internals shared by the public text functions and the watcher.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener::internal {

struct ScanResult {
  std::vector<ScannedBlock> blocks;
  std::vector<bool> in_results;  // per line: inside a results section
};

// The blocks of `text` (split into `lines`) as the grammar parser finds
// them, outside clada's results sections, and which lines those sections
// hold.
// With `with_texts` false, ScannedBlock::text is left empty.
ScanResult ScanLines(absl::string_view text, const std::vector<Line>& lines, bool with_texts = true);

// True when `line` is `marker` exactly, from column 0 (a trailing '\r' is
// not part of Line::content). Only such lines delimit a results section;
// EscapeSummaryLine keeps every body line of a summary from being one.
bool IsMarkerLine(const Line& line, absl::string_view marker);

// One line of a summary's body as written into FILE: each piece of it (the
// line, or its parts between lone '\r's, which some editors break lines at)
// that, trimmed, is a section marker or starts with `#!` gets a '\' before
// its first non-blank character; anything else is kept byte for byte.
std::string EscapeSummaryLine(absl::string_view line);

// The lines of `summary` (a RunReport::summary) that go into a section's
// body: without blank lines at either end, its own leading results marker
// and trailing END marker (trimmed compares). A part of `summary`; "" when
// nothing is left.
absl::string_view SummaryBody(absl::string_view summary);

// The blocks of `all` that `state` has not run, first occurrence of each key.
std::vector<ScannedBlock> FilterNewBlocks(const std::vector<ScannedBlock>& all, const ListenState& state);
// The same, as pointers into `all` (no copies).
std::vector<const ScannedBlock*> NewBlocksOf(const std::vector<ScannedBlock>& all, const ListenState& state);

// BuildRunText of the blocks pointed to.
std::string BuildRunText(absl::string_view file_text, const std::vector<const ScannedBlock*>& blocks);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_SCAN_H_
