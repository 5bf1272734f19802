// The validation rules behind ValidateShamBlock, TransformToAction and
// ParseShamResponse, kept as lists of problems so that a block's every
// problem is reported at once, each with its kind and its fix.
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_BLOCK_CHECKS_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_BLOCK_CHECKS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_action_parser::internal {

// One problem with a block.
struct Issue {
  std::string error_type;  // "validation" | "type"
  std::string message;
  std::string fix;
};

// The block's `action` value (the last one if repeated), or nullopt.
std::optional<std::string> ActionValue(const sham_parser::Block& block);

// The action-level rules: `action` present, known, runnable from an LLM
// answer. On success `definition` is set and `issues` is empty.
struct ActionCheck {
  const ActionDefinition* definition = nullptr;
  std::vector<Issue> issues;
};
ActionCheck CheckActionName(const sham_parser::Block& block,
                            const ActionSchema& schema);

// One issue per required parameter the block lacks, in schema order.
std::vector<Issue> CheckRequiredParameters(const sham_parser::Block& block,
                                           const ActionDefinition& definition);

// The block's values converted to the schema's types (block order, then
// defaults in schema order), ignored keys as warnings, and one issue per
// value that does not fit its type or format. A heredoc value loses the
// indentation of an indented closer (with a warning); file_write's and
// file_append's heredoc `content` is read as lines, each ending in "\n",
// and named in `line_params`.
struct Conversion {
  core::Json params = core::Json::object();
  std::vector<std::string> line_params;
  std::vector<std::string> warnings;
  std::vector<Issue> issues;
};
// The block's values are moved out (a 50 MB value is not copied).
Conversion ConvertParameters(sham_parser::Block&& block,
                             const ActionDefinition& definition);

// The whole conversion of a block whose action is known: required
// parameters, then types. `action` is set only when `issues` is empty.
struct Transform {
  std::optional<core::Action> action;
  std::vector<Issue> issues;
};
Transform TransformBlock(sham_parser::Block&& block,
                         const ActionDefinition& definition);

// InvalidArgument with every issue's message, joined by "; ".
absl::Status IssuesToStatus(const std::vector<Issue>& issues);

}  // namespace clada::sham_action_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_BLOCK_CHECKS_H_
