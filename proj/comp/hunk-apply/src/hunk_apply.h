// hunk-apply: places context hunks in a file's text and applies them.
//
// The edit engine behind patch dialects whose edits are found by their
// context (Codex apply_patch, unified diffs placed by context): each hunk is
// its old lines (context and removed) and new lines (context and added),
// optionally narrowed by `@@ <line>` anchors. Matching follows Codex's
// seek_sequence tiers (exact, trailing whitespace ignored, surrounding
// whitespace ignored, Unicode dashes/quotes/spaces folded to ASCII), with
// three guarantees Codex lacks: a match must be the only one at its tier,
// every line keeps its own line ending (added lines take the file's dominant
// one) and a byte order mark stays.
//
// Example:
//   Hunk h;
//   h.anchors = {"def greet():"};
//   h.lines = {{PatchLine::kContext, "    x = 1"}, {PatchLine::kDelete, "    return x"},
//              {PatchLine::kAdd, "    return x + 1"}};
//   ApplyError why;
//   absl::StatusOr<Applied> r = ApplyHunks(file_text, {h}, &why);
//   if (r.ok()) Write(r->content); else Report(why.message);
#ifndef CLADA_PROJ_COMP_HUNK_APPLY_SRC_HUNK_APPLY_H_
#define CLADA_PROJ_COMP_HUNK_APPLY_SRC_HUNK_APPLY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::hunk_apply {

// One line of a hunk, without its line ending.
struct PatchLine {
  enum Kind { kContext, kDelete, kAdd };
  Kind kind = kContext;
  std::string text;
};

struct Hunk {
  // The `@@ <line>` lines above the hunk, outermost first. Each is found after
  // the previous one; the hunk's old lines after the last one.
  std::vector<std::string> anchors;
  std::vector<PatchLine> lines;
  // The old lines must be the file's last lines (`*** End of File`).
  bool is_end_of_file = false;
  // Where the hunk starts in the patch, 1-based (0: unknown); used in messages.
  int source_line = 0;

  std::vector<std::string> OldLines() const;  // context and deleted lines, in order
  std::vector<std::string> NewLines() const;  // context and added lines, in order
};

// How a hunk's old lines (or an anchor) matched the file, loosest last.
enum class Tier { kExact, kTrailingWhitespace, kSurroundingWhitespace, kUnicodeFolded };
absl::string_view TierName(Tier tier);  // "exact", "ignoring trailing whitespace", ...

struct Placement {
  int hunk = 0;       // 1-based index in the hunk list
  int line = 0;       // 1-based line of the original file where the old lines start
                      // (a pure addition: the line it is inserted before; count+1 = the end)
  int old_count = 0;  // lines of the original replaced (0 when already applied)
  Tier tier = Tier::kExact;
  // The hunk's result is already in the file (see ApplyHunks): `line` is
  // where its new lines start, and nothing is changed for it.
  bool already_applied = false;
};

struct Applied {
  std::string content;
  std::vector<Placement> placements;  // one per hunk, in hunk order
  std::vector<std::string> warnings;  // a tolerated tier, a dropped trailing blank line
  // Every hunk was already applied: `content` is the text given, unchanged.
  bool already_applied = false;
};

// Why a hunk list could not be applied. Lines are 1-based lines of the
// original file; `candidates` lists every place an ambiguous hunk (or anchor)
// matched, up to kMaxCandidates.
struct ApplyError {
  enum class Code {
    kOk,
    kAnchorNotFound,  // an `@@ <line>` anchor is not in the file after the previous hunk
    kNotFound,        // the old lines are not in the file (after the anchors / previous hunk)
    kAmbiguous,       // the old lines (or anchors) match at more than one place at the same tier
    kPartlyApplied,   // some hunks are already applied and others are not (`candidates`: the applied ones)
  };
  Code code = Code::kOk;
  int hunk = 0;         // 1-based
  int source_line = 0;  // the hunk's patch line, 0 if unknown
  std::vector<int> candidates;
  // For kNotFound / kAnchorNotFound: the closest place found and the first
  // line of the hunk that did not match there.
  int nearest_line = 0;       // 0: no line of the hunk occurs in the file
  int mismatch_index = -1;    // 0-based index into OldLines() (or the anchor), -1 none
  std::string mismatch_text;  // that hunk line
  std::string file_text;      // the file's line at that place ("" past the end)
  // kNotFound: the hunk's new lines occur once where it would go (1-based
  // line; 0 when not): the patch looks applied already (a hunk without a
  // context line, which is never taken as applied).
  int already_applied_line = 0;
  // kPartlyApplied: the hunks (1-based) already applied; `hunk` is the
  // first one that is not.
  std::vector<int> applied_hunks;
  std::string message;  // the whole explanation, for the reader of the report
};

inline constexpr size_t kMaxCandidates = 20;

// Applies `hunks` to `content`, in order, all or nothing.
//
// Success: the new text. Lines end as they did (LF, CRLF or a lone CR per
// line); added lines take the file's dominant ending (LF for a file without
// one); a missing final line break stays missing; a leading UTF-8 BOM stays.
// Each hunk is searched from the end of the previous one. A hunk with anchors
// is placed after them (each anchor occurrence scopes the search up to that
// anchor's next occurrence); one without is the only match of its old lines
// in the rest of the file. Context lines keep the file's own text.
//
// Already applied (a re-sent patch): a hunk with at least one context line
// whose whole new side (context and added lines) is in the file where the
// hunk goes, while its old side is not there as a whole:
//   - its old lines are not found (below the anchors / previous hunk) and its
//     new lines are, once, at the first tier that finds them; or
//   - it only adds lines, not all of them blank, and its context is there
//     with the added lines already beside it (its new lines match where its
//     old lines were found).
// Every hunk already applied: success, `already_applied`, text unchanged.
// Some applied and some not: kPartlyApplied, nothing applied.
//
// Errors (nothing applied): kNotFound (NotFoundError), kAmbiguous or
// kPartlyApplied (FailedPreconditionError), with `*error` filled when given.
// The status message equals error->message.
absl::StatusOr<Applied> ApplyHunks(absl::string_view content, const std::vector<Hunk>& hunks,
                                   ApplyError* error = nullptr);

absl::string_view ErrorCodeName(ApplyError::Code code);  // "anchor_not_found", ...

// Whether `h` only adds lines (no deletion), has a context line, and adds a
// line that is not blank: a hunk whose result can be seen next to its
// context. A hunk that adds only blank lines is never taken as applied: a
// second blank line where one is is a real edit.
bool IsRecognisableInsertion(const Hunk& h);

}  // namespace clada::hunk_apply

#endif  // CLADA_PROJ_COMP_HUNK_APPLY_SRC_HUNK_APPLY_H_
