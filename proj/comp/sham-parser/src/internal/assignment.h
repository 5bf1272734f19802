// Assignment lines inside a block: `key = "json string"` and
// `key = <<'DELIMITER'`, plus the key rules.
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_ASSIGNMENT_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_ASSIGNMENT_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace clada::sham_parser::internal {

// Longest key, in UTF-16 code units.
inline constexpr size_t kMaxKeyLength = 256;

struct AssignmentError {
  const char* code = nullptr;  // EMPTY_KEY, UNCLOSED_QUOTE, INVALID_VALUE, ...
  // The offending bytes of the line, [begin, end).
  size_t begin = 0;
  size_t end = 0;
  // When set, the length to report instead of the span's UTF-16 length.
  std::optional<size_t> fixed_length;
};

struct Assignment {
  enum class Kind { kKeyValue, kHeredoc, kError };
  Kind kind = Kind::kError;
  size_t equal_pos = 0;   // the first '=' of the line
  absl::string_view key;  // text before the first '=', trimmed
  std::string value;  // kKeyValue, and the quoted value before TRAILING_CONTENT
  absl::string_view delimiter;  // kHeredoc
  AssignmentError error;        // kError
};

// Parses one line that contains '=' (a line of a block, without its line
// terminator). Mirrors the reference's checks and their order: `=>` where the
// first '=' should be, `:=` anywhere, empty key, empty value, quoted value
// (JSON string rules), heredoc opener, anything else.
Assignment ParseAssignmentLine(absl::string_view line);

// Decodes a JSON string literal the way JSON.parse does. `s[0]` must be '"'.
// Returns the index of the closing quote found by an escape-aware scan, or
// npos when the string is not closed on this line. When closed, *valid says
// whether JSON.parse would accept it and *decoded holds the value. A lone
// surrogate escape decodes to U+FFFD (JavaScript would keep it; UTF-8 cannot).
size_t DecodeQuotedString(absl::string_view s, std::string* decoded,
                          bool* valid);

// Why `key` is not a valid key, as the reference words it, or nullopt.
// Keys start with a letter or '_' and go on with letters, digits and '_'
// (Unicode categories L and N), at most kMaxKeyLength UTF-16 units.
std::optional<std::string> KeyProblem(absl::string_view key);

}  // namespace clada::sham_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_ASSIGNMENT_H_
