// The command-line faces of the action parser: `clada validate` (what would
// run, and every error with its fix), `clada instructions` (the text a user
// pastes into an LLM's system prompt) and `clada schema` (the schema as JSON).
//
// Example:
//   int code = clada::sham_action_parser::RunValidateCommand(text,
//   /*json=*/false, std::cout); std::cout <<
//   clada::sham_action_parser::RenderInstructions();
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_COMMANDS_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_COMMANDS_H_

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_action_parser {

// Parses and validates `input` (runs nothing) and writes the outcome to `out`.
// Text form: a summary line, then one line per valid action
// "<blockId> <action> <primary parameter value>" with its warnings, every
// error with block ID, line, type, message and fix, and answer-wide warnings.
// JSON form: {"summary":{"totalBlocks","successCount","errorCount"},
// "actions":[ActionToJson...],"errors":[ActionParseErrorToJson...],"warnings":[...]}.
// Returns the exit code: 0 when there is no error, else 1.
int RunValidateCommand(absl::string_view input, bool json, std::ostream& out,
                       size_t max_input_bytes = sham_parser::kMaxInputBytes);

// The value of `action`'s primary parameter for a one-line summary: its
// first line, made valid UTF-8 and cut at 80 bytes ("..."), then how many
// lines were left out ("(+2 more lines)"); a value that is not a string as
// JSON; "" for an action without one. Validate's listing of every dialect.
std::string SummaryValue(const core::Action& action);

// Instructions for an LLM: the block syntax with a worked example, heredocs
// and quoting rules, then every action an LLM may use with its parameters,
// generated from LoadedSchema().
std::string RenderInstructions();

// LoadedSchema() as JSON, in the shape of unified-design.yaml:
// {"SHAM_syntax_example", "tools": {name: {type, executor, description,
// accessibility, user_command?, output_display, primary_param?, aliases?,
// parameters: {name: {type, required, format?, values?, default?,
// description?}}, returns}}}.
core::Json SchemaToJson();

}  // namespace clada::sham_action_parser

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_COMMANDS_H_
