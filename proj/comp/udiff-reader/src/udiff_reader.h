// Reads unified diffs (`git diff`, `diff -u`, an LLM's ```diff fence) out of
// an answer into per-file patches, and applies one file's patch to its text:
// at the lines its hunk headers name when the text is there (as `git apply`),
// else placed by its context through hunk-apply, with a warning.
//
// Example:
//   clada::udiff_reader::Diffs d = clada::udiff_reader::ReadDiffs(answer);
//   for (const auto& f : d.files) {
//     absl::StatusOr<clada::udiff_reader::Applied> r = clada::udiff_reader::ApplyFilePatch(old_text, f);
//     ...
//   }
#ifndef CLADA_PROJ_COMP_UDIFF_READER_SRC_UDIFF_READER_H_
#define CLADA_PROJ_COMP_UDIFF_READER_SRC_UDIFF_READER_H_

#include <optional>
#include <deque>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/source_span.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

namespace clada::udiff_reader {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

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
  int source_line = 0;  // the `@@` line in the answer
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
  SourceSpan span;                     // header through last hunk line
};

// A file section that cannot be applied. Codes: `binary_patch`,
// `missing_hunks` (headers and no hunk), `missing_path`.
struct ParseError {
  std::string code;
  int line = 0;
  std::string message;
  std::string fix;
  SourceSpan span;
};

struct Diffs {
  // In answer order. A deque: 300,000 files grow without being copied or
  // held twice (a vector doubles).
  std::deque<FilePatch> files;
  std::vector<ParseError> errors;
};

// Every file section of every diff in `text`: a `diff --git` line, or a
// `--- ` line followed by a `+++ ` line, bare or in a fence. Never fails,
// never throws.
Diffs ReadDiffs(absl::string_view text);

// The same, each file patch handed to `on_file` as soon as it is read
// instead of kept (the returned Diffs::files is empty): a diff of a
// million files is never held whole (its files took 300 bytes each).
Diffs ReadDiffs(absl::string_view text, absl::FunctionRef<void(FilePatch&&)> on_file);

// Where a text read stands in its answer: a piece of an answer whose first
// line is the answer's line `first_line` and whose first byte (the start of
// a line) is its byte `first_byte`. Every line and byte the reader gives
// (spans, hunks' source lines, errors, the line numbers in messages and
// warnings) is then the answer's, without reading (or copying) what comes
// before the piece.
struct ReadOptions {
  int first_line = 1;
  size_t first_byte = 0;
};

// ReadDiffs(text, on_file) of a piece of an answer.
Diffs ReadDiffs(absl::string_view text, const ReadOptions& options, absl::FunctionRef<void(FilePatch&&)> on_file);

// The spans of ReadDiffs(text)'s files and errors, in order.
std::vector<SourceSpan> FindDiffs(absl::string_view text);

struct Applied {
  std::string content;
  std::vector<std::string> warnings;  // hunks placed by context, tiers below exact
};

// The file's new text. kAdd: the added lines (`content` must be empty: the
// caller checks that the file does not exist). kDelete: "" once the removed
// lines are the whole of `content`. kUpdate: every hunk at the line its
// header names (shifted by the hunks before) when its old lines are there
// byte for byte; else all hunks placed by their context (hunk-apply: unique,
// the same tiers as apply_patch), with a warning per hunk that moved.
// All hunks or none. Errors: NotFound / FailedPrecondition from hunk-apply
// (`error` filled), FailedPrecondition for a delete whose lines differ.
absl::StatusOr<Applied> ApplyFilePatch(absl::string_view content, const FilePatch& patch,
                                       hunk_apply::ApplyError* error = nullptr);

// The hunks as hunk-apply hunks (a trailing `\r` left out of each line).
std::vector<hunk_apply::Hunk> ToHunks(const FilePatch& patch);

absl::string_view FileKindName(FileKind kind);  // update, add, delete

// The system prompt for unified diffs (`clada instructions --dialect
// udiff`): the format, what clada checks, and a worked example that
// ReadDiffs reads without error.
std::string UdiffInstructions();

}  // namespace clada::udiff_reader

#endif  // CLADA_PROJ_COMP_UDIFF_READER_SRC_UDIFF_READER_H_
