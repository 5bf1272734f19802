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

// 64-bit FNV-1a.
uint64_t Fnv1a64(absl::string_view data, uint64_t seed = 14695981039346656037ull);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
