#include "proj/comp/listener/src/internal/lines.h"

#include <algorithm>

namespace clada::listener::internal {

std::vector<Line> SplitLines(absl::string_view text) {
  std::vector<Line> lines;
  // Exactly: a listened file of 50 MB can hold millions of lines.
  lines.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) +
                (text.empty() || text.back() == '\n' ? 0 : 1));
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
    Line line;
    line.full = text.substr(pos, end - pos);
    line.content = line.full;
    if (!line.content.empty() && line.content.back() == '\n') line.content.remove_suffix(1);
    if (!line.content.empty() && line.content.back() == '\r') line.content.remove_suffix(1);
    lines.push_back(line);
    pos = end;
  }
  return lines;
}

uint64_t Fnv1a64(absl::string_view data, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace clada::listener::internal
