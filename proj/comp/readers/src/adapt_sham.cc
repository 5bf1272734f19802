// SHAM (#!SHAM ... #!END_SHAM_id) as an answer::Reader.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
                                 std::move(e.fix), e.block_start_line, std::move(e.action),
                                 std::move(e.block_content)});
    }
    out.blocks = r.total_blocks;
    out.warnings = std::move(r.warnings);
    read_lines_.push_back(span.at.first_line);
    return out;
  }

  // Blocks of the answer that share an ID (each span read alone cannot
  // see it): found by sorted hashes of the read blocks' IDs first, the
  // lines listed for those only.
  std::vector<std::string> Finish() override {
    std::vector<std::string> warnings;
    if (read_lines_.size() < 2) return warnings;
    std::string ids;
    const std::vector<ShamExtent> extents = ShamExtents(text_, ids);
    std::vector<const ShamExtent*> read;  // the extents read, in order
    size_t next = 0;
    for (const ShamExtent& e : extents) {
      const int line = static_cast<int>(e.first) + 1;
      while (next < read_lines_.size() && read_lines_[next] < line) ++next;
      if (next < read_lines_.size() && read_lines_[next] == line && e.id_len > 0) read.push_back(&e);
    }
    auto id_of = [&ids](const ShamExtent& e) { return absl::string_view(ids).substr(e.id, e.id_len); };
    std::vector<size_t> hashes;
    hashes.reserve(read.size());
    for (const ShamExtent* e : read) hashes.push_back(absl::HashOf(id_of(*e)));
    std::sort(hashes.begin(), hashes.end());
    if (std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end()) return warnings;
    absl::flat_hash_map<absl::string_view, std::vector<int>> id_lines;
    std::vector<absl::string_view> in_order;
    for (const ShamExtent* e : read) {
      const absl::string_view id = id_of(*e);
      auto [first, last] = std::equal_range(hashes.begin(), hashes.end(), absl::HashOf(id));
      if (last - first < 2) continue;
      std::vector<int>& at = id_lines[id];
      if (at.empty()) in_order.push_back(id);
      at.push_back(static_cast<int>(e->first) + 1);
    }
    constexpr size_t kMaxListedLines = 10;
    for (const absl::string_view id : in_order) {
      const std::vector<int>& at = id_lines[id];
      if (at.size() < 2) continue;
      std::string where = absl::StrJoin(at.begin(), at.begin() + std::min(at.size(), kMaxListedLines), ", ");
      if (at.size() > kMaxListedLines) absl::StrAppend(&where, " and ", at.size() - kMaxListedLines, " more");
      warnings.push_back(absl::StrCat("Block ID '", id, "' is used by ", at.size(), " blocks (lines ", where,
                                      "); give every block its own ID so results can be told apart"));
    }
    return warnings;
  }

 private:
  absl::string_view text_;
  size_t max_input_;
  std::optional<bool> quoted_whole_;
  std::vector<int> read_lines_;  // the first line of each span read, ascending
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
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "Add the lines around it to old_text, or use file_replace_all_text with count set to the number of places"},
        {"not_found", true,
         "Create it with file_write"},
    };
    return LookUpFix(kFixes, code, action);
  }

 private:
  size_t max_input_;
};

}  // namespace

std::unique_ptr<answer::Reader> MakeShamReader(const ReaderOptions& options) {
  return std::make_unique<ShamReader>(options.max_input_bytes);
}

}  // namespace clada::readers
