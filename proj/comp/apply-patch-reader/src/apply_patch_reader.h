// apply-patch-reader: reads Codex apply_patch envelopes out of an LLM answer.
//
// Finds every `*** Begin Patch` … `*** End Patch` envelope in a larger text
// (bare, in a Markdown fence, after a `<<'EOF'` heredoc opener, amid prose)
// and parses it into file operations: add, delete, update (with an optional
// move). Update hunks are hunk_apply::Hunk values, ready for
// hunk_apply::ApplyHunks. Nothing is applied here.
//
// Example:
//   for (const Patch& p : ReadPatches(answer)) {
//     for (const ParseError& e : p.errors) Report(e.line, e.message, e.fix);
//     for (const FileOp& op : p.ops) Emit(op);   // one action per file operation
//   }
#ifndef CLADA_PROJ_COMP_APPLY_PATCH_READER_SRC_APPLY_PATCH_READER_H_
#define CLADA_PROJ_COMP_APPLY_PATCH_READER_SRC_APPLY_PATCH_READER_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/rare.h"
#include "proj/comp/core/src/source_span.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

namespace clada::apply_patch_reader {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

enum class OpKind { kAdd, kDelete, kUpdate };
absl::string_view OpKindName(OpKind kind);  // "add", "delete", "update"

// What a delete lacks: kept behind a pointer, so that an operation with
// none of it (every delete, most of an answer of a million one-line
// operations) takes 72 bytes, not 184.
struct FileOpDetails {
  std::optional<std::string> move_to;   // kUpdate with `*** Move to:` (never its own path)
  std::string content;                  // kAdd: the new file, every `+` line ending in "\n"
  std::vector<hunk_apply::Hunk> hunks;  // kUpdate: in patch order; source_line set
  std::vector<std::string> warnings;    // leniencies taken for this operation
};

struct FileOp {
  OpKind kind = OpKind::kUpdate;
  std::string path;
  SourceSpan span;  // its header through its last line

  const std::optional<std::string>& move_to() const { return details_.get().move_to; }
  const std::string& content() const { return details_.get().content; }
  const std::vector<hunk_apply::Hunk>& hunks() const { return details_.get().hunks; }
  const std::vector<std::string>& warnings() const { return details_.get().warnings; }
  // The details, made (empty) when the operation has none yet: to add to.
  FileOpDetails& details() { return details_.mut(); }

 private:
  core::Rare<FileOpDetails> details_;
};

struct ParseError {
  std::string code;     // see doc/API.md
  int line = 0;         // 1-based line of the answer
  std::string message;  // what is wrong, quoting the line
  std::string fix;      // what to send instead (often the exact expected line)
};

struct Patch {
  // From the envelope's first line (the heredoc opener when there is one)
  // through its last (`*** End Patch`, the heredoc delimiter, or the last
  // line read when the end marker is missing).
  SourceSpan span;
  // The well-formed operations, in order. A deque: a vector that doubles
  // would hold 1.5 times a million of them for a moment, and a reader can
  // take them from the front, freeing them as it goes.
  std::deque<FileOp> ops;
  std::vector<ParseError> errors;     // each malformed operation (skipped) or envelope error
  std::vector<std::string> warnings;  // envelope mistakes that were accepted
  // Whether its `*** End Patch` line was read (false: the envelope was
  // taken to end at a fence, a heredoc's end, the next `*** Begin Patch`,
  // a line that is no patch line or the end of the text; an answer still
  // being written may hold the rest).
  bool ended = false;
};

// Where a text read stands in its answer: a piece of an answer whose first
// line is the answer's line `first_line` and whose first byte (the start of
// a line) is its byte `first_byte`. Every line and byte the reader gives
// (spans, errors, hunks' source lines, the line numbers in messages and
// warnings) is then the answer's, without reading (or copying) what comes
// before the piece.
struct ReadOptions {
  int first_line = 1;
  size_t first_byte = 0;
};

// Every envelope in `text`, in order, parsed. A malformed operation is an
// error and is skipped; the others stay (operations are independent). Lines
// end at "\n" or "\r\n". Never fails, never throws. A stray operation header
// (`*** Update File:` with no `*** Begin Patch` before it) is a Patch with
// one `missing_begin` error and no operations.
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
