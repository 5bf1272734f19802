// Aider's SEARCH/REPLACE blocks as an answer::Reader.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/aider-reader/src/aider_reader.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

class SearchReplaceSpanReader : public answer::SpanReader {
 public:
  explicit SearchReplaceSpanReader(absl::string_view text) : text_(text) {}
  answer::ReadResult Read(const answer::Span& span) override {
    answer::ReadResult out;
    // A block that names no path reuses the block before's.
    const SpanPiece piece = PieceOf(text_, span);
    const int before = number_;
    // A span the segmenter cut stops where the next block starts.
    const bool cut = More(text_, span);
    const aider_reader::Blocks blocks =
        aider_reader::ReadBlocks(piece.text, {piece.first_line, piece.first_byte, last_path_, cut}, [&](aider_reader::Edit&& e) {
      number_ = std::max(number_, before + e.number);
      e.number += before;
      last_path_ = e.path;
      out.actions.push_back(aider_reader::ToAction(e));
    });
    for (const aider_reader::ParseError& e : blocks.errors) {
      number_ = std::max(number_, before + e.number);
      out.diagnostics.push_back({absl::StrCat("sr-", before + e.number), e.code, e.message, e.fix, e.line, std::nullopt,
                                 answer::BlockContent(text_, e.span)});
    }
    EachItsOwnGroup(out, 0);
    out.blocks = static_cast<int>(out.actions.size() + out.diagnostics.size());
    return out;
  }

 private:
  absl::string_view text_;
  int number_ = 0;  // sr-N over the blocks read so far
  std::string last_path_;
};

class SearchReplaceReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "search_replace"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    if (text.find("<<<<<<<") == absl::string_view::npos) {
      return std::make_unique<answer::VectorSpanStream>(std::move(spans));
    }
    const core::LineStarts lines(text);
    // From the line naming its path (a block that reuses the path before
    // starts at its `<<<<<<< SEARCH`) to `>>>>>>> REPLACE`.
    const aider_reader::Blocks blocks = aider_reader::ReadBlocks(text, [&](aider_reader::Edit&& e) {
      const int first = e.path_line > 0 ? e.path_line : e.span.first_line;
      spans.push_back({LineSpan(lines, first, e.span.last_line), true});
    });
    for (const aider_reader::ParseError& e : blocks.errors) {
      spans.push_back({LineSpan(lines, e.line, std::max(e.line, e.span.last_line)),
                       e.code != "missing_divider" && e.code != "missing_replace_marker"});
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<SearchReplaceSpanReader>(text);
  }
  std::string Instructions() const override { return aider_reader::SearchReplaceInstructions(); }
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "In the SEARCH/REPLACE block: add the lines around it to the SEARCH section so that it matches one place only (a block replaces one place)"},
        {"not_found", true,
         "In SEARCH/REPLACE: a block with an empty SEARCH section creates the file"},
    };
    return LookUpFix(kFixes, code, action);
  }
  std::optional<std::string> SayTerm(absl::string_view name, absl::string_view value) const override {
    static constexpr TermPhrase kTerms[] = {
        {"old_text", "the SEARCH section"},
        {"new_text", "the REPLACE section"},
        {"file_write", "a block whose SEARCH section holds the whole file"},
        {"file_append", "a block whose SEARCH section holds the file's last lines"},
        {"file_replace_text", "a SEARCH/REPLACE block"},
    };
    return LookUpTerm(kTerms, name, value);
  }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeSearchReplaceReader() { return std::make_unique<SearchReplaceReader>(); }

}  // namespace clada::readers
