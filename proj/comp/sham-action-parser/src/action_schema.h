// The action schema: unified-design.yaml as typed structs, read from YAML
// (ParseActionSchema, with every check) and written as JSON
// (ActionSchemaToJson). The build runs ParseActionSchema and compiles the
// result in (embedded_schema.h), so a start-up parses no text.
//
// Example:
//   absl::StatusOr<ActionSchema> schema = ParseActionSchema(yaml_text);
//   if (!schema.ok()) return schema.status();
//   const ActionDefinition* write = schema->Find("file_write");
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_ACTION_SCHEMA_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_ACTION_SCHEMA_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"

namespace clada::sham_action_parser {

enum class ParamType { kString, kInteger, kBoolean, kEnum };

// "string", "integer", "boolean", "enum".
absl::string_view ParamTypeName(ParamType type);

// One parameter of an action.
struct ParameterDef {
  std::string name;
  ParamType type = ParamType::kString;
  bool required = false;
  std::string format;  // "", "path", "multiline_paths" or "line_range"
  std::vector<std::string> values;          // allowed values of an enum
  std::optional<core::Json> default_value;  // typed like the parameter
  std::string description;
};

// One action. `parameters` keep the order of the YAML.
struct ActionDefinition {
  std::string name;
  std::string type;      // read | write | meta | git | dynamic
  std::string executor;  // fs-ops | exec | context | git-tx
  std::string description;
  std::vector<std::string> accessibility;  // "llm" and/or "user"
  std::string user_command;    // e.g. "clada undo"; set when user-accessible
  std::string output_display;  // always | never | conditional
  std::string primary_param;   // "" when the action has none
  std::vector<std::string> aliases;  // wrong names that suggest this one
  std::vector<ParameterDef> parameters;
  core::Json returns = core::Json::object();

  bool IsLlmAccessible() const;
  bool IsUserAccessible() const;
  // The parameter called `name`, or nullptr.
  const ParameterDef* FindParameter(absl::string_view name) const;
};

struct ActionSchema {
  std::string syntax_example;             // SHAM_syntax_example
  std::vector<ActionDefinition> actions;  // in YAML order

  // The action called `name` (exact match), or nullptr.
  const ActionDefinition* Find(absl::string_view name) const;
};

// Parses schema YAML. InvalidArgument naming the action and field when the
// text is not YAML, a tool lacks type/executor/description/accessibility, a
// parameter type is unknown, an enum has no values, a default does not fit
// its type, or primary_param names no parameter. Never throws.
absl::StatusOr<ActionSchema> ParseActionSchema(absl::string_view yaml_text);

// The schema as JSON, in the shape of unified-design.yaml:
// {"SHAM_syntax_example", "tools": {name: {type, executor, description,
// accessibility, user_command?, output_display, primary_param?, aliases?,
// parameters: {name: {type, required, format?, values?, default?,
// description?}}, returns}}}; tools and parameters in schema order.
core::Json ActionSchemaToJson(const ActionSchema& schema);

}  // namespace clada::sham_action_parser

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_ACTION_SCHEMA_H_
