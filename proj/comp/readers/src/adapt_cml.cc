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
    const bool pack = span.at.end - span.at.begin > kPackSpanBytes;
    where.pack_actions = pack;
    cml_parser::CmlParseResult r = cml_parser::ParseCml(piece.text, {}, where);
    if (pack) {
      for (const cml_parser::PackedTask& t : r.packed) out.packed_lines.push_back(t.line);
      out.packed = ShiftPackedLabels(std::move(r.packed_actions), "task-", tasks_);
    }
    int tasks = 0;
    for (size_t i = 0; i < r.blocks.size(); ++i) {
      const cml_parser::CmlBlock& b = r.blocks[i];
      size_t first = out.actions.size(), count = 0;
      if (pack) {
        first = b.packed_begin();
        count = r.PackedEnd(i) - first;
      } else {
        for (const cml_parser::Task& t : b.tasks()) out.actions.push_back(t.action);
        count = out.actions.size() - first;
      }
      // The block's refusals are numbered with its actions (a group of
      // its own when it has none); an invalid task fails its group where
      // it stands.
      int group = -1;
      if (b.is_tasks_block()) {
        group = static_cast<int>(out.groups.size());
        out.groups.push_back({answer::GroupPolicy::kFailFast, first, count});
      } else {
        if (count > 0) group = static_cast<int>(out.groups.size());
        for (size_t j = first; j < first + count; ++j) out.groups.push_back({answer::GroupPolicy::kIndependent, j, 1});
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

// The CML elements of an answer as spans, found one at a time (a list of
// them took 80 MB at the input limit). Never cut (an unclosed element holds
// what follows, as the reader reads it), but one whose end tag is missing
// is not complete.
class CmlSpanStream : public answer::SpanStream {
 public:
  explicit CmlSpanStream(absl::string_view text) : finder_(text) {}
  bool Next(answer::Span* out) override {
    cml_parser::FoundSpan s;
    if (!finder_.Next(&s)) return false;
    *out = answer::Span{s.span, true, s.closed};
    return true;
  }

 private:
  cml_parser::CmlSpanFinder finder_;
};

class CmlReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "cml"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    return std::make_unique<CmlSpanStream>(text);
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<CmlSpanReader>(text);
  }
  std::string Instructions() const override { return cml_parser::CmlInstructions(); }
  // The seeds' error types, which CSL's report shares with CML's.
  std::optional<std::string> ErrorType(absl::string_view action, absl::string_view code,
                                       const core::Json& data) const override {
    return cml_parser::ErrorType(action, code, data);
  }
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "In CML: add the lines around it to <search>, or set count on <edit> to the number of places"},
        {"not_found", true,
         "In CML: create it with <write path=\"...\">"},
    };
    return LookUpFix(kFixes, code, action);
  }
  std::optional<std::string> SayTerm(absl::string_view name, absl::string_view value) const override {
    static constexpr TermPhrase kTerms[] = {
        {"old_text", "<search>"},
        {"new_text", "<replace>"},
        {"old_text_start", "<search-start>"},
        {"old_text_end", "<search-end>"},
        {"count", "count=\"{value}\""},
        {"file_write", "<write path=\"...\">"},
        {"file_append", "<write append=\"true\">"},
        {"file_replace_text", "<edit>"},
        {"file_delete", "<remove path=\"...\"/>"},
        {"dir_delete", "<remove path=\"...\"/>"},
        {"file_move", "<move from=\"...\" to=\"...\"/>"},
        {"old_path", "the from path"},
        {"new_path", "the to path"},
    };
    return LookUpTerm(kTerms, name, value);
  }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeCmlReader() { return std::make_unique<CmlReader>(); }

}  // namespace clada::readers
