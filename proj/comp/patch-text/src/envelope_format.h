// The patch envelope format (`*** Begin Patch` ... `*** End Patch`, the
// edit format of Codex): parses envelopes into file operations: add,
// delete, update (with an optional move). Update hunks are
// hunk_apply::Hunk values, ready for hunk_apply::ApplyHunks. A format, not a
// dialect: the reader that finds envelopes in an answer and the executor
// that applies a `patch` parameter both use it. Nothing is applied here; no
// I/O.
//
// An envelope's end is part of its grammar: its `*** End Patch` line, or,
// when that is missing, the next `*** Begin Patch`, the end of a heredoc
// (`<<'EOF'` on the line before the envelope) or of a fenced block it
// stands in, a line that is no patch line, or the end of the text.
//
// Example:
//   for (const Patch& p : ParsePatches(text)) {
//     for (const PatchError& e : p.errors) Report(e.line, e.message, e.fix);
//     for (const FileOp& op : p.ops) Emit(op);   // one action per file operation
//   }
#ifndef CLADA_PROJ_COMP_PATCH_TEXT_SRC_ENVELOPE_FORMAT_H_
#define CLADA_PROJ_COMP_PATCH_TEXT_SRC_ENVELOPE_FORMAT_H_

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/rare.h"
#include "proj/comp/core/src/source_span.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"
#include "proj/comp/patch-text/src/text_origin.h"

namespace clada::patch_text {

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
  core::SourceSpan span;  // its header through its last line

  const std::optional<std::string>& move_to() const { return details_.get().move_to; }
  const std::string& content() const { return details_.get().content; }
  const std::vector<hunk_apply::Hunk>& hunks() const { return details_.get().hunks; }
  const std::vector<std::string>& warnings() const { return details_.get().warnings; }
  // The details, made (empty) when the operation has none yet: to add to.
  FileOpDetails& details() { return details_.mut(); }

 private:
  core::Rare<FileOpDetails> details_;
};

struct PatchError {
  std::string code;     // see doc/API.md
  int line = 0;         // 1-based line of the text (as TextOrigin places it)
  std::string message;  // what is wrong, quoting the line
  std::string fix;      // what to send instead (often the exact expected line)
};

struct Patch {
  // From the envelope's first line (the heredoc opener when there is one)
  // through its last (`*** End Patch`, the heredoc delimiter, or the last
  // line read when the end marker is missing).
  core::SourceSpan span;
  // The well-formed operations, in order. A deque: a vector that doubles
  // would hold 1.5 times a million of them for a moment, and a reader can
  // take them from the front, freeing them as it goes.
  std::deque<FileOp> ops;
  std::vector<PatchError> errors;     // each malformed operation (skipped) or envelope error
  std::vector<std::string> warnings;  // envelope mistakes that were accepted
  // Whether its `*** End Patch` line was read (false: the envelope was
  // taken to end at a fence, a heredoc's end, the next `*** Begin Patch`,
  // a line that is no patch line or the end of the text; a text still
  // being written may hold the rest).
  bool ended = false;
};

// Every envelope in `text`, in order, parsed. A malformed operation is an
// error and is skipped; the others stay (operations are independent). Lines
// end at "\n" or "\r\n". Never fails, never throws. A stray operation header
// (`*** Update File:` with no `*** Begin Patch` before it) is a Patch with
// one `missing_begin` error and no operations; an envelope the text ends
// inside (no `*** End Patch`) is one `truncated` error and no operations.
std::vector<Patch> ParsePatches(absl::string_view text, const TextOrigin& origin = {});

// The same envelopes without their operations (`ops` empty; spans,
// errors, warnings and `ended` as ParsePatches gives them): a caller that
// needs only where the envelopes are never holds an envelope's 1,982,806
// deletes.
std::vector<Patch> ParseEnvelopes(absl::string_view text, const TextOrigin& origin = {});

// Whether `line` (without its line break) opens an envelope: `*** Begin
// Patch`, or a spelling of it the parser accepts with a warning.
bool IsBeginPatchLine(absl::string_view line);

}  // namespace clada::patch_text

#endif  // CLADA_PROJ_COMP_PATCH_TEXT_SRC_ENVELOPE_FORMAT_H_
