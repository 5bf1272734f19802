// Bounded parsing of the JSON files clada reads back (its own state:
// context.json, listen-state.json, allowed-commands.json). Such a file can
// be edited by hand or made by something else; one nested 100,000 levels
// deep crashed clada (issue 17 #10: nlohmann recurses once per level when
// it copies or destroys a value). The nesting depth is measured first, by
// a linear scan that allocates nothing, and the text is parsed only when
// it is within both bounds.
//
// Example:
//   absl::StatusOr<nlohmann::json> doc = clada::core::ParseJsonBounded(text);
//   if (!doc.ok()) return Corrupt(file, doc.status().message());
#ifndef CLADA_PROJ_COMP_CORE_SRC_JSON_BOUNDED_H_
#define CLADA_PROJ_COMP_CORE_SRC_JSON_BOUNDED_H_

#include <cstddef>
#include <cstdint>
#include <exception>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace clada::core {

// Deep enough for every file clada writes (they nest 2 or 3 levels).
inline constexpr int kMaxStateJsonDepth = 64;
inline constexpr int64_t kMaxStateJsonBytes = 64 * 1024 * 1024;

// The deepest nesting of arrays and objects in `text`, brackets inside
// strings not counted. Stops counting past `stop_at` (returns it + 1).
int JsonNestingDepth(absl::string_view text, int stop_at);

// Checks that `text` is at most `max_bytes` long and nests at most
// `max_depth` levels. Errors: InvalidArgument "it is N bytes, over the
// limit of M bytes" or "it nests arrays or objects more than D levels deep".
absl::Status CheckJsonBounds(absl::string_view text, int max_depth, int64_t max_bytes);

// "invalid JSON: <parser's words>" for a parse error of nlohmann's.
absl::Status JsonParseError(const std::exception& e);

// Parses `text` as JSON (`JsonT`: nlohmann::json or nlohmann::ordered_json)
// when it is within both bounds. Errors: InvalidArgument whose message says
// what is wrong without naming a file (callers add the file and the fix):
// those of CheckJsonBounds, or "invalid JSON: <parser's words>".
template <typename JsonT = nlohmann::json>
absl::StatusOr<JsonT> ParseJsonBounded(absl::string_view text, int max_depth = kMaxStateJsonDepth,
                                       int64_t max_bytes = kMaxStateJsonBytes) {
  absl::Status bounds = CheckJsonBounds(text, max_depth, max_bytes);
  if (!bounds.ok()) return bounds;
  try {
    return JsonT::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    return JsonParseError(e);
  }
}

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_JSON_BOUNDED_H_
