// Reads CSL, the marker dialect of the seeds, out of an LLM's answer:
//
//   <---WRITE file="src/app.js"--->
//   console.log("hello");
//   <---END--->
//   <---SEARCH file="config.json" count="1"--->
//   "debug": false
//   <---REPLACE--->
//   "debug": true
//   <---END--->
//
// every standalone operation (WRITE, RUN, SEARCH) and every TASKS block, in
// document order, each operation as the core::Action the SHAM path would
// produce for the same change, labelled `csl-N` (`csl-N.M` inside TASKS); the
// seed's report form shows them as `task-N` (proj/src/csl_report.cc).
//
// Example:
//   clada::csl_parser::CslParseResult r = clada::csl_parser::ParseCsl(answer);
//   for (const auto& block : r.blocks) {
//     if (block.is_tasks && !block.errors.empty()) continue;  // all or nothing
//     for (const auto& op : block.operations) Run(op.action);
//   }
#ifndef CLADA_PROJ_COMP_CSL_PARSER_SRC_CSL_PARSER_H_
#define CLADA_PROJ_COMP_CSL_PARSER_SRC_CSL_PARSER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/packed_actions.h"
#include "proj/comp/core/src/rare.h"
#include "proj/comp/core/src/source_span.h"

namespace clada::csl_parser {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

// The marker delimiters (settings `csl_start`, `csl_end`). Both must be
// non-empty; a marker is a whole line `<start>NAME attrs<end>`.
struct Delimiters {
  std::string start = "<---";
  std::string end = "--->";
};

// Lines of the answer that hold another dialect's block (inclusive): no
// marker on them is read, so a CSL example inside a SHAM heredoc is content.
struct LineRange {
  int first = 0, last = 0;
};

// One operation read whole: the action (metadata.block_id is its label),
// the CSL name (WRITE, RUN, SEARCH) and where it stands.
struct Operation {
  core::Action action;
  std::string operation;
  std::string label;  // csl-N, or csl-N.M inside TASKS
  SourceSpan span;    // its marker line through its <---END--->
};

// An operation read with ParseOptions::pack_actions: its first line; its
// action is CslParseResult::packed_actions.Get of its index in
// CslParseResult::packed.
struct PackedOperation {
  int line = 0;
};

// A problem that stops one operation (or, for a TASKS block's own problem,
// the block). Codes: `unclosed_operation` (no <---END--->), `unknown_operation`
// (not WRITE, RUN, SEARCH, TASKS; names are case-sensitive), `stray_marker`
// (REPLACE, TO or END where no operation is open), `missing_replace` (a SEARCH
// without <---REPLACE--->, or with a second one), `nested_tasks`,
// `missing_attribute`, `invalid_attribute`, `empty_search`, `empty_command`.
struct CslError {
  std::string code;
  std::string operation;  // the marker's name as written (WRITE, DELETE, REPLACE, ...)
  std::string label;      // csl-N / csl-N.M of the operation it stops
  int line = 0;           // the marker's line (1-based)
  std::string message;    // names the operation, its line and what is wrong
  std::string fix;        // what to send instead
  SourceSpan span;        // the lines it covers (not read again)
};

// A TASKS block (policy atomic_validation: if any of its operations has an
// error, none runs; at run time the first failure skips the rest) or one
// standalone operation or stray marker (independent). Numbered from 1 (N of
// `csl-N`) in document order.
// What few blocks have (a TASKS block's version, operations read whole,
// errors, warnings): behind a pointer, so that the block of a standalone
// operation read packed, most of an answer of many small operations,
// takes 48 bytes (a million of them took 160 MB when each held these).
struct CslBlockDetails {
  std::string version;                // TASKS version="..." as written; empty when absent
  std::vector<Operation> operations;  // read whole, in order
  std::vector<CslError> errors;       // in order of their lines
  std::vector<std::string> warnings;  // ignored attributes, prose inside TASKS
};

struct CslBlock {
  int32_t number = 0;
  uint32_t operation_count : 31;  // operations read plus those in error (M runs 1..count)
  uint32_t is_tasks : 1;
  // With ParseOptions::pack_actions, operations() is empty and the block's
  // operations are CslParseResult::packed[packed_begin, packed_end).
  uint32_t packed_begin = 0, packed_end = 0;
  SourceSpan span;

  const std::string& version() const { return details_.get().version; }
  const std::vector<Operation>& operations() const { return details_.get().operations; }
  const std::vector<CslError>& errors() const { return details_.get().errors; }
  const std::vector<std::string>& warnings() const { return details_.get().warnings; }
  // The details, made (empty) when the block has none yet: to add to.
  CslBlockDetails& details() { return details_.mut(); }

  CslBlock() : operation_count(0), is_tasks(0) {}

 private:
  core::Rare<CslBlockDetails> details_;
};

struct CslParseResult {
  std::vector<CslBlock> blocks;
  // With ParseOptions::pack_actions: every block's operations, in order,
  // and their actions, packed as they are read (packed_actions.Get(i) is
  // the action of packed[i], the one `operations` would have held).
  std::vector<PackedOperation> packed;
  core::PackedActions packed_actions;
};

struct ParseOptions {
  // Each operation's action is packed as soon as it is read, not kept: an
  // answer of 300,000 small operations then holds about 200 bytes an
  // operation, not a kilobyte.
  bool pack_actions = false;
  // How many blocks there are at most (FindCsl's count): reserved at once,
  // so 300,000 blocks are not grown twice over and held twice while they
  // move. (A deque instead made a dense answer's parse twice as slow:
  // glibc's malloc consolidating its 512-byte nodes.)
  size_t expected_blocks = 0;
  // The text is a piece of an answer that starts at the start of the
  // answer's line `first_line` (1-based), its byte `first_byte`: every line
  // ParseCsl reports (spans, actions' lines, errors, the lines named in
  // messages and warnings) and every span's bytes are the answer's, as if
  // the text were read after first_line - 1 empty lines. `skip` lines are
  // the answer's too. Labels (csl-N) count the piece's blocks from 1.
  int first_line = 1;
  size_t first_byte = 0;
};

// Every CSL block of `text`. Never fails and never throws: a broken operation
// is a CslError of its block, with its line, and the blocks after it are read.
// Markers that start on a line of `skip` are not read.
CslParseResult ParseCsl(absl::string_view text, const Delimiters& delimiters = {},
                        const std::vector<LineRange>& skip = {}, const ParseOptions& options = {});

// The spans of ParseCsl's blocks, without building actions.
std::vector<SourceSpan> FindCsl(absl::string_view text, const Delimiters& delimiters = {},
                                const std::vector<LineRange>& skip = {});

// The CSL name of an action the reader emits: WRITE (file_write,
// file_append), RUN (exec), SEARCH (file_replace_all_text,
// file_replace_text_range); else the action's own name.
std::string OperationOf(absl::string_view action_name);

// The system prompt that teaches an LLM CSL with these delimiters: every
// operation with an example, TASKS and its all-or-nothing rule, the report
// form and a worked example (`clada instructions --dialect csl`). Every
// example in it reads without errors (tested).
std::string CslInstructions(const Delimiters& delimiters = {});

}  // namespace clada::csl_parser

#endif  // CLADA_PROJ_COMP_CSL_PARSER_SRC_CSL_PARSER_H_
