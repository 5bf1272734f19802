// UTF-8 helpers for the block parser. The reference parser works on
// JavaScript strings, so positions it reports count UTF-16 code units and its
// trim() / \s use ECMAScript's whitespace set; these helpers give the same
// answers for UTF-8 text.
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_UTF8_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace clada::sham_parser::internal {

// Whether `s` is well-formed UTF-8 is core::IsValidUtf8. The repair differs
// from core::ToValidUtf8 on purpose: the reference parser runs on Node,
// whose decoder writes one U+FFFD per maximal subpart, not per byte.

// Returns `s` with every ill-formed sequence replaced by U+FFFD, one per
// maximal subpart, as the WHATWG/Node UTF-8 decoder does.
std::string ReplaceInvalidUtf8(absl::string_view s);

// Decodes the code point starting at s[*pos] and advances *pos past it.
// `s` must be well-formed UTF-8 and *pos < s.size().
char32_t DecodeUtf8(absl::string_view s, size_t* pos);

// Appends the UTF-8 encoding of `cp` (a scalar value) to `out`.
void AppendUtf8(char32_t cp, std::string* out);

// Number of UTF-16 code units that the well-formed UTF-8 `s` encodes.
size_t Utf16Length(absl::string_view s);

// ECMAScript WhiteSpace or LineTerminator: what String.prototype.trim()
// removes and what \s matches.
bool IsJsWhitespace(char32_t cp);

// Byte length of the JS whitespace at the start / end of `s`.
size_t LeadingJsWhitespace(absl::string_view s);
size_t TrailingJsWhitespace(absl::string_view s);

// String.prototype.trim / trimStart / trimEnd on UTF-8.
absl::string_view TrimJs(absl::string_view s);
absl::string_view TrimStartJs(absl::string_view s);
absl::string_view TrimEndJs(absl::string_view s);

}  // namespace clada::sham_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_UTF8_H_
