// Lazy placeholders: a line such as "// ... existing code ..." that stands
// for code the LLM left out. Written over a real file, it replaces that code
// with nothing; file_write refuses such content (fs_ops.cc).
//
// Example:
//   IsPlaceholderLine("    # ... rest of the file unchanged ...")  // true
//   IsPlaceholderLine("    ...")                     // false: Python's Ellipsis
//   IsPlaceholderLine("const all = {...a, ...b};")   // false: JavaScript spread
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_PLACEHOLDER_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_PLACEHOLDER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace clada::fs_ops::internal {

// True when `line` (without its line break) is a placeholder for omitted
// code: a whole-line comment in any common syntax (#, //, /* */, <!-- -->,
// --, ;, %, {/* */}, (* *), {- -}, a leading *) that holds an ellipsis and
// only placeholder words ("rest of the file unchanged", "existing code",
// "50 lines omitted"), or no ellipsis but says so plainly ("rest
// unchanged", "existing code here"); a line that is only "[...]" or "[…]";
// or a bare line that starts and ends with an ellipsis around such words.
// Code, strings and prose that merely contain "..." are not placeholders.
bool IsPlaceholderLine(absl::string_view line);

struct PlaceholderLine {
  int64_t line_number = 0;  // 1-based
  std::string text;         // the line, without its line break
};

// The first placeholder line of `content` that is not also a line of
// `existing` (a file may hold such a line as its own text), or nullopt.
std::optional<PlaceholderLine> FindPlaceholder(absl::string_view content, absl::string_view existing);

// FindPlaceholder over many parts of one edit's result: the lines of
// `existing` are gathered once (at the first placeholder line seen), not
// once a part. Holds a view of `existing`.
class PlaceholderFinder {
 public:
  explicit PlaceholderFinder(absl::string_view existing) : existing_(existing) {}
  // FindPlaceholder(content, existing).
  std::optional<PlaceholderLine> Find(absl::string_view content);

 private:
  absl::string_view existing_;
  std::optional<absl::flat_hash_set<absl::string_view>> old_lines_;
};

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_PLACEHOLDER_H_
