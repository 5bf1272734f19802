// SHAM (#!SHAM ... #!END_SHAM_id) as an answer::Reader.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "proj/comp/readers/src/adapters.h"
#include "proj/comp/sham-action-parser/src/commands.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::readers {
namespace {

class ShamSpanReader : public answer::SpanReader {
 public:
  ShamSpanReader(absl::string_view text, size_t max_input) : text_(text), max_input_(max_input) {}
  answer::ReadResult Read(const answer::Span& span) override {
    answer::ReadResult out;
    if (!quoted_whole_.has_value()) quoted_whole_ = sham_action_parser::QuotedAsAWhole(text_);
    // Read as the whole answer would read it: a quoted block of an answer
    // not quoted as a whole is not run.
    const SpanPiece piece = PieceOf(text_, span);
    sham_action_parser::AnswerPiece where;
    where.first_line = piece.first_line;
    where.quoted_as_a_whole = *quoted_whole_;
    sham_action_parser::ActionParseResult r = sham_action_parser::ParseShamResponse(piece.text, max_input_, {}, where);
    out.actions = std::move(r.actions);
    EachItsOwnGroup(out, 0);
    for (sham_action_parser::ActionParseError& e : r.errors) {
      out.diagnostics.push_back({std::move(e.block_id), std::move(e.error_type), std::move(e.message),
                                 std::move(e.fix), e.block_start_line});
    }
    out.warnings = std::move(r.warnings);
    return out;
  }

 private:
  absl::string_view text_;
  size_t max_input_;
  std::optional<bool> quoted_whole_;
};

class ShamReader : public answer::Reader {
 public:
  explicit ShamReader(size_t max_input) : max_input_(max_input) {}
  absl::string_view dialect() const override { return "sham"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    // The blocks the grammar finds in what a run reads (chat noise read
    // line for line, the lines kept).
    // As a run finds them (ShamExtents): a block quoted with '>' and a
    // header without a readable ID are blocks too (a run reports them).
    std::string ids;
    const core::LineStarts lines(text);
    std::vector<answer::Span> spans;
    for (const ShamExtent& e : ShamExtents(text, ids)) {
      spans.push_back({LineSpan(lines, static_cast<int>(e.first) + 1, static_cast<int>(e.last) + 1), e.closed});
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<ShamSpanReader>(text, max_input_);
  }
  std::string Instructions() const override { return sham_action_parser::RenderInstructions(); }

 private:
  size_t max_input_;
};

}  // namespace

std::unique_ptr<answer::Reader> MakeShamReader(const ReaderOptions& options) {
  return std::make_unique<ShamReader>(options.max_input_bytes);
}

}  // namespace clada::readers
