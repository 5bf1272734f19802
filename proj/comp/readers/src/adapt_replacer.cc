// The seeds' replacer blocks (<<<FILE>>> ... <<<END>>>) as an answer::Reader.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/readers/src/adapters.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"

namespace clada::readers {
namespace {

class ReplacerSpanReader : public answer::SpanReader {
 public:
  explicit ReplacerSpanReader(absl::string_view text) : text_(text) {}
  answer::ReadResult Read(const answer::Span& asked) override {
    answer::ReadResult out;
    // Read with the line that follows it, so that a block cut short says
    // what cut it; a block starting there is the next span's.
    const answer::Span span = answer::ThroughNextTextLine(text_, asked);
    const int last = asked.at.last_line;
    const SpanPiece piece = PieceOf(text_, span);
    replacer_reader::ReadBlocks(
        piece.text, {piece.first_line, piece.first_byte},
        [&](replacer_reader::Edit&& e) {
          if (e.span.first_line > last) return;
          e.number = ++number_;
          out.actions.push_back(replacer_reader::ToAction(e));
        },
        [&](replacer_reader::ParseError&& e) {
          if (e.span.first_line > last) return;
          e.number = ++number_;
          out.diagnostics.push_back({absl::StrCat("rep-", e.number), e.code, e.message, e.fix, e.line, std::nullopt,
                                     answer::BlockContent(text_, e.span)});
        });
    EachItsOwnGroup(out, 0);
    out.blocks = static_cast<int>(out.actions.size() + out.diagnostics.size());
    return out;
  }

 private:
  absl::string_view text_;
  int number_ = 0;  // rep-N over the blocks read so far, edits and errors
};

class ReplacerReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "replacer"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    if (text.find("<<<") != absl::string_view::npos) {
      replacer_reader::ReadBlocks(
          text, [&](replacer_reader::Edit&& e) { spans.push_back({e.span, true}); },
          [&](replacer_reader::ParseError&& e) { spans.push_back({e.span, e.code != "unclosed_block"}); });
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<ReplacerSpanReader>(text);
  }
  std::string Instructions() const override { return replacer_reader::ReplacerInstructions(); }
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "In the replacer block: add the lines around it to the <<<SEARCH>>> section so that it matches one place only"},
        {"not_found", true,
         "In a replacer block: create it with <<<FILE>>> then <<<OVERWRITE>>>"},
    };
    return LookUpFix(kFixes, code, action);
  }
  std::optional<std::string> SayTerm(absl::string_view name, absl::string_view value) const override {
    static constexpr TermPhrase kTerms[] = {
        {"old_text", "the <<<SEARCH>>> section"},
        {"new_text", "the <<<REPLACE>>> section"},
        {"file_write", "<<<OVERWRITE>>>"},
        {"file_append", "<<<OVERWRITE>>> of the whole new content"},
        {"file_replace_text", "a <<<SEARCH>>> block"},
    };
    return LookUpTerm(kTerms, name, value);
  }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeReplacerReader() { return std::make_unique<ReplacerReader>(); }

}  // namespace clada::readers
