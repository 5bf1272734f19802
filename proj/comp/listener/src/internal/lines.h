// Line splitting shared by the scanner and the text builders.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace clada::listener::internal {

struct Line {
  absl::string_view full;     // with its '\n' when it has one
  absl::string_view content;  // without '\n' and a '\r' before it
};

// Splits at '\n'. A final line without '\n' counts; an empty text has no lines.
std::vector<Line> SplitLines(absl::string_view text);

// 64-bit FNV-1a.
uint64_t Fnv1a64(absl::string_view data, uint64_t seed = 14695981039346656037ull);

// A block key as the listener holds it in memory (ListenState's sets, the
// watcher's counts): 8 bytes a block, not a string's 32 and more; two keys
// of one chat that hash alike are not a concern at 2^-64. Seeded per
// process: never written to a file.
inline size_t KeyHash(absl::string_view key) { return absl::Hash<absl::string_view>{}(key); }

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
