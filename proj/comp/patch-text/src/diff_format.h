// The unified diff format (`git diff`, `diff -u`): parses a diff's text into
// per-file patches, and applies one file's patch to that file's text: at the
// lines its hunk headers name when the text is there (as `git apply`), else
// placed by its context through hunk-apply, with a warning. A format, not a
// dialect: the reader that finds diffs in an answer and the executor that
// applies a `diff` parameter both use it. No I/O.
//
// Example:
//   clada::patch_text::Diffs d = clada::patch_text::ParseDiffs(diff_text);
//   for (const auto& f : d.files) {
//     absl::StatusOr<clada::patch_text::Applied> r = clada::patch_text::ApplyFilePatch(old_text, f);
//     ...
//   }
#ifndef CLADA_PROJ_COMP_PATCH_TEXT_SRC_DIFF_FORMAT_H_
#define CLADA_PROJ_COMP_PATCH_TEXT_SRC_DIFF_FORMAT_H_

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/source_span.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"
#include "proj/comp/patch-text/src/text_origin.h"

namespace clada::patch_text {

// One line of a hunk: ' ' context, '-' removed, '+' added. `text` has no
// line break (a `\r` before it stays); `newline` is false when a
// `\ No newline at end of file` follows it.
struct DiffLine {
  char kind = ' ';
  std::string text;
  bool newline = true;
};

// `@@ -old_start,old_count +new_start,new_count @@ section`; -1 where the
// header gives no numbers (`@@ ... @@`). A count left out is 1.
struct DiffHunk {
  int old_start = -1, old_count = -1, new_start = -1, new_count = -1;
  std::string section;
  std::vector<DiffLine> lines;
  int source_line = 0;  // the `@@` line in the text (as TextOrigin places it)
};

enum class FileKind { kUpdate, kAdd, kDelete };

struct FilePatch {
  FileKind kind = FileKind::kUpdate;
  std::string path;                    // the file patched (add: the new file)
  std::optional<std::string> move_to;  // a rename (`rename from/to`, or a git header naming two paths)
  // A copy (`copy from/to`): `path` is written from this file's bytes with
  // the hunks applied (it must not exist yet); this file is kept.
  std::optional<std::string> copy_from;
  std::vector<DiffHunk> hunks;
  std::vector<std::string> warnings;   // leniencies of the text (wrong counts, ...)
  bool executable = false;             // kAdd: git's `new file mode 100755` (a script)
  core::SourceSpan span;               // header through last hunk line
};

// A file section that cannot be applied. Codes: `binary_patch`,
// `missing_hunks` (headers and no hunk), `missing_path`, `truncated` (the
// text ends inside a hunk before the lines its header counts).
struct DiffError {
  std::string code;
  int line = 0;
  std::string message;
  std::string fix;
  core::SourceSpan span;
};

struct Diffs {
  // In text order. A deque: 300,000 files grow without being copied or
  // held twice (a vector doubles).
  std::deque<FilePatch> files;
  std::vector<DiffError> errors;
};

// Every file section of every diff in `text`: a `diff --git` line, or a
// `--- ` line followed by a `+++ ` line; lines that are neither a file's
// headers nor its hunks are passed over (as `patch` passes over the text
// around a diff). Never fails, never throws.
Diffs ParseDiffs(absl::string_view text);

// The same, each file patch handed to `on_file` as soon as it is read
// instead of kept (the returned Diffs::files is empty): a diff of a
// million files is never held whole (its files took 300 bytes each).
// `origin` places `text` in a larger text (see text_origin.h).
Diffs ParseDiffs(absl::string_view text, const TextOrigin& origin, absl::FunctionRef<void(FilePatch&&)> on_file);

// Whether a file's diff starts at `line`: a `diff --git ` line, or a `--- `
// line whose `next` line starts `+++ `. Both without their line break.
bool IsFileHeader(absl::string_view line, absl::string_view next);

struct Applied {
  std::string content;
  std::vector<std::string> warnings;  // hunks placed by context, tiers below exact
  // The file already held the patch's result (a re-sent diff): `content`
  // is the text given, unchanged.
  bool already_applied = false;
};

// The file's new text. kAdd: the added lines; `content` is "" where no file
// is, else the existing file's: already applied when it is exactly the added
// lines, FailedPrecondition when not. kDelete: "" once the removed
// lines are the whole of `content`. kUpdate: every hunk at the line its
// header names (shifted by the hunks before) when its old lines are there
// byte for byte; else all hunks placed by their context (hunk-apply: unique,
// the same tiers as the patch envelope), with a warning per hunk that moved.
// All hunks or none. A file holding the result of every hunk (hunk-apply's
// "already applied": a re-sent diff; an insertion found at its line with its
// added lines already beside it is tried there first) is `already_applied`;
// a mix is hunk-apply's kPartlyApplied. Errors: NotFound /
// FailedPrecondition from hunk-apply (`error` filled), FailedPrecondition
// for a delete whose lines differ.
absl::StatusOr<Applied> ApplyFilePatch(absl::string_view content, const FilePatch& patch,
                                       hunk_apply::ApplyError* error = nullptr);

// The hunks as hunk-apply hunks (a trailing `\r` left out of each line).
std::vector<hunk_apply::Hunk> ToHunks(const FilePatch& patch);

absl::string_view FileKindName(FileKind kind);  // update, add, delete

}  // namespace clada::patch_text

#endif  // CLADA_PROJ_COMP_PATCH_TEXT_SRC_DIFF_FORMAT_H_
