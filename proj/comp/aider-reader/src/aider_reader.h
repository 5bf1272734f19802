// Reads Aider's SEARCH/REPLACE blocks out of an LLM's answer:
//
//   src/app.py
//   ```python
//   <<<<<<< SEARCH
//   def greet():
//   =======
//   def greet(name):
//   >>>>>>> REPLACE
//   ```
//
// Example:
//   clada::aider_reader::Blocks b = clada::aider_reader::ReadBlocks(answer);
//   for (const clada::core::Action& a : clada::aider_reader::ToActions(b)) Run(a);
//   for (const auto& e : b.errors) Report(e.line, e.message, e.fix);
#ifndef CLADA_PROJ_COMP_AIDER_READER_SRC_AIDER_READER_H_
#define CLADA_PROJ_COMP_AIDER_READER_SRC_AIDER_READER_H_

#include <optional>
#include <deque>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/source_span.h"

namespace clada::aider_reader {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

// One SEARCH/REPLACE block. `search` and `replace` are the lines between the
// markers exactly as written (each with its own line break), as Aider
// extracts them. An empty (or blank-only) `search` creates or appends.
struct Edit {
  int number = 0;           // 1-based, across the answer's edits
  std::string path;
  std::string search;
  std::string replace;
  SourceSpan span;          // `<<<<<<< SEARCH` through `>>>>>>> REPLACE`
  int path_line = 0;        // where the path was written; 0: reused from the block before
  std::vector<std::string> warnings;
};

// A shell-language fence (```bash, ```sh, ...): never an edit, never run.
struct ShellBlock {
  std::string text;         // the lines inside the fence
  SourceSpan span;
};

// A block that could not be read. Codes: `missing_path` (no path before the
// first block), `missing_divider` (no `=======` before the next block or the
// end), `missing_replace_marker` (no `>>>>>>> REPLACE`), `extra_divider` (a
// second `=======` in one block).
struct ParseError {
  int number = 0;           // the block's number (as Edit::number)
  std::string code;
  int line = 0;             // the block's `<<<<<<< SEARCH` line
  std::string message;
  std::string fix;
  SourceSpan span;          // the lines the error covers (not read again)
};

struct Blocks {
  // In answer order. A deque: 300,000 edits grow without being copied or
  // held twice (a vector doubles).
  std::deque<Edit> edits;
  std::vector<ShellBlock> shell;
  std::vector<ParseError> errors;
};

// Every block of `text`. Never fails, never throws: a malformed block is a
// ParseError and the blocks after it are still read.
Blocks ReadBlocks(absl::string_view text);

// The same, each edit handed to `on_edit` as soon as it is read instead of
// kept (the returned Blocks::edits is empty): a reader that needs only
// where the blocks are (the listener) never holds 875,000 edits.
Blocks ReadBlocks(absl::string_view text, absl::FunctionRef<void(Edit&&)> on_edit);

// Where a text read stands in its answer, and what it carries from the
// answer before it. `first_line`, `first_byte`: a piece of an answer whose
// first line is the answer's line `first_line` and whose first byte (the
// start of a line) is its byte `first_byte`; every line and byte the reader
// gives (edits, errors, spans, the line numbers in messages and warnings)
// is then the answer's, without reading (or copying) what comes before.
// `carried_path`: the path a block before the piece named, which a first
// block naming none reuses (as ReadBlocks of the whole answer would).
struct ReadOptions {
  int first_line = 1;
  size_t first_byte = 0;
  std::string carried_path;
  // The piece stops where the answer's next block starts, not where the
  // answer ends: a block it ends inside is said to stop there.
  bool cut = false;
};

// ReadBlocks(text, on_edit) of a piece of an answer.
Blocks ReadBlocks(absl::string_view text, const ReadOptions& options, absl::FunctionRef<void(Edit&&)> on_edit);

// The spans of ReadBlocks(text)'s edits and errors, in order (for a segmenter).
std::vector<SourceSpan> FindBlocks(absl::string_view text);

// The path named by the lines just before a `<<<<<<< SEARCH` (oldest first,
// at most the last three are read), as Aider's find_filename without fuzzy
// matching: the line right before, and further back only across fence lines.
// With `known_paths`, a candidate equal to one wins, else a candidate that is
// the file name of exactly one known path resolves to it (`warning` says so).
// nullopt when no line names a path.
std::optional<std::string> FindFilename(const std::vector<std::string>& lines_before,
                                        const std::vector<std::string>& known_paths = {},
                                        std::string* warning = nullptr);

// One action per edit, in order: `file_replace_text` (path, old_text,
// new_text as written) or, for an empty SEARCH, `file_append` (content as
// lines; it creates a missing file). metadata: block_id `sr-N`, the block's
// lines; the edit's warnings.
std::vector<core::Action> ToActions(const Blocks& blocks);
core::Action ToAction(const Edit& edit);

// The system prompt for SEARCH/REPLACE blocks (`clada instructions
// --dialect search_replace`): the format, its rules and worked examples,
// each of which ReadBlocks reads without error.
std::string SearchReplaceInstructions();

}  // namespace clada::aider_reader

#endif  // CLADA_PROJ_COMP_AIDER_READER_SRC_AIDER_READER_H_
