#include "proj/comp/core/src/json_bounded.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace clada::core {

int JsonNestingDepth(absl::string_view text, int stop_at) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stop_at) return deepest;
      }
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return deepest;
}

absl::Status CheckJsonBounds(absl::string_view text, int max_depth, int64_t max_bytes) {
  if (static_cast<int64_t>(text.size()) > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("it is ", text.size(), " bytes, over the limit of ", max_bytes, " bytes"));
  }
  if (JsonNestingDepth(text, max_depth) > max_depth) {
    return absl::InvalidArgumentError(
        absl::StrCat("it nests arrays or objects more than ", max_depth, " levels deep"));
  }
  return absl::OkStatus();
}

absl::Status JsonParseError(const std::exception& e) {
  // what() starts with "[json.exception.parse_error.101] "; the reader
  // needs only the part after it.
  std::string what = e.what();
  size_t close = what.find("] ");
  if (!what.empty() && what[0] == '[' && close != std::string::npos) what = what.substr(close + 2);
  return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", what));
}

}  // namespace clada::core
