// Reads the parts of a BUILD.bazel file that xd5 compares with doc/API.md.
//
// This is not a Starlark interpreter. It tokenizes the file, finds every call
// at the top level (`cc_library(...)`, `native.cc_library(...)`, `load(...)`)
// and keeps each call's keyword arguments as a small expression tree. Lists of
// string literals (and `+` of such lists) are all xd5 evaluates; glob(),
// select(), variables and comprehensions are kept so that a caller can say
// which construct it met instead of guessing what it expands to.
//
// Example:
//   ASSIGN_OR_RETURN(std::vector<RuleCall> rules, ParseBuildFile(text));
//   const RuleCall* lib = FindRule(rules, "cc_library", "fs-ops");
//   absl::StatusOr<std::vector<std::string>> deps = StringListAttr(*lib,
//   "deps");

#ifndef CLADA_TOOLS_XD5_SRC_BUILD_FILE_H_
#define CLADA_TOOLS_XD5_SRC_BUILD_FILE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::xd5 {

// One Starlark expression, as far as xd5 needs to understand it.
struct Expr {
  enum class Kind {
    kString,  // text: the decoded value (adjacent literals joined)
    kList,    // items: the elements
    kCall,    // text: callee ("glob", "native.cc_library"); items: positional
              // args; kwargs: keyword args
    kName,    // text: an identifier or dotted name, e.g. "COPTS"
    kPlus,    // items: the operands of a chain of `+`
    kOther,   // text: what it is, e.g. "list comprehension", "number"
  };
  Kind kind = Kind::kOther;
  std::string text;
  std::vector<Expr> items;
  std::vector<std::pair<std::string, Expr>> kwargs;
  int line = 0;  // 1-based line where the expression starts
};

// A call at the top level of a BUILD file: a rule, macro or load().
struct RuleCall {
  std::string kind;  // the callee as written, e.g. "cc_library"
  int line = 0;      // 1-based line of the callee
  std::vector<std::pair<std::string, Expr>> kwargs;

  // The keyword argument ATTR, or nullptr.
  const Expr* Find(absl::string_view attr) const;
  // The `name` argument when it is a string literal, else "".
  std::string Name() const;
};

// Parses TEXT. Fails with InvalidArgument ("line N: ...") on an unterminated
// string or unbalanced brackets; anything else it does not understand is kept
// as Expr::Kind::kOther.
absl::StatusOr<std::vector<RuleCall>> ParseBuildFile(absl::string_view text);

// The first call whose callee is KIND (or ends in "." + KIND, as in
// native.cc_library) and whose name is NAME; nullptr if none.
const RuleCall* FindRule(const std::vector<RuleCall>& rules,
                         absl::string_view kind, absl::string_view name);

// The first call of any kind named NAME; nullptr if none.
const RuleCall* FindAnyRule(const std::vector<RuleCall>& rules,
                            absl::string_view name);

// The value of attribute ATTR of RULE as a list of strings. A missing
// attribute is an empty list. Fails with Unimplemented when the value is not
// built from list and string literals; the message names the construct, e.g.
// "line 7: hdrs of \"x\" uses glob(), which xd5 does not evaluate; ...".
absl::StatusOr<std::vector<std::string>> StringListAttr(const RuleCall& rule,
                                                        absl::string_view attr);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_BUILD_FILE_H_
