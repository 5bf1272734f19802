// Line splitting shared by the scanner and the text builders.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"

namespace clada::listener::internal {

struct Line {
  absl::string_view full;     // with its '\n' when it has one
  absl::string_view content;  // without '\n' and a '\r' before it
};

// Splits at '\n'. A final line without '\n' counts; an empty text has no lines.
std::vector<Line> SplitLines(absl::string_view text);

// The line of `text` that starts at `*pos` (as SplitLines makes it), `*pos`
// moved past it: a reader that needs only the first lines of a file of
// millions makes no table of them. False, and nothing moved, at the end.
bool NextLine(absl::string_view text, size_t* pos, Line* line);

// 64-bit FNV-1a.
uint64_t Fnv1a64(absl::string_view data, uint64_t seed = 14695981039346656037ull);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
