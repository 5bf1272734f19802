// The pure text edits behind fs-ops' replace actions: exact matching that
// treats "\r\n" and "\n" as the same line break, replacement text adapted to
// the file's line endings, and errors that name the case.
//
// Example:
//   absl::StatusOr<EditResult> r = ReplaceUnique("a\r\nb\r\n", "a\nb", "x\ny", "f.txt");
//   // r->content == "x\r\ny\r\n", r->replacements == 1
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_TEXT_EDIT_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_TEXT_EDIT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::fs_ops::internal {

inline constexpr absl::string_view kUtf8Bom = "\xEF\xBB\xBF";

// How many lines end in "\n" and how many in "\r\n".
struct LineEndings {
  size_t lf = 0;
  size_t crlf = 0;
};
LineEndings CountLineEndings(absl::string_view text);

// The break new text should use in a file with these endings: "\r\n" when
// CRLF is the majority, "\n" when LF is, "" when the file has no line break
// (then new text is kept as given).
absl::string_view DominantBreak(const LineEndings& endings);

// `text` with every line break ("\r\n" or "\n") written as `eol`.
std::string ConvertLineBreaks(absl::string_view text, absl::string_view eol);

// `text` with every "\r\n" written as "\n".
std::string NormalizeBreaks(absl::string_view text);

// A text seen with its "\r\n" pairs as "\n", so that a needle's line breaks
// match the file's whatever their style. Offsets in `norm()` map back to the
// original with ToOriginal(). Holds a view of `text`, which must outlive it.
class BreakNormalizedText {
 public:
  explicit BreakNormalizedText(absl::string_view text);
  BreakNormalizedText(const BreakNormalizedText&) = delete;
  BreakNormalizedText& operator=(const BreakNormalizedText&) = delete;

  absl::string_view original() const { return original_; }
  absl::string_view norm() const { return has_cr_ ? absl::string_view(norm_) : original_; }
  // Offset in the original text of the character at `norm_offset` (a
  // match's start or its exclusive end). A "\n" that was "\r\n" maps to the
  // "\r", so spans keep whole line breaks.
  size_t ToOriginal(size_t norm_offset) const;

 private:
  absl::string_view original_;
  bool has_cr_ = false;
  std::string norm_;
  std::vector<size_t> removed_cr_;  // norm offsets of the "\n" each removed "\r" preceded
};

// Offset of `needle` in `hay` at or after `from`, or npos. Linear time
// (glibc memmem is two-way).
size_t FindText(absl::string_view hay, absl::string_view needle, size_t from = 0);

// Offsets of the non-overlapping occurrences of a non-empty `needle`, left
// to right.
std::vector<size_t> FindAllText(absl::string_view hay, absl::string_view needle);

// How many "\n" bytes `text` holds (eight bytes at a time).
int64_t CountNewlines(absl::string_view text);

// 1-based line numbers of ascending `offsets` in `text`.
std::vector<int64_t> LineNumbersOf(absl::string_view text, const std::vector<size_t>& offsets);

// "4", "4 and 9", "4, 9 and 12", at most `max_items` then "and N more".
std::string JoinNumbers(const std::vector<std::string>& items, size_t max_items = 20);

// Reserves `bytes` in `s` and, for large buffers, asks the kernel for huge
// pages: a 10 MB edit then takes a handful of page faults instead of
// thousands. Harmless where transparent huge pages are off.
void ReserveLarge(std::string* s, size_t bytes);

// A half-open span of the original text and what replaces it.
struct Splice {
  size_t begin = 0;
  size_t end = 0;
};

// Replaces each span (ascending, disjoint) of `text` with `new_text` whose
// line breaks are adapted: to the span's own break style when the span holds
// line breaks of one style, else to the file's dominant style, else as given.
std::string ApplySplices(absl::string_view text, const std::vector<Splice>& spans, absl::string_view new_text);

// The size ApplySplices' result would have, without building it.
uint64_t SplicedSize(absl::string_view text, const std::vector<Splice>& spans, absl::string_view new_text);

// The text ApplySplices puts in place of a span of `text`: `new_text` with
// the span's own line-break style when the span holds breaks of one style,
// else the file's dominant style, else as given. Holds a view of `text`.
class SpliceText {
 public:
  SpliceText(absl::string_view text, absl::string_view new_text);
  absl::string_view For(const Splice& s) const;

 private:
  absl::string_view text_;
  std::string new_text_;
  bool new_has_break_;
  std::string as_lf_, as_crlf_;
  absl::string_view dominant_;  // a literal
};

// An edit's result not built whole: `original` with each span (ascending,
// disjoint) replaced as ApplySplices replaces it. Read piece by piece (the
// original's bytes between spans, each span's text), so the result can be
// written, diffed and checked without a copy of it in memory. Holds a view
// of `original`, which must outlive it.
class SplicedText {
 public:
  SplicedText(absl::string_view original, std::vector<Splice> spans, absl::string_view new_text);

  absl::string_view original() const { return original_; }
  const std::vector<Splice>& spans() const { return spans_; }
  // What replaces span i.
  absl::string_view TextFor(size_t i) const { return put_.For(spans_[i]); }
  uint64_t size() const { return size_; }
  // The pieces, in order: 2 * spans + 1 of them (some may be empty); piece
  // 2k is the original before span k, 2k + 1 its text, the last the rest.
  size_t PieceCount() const { return 2 * spans_.size() + 1; }
  absl::string_view Piece(size_t i) const;
  // The whole result (ApplySplices).
  std::string Build() const;

 private:
  absl::string_view original_;
  std::vector<Splice> spans_;
  SpliceText put_;
  uint64_t size_ = 0;
};

// A run of whole lines an edit of places changes: the original's bytes
// [old_begin, old_end) (whole lines: old_begin starts a line, old_end starts
// one or is the end) become `new_text` (whole lines too, the last ending
// without a break only at the end of the file). A place's run reaches from
// the start of its line to the end of the line it ends in (or to its end,
// when that starts a line and its new text ends with a break); places whose
// runs share a line are one run. Runs are ascending and disjoint.
struct ChangedRun {
  size_t old_begin = 0, old_end = 0;
  int64_t old_line = 1;  // the line old_begin starts (1-based)
  int64_t new_line = 1;  // the line the run's new text starts in the result
  absl::string_view new_text;
};

// Calls `fn` with each run of `t` in order (the run's new_text is valid
// during the call only); stops when `fn` returns false.
void ForEachChangedRun(const SplicedText& t, const std::function<bool(const ChangedRun&)>& fn);

// No limit on the size of an edit's result.
inline constexpr uint64_t kNoSizeLimit = ~uint64_t{0};

// What a pure edit produced.
struct EditResult {
  // The whole new text (unchanged when already_applied); empty when
  // `spliced` holds the result instead.
  std::string content;
  // ReplaceEvery and ReplaceRanges: the result as the file's text and the
  // places replaced, not built (a view of the `content` they were given).
  std::optional<SplicedText> spliced;
  int64_t replacements = 0;
  bool already_applied = false;  // the edit's result is already in the text
  std::vector<int64_t> lines;    // line where the first replaced span starts
  std::vector<std::string> warnings;
};

// OK when `old_text` and `new_text` differ. InvalidArgument when they are
// the same, a "\n" and a "\r\n" counting as equal as in matching (the
// replacement takes the file's line breaks). Such an edit asks for no change:
// new_text was pasted without the intended edit. It is not "already
// applied", which is the state a repeated paste of a real edit leaves; here
// the first paste would have changed nothing either.
absl::Status RequireChange(absl::string_view old_text, absl::string_view new_text);

// Replaces the one occurrence of `old_text`. `label` names the file in
// messages. Already applied (success, content unchanged) when old_text is
// absent and new_text occurs exactly once, or when old_text's one occurrence
// lies inside new_text's one occurrence.
// Errors: InvalidArgument (empty old_text; old_text equal to new_text, see
// RequireChange, whether or not it occurs), NotFound (absent; the message
// carries the miss diagnosis), FailedPrecondition (found N times; lists the
// lines).
absl::StatusOr<EditResult> ReplaceUnique(absl::string_view content, absl::string_view old_text,
                                         absl::string_view new_text, absl::string_view label);

// Replaces every occurrence. With `count`, the number found must equal it,
// else FailedPrecondition "expected C, found A" and nothing changes; the
// count is checked before "already applied". Already applied when old_text
// is absent and new_text occurs (count, or at least once without count)
// times, or when every occurrence lies inside a copy of new_text and, with
// count, either the number found equals count or new_text occurs exactly
// count times. Errors: InvalidArgument (empty old_text, old_text equal to
// new_text as in RequireChange, negative count),
// NotFound (absent; with count the message also says "expected C, found
// 0"), FailedPrecondition (also when the result would be over `max_bytes`,
// which is computed before the result is built). With `keep_places` the
// result is not built: EditResult::spliced holds it (a view of `content`).
absl::StatusOr<EditResult> ReplaceEvery(absl::string_view content, absl::string_view old_text,
                                        absl::string_view new_text, std::optional<int64_t> count,
                                        absl::string_view label, uint64_t max_bytes = kNoSizeLimit,
                                        bool keep_places = false);

// Replaces each range that starts with `start` and ends with the first
// `end` after it (both included); ranges do not overlap (the next start is
// looked for after the previous end). With `count` the number of ranges
// must equal it (checked before "already applied", as in ReplaceEvery);
// without it every range is replaced, at least one, and a start with no end
// after it is an error even after complete ranges (nothing changes).
// new_text equal to the range is "already applied", not an error as in
// RequireChange: when new_text begins with `start` and ends with `end`, that
// is the state a repeated paste leaves; without count, no range and at least
// one copy of new_text is too. Errors: InvalidArgument (empty start/end,
// count < 1), NotFound (start absent, no end after the first start, or,
// without count, after any start), FailedPrecondition (count mismatch;
// lists the ranges; or a result over `max_bytes`, as in ReplaceEvery).
// `keep_places` as in ReplaceEvery.
absl::StatusOr<EditResult> ReplaceRanges(absl::string_view content, absl::string_view start, absl::string_view end,
                                         absl::string_view new_text, std::optional<int64_t> count,
                                         absl::string_view label, uint64_t max_bytes = kNoSizeLimit,
                                         bool keep_places = false);

// `content` + `addition`, the addition's line breaks adapted to the file's.
// With `as_lines` (content given as lines, a heredoc) the addition starts on
// a line of its own: a line break (the file's style) is added first when
// `content` does not end with one, and the addition ends with one. Without
// it the addition is appended byte for byte, and a warning says when it
// continues a last line that has no line break.
EditResult AppendText(absl::string_view content, absl::string_view addition, bool as_lines = false);

// OK when `content` is UTF-8 text: no NUL byte and well-formed UTF-8.
// FailedPrecondition otherwise, naming the offset (and line) of the problem.
absl::Status CheckUtf8Text(absl::string_view content, absl::string_view label);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_TEXT_EDIT_H_
