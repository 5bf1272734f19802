// Unified diffs (git diff, diff -u, ```diff fences) as an answer::Reader.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {
namespace {

// Whether a file's diff has every line its last hunk's header counts (a
// hunk without counts, `@@ ... @@`, cannot say: it is taken as whole).
bool DiffComplete(const udiff_reader::FilePatch& f) {
  if (f.hunks.empty()) return true;
  const udiff_reader::DiffHunk& h = f.hunks.back();
  if (h.old_count < 0 || h.new_count < 0) return true;
  int old_lines = 0, new_lines = 0;
  for (const udiff_reader::DiffLine& l : h.lines) {
    if (l.kind != '+') ++old_lines;
    if (l.kind != '-') ++new_lines;
  }
  return old_lines >= h.old_count && new_lines >= h.new_count;
}

class UdiffSpanReader : public answer::SpanReader {
 public:
  explicit UdiffSpanReader(absl::string_view text) : text_(text) {}
  answer::ReadResult Read(const answer::Span& span) override {
    answer::ReadResult out;
    const SpanPiece piece = PieceOf(text_, span);
    const udiff_reader::Diffs diffs =
        udiff_reader::ReadDiffs(piece.text, {piece.first_line, piece.first_byte, More(text_, span)}, [&](udiff_reader::FilePatch&& f) {
      // Each file a group: a rename with hunks is the move, then the hunks.
      const std::string label = absl::StrCat("diff-", ++number_);
      const size_t begin = out.actions.size();
      const absl::Hash<absl::string_view> hash;
      if (f.copy_from.has_value() && changed_.contains(hash(*f.copy_from))) {
        // git apply copies a source as it was before the whole diff; clada
        // applies the files in order, so after an earlier file of the
        // answer's diffs changed the source the copy would not be git's.
        out.diagnostics.push_back(
            {label, "copy_source_changed",
             absl::StrCat("the diff at line ", f.span.first_line, " copies ", *f.copy_from, " to ", f.path,
                          " after an earlier diff of this answer changed ", *f.copy_from,
                          "; git apply copies the file as it was before, clada applies in order, so this copy was "
                          "not applied"),
             absl::StrCat("put the copy of ", *f.copy_from, " before the diff that changes it, or send ", f.path,
                          " as a new file (--- /dev/null)"),
             f.span.first_line});
      } else {
        DiffFileActions(f, text_, [&](core::Action&& a) {
          a.metadata.block_id = label;
          a.metadata.start_line = f.span.first_line;
          a.metadata.end_line = f.span.last_line;
          out.actions.push_back(std::move(a));
        });
      }
      changed_.insert(hash(f.path));
      if (f.move_to.has_value()) changed_.insert(hash(*f.move_to));
      const size_t count = out.actions.size() - begin;
      ++out.blocks;
      if (count > 0) {
        out.groups.push_back(
            {count > 1 ? answer::GroupPolicy::kFailFast : answer::GroupPolicy::kIndependent, begin, count});
      }
    });
    for (const udiff_reader::ParseError& e : diffs.errors) {
      out.diagnostics.push_back({absl::StrCat("diff-", ++number_), e.code, e.message, e.fix, e.line, std::nullopt,
                                 answer::BlockContent(text_, e.span)});
      ++out.blocks;
    }
    return out;
  }

 private:
  absl::string_view text_;
  int number_ = 0;  // diff-N over the file sections read so far
  // Hashes of the paths the sections read so far change (a copy's source
  // among them is refused): 16 bytes a file, not its path.
  absl::flat_hash_set<size_t> changed_;
};

class UdiffReader : public answer::Reader {
 public:
  absl::string_view dialect() const override { return "udiff"; }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override {
    std::vector<answer::Span> spans;
    // No header and no hunk (`@@`: a fence of hunks without a header is a
    // missing_file_header error): no diff.
    if (text.find("--- ") == absl::string_view::npos && text.find("diff --git ") == absl::string_view::npos &&
        text.find("@@") == absl::string_view::npos) {
      return std::make_unique<answer::VectorSpanStream>(std::move(spans));
    }
    const udiff_reader::Diffs diffs = udiff_reader::ReadDiffs(
        text, [&](udiff_reader::FilePatch&& f) { spans.push_back({f.span, DiffComplete(f)}); });
    // A file with no hunk yet, or one the answer ends inside (truncated), may
    // still be arriving.
    for (const udiff_reader::ParseError& e : diffs.errors) {
      spans.push_back({e.span, e.code != "missing_hunks" && e.code != "truncated"});
    }
    return std::make_unique<answer::VectorSpanStream>(std::move(spans));
  }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return std::make_unique<UdiffSpanReader>(text);
  }
  std::string Instructions() const override { return udiff_reader::UdiffInstructions(); }
  std::optional<std::string> PhraseFix(absl::string_view code, absl::string_view action) const override {
    static constexpr FixPhrase kFixes[] = {
        {"match_count_mismatch", false,
         "In the diff: give more context lines around the hunk so that it matches one place only"},
        {"not_found", true,
         "In a diff, a new file is `--- /dev/null` then `+++ b/<path>`, its lines all `+`"},
    };
    return LookUpFix(kFixes, code, action);
  }
  std::optional<std::string> SayTerm(absl::string_view name, absl::string_view value) const override {
    static constexpr TermPhrase kTerms[] = {
        {"old_text", "the hunk's `-` and context lines"},
        {"new_text", "the hunk's `+` and context lines"},
        {"file_write", "a diff that deletes it (`+++ /dev/null`), then one that creates it (`--- /dev/null`)"},
        {"file_replace_text", "a diff of its changes"},
        {"file_delete", "a diff to `+++ /dev/null`"},
        {"file_move", "`rename from` and `rename to` lines"},
        {"old_path", "the `rename from` path"},
        {"new_path", "the `rename to` path"},
    };
    return LookUpTerm(kTerms, name, value);
  }
};

}  // namespace

std::unique_ptr<answer::Reader> MakeUdiffReader() { return std::make_unique<UdiffReader>(); }

}  // namespace clada::readers
