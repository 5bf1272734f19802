// Where each line of a text starts, 8 bytes a line: a reader that goes
// back and forth over an answer's lines asks for line i's bytes without a
// table of views (48 bytes a line) of a million short lines.
//
// Example:
//   core::LineStarts lines(answer);
//   for (size_t i = 0; i < lines.size(); ++i) Read(lines.Raw(i));  // with its '\n'
#ifndef CLADA_PROJ_COMP_CORE_SRC_LINE_STARTS_H_
#define CLADA_PROJ_COMP_CORE_SRC_LINE_STARTS_H_

#include <cstddef>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/newlines.h"

namespace clada::core {

class LineStarts {
 public:
  // `text` must outlive this.
  explicit LineStarts(absl::string_view text) : text_(text) {
    starts_.reserve(CountNewlines(text) + 2);
    size_t pos = 0;
    while (pos < text.size()) {
      starts_.push_back(pos);
      const size_t nl = text.find('\n', pos);
      pos = nl == absl::string_view::npos ? text.size() : nl + 1;
    }
    starts_.push_back(text.size());
  }
  // Lines: a last line without '\n' counts; an empty text has none.
  size_t size() const { return starts_.size() - 1; }
  size_t Begin(size_t i) const { return starts_[i]; }
  size_t End(size_t i) const { return starts_[i + 1]; }  // after its '\n'
  absl::string_view Raw(size_t i) const { return text_.substr(Begin(i), End(i) - Begin(i)); }

 private:
  absl::string_view text_;
  std::vector<size_t> starts_;
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_LINE_STARTS_H_
