// UTF-8 checks for fs-ops: text edits refuse files that are not UTF-8 text,
// and every string handed back to the caller must be valid UTF-8 (JSON).
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_UTF8_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace clada::fs_ops::internal {

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code
// points above U+10FFFF). On false, `*bad_offset` (if given) is the offset
// of the first byte of the first ill-formed sequence.
bool IsValidUtf8(absl::string_view text, size_t* bad_offset = nullptr);

// `text` with every ill-formed sequence replaced by U+FFFD. Returns a copy
// of `text` unchanged when it is already valid.
std::string ToValidUtf8(absl::string_view text);

// The longest prefix of `text` that is at most `max_bytes` long and does not
// end inside a multi-byte character.
absl::string_view Utf8Prefix(absl::string_view text, size_t max_bytes);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_UTF8_H_
