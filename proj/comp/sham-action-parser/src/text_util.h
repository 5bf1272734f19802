// Text helpers for messages the LLM reads: UTF-8 checks, short quoting of
// arbitrary values, and the edit distance behind "did you mean" suggestions.
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_TEXT_UTIL_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_TEXT_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/utf8.h"

namespace clada::sham_action_parser::internal {

// UTF-8 checks and repair are core's (one byte of U+FFFD per ill-formed
// byte), named here for this component's messages.
using core::IsValidUtf8;
using core::ToValidUtf8;

// `text` in double quotes for an error message: valid UTF-8, newlines, tabs,
// CR and NUL written as \n, \t, \r and \0, every other control character
// (and DEL) as \u00XX, cut to about `max_chars` characters with "...".
std::string QuoteForMessage(absl::string_view text, size_t max_chars = 60);

enum class IntegerParse { kOk, kNotInteger, kOutOfRange };

// Parses an optional sign and one or more decimal digits, nothing else (no
// spaces, no "0x", no exponent): "3" and "-12" parse, "3abc" and "" do not.
IntegerParse ParseDecimalInteger(absl::string_view text, int64_t* value);

// Levenshtein distance between two ASCII-case-folded strings.
size_t EditDistance(absl::string_view a, absl::string_view b);

}  // namespace clada::sham_action_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_TEXT_UTIL_H_
