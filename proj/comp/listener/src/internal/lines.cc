#include "proj/comp/listener/src/internal/lines.h"

namespace clada::listener::internal {

std::vector<Line> SplitLines(absl::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0;
  Line line;
  while (NextLine(text, &pos, &line)) lines.push_back(line);
  return lines;
}

bool NextLine(absl::string_view text, size_t* pos, Line* line) {
  if (*pos >= text.size()) return false;
  const size_t nl = text.find('\n', *pos);
  const size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
  line->full = text.substr(*pos, end - *pos);
  line->content = line->full;
  if (!line->content.empty() && line->content.back() == '\n') line->content.remove_suffix(1);
  if (!line->content.empty() && line->content.back() == '\r') line->content.remove_suffix(1);
  *pos = end;
  return true;
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
