// apply-patch-reader: reads Codex apply_patch envelopes out of an LLM answer.
//
// Finds every `*** Begin Patch` … `*** End Patch` envelope in a larger text
// (bare, in a Markdown fence, after a `<<'EOF'` heredoc opener, amid prose)
// and parses it into file operations: the envelope format itself is
// patch-text's; this reader adds what is the answer's (an answer quoted as
// Markdown) and the dialect's instructions. Nothing is applied here.
//
// Example:
//   for (const Patch& p : ReadPatches(answer)) {
//     for (const ParseError& e : p.errors) Report(e.line, e.message, e.fix);
//     for (const FileOp& op : p.ops) Emit(op);   // one action per file operation
//   }
#ifndef CLADA_PROJ_COMP_APPLY_PATCH_READER_SRC_APPLY_PATCH_READER_H_
#define CLADA_PROJ_COMP_APPLY_PATCH_READER_SRC_APPLY_PATCH_READER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/source_span.h"
#include "proj/comp/patch-text/src/envelope_format.h"
#include "proj/comp/patch-text/src/text_origin.h"

namespace clada::apply_patch_reader {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

// The envelope format's types (patch-text): the patch parameter of the file
// executor is the same format.
using OpKind = patch_text::OpKind;
using FileOpDetails = patch_text::FileOpDetails;
using FileOp = patch_text::FileOp;
// An error's codes: patch-text's, and `quoted_patch` (see ReadPatches).
using ParseError = patch_text::PatchError;
using Patch = patch_text::Patch;
using patch_text::OpKindName;

// Where a text read stands in its answer: a piece of an answer whose first
// line is the answer's line `first_line` and whose first byte (the start of
// a line) is its byte `first_byte`. Every line and byte the reader gives
// (spans, errors, hunks' source lines, the line numbers in messages and
// warnings) is then the answer's, without reading (or copying) what comes
// before the piece.
using ReadOptions = patch_text::TextOrigin;

// Every envelope in `text`, in order, parsed (patch-text's ParsePatches).
// An answer whose only envelopes are quoted as Markdown (`> *** Begin
// Patch`) gives one `quoted_patch` error per quoted run of lines instead,
// never silence. Never fails, never throws.
std::vector<Patch> ReadPatches(absl::string_view text, const ReadOptions& options = {});

// The same envelopes without their operations (`ops` empty; spans,
// errors, warnings and `ended` as ReadPatches gives them): a reader that
// needs only where the envelopes are (the listener) never holds an
// envelope's 1,982,806 deletes.
std::vector<Patch> ReadEnvelopes(absl::string_view text, const ReadOptions& options = {});

// The envelopes' spans only, as ReadPatches would report them.
std::vector<SourceSpan> FindPatches(absl::string_view text);

// The system prompt for the apply_patch envelope (`clada instructions
// --dialect apply_patch`): the grammar, what clada checks, and a worked
// example that ReadPatches reads without error.
std::string ApplyPatchInstructions();

}  // namespace clada::apply_patch_reader

#endif  // CLADA_PROJ_COMP_APPLY_PATCH_READER_SRC_APPLY_PATCH_READER_H_
