// Where a text being parsed stands in a larger text (an answer).
//
// Example:
//   clada::patch_text::ParseDiffs(piece, {/*first_line=*/41, /*first_byte=*/5000}, on_file);
#ifndef CLADA_PROJ_COMP_PATCH_TEXT_SRC_TEXT_ORIGIN_H_
#define CLADA_PROJ_COMP_PATCH_TEXT_SRC_TEXT_ORIGIN_H_

#include <cstddef>

namespace clada::patch_text {

// A piece of a larger text whose first line is that text's line
// `first_line` and whose first byte (the start of a line) is its byte
// `first_byte`. Every line and byte a parser gives (spans, hunks' source
// lines, errors, the line numbers in messages and warnings) is then the
// larger text's, without reading (or copying) what comes before the piece.
struct TextOrigin {
  int first_line = 1;
  size_t first_byte = 0;
  // More of the larger text follows the piece (the next block): a parser
  // that runs out of the piece inside a block says the block stops there,
  // not that the text ends.
  bool cut = false;
};

}  // namespace clada::patch_text

#endif  // CLADA_PROJ_COMP_PATCH_TEXT_SRC_TEXT_ORIGIN_H_
