// CSL (<---WRITE file="..."---> ... <---END--->) as an answer::Reader.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/cml-parser/src/cml_parser.h"
#include "proj/comp/csl-parser/src/csl_parser.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

class CslSpanReader : public answer::SpanReader {
 public:
  CslSpanReader(absl::string_view text, csl_parser::Delimiters delimiters)
      : text_(text), delimiters_(std::move(delimiters)) {}
  answer::ReadResult Read(const answer::Span& asked) override {
    answer::ReadResult out;
    // Read with the line that follows it, so that an operation cut short
    // says what cut it; a block starting there is the next span's.
    const answer::Span span = answer::ThroughNextTextLine(text_, asked);
    size_t blocks = 0;
    const SpanPiece piece = PieceOf(text_, span);
    csl_parser::ParseOptions where;
    where.first_line = piece.first_line;
    where.first_byte = piece.first_byte;
    const bool pack = span.at.end - span.at.begin > kPackSpanBytes;
    where.pack_actions = pack;
    csl_parser::CslParseResult r = csl_parser::ParseCsl(piece.text, delimiters_, {}, where);
    if (pack) {
      for (const csl_parser::PackedOperation& op : r.packed) out.packed_lines.push_back(op.line);
      out.packed = ShiftPackedLabels(std::move(r.packed_actions), "csl-", blocks_);
    }
    std::vector<std::pair<size_t, int>> refused_tasks;  // a TASKS block with errors: its group, its line
    for (const csl_parser::CslBlock& b : r.blocks) {
      if (b.span.first_line > asked.at.last_line) break;
      ++blocks;
      size_t first = out.actions.size(), count = 0;
      if (pack) {
        first = b.packed_begin;
        count = b.packed_end - b.packed_begin;
      } else {
        for (const csl_parser::Operation& op : b.operations()) out.actions.push_back(op.action);
        count = out.actions.size() - first;
      }
      // The block's refusals are numbered with its operations.
      int group = -1;
      if (b.is_tasks) {
        group = static_cast<int>(out.groups.size());
        out.groups.push_back({answer::GroupPolicy::kAtomic, first, count});
        if (!b.errors().empty()) refused_tasks.emplace_back(out.groups.size() - 1, b.span.first_line);
      } else {
        if (count > 0) group = static_cast<int>(out.groups.size());
        for (size_t j = first; j < first + count; ++j) out.groups.push_back({answer::GroupPolicy::kIndependent, j, 1});
      }
      for (const csl_parser::CslError& e : b.errors()) {
        out.diagnostics.push_back(
            {e.label, e.code, e.message, e.fix, e.line, std::nullopt, answer::BlockContent(text_, e.span), group});
      }
      for (const std::string& w : b.warnings()) out.warnings.push_back(w);
    }
    ShiftLabels(out, "csl-", blocks_);
    // A TASKS block runs all or nothing: one refused operation and none runs.
    for (const auto& [group, line] : refused_tasks) {
      const answer::Diagnostic* first = nullptr;
      int errors = 0;
      for (const answer::Diagnostic& d : out.diagnostics) {
        if (d.group != static_cast<int>(group)) continue;
        if (first == nullptr) first = &d;
        ++errors;
      }
      out.groups[group].not_run =
          absl::StrCat("not run: its TASKS block (line ", line, ") has ", errors,
                       errors == 1 ? " invalid operation" : " errors", " (", first->label, " on line ", first->line,
                       ": ", first->code, "), and a TASKS block runs all or nothing");
    }
    out.blocks = static_cast<int>(blocks);
    blocks_ += static_cast<int>(blocks);
    return out;
  }

 private:
  absl::string_view text_;
  csl_parser::Delimiters delimiters_;
  int blocks_ = 0;  // csl-N: N counts the blocks read so far
};

class CslReader : public answer::Reader {
 public:
  explicit CslReader(csl_parser::Delimiters delimiters) : delimiters_(std::move(delimiters)) {}
  absl::string_view dialect() const override { return "csl"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    const std::string end = absl::StrCat(delimiters_.start, "END", delimiters_.end);
    for (const core::SourceSpan& s : csl_parser::FindCsl(text, delimiters_)) {
      // Closed by its END (an operation cut at the next one, or at the end
      // of the text, may still be arriving).
      absl::string_view last = text.substr(s.begin, s.end - s.begin);
      while (!last.empty() && (last.back() == '\n' || last.back() == '\r' || last.back() == ' ' || last.back() == '\t')) {
        last.remove_suffix(1);
      }
      const size_t nl = last.rfind('\n');
      spans.push_back({s, (nl == absl::string_view::npos ? last : last.substr(nl + 1)) == end});
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<CslSpanReader>(text, delimiters_);
  }
  std::string Instructions() const override { return csl_parser::CslInstructions(delimiters_); }
  // An operation of a TASKS block is named by its label (csl-1.2); one
  // that could not be read, by its number.
  std::string FailedMemberName(absl::string_view label, int number) const override {
    return label.empty() ? absl::StrCat("task ", number) : std::string(label);
  }
  // The CSL report names a RUN by its command's first line.
  absl::string_view NamingParam() const override { return "code"; }
  // Written in the delimiters of the settings (csl_start, csl_end).
  bool instructions_use_settings() const override { return true; }
  // The seeds' error types, which CSL's report shares with CML's.
  std::optional<std::string> ErrorType(absl::string_view action, absl::string_view code,
                                       const core::Json& data) const override {
    return cml_parser::ErrorType(action, code, data);
  }
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "In CSL: add the lines around it to the SEARCH section, or set count (a number, or \"all\") on the SEARCH marker"},
        {"not_found", true,
         "In CSL: create it with a WRITE block"},
    };
    return LookUpFix(kFixes, code, action);
  }
  std::optional<std::string> SayTerm(absl::string_view name, absl::string_view value) const override {
    static constexpr TermPhrase kTerms[] = {
        {"old_text", "the SEARCH section"},
        {"new_text", "the REPLACE section"},
        {"old_text_start", "the SEARCH text before TO"},
        {"old_text_end", "the SEARCH text after TO"},
        {"count", "count=\"{value}\""},
        {"file_write", "a WRITE block"},
        {"file_append", "a WRITE block with append=\"true\""},
        {"file_replace_text", "a SEARCH block"},
    };
    return LookUpTerm(kTerms, name, value);
  }

 private:
  csl_parser::Delimiters delimiters_;
};

}  // namespace

std::unique_ptr<answer::Reader> MakeCslReader(const ReaderOptions& options) {
  return std::make_unique<CslReader>(csl_parser::Delimiters{options.csl_start, options.csl_end});
}

}  // namespace clada::readers
