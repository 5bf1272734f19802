// Where a block stands in the answer, the same for every dialect's reader.
//
// Example:
//   const clada::core::SourceSpan& s = edit.span;  // from any reader
//   absl::string_view block = answer.substr(s.begin, s.end - s.begin);
#ifndef CLADA_PROJ_COMP_CORE_SRC_SOURCE_SPAN_H_
#define CLADA_PROJ_COMP_CORE_SRC_SOURCE_SPAN_H_

#include <cstddef>

namespace clada::core {

// Bytes [begin, end) of the answer (line boundaries, the last line's break
// included) and the 1-based first and last lines they cover.
struct SourceSpan {
  size_t begin = 0, end = 0;
  int first_line = 0, last_line = 0;
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_SOURCE_SPAN_H_
