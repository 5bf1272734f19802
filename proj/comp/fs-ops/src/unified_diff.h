// What an edit changed, as a unified diff: the form `diff -U2` and
// `git diff -U2` print, which `git apply` and `patch -p1` take back.
//
// The line alignment is a minimal one (Myers' O(ND) algorithm in its
// linear-space form, over line ids after the common head and tail are set
// aside), with a bound on the work: a rewrite too different to align within
// the bound is reported as whole, with both line counts, not diffed.
//
// Example:
//   UnifiedDiff d = DiffTexts("a\nb\nc\n", "a\nB\nc\n", "x.txt");
//   // d.text == "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
//   // d.added == 1, d.removed == 1
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_UNIFIED_DIFF_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_UNIFIED_DIFF_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "proj/comp/fs-ops/src/text_edit.h"

namespace clada::fs_ops::internal {

struct DiffOptions {
  int context = 2;  // unchanged lines shown around each change
  // Steps the alignment may spend (about 8 ns each: 20 million is some
  // 150 ms on a 200,000-line file); past it the
  // diff is not computed. 0: no bound.
  int64_t max_work = 20'000'000;
};

struct UnifiedDiff {
  // False when the texts were too different to align within max_work:
  // `text` is then empty and only the counts below are known.
  bool computed = true;
  // "--- a/<label>\n+++ b/<label>\n" and the hunks ("@@ -a,b +c,d @@" and
  // ' ', '-', '+' lines; "\ No newline at end of file" after a last line
  // without a line break). Empty when the texts are equal.
  std::string text;
  int64_t added = 0;    // '+' lines
  int64_t removed = 0;  // '-' lines
  int64_t old_lines = 0;
  int64_t new_lines = 0;
  // DiffSplices: the diff's text would be over its max_text_bytes (then
  // `computed` is false too, and added and removed are still counted).
  bool too_long = false;
};

// The diff from `before` to `after` (a line is its bytes with its "\n"; a
// "\r\n" line differs from the same line ending in "\n"). Never fails.
UnifiedDiff DiffTexts(absl::string_view before, absl::string_view after, absl::string_view label,
                      const DiffOptions& options = {});

// The diff an edit of places makes (SplicedText: ReplaceEvery's and
// ReplaceRanges' result, not built), from the places alone: each run of
// lines they change (ForEachChangedRun) is aligned alone, its unchanged
// first and last lines set aside, and the hunks are made as DiffTexts makes
// them, their context read from the original. Neither text is split into
// lines whole, and the memory is the diff's text and one run's lines. The
// same diff as DiffTexts(original, result) but where a minimal alignment
// across runs would pair a changed line with one in another run (then this
// one is as long or a little longer, never wrong). Past options.max_work
// steps of aligning in all, not computed (as DiffTexts); past
// `max_text_bytes` of text (0: no bound), too_long and not computed.
UnifiedDiff DiffSplices(const SplicedText& t, absl::string_view label, const DiffOptions& options = {},
                        int64_t max_text_bytes = 0);

// Lines of `text`: its line breaks, plus one for a last line without one.
int64_t CountTextLines(absl::string_view text);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_UNIFIED_DIFF_H_
