// The action parser: turns the SHAM blocks in an LLM's answer into validated,
// typed actions, salvaging every valid block and explaining every invalid one.
// Actions, their parameters and types come from unified-design.yaml, which is
// compiled into the binary and loaded once (LoadedSchema()).
//
// Example:
//   clada::sham_action_parser::ActionParseResult r =
//       clada::sham_action_parser::ParseShamResponse(llm_answer);
//   for (const clada::core::Action& a : r.actions) Run(a);
//   for (const auto& e : r.errors) Report(ActionParseErrorToJson(e));
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_SHAM_ACTION_PARSER_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_SHAM_ACTION_PARSER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/sham-action-parser/src/action_schema.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_action_parser {

// ---------------------------------------------------------------------------
// The schema (unified-design.yaml): types in action_schema.h

// The schema compiled into the binary, built on first use (thread-safe).
// The build checks unified-design.yaml with ParseActionSchema and writes
// code that constructs the result, so a start-up parses no text.
const ActionSchema& LoadedSchema();

// LoadedSchema().Find(name).
const ActionDefinition* FindAction(absl::string_view name);

// ---------------------------------------------------------------------------
// Parsing and validating blocks

// Why one block (or a header that could not be read) produced no action.
struct ActionParseError {
  std::string block_id;               // "" when the header gave no usable ID
  std::optional<std::string> action;  // the block's `action` value, if any
  std::string error_type;             // "syntax" | "validation" | "type"
  std::string message;                // what is wrong, for the LLM
  int block_start_line = 0;           // 1-based line of the block's header
  std::string block_content;          // the block's original text
  std::string fix;                    // how to correct it, for the LLM
};

// A refused block whose errors were counted, not kept
// (ErrorKeeping::keep_blocks): where it is, and the size its entry takes in
// the caller's report (ErrorKeeping::measure).
struct LeftOutBlock {
  int start_line = 0;  // its header's line
  int last_line = 0;
  int64_t entry_lines = 0;
  int64_t entry_bytes = 0;
  // Where ErrorKeeping::spill put its errors (the caller's offset and size).
  int64_t spill_offset = 0;
  int64_t spill_bytes = 0;
};

// How many refused blocks keep their errors whole. An answer of a million
// refused blocks would hold a million errors of about a kilobyte each
// (their fix lists every action), where a report that shows the first and
// the last of them needs only those.
struct ErrorKeeping {
  // 0: every error is kept. N: the errors of the first N and of the last N
  // refused blocks are kept whole; those of the blocks between are counted
  // into ActionParseResult::left_out, in input order.
  size_t keep_blocks = 0;
  // The lines and bytes one block's errors take in the caller's report
  // (given to each left-out block), or unset for none.
  std::function<std::pair<int64_t, int64_t>(const std::vector<ActionParseError>&)> measure;
  // Writes one left-out block's errors where the caller keeps them (a
  // --json run: a temporary file), returning where (given to the block as
  // spill_offset and spill_bytes), or unset for none.
  std::function<std::pair<int64_t, int64_t>(const std::vector<ActionParseError>&)> spill;
  // The valid blocks go into ActionParseResult::deferred instead of
  // `actions`: `text` must outlive the result.
  bool defer_actions = false;
};

// The valid blocks of an answer read with ErrorKeeping::defer_actions: each
// kept as where it is (about 40 bytes), its action made again from its text
// when it is needed (Make), the same action ParseShamResponse would have
// returned. A million small blocks held as actions need about 280 bytes
// each; an answer runs its actions one at a time.
struct DeferredActions {
  struct Entry {
    size_t begin = 0, end = 0;  // the block's bytes, in `text`
    int start_line = 0, end_line = 0;
    const ActionDefinition* definition = nullptr;  // its action
  };

  size_t size() const { return entries.size(); }
  bool empty() const { return entries.empty(); }

  // The action of entry `i`, with its warnings and lines, as
  // ParseShamResponse would have returned it.
  // InternalError if it cannot be read again (never expected: the text is
  // the one it was read from).
  absl::StatusOr<core::Action> Make(size_t i) const;

  std::vector<Entry> entries;
  // The text the grammar read: the caller's (which must outlive this), or
  // `owned_text` when chat noise was read differently.
  absl::string_view text;
  std::shared_ptr<const std::string> owned_text;
  // The chat-noise warnings of the few entries that have any, by entry.
  std::vector<std::pair<size_t, std::vector<std::string>>> notes;
};

struct ActionParseResult {
  std::vector<core::Action> actions;  // valid blocks, in input order
  std::vector<ActionParseError> errors;
  // With ErrorKeeping::defer_actions, the valid blocks, in input order
  // (`actions` is then empty).
  DeferredActions deferred;
  // Refused blocks counted, not kept (ErrorKeeping): they come after the
  // kept errors of lines before theirs and before the others.
  std::vector<LeftOutBlock> left_out;
  // Answer-wide notes, e.g. two blocks sharing an ID. Notes about a single
  // action (ignored keys) are in that action's `warnings`.
  std::vector<std::string> warnings;
  int total_blocks =
      0;  // blocks found, including ones whose header was unreadable
};

// Where the text ParseShamResponse reads stands in an answer, for a caller
// that reads an answer a piece at a time (the answer layer, a span each).
struct AnswerPiece {
  // The text starts at the start of the answer's line `first_line`
  // (1-based): every line reported (actions' metadata, errors'
  // block_start_line, left-out blocks, and the lines named in messages,
  // fixes and warnings) is the answer's, as if the text were read after
  // first_line - 1 empty lines. DeferredActions' byte offsets stay the
  // text's.
  int first_line = 1;
  // Whether the whole answer is quoted (QuotedAsAWhole of the answer): a
  // block quoted with '>' runs only in an answer quoted as a whole. Unset:
  // the text's own QuotedAsAWhole.
  std::optional<bool> quoted_as_a_whole;
};

// Parses `text` with sham_parser::ParseBlocks and validates each block on its
// own: a block with any syntax error is skipped whole; every other block
// becomes an action or one error per problem. Never fails, never throws.
// A text over `max_input_bytes` (a run passes its --max-input) gives one
// `input_too_large` syntax error and nothing else.
ActionParseResult ParseShamResponse(absl::string_view text,
                                    size_t max_input_bytes = sham_parser::kMaxInputBytes,
                                    const ErrorKeeping& keeping = {},
                                    const AnswerPiece& piece = {});

// The text sham_parser::ParseBlocks reads for `text` in ParseShamResponse:
// the chat noise whose meaning is plain read line for line (line numbers
// and line terminators kept), so that a caller finds the blocks, and their
// lines, that a run finds. With `read_quoted_blocks`, a block quoted with
// '>' is read without its quote marks even when the text is not quoted as a
// whole (ParseShamResponse then reports it as quoted, not run). `text`
// itself when there is nothing to read differently.
std::string TolerantReading(absl::string_view text, bool read_quoted_blocks = false);
// The same, without a copy of `text` when there is nothing to read
// differently: nullopt then (a caller reads `text` itself).
std::optional<std::string> TolerantReadingIfChanged(absl::string_view text, bool read_quoted_blocks = false);

// True when every non-blank line of `text` starts with '>' (after blanks,
// no-break and zero-width spaces): ParseShamResponse then runs the blocks
// quoted in it.
bool QuotedAsAWhole(absl::string_view text);

// Checks the action-level rules: `action` present, known to `schema`, runnable
// from an LLM answer, and every required parameter present. Returns that
// action's definition (owned by `schema`). InvalidArgument whose message lists
// every problem, separated by "; ".
absl::StatusOr<const ActionDefinition*> ValidateShamBlock(
    const sham_parser::Block& block, const ActionSchema& schema);

// One parameter's value given as text, checked and converted as a SHAM
// block's is (integer, boolean, enum, UTF-8, path, line range, path list):
// the typed value, or InvalidArgument saying what is wrong. clada mcp checks
// a tool's string arguments with it, so both accept the same values.
absl::StatusOr<core::Json> CheckParameterValue(const ParameterDef& parameter,
                                               std::string text);

// Converts the block's values to the types `definition` declares, fills in
// defaults, and records ignored keys as warnings. Checks required parameters
// too, so it never yields an incomplete action; it does not check
// accessibility. InvalidArgument listing every missing or ill-typed
// parameter, separated by "; ".
absl::StatusOr<core::Action> TransformToAction(
    const sham_parser::Block& block, const ActionDefinition& definition);

// {"blockId","action"?,"errorType","message","blockStartLine","blockContent","fix"}.
// Invalid UTF-8 in any text is replaced by U+FFFD, so dumping never throws.
core::Json ActionParseErrorToJson(const ActionParseError& error);

// {"action","parameters","metadata":{"blockId","startLine","endLine"},"warnings"?}.
core::Json ActionToJson(const core::Action& action);

}  // namespace clada::sham_action_parser

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_SHAM_ACTION_PARSER_H_
