// Reads unified diffs (`git diff`, `diff -u`, an LLM's ```diff fence) out of
// an answer into per-file patches: the format itself (parsing a diff,
// applying one file's patch) is patch-text's; this reader adds what is the
// answer's (a fence of hunks that names no file) and the dialect's
// instructions.
//
// Example:
//   clada::udiff_reader::Diffs d = clada::udiff_reader::ReadDiffs(answer);
//   for (const auto& f : d.files) {
//     absl::StatusOr<clada::udiff_reader::Applied> r = clada::udiff_reader::ApplyFilePatch(old_text, f);
//     ...
//   }
#ifndef CLADA_PROJ_COMP_UDIFF_READER_SRC_UDIFF_READER_H_
#define CLADA_PROJ_COMP_UDIFF_READER_SRC_UDIFF_READER_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/source_span.h"
#include "proj/comp/patch-text/src/diff_format.h"
#include "proj/comp/patch-text/src/text_origin.h"

namespace clada::udiff_reader {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

// The unified diff format's types and its applier (patch-text): the diff
// parameter of the file executor is the same format.
using DiffLine = patch_text::DiffLine;
using DiffHunk = patch_text::DiffHunk;
using FileKind = patch_text::FileKind;
using FilePatch = patch_text::FilePatch;
// A file section that cannot be applied: patch-text's codes, and
// `missing_file_header` (a ```diff fence of hunks and no file header).
using ParseError = patch_text::DiffError;
using Diffs = patch_text::Diffs;
using Applied = patch_text::Applied;
using patch_text::ApplyFilePatch;
using patch_text::FileKindName;
using patch_text::ToHunks;

// Every file section of every diff in `text` (patch-text's ParseDiffs),
// bare or in a fence; and a ```diff (or ```patch) fence holding `@@` hunks
// and no file header is one `missing_file_header` error. Never fails,
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
using ReadOptions = patch_text::TextOrigin;

// ReadDiffs(text, on_file) of a piece of an answer.
Diffs ReadDiffs(absl::string_view text, const ReadOptions& options, absl::FunctionRef<void(FilePatch&&)> on_file);

// The spans of ReadDiffs(text)'s files and errors, in order.
std::vector<SourceSpan> FindDiffs(absl::string_view text);

// The system prompt for unified diffs (`clada instructions --dialect
// udiff`): the format, what clada checks, and a worked example that
// ReadDiffs reads without error.
std::string UdiffInstructions();

}  // namespace clada::udiff_reader

#endif  // CLADA_PROJ_COMP_UDIFF_READER_SRC_UDIFF_READER_H_
