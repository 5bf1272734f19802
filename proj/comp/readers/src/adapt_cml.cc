// CML (<tasks>, <write>, <edit>, ...) as an answer::Reader.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/cml-parser/src/cml_parser.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

class CmlSpanReader : public answer::SpanReader {
 public:
  explicit CmlSpanReader(absl::string_view text) : text_(text) {}
  answer::ReadResult Read(const answer::Span& span) override {
    answer::ReadResult out;
    const SpanPiece piece = PieceOf(text_, span);
    cml_parser::ParseOptions where;
    where.first_line = piece.first_line;
    where.first_byte = piece.first_byte;
    const cml_parser::CmlParseResult r = cml_parser::ParseCml(piece.text, {}, where);
    int tasks = 0;
    for (size_t i = 0; i < r.blocks.size(); ++i) {
      const cml_parser::CmlBlock& b = r.blocks[i];
      const size_t first = out.actions.size();
      for (const cml_parser::Task& t : b.tasks()) out.actions.push_back(t.action);
      // The block's refusals are numbered with its actions (a group of
      // its own when it has none); an invalid task fails its group where
      // it stands.
      int group = -1;
      if (b.is_tasks_block()) {
        group = static_cast<int>(out.groups.size());
        out.groups.push_back({answer::GroupPolicy::kFailFast, first, out.actions.size() - first});
      } else {
        if (out.actions.size() > first) group = static_cast<int>(out.groups.size());
        EachItsOwnGroup(out, first);
      }
      for (const cml_parser::CmlError& e : b.errors()) {
        out.diagnostics.push_back({e.task_number > 0 ? absl::StrCat("task-", e.task_number)
                                                     : absl::StrCat("block-", blocks_ + static_cast<int>(i)),
                                   e.code, e.message, e.fix, e.task_number > 0 ? e.line : b.span().first_line,
                                   std::nullopt,
                                   answer::BlockContent(text_, b.span()), group, e.task_number != 0});
      }
      for (const std::string& w : b.warnings()) out.warnings.push_back(w);
      tasks += r.TaskCount(i);
    }
    ShiftLabels(out, "task-", tasks_);
    tasks_ += tasks;
    blocks_ += static_cast<int>(r.blocks.size());
    out.blocks = static_cast<int>(r.blocks.size());
    return out;
  }

 private:
  absl::string_view text_;
  int tasks_ = 0;   // the task numbers the spans read so far used up
  int blocks_ = 0;  // the blocks read so far
};

class CmlReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "cml"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    for (const core::SourceSpan& s : cml_parser::FindCml(text)) spans.push_back({s, true});
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<CmlSpanReader>(text);
  }
  std::string Instructions() const override { return cml_parser::CmlInstructions(); }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeCmlReader() { return std::make_unique<CmlReader>(); }

}  // namespace clada::readers
