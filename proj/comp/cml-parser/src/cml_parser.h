// Reads CML, the XML dialect of the seeds, out of an LLM's answer: every
// `<tasks>` block and every standalone task (`<edit>`, `<write>`, `<move>`,
// `<remove>`, `<run>`) in the prose or Markdown, in document order, each task
// as the core::Action the SHAM path would produce for the same change.
//
// Example:
//   clada::cml_parser::CmlParseResult r = clada::cml_parser::ParseCml(answer);
//   for (const auto& block : r.blocks)
//     for (const auto& task : block.tasks) Run(task.action);  // label "task-N"
#ifndef CLADA_PROJ_COMP_CML_PARSER_SRC_CML_PARSER_H_
#define CLADA_PROJ_COMP_CML_PARSER_SRC_CML_PARSER_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/packed_actions.h"
#include "proj/comp/core/src/rare.h"
#include "proj/comp/core/src/source_span.h"

namespace clada::cml_parser {

// Where a block stands in the answer (core::SourceSpan, shared by every reader).
using SourceSpan = core::SourceSpan;

// Lines of the answer that hold another dialect's block (a SHAM block): no
// CML element that starts on them is read, so a CML example inside a SHAM
// heredoc is content.
struct LineRange {
  int first = 0, last = 0;
};

// One task: the action (its metadata.block_id is the label "task-N"), the
// task's number (1-based, across the answer) and where it starts.
struct Task {
  core::Action action;
  int number = 0;
  int line = 0;
};

// A task read with ParseOptions::pack_actions: its number and line; its
// action is CmlParseResult::packed_actions.Get of its index in
// CmlParseResult::packed.
struct PackedTask {
  int number = 0;
  int line = 0;
};

// A problem that stops one task or a whole block. `code` is the seeds' error
// type (`malformed_xml`, `unsupported_version`, `invalid_task`).
struct CmlError {
  std::string code;
  std::string message;
  int line = 0;
  int column = 0;
  int task_number = 0;  // 0: the whole block
  std::string fix;
};

// A `<tasks>` block (group policy fail_fast) or one standalone task
// (independent). Blocks are numbered from 0 across the answer, as the seeds'
// `<block index>`: a block's number is its place in CmlParseResult::blocks.
// What few blocks have (a <tasks> block's version, its tasks read whole,
// errors, warnings): kept behind a pointer, so that the block of a
// standalone task read packed, most of an answer of many one-line tasks,
// takes 32 bytes (1,982,807 of them, at the input limit, took 100 MB at 48).
struct CmlBlockDetails {
  std::string version;  // `<tasks version>`; empty when absent
  // In document order; a task that could not be read is an error with its
  // task_number and keeps its number, so the numbers of the others hold.
  std::vector<Task> tasks;
  std::vector<CmlError> errors;
  std::vector<std::string> warnings;
  // The tasks a block that could not be read appears to hold (their
  // numbers are used up); -1 when its tasks were read (and counted).
  int counted_tasks = -1;
};

class CmlBlock {
 public:
  CmlBlock() : length_(0), tasks_block_(0) {}

  bool is_tasks_block() const { return tasks_block_ != 0; }
  core::SourceSpan span() const { return {begin_, begin_ + length_, first_line_, last_line_}; }
  // With ParseOptions::pack_actions, tasks() is empty and the block's tasks
  // are CmlParseResult::packed[packed_begin(), CmlParseResult::PackedEnd(i)).
  uint32_t packed_begin() const { return packed_begin_; }

  const std::string& version() const { return details_.get().version; }
  const std::vector<Task>& tasks() const { return details_.get().tasks; }
  const std::vector<CmlError>& errors() const { return details_.get().errors; }
  const std::vector<std::string>& warnings() const { return details_.get().warnings; }
  int counted_tasks() const { return details_.get().counted_tasks; }  // CmlBlockDetails::counted_tasks
  // The details, made (empty) when the block has none yet: to add to.
  CmlBlockDetails& details() { return details_.mut(); }

  // Set by the parser. A span is shorter than 2 GiB (ParseCml reads a
  // longer block as an error of its first 2 GiB).
  static constexpr size_t kMaxLength = (size_t{1} << 31) - 1;
  void set_span(const core::SourceSpan& s) {
    begin_ = s.begin;
    length_ = static_cast<uint32_t>(std::min(s.end - s.begin, kMaxLength));
    first_line_ = s.first_line;
    last_line_ = s.last_line;
  }
  void set_tasks_block(bool b) { tasks_block_ = b ? 1 : 0; }
  void set_packed_begin(uint32_t i) { packed_begin_ = i; }

 private:
  size_t begin_ = 0;
  uint32_t length_ : 31;
  uint32_t tasks_block_ : 1;
  int32_t first_line_ = 0, last_line_ = 0;
  uint32_t packed_begin_ = 0;
  core::Rare<CmlBlockDetails> details_;
};

struct CmlParseResult {
  std::vector<CmlBlock> blocks;
  int total_tasks = 0;
  // With ParseOptions::pack_actions: every block's tasks, in order, and
  // their actions, packed as they are read (packed_actions.Get(i) is the
  // action of packed[i], the one `tasks` would have held).
  std::vector<PackedTask> packed;
  core::PackedActions packed_actions;

  // Where block i's packed tasks end: where the next block's begin.
  size_t PackedEnd(size_t i) const {
    return i + 1 < blocks.size() ? blocks[i + 1].packed_begin() : packed.size();
  }
  // Block i's tasks, read or in error (the task numbers it uses up).
  int TaskCount(size_t i) const;
};

struct ParseOptions {
  // Each task's action is packed as soon as it is read, not kept: an answer
  // of 300,000 one-line tasks then holds about 60 bytes a task, not 1.3 KB.
  bool pack_actions = false;
  // The text is a piece of an answer that starts at the start of the
  // answer's line `first_line` (1-based), its byte `first_byte`: every line
  // ParseCml reports (spans, tasks, errors, the numbers in messages) and
  // every span's bytes are the answer's, as if the text were read with the
  // answer before it. `skip` lines are the answer's too.
  int first_line = 1;
  size_t first_byte = 0;
};

// Finds and reads every CML block of `text`. Never fails and never throws:
// each problem is a CmlError of its block; the other blocks are read.
CmlParseResult ParseCml(absl::string_view text, const std::vector<LineRange>& skip = {},
                        const ParseOptions& options = {});

// Where the blocks are, without reading them (cheap; the same spans as ParseCml).
std::vector<SourceSpan> FindCml(absl::string_view text, const std::vector<LineRange>& skip = {});

// The same spans as FindCml, each with whether its element was closed (its end
// tag or "/>" found); an unclosed one may be an answer still being written.
struct FoundSpan {
  SourceSpan span;
  bool closed = true;
};
std::vector<FoundSpan> FindCmlSpans(absl::string_view text);

// FindCmlSpans one span at a time, holding none of them (the answer layer's
// span stream: 1,982,959 one-line tasks at the 50 MiB input limit made a
// list of 80 MB). `text` must outlive it.
class CmlSpanFinder {
 public:
  explicit CmlSpanFinder(absl::string_view text);
  ~CmlSpanFinder();
  CmlSpanFinder(const CmlSpanFinder&) = delete;
  CmlSpanFinder& operator=(const CmlSpanFinder&) = delete;
  // The next span in order, or false when there is none.
  bool Next(FoundSpan* out);

 private:
  class Elements;
  std::unique_ptr<Elements> elements_;
};

// The seeds' error type of a failed task, from the executor's outcome
// (`action`: the action that ran; `code`: its error code,
// core::ActionOutcome::code; `data`: its data): search_not_found,
// match_count_mismatch, file_not_found, permission_denied, path_escape,
// path_denied, command_not_allowed, exec_timeout, exec_failed,
// total_timeout; "operation_failed" for anything else. The message is not
// read: a message that happens to hold "timed out" or "does not exist"
// types nothing.
std::string ErrorType(absl::string_view action, absl::string_view code, const core::Json& data);

// The system prompt that teaches an LLM CML: every element, the block and
// numbering rules, the errors and a worked example (`clada instructions
// --dialect cml`). Every example in it reads without errors (tested).
std::string CmlInstructions();

// Decodes what the seeds allow inside CDATA: "]]&gt;" stands for "]]>".
std::string UnescapeCdata(absl::string_view cdata);

}  // namespace clada::cml_parser

#endif  // CLADA_PROJ_COMP_CML_PARSER_SRC_CML_PARSER_H_
