// Codex apply_patch envelopes (*** Begin Patch ... *** End Patch) as an
// answer::Reader.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

class ApplyPatchSpanReader : public answer::SpanReader {
 public:
  explicit ApplyPatchSpanReader(absl::string_view text) : text_(text) {}
  answer::ReadResult Read(const answer::Span& span) override {
    answer::ReadResult out;
    const SpanPiece piece = PieceOf(text_, span);
    for (apply_patch_reader::Patch& p :
         apply_patch_reader::ReadPatches(piece.text, {piece.first_line, piece.first_byte, More(text_, span)})) {
      bool first = true;
      // Each operation let go once it is read; past the first kHeld
      // actions, each packed as it comes (an envelope of 300,000
      // operations is never held as actions).
      for (; !p.ops.empty(); p.ops.pop_front()) {
        const apply_patch_reader::FileOp& op = p.ops.front();
        // Each operation a group: an update with a move is its hunks, then
        // the move, and the move waits for the hunks.
        const std::string label = absl::StrCat("patch-", ++number_);
        const size_t begin = out.actions.size() + out.packed.size();
        PatchOpActions(op, text_, [&](core::Action&& a) {
          a.metadata.block_id = label;
          a.metadata.start_line = op.span.first_line;
          a.metadata.end_line = op.span.last_line;
          if (first) a.warnings.insert(a.warnings.begin(), p.warnings.begin(), p.warnings.end());
          first = false;
          if (out.actions.size() < kHeld && out.packed.empty()) {
            out.actions.push_back(std::move(a));
          } else {
            out.packed.Add(a);
            out.packed_lines.push_back(op.span.first_line);
          }
        });
        const size_t count = out.actions.size() + out.packed.size() - begin;
        out.groups.push_back(
            {count > 1 ? answer::GroupPolicy::kFailFast : answer::GroupPolicy::kIndependent, begin, count});
        ++out.blocks;
      }
      for (const apply_patch_reader::ParseError& e : p.errors) {
        out.diagnostics.push_back({absl::StrCat("patch-", ++number_), e.code, e.message, e.fix, e.line, std::nullopt,
                                   answer::BlockContent(text_, p.span)});
        ++out.blocks;
      }
    }
    return out;
  }

 private:
  static constexpr size_t kHeld = 4096;
  absl::string_view text_;
  int number_ = 0;  // patch-N over the operations read so far
};

class ApplyPatchReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "apply_patch"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    if (text.find("***") != absl::string_view::npos) {
      for (const apply_patch_reader::Patch& p : apply_patch_reader::ReadEnvelopes(text)) {
        spans.push_back({p.span, p.ended});
      }
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<ApplyPatchSpanReader>(text);
  }
  std::string Instructions() const override { return apply_patch_reader::ApplyPatchInstructions(); }
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "In the patch: give more context lines, or an `@@` line naming the class or function, so that it matches one place only"},
        {"not_found", true,
         "In the patch, create the file with `*** Add File: <path>`"},
    };
    return LookUpFix(kFixes, code, action);
  }
  std::optional<std::string> SayTerm(absl::string_view name, absl::string_view value) const override {
    static constexpr TermPhrase kTerms[] = {
        {"old_text", "the hunk's `-` and context lines"},
        {"new_text", "the hunk's `+` and context lines"},
        {"file_write", "`*** Delete File:` then `*** Add File:`"},
        {"file_replace_text", "`*** Update File:` with hunks of its changes"},
        {"file_delete", "`*** Delete File:`"},
        {"dir_delete", "a command, not a patch (a patch deletes files only),"},
        {"file_move", "`*** Move to:`"},
        {"old_path", "the `*** Update File:` path"},
        {"new_path", "the `*** Move to:` path"},
    };
    return LookUpTerm(kTerms, name, value);
  }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeApplyPatchReader() { return std::make_unique<ApplyPatchReader>(); }

}  // namespace clada::readers
