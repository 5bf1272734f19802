// UTF-8 checks and the one repair every string takes before it goes into
// JSON: nlohmann's dump() throws type_error 316 on ill-formed UTF-8, and an
// answer (a block ID, a path, a file's bytes) may hold any bytes.
//
// Example:
//   core::Json doc = BuildReport(result);
//   core::MakeJsonValidUtf8(&doc);  // dump() cannot throw on bad bytes now
//   out << doc.dump(2);
#ifndef CLADA_PROJ_COMP_CORE_SRC_UTF8_H_
#define CLADA_PROJ_COMP_CORE_SRC_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace clada::core {

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code
// points above U+10FFFF). On false, `*bad_offset` (if given) is the offset
// of the first byte of the first ill-formed sequence.
bool IsValidUtf8(absl::string_view text, size_t* bad_offset = nullptr);

// The length (1..4) of the well-formed UTF-8 sequence that starts at
// `text[offset]`, or 0 when that byte starts none (a continuation byte, an
// overlong form, a surrogate, a sequence cut by the end of `text`):
// ToValidUtf8 replaces that one byte with U+FFFD. `offset` < text.size().
size_t Utf8SequenceLength(absl::string_view text, size_t offset);

// `text` with every ill-formed byte replaced by U+FFFD. Returns a copy of
// `text` unchanged when it is already valid.
std::string ToValidUtf8(absl::string_view text);

// The longest prefix of `text` that is at most `max_bytes` long and does not
// end inside a multi-byte character.
absl::string_view Utf8Prefix(absl::string_view text, size_t max_bytes);

// The length of `text` without a multi-byte sequence at its end that a cut
// left incomplete (its lead byte announces more bytes than follow): what
// remains of the head of a stream cut at a byte count.
size_t Utf8WithoutIncompleteTail(absl::string_view text);

// How many continuation bytes (at most 3) open `text`: the rest of a
// character whose start a cut dropped (the tail kept of a stream).
size_t Utf8LeadingContinuations(absl::string_view text);

// The UTF-8 byte order mark some editors save at a file's start.
inline constexpr absl::string_view kUtf8Bom = "\xEF\xBB\xBF";

// `text` without a byte order mark at its start: it would hide a block
// header on an answer's first line.
absl::string_view WithoutUtf8Bom(absl::string_view text);

// Removes a byte order mark at the start of `*text`; true when there was one.
bool DropUtf8Bom(std::string* text);

// Repairs, in place, every string of `value` and every key of its objects
// with ToValidUtf8, in a loop (no recursion, whatever the nesting). Two keys
// of one object that differ only in bad bytes become one, the later value
// kept. Returns the number of strings and keys that were repaired.
size_t MakeJsonValidUtf8(nlohmann::ordered_json* value);

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_UTF8_H_
