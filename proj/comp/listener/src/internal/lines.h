// Line splitting shared by the scanner and the text builders.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

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

// Where each line of a text starts: 4 bytes a line, where a vector of
// Line takes 32 (a listened file of 50 MB can hold millions of lines). The
// text must outlive the index and be under 4 GiB (the listener reads at
// most 50 MB).
class LineIndex {
 public:
  explicit LineIndex(absl::string_view text);
  size_t size() const { return starts_.size(); }
  // Byte offsets of line i (0-based): its start, and its end after its '\n'.
  size_t begin(size_t i) const { return starts_[i]; }
  size_t end(size_t i) const { return i + 1 < starts_.size() ? starts_[i + 1] : text_.size(); }
  // Line i with its '\n', and without it (nor a '\r' before it).
  absl::string_view full(size_t i) const { return text_.substr(begin(i), end(i) - begin(i)); }
  absl::string_view content(size_t i) const;
  Line line(size_t i) const { return Line{full(i), content(i)}; }
  // Lines first..last (0-based, inclusive) as one view of the text.
  absl::string_view range(size_t first, size_t last) const {
    return text_.substr(begin(first), end(last) - begin(first));
  }

 private:
  absl::string_view text_;
  std::vector<uint32_t> starts_;
};

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_LINES_H_
