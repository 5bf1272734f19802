// Reads the replacer blocks of the seeds (`replacer_llm_instructions.md`)
// out of an LLM's answer:
//
//   <<<EXPLANATION>>>
//   why the change should happen
//   <<<FILE>>>
//   src/app.py
//   <<<SEARCH>>>
//   def old():
//   <<<REPLACE>>>
//   def new():
//   <<<END>>>
//
// or `<<<OVERWRITE>>>` content `<<<END>>>` after the FILE (creates or
// replaces the file).
//
// Example:
//   clada::replacer_reader::Blocks b = clada::replacer_reader::ReadBlocks(answer);
//   for (const clada::core::Action& a : clada::replacer_reader::ToActions(b)) Run(a);
//   for (const auto& e : b.errors) Report(e.line, e.message, e.fix);
#ifndef CLADA_PROJ_COMP_REPLACER_READER_SRC_REPLACER_READER_H_
#define CLADA_PROJ_COMP_REPLACER_READER_SRC_REPLACER_READER_H_

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/rare.h"
#include "proj/comp/core/src/source_span.h"

namespace clada::replacer_reader {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

enum class EditKind { kSearchReplace, kOverwrite };

// One complete block. Texts are the lines between the markers exactly as
// written, each with its own line break (a `\r` before it stays).
struct Edit {
  int number = 0;            // 1-based, across the answer's blocks (errors count too)
  EditKind kind = EditKind::kSearchReplace;
  bool removes = false;      // kSearchReplace: REPLACE holds only blank lines: remove the SEARCH text
  int file_line = 0;         // the `<<<FILE>>>` line
  int edit_line = 0;         // the `<<<SEARCH>>>` or `<<<OVERWRITE>>>` line
  std::string path;          // the FILE's line, trimmed
  std::string search;        // kSearchReplace
  std::string replace;       // kSearchReplace: the REPLACE text; kOverwrite: the content
  SourceSpan span;           // its first marker (EXPLANATION or FILE) through `<<<END>>>`

  // The EXPLANATION's lines, blank lines around them dropped; "" when none.
  // Behind a pointer: most blocks have none, and an answer of a million
  // blocks carried it empty (and an always empty list of warnings: the edit
  // is 152 bytes, not 200).
  const std::string& explanation() const { return explanation_.get(); }
  void set_explanation(std::string text) {
    if (!text.empty()) explanation_.mut() = std::move(text);
  }

 private:
  core::Rare<std::string> explanation_;
};

// A block that could not be read. Codes: `missing_file` (a SEARCH or
// OVERWRITE without its own FILE right before it), `missing_path` (FILE
// without a path line), `ambiguous_path` (FILE with more than one line),
// `file_without_edit` (FILE followed by neither SEARCH nor OVERWRITE),
// `explanation_without_edit` (EXPLANATION followed by no FILE),
// `replace_without_search`, `missing_replace` (SEARCH closed by END without
// REPLACE), `empty_search`, `unclosed_block` (no `<<<END>>>` before the next
// block or the end of the answer), `unexpected_marker` (a marker out of
// place inside a block), `stray_end` (`<<<END>>>` outside any block).
struct ParseError {
  int number = 0;            // the block's number (as Edit::number)
  std::string code;
  int line = 0;              // the block's first line
  std::string message;       // names the rule and the marker's line
  std::string fix;
  SourceSpan span;           // the lines the error covers (not read again)
};

struct Blocks {
  // In answer order. A deque: 300,000 edits grow without being copied or
  // held twice (a vector doubles).
  std::deque<Edit> edits;
  std::vector<ParseError> errors;
};

// Every block of `text`. Markers stand alone at the start of a line
// (trailing blanks and `\r` allowed). Never fails, never throws: a malformed
// block is a ParseError and the blocks after it are still read.
Blocks ReadBlocks(absl::string_view text);

// The same, each edit handed to `on_edit` as soon as it is read instead of
// kept (the returned Blocks::edits is empty): a reader that needs only
// where the blocks are (the listener) never holds 300,000 edits.
Blocks ReadBlocks(absl::string_view text, absl::FunctionRef<void(Edit&&)> on_edit);

// The same, the errors handed to `on_error` too: every block, edit or
// error, handed on as it is read, in the answer's order (Edit::number and
// ParseError::number count up by one), and nothing kept. A reader that
// numbers the blocks that remain as it goes (`clada run`, which leaves out
// a block inside another dialect's) never holds 861,000 edits.
void ReadBlocks(absl::string_view text, absl::FunctionRef<void(Edit&&)> on_edit,
                absl::FunctionRef<void(ParseError&&)> on_error);

// Where a text read stands in its answer: a piece of an answer whose first
// line is the answer's line `first_line` and whose first byte (the start of
// a line) is its byte `first_byte`. Every line and byte the reader gives
// (edits, errors, spans, the line numbers in messages) is then the
// answer's, as if the piece were read with the answer before it, without
// reading (or copying) what comes before it.
struct ReadOptions {
  int first_line = 1;
  size_t first_byte = 0;
};

// ReadBlocks(text, on_edit, on_error) of a piece of an answer.
void ReadBlocks(absl::string_view text, const ReadOptions& options, absl::FunctionRef<void(Edit&&)> on_edit,
                absl::FunctionRef<void(ParseError&&)> on_error);

// The spans of ReadBlocks(text)'s edits and errors, in order (for a segmenter).
std::vector<SourceSpan> FindBlocks(absl::string_view text);

// One action per edit, in order: `file_replace_text` (path, old_text =
// SEARCH, new_text = REPLACE, or "" when the REPLACE is blank: removal), or
// `file_write` (path, content as lines; it creates parents) for OVERWRITE.
// metadata: block_id `rep-N`, the block's lines, the explanation.
std::vector<core::Action> ToActions(const Blocks& blocks);
core::Action ToAction(const Edit& edit);

// The system prompt for the replacer blocks (`clada instructions --dialect
// replacer`), with the seeds' worked examples.
std::string ReplacerInstructions();

}  // namespace clada::replacer_reader

#endif  // CLADA_PROJ_COMP_REPLACER_READER_SRC_REPLACER_READER_H_
