// Glob patterns for `glob` and grep's `include`: `*` and `?` (never across
// "/"), `[abc]` / `[a-z]` / `[!x]`, `{a,b}` alternatives, and `**` as a whole
// path component matching zero or more directories. `*` matches names
// starting with "." too.
//
// Example:
//   ASSIGN_OR_RETURN(GlobPattern g, GlobPattern::Compile("src/**/*.{h,cc}"));
//   g.Matches("src/a/b/c.cc");  // true
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_GLOB_PATTERN_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_GLOB_PATTERN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::fs_ops::internal {

class GlobPattern {
 public:
  // Errors (InvalidArgument): empty pattern, absolute pattern, a ".."
  // component, unbalanced "[" or "{", more than 256 brace alternatives.
  static absl::StatusOr<GlobPattern> Compile(absl::string_view pattern);

  // True when `path` ("a/b/c", relative, no leading "./") matches.
  bool Matches(absl::string_view path) const;

  // True when something below directory `dir` ("" for the base itself)
  // could match; false lets a walk skip the directory.
  bool CouldMatchBelow(absl::string_view dir) const;

  // True when the pattern has no "/": it is then matched against names.
  bool NameOnly() const { return name_only_; }

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  bool name_only_ = false;
  std::vector<std::vector<std::string>> alternatives_;  // each: "/"-separated parts
};

// Matches one path component against one pattern component (no "**").
bool MatchComponent(absl::string_view pattern, absl::string_view name);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_GLOB_PATTERN_H_
