// Line-addressed reads and edits: "N" / "N-M" ranges (1-based, inclusive),
// numbered listings, and replacing whole lines without disturbing the line
// breaks around them.
//
// Example:
//   ASSIGN_OR_RETURN(LineRange r, ParseLineRange("2-3"));
//   ASSIGN_OR_RETURN(EditResult e, ReplaceLines("a\nb\nc\n", r, "B", "f.txt"));
//   // e.content == "a\nB\n"
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_LINE_RANGE_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_LINE_RANGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/fs-ops/src/text_edit.h"

namespace clada::fs_ops::internal {

struct LineRange {
  int64_t first = 0;  // 1-based
  int64_t last = 0;   // inclusive, >= first
};

// Parses "N" or "N-M" (spaces around the numbers are allowed).
// Errors (InvalidArgument): not a number or range ("abc"), zero, negative,
// end before start ("5-3"), absurdly large.
absl::StatusOr<LineRange> ParseLineRange(absl::string_view spec);

// Where each line of a text lies. A text of n line breaks has n lines, plus
// one when it does not end with a break; the empty text has none.
struct LineTable {
  std::vector<size_t> begin;        // first byte of the line
  std::vector<size_t> content_end;  // end of its content (before "\r\n" / "\n")
  std::vector<size_t> end;          // end of its line break
  int64_t size() const { return static_cast<int64_t>(begin.size()); }
};
LineTable IndexLines(absl::string_view text);

struct NumberedText {
  std::string content;  // "  9: text" lines joined by "\n", no final break
  int64_t first = 0;    // lines shown (0, 0 when none)
  int64_t last = 0;
  int64_t total_lines = 0;
  std::vector<std::string> warnings;
};

// Numbers lines `range` (all lines when absent) of `text`, right-aligning
// the numbers to the widest shown. A range ending past the last line is cut
// there with a warning. Errors: FailedPrecondition when the range starts
// past the last line (the message says how many lines there are).
absl::StatusOr<NumberedText> NumberLines(absl::string_view text, std::optional<LineRange> range,
                                         absl::string_view delimiter, absl::string_view label);

// Replaces lines `range` with `new_content`. The replaced lines' final line
// break is kept (one trailing break of new_content is folded into it), new
// line breaks follow the replaced lines' style, and an empty new_content
// deletes the lines (a file without a final newline keeps none).
// Errors: FailedPrecondition when the range is out of the file.
absl::StatusOr<EditResult> ReplaceLines(absl::string_view text, LineRange range, absl::string_view new_content,
                                        absl::string_view label);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_LINE_RANGE_H_
