// Where each line of a text starts, 4 bytes a line (8 for a text of 4 GiB
// or more): a reader that goes back and forth over an answer's lines asks
// for line i's bytes without a table of views (32 to 48 bytes a line) of a
// million short lines.
//
// Example:
//   core::LineStarts lines(answer);
//   for (size_t i = 0; i < lines.size(); ++i) Read(lines.Raw(i));  // with its '\n'
#ifndef CLADA_PROJ_COMP_CORE_SRC_LINE_STARTS_H_
#define CLADA_PROJ_COMP_CORE_SRC_LINE_STARTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/newlines.h"

namespace clada::core {

class LineStarts {
 public:
  // `text` must outlive this.
  explicit LineStarts(absl::string_view text) : text_(text) {
    if (text.size() <= UINT32_MAX) {
      Fill(small_);
    } else {
      Fill(large_);
    }
  }
  // Lines: a last line without '\n' counts; an empty text has none.
  size_t size() const { return (large_.empty() ? small_.size() : large_.size()) - 1; }
  size_t Begin(size_t i) const { return large_.empty() ? small_[i] : large_[i]; }
  size_t End(size_t i) const { return Begin(i + 1); }  // after its '\n'
  absl::string_view Raw(size_t i) const { return text_.substr(Begin(i), End(i) - Begin(i)); }
  // Line i without its '\n' and a '\r' before it.
  absl::string_view Content(size_t i) const {
    absl::string_view c = Raw(i);
    if (!c.empty() && c.back() == '\n') c.remove_suffix(1);
    if (!c.empty() && c.back() == '\r') c.remove_suffix(1);
    return c;
  }

 private:
  template <typename Offset>
  void Fill(std::vector<Offset>& starts) {
    starts.reserve(CountNewlines(text_) + 2);
    size_t pos = 0;
    while (pos < text_.size()) {
      starts.push_back(static_cast<Offset>(pos));
      const size_t nl = text_.find('\n', pos);
      pos = nl == absl::string_view::npos ? text_.size() : nl + 1;
    }
    starts.push_back(static_cast<Offset>(text_.size()));
  }

  absl::string_view text_;
  std::vector<uint32_t> small_;  // a text under 4 GiB
  std::vector<size_t> large_;    // else
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_LINE_STARTS_H_
