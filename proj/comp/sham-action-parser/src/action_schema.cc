// Reads unified-design.yaml into typed structs. yaml-cpp reports problems by
// throwing; every call into it happens inside ParseActionSchema's try block,
// so no exception leaves this file.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/sham-action-parser/src/action_schema.h"
#include "proj/comp/sham-action-parser/src/text_util.h"
#include "yaml-cpp/yaml.h"

namespace clada::sham_action_parser {
namespace {

absl::Status SchemaError(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("unified-design.yaml: ", where, ": ", what));
}

bool IsOneOf(absl::string_view value,
             std::initializer_list<absl::string_view> allowed) {
  for (absl::string_view a : allowed) {
    if (value == a) return true;
  }
  return false;
}

absl::StatusOr<std::string> ScalarField(const YAML::Node& node,
                                        absl::string_view where,
                                        absl::string_view field) {
  if (!node.IsScalar())
    return SchemaError(where,
                       absl::StrCat("'", field, "' must be a single value"));
  return node.Scalar();
}

// A field that must be one of `allowed`.
absl::StatusOr<std::string> ChoiceField(
    const YAML::Node& node, absl::string_view where, absl::string_view field,
    std::initializer_list<absl::string_view> allowed) {
  ASSIGN_OR_RETURN(std::string value, ScalarField(node, where, field));
  if (!IsOneOf(value, allowed)) {
    return SchemaError(
        where, absl::StrCat("'", field, "' is '", value, "'; expected one of: ",
                            absl::StrJoin(allowed, ", ")));
  }
  return value;
}

absl::StatusOr<std::vector<std::string>> StringListField(
    const YAML::Node& node, absl::string_view where, absl::string_view field) {
  if (!node.IsSequence())
    return SchemaError(where, absl::StrCat("'", field, "' must be a list"));
  std::vector<std::string> out;
  for (const YAML::Node& item : node) {
    ASSIGN_OR_RETURN(std::string value, ScalarField(item, where, field));
    out.push_back(std::move(value));
  }
  return out;
}

// Returns the first key of `map` that is not in `known`.
absl::Status CheckKnownKeys(const YAML::Node& map, absl::string_view where,
                            std::initializer_list<absl::string_view> known) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar() || !IsOneOf(kv.first.Scalar(), known)) {
      return SchemaError(
          where, absl::StrCat("unknown field '", kv.first.Scalar(),
                              "'; known: ", absl::StrJoin(known, ", ")));
    }
  }
  return absl::OkStatus();
}

// `returns` and similar free-form sections, scalars as strings.
core::Json NodeToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    core::Json out = core::Json::object();
    for (const auto& kv : node) out[kv.first.Scalar()] = NodeToJson(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    core::Json out = core::Json::array();
    for (const YAML::Node& item : node) out.push_back(NodeToJson(item));
    return out;
  }
  if (node.IsScalar()) return node.Scalar();
  return nullptr;
}

// The default value converted to the parameter's type.
absl::StatusOr<core::Json> TypedDefault(const YAML::Node& node,
                                        const ParameterDef& param,
                                        absl::string_view where) {
  ASSIGN_OR_RETURN(std::string text, ScalarField(node, where, "default"));
  switch (param.type) {
    case ParamType::kInteger: {
      int64_t value = 0;
      if (internal::ParseDecimalInteger(text, &value) !=
          internal::IntegerParse::kOk) {
        return SchemaError(
            where, absl::StrCat("default '", text, "' is not an integer"));
      }
      return core::Json(value);
    }
    case ParamType::kBoolean:
      if (text != "true" && text != "false") {
        return SchemaError(
            where, absl::StrCat("default '", text, "' is not true or false"));
      }
      return core::Json(text == "true");
    case ParamType::kEnum:
      if (std::find(param.values.begin(), param.values.end(), text) ==
          param.values.end()) {
        return SchemaError(where, absl::StrCat("default '", text,
                                               "' is not one of the values"));
      }
      return core::Json(text);
    case ParamType::kString:
      return core::Json(text);
  }
  return core::Json(text);
}

absl::StatusOr<ParameterDef> ParseParameter(const std::string& tool,
                                            const std::string& name,
                                            const YAML::Node& node) {
  const std::string where = absl::StrCat(tool, ".parameters.", name);
  if (!node.IsMap()) return SchemaError(where, "must be a map of fields");
  RETURN_IF_ERROR(CheckKnownKeys(
      node, where,
      {"type", "required", "format", "values", "default", "description"}));
  ParameterDef param;
  param.name = name;
  if (!node["type"]) return SchemaError(where, "missing 'type'");
  ASSIGN_OR_RETURN(std::string type,
                   ChoiceField(node["type"], where, "type",
                               {"string", "integer", "boolean", "enum"}));
  param.type = type == "integer"   ? ParamType::kInteger
               : type == "boolean" ? ParamType::kBoolean
               : type == "enum"    ? ParamType::kEnum
                                   : ParamType::kString;
  if (node["required"]) {
    ASSIGN_OR_RETURN(
        std::string required,
        ChoiceField(node["required"], where, "required", {"true", "false"}));
    param.required = required == "true";
  }
  if (node["format"]) {
    ASSIGN_OR_RETURN(param.format,
                     ChoiceField(node["format"], where, "format",
                                 {"path", "multiline_paths", "line_range"}));
    if (param.type != ParamType::kString)
      return SchemaError(where, "'format' applies to strings only");
  }
  if (node["values"]) {
    if (param.type != ParamType::kEnum)
      return SchemaError(where, "'values' applies to enums only");
    ASSIGN_OR_RETURN(param.values,
                     StringListField(node["values"], where, "values"));
  }
  if (param.type == ParamType::kEnum && param.values.empty()) {
    return SchemaError(where, "an enum needs a non-empty 'values' list");
  }
  if (node["description"]) {
    ASSIGN_OR_RETURN(param.description,
                     ScalarField(node["description"], where, "description"));
  }
  if (node["default"]) {
    if (param.required)
      return SchemaError(where, "a required parameter cannot have a default");
    ASSIGN_OR_RETURN(param.default_value,
                     TypedDefault(node["default"], param, where));
  }
  return param;
}

absl::StatusOr<ActionDefinition> ParseTool(const std::string& name,
                                           const YAML::Node& node) {
  if (!node.IsMap()) return SchemaError(name, "must be a map of fields");
  RETURN_IF_ERROR(CheckKnownKeys(
      node, name,
      {"type", "executor", "description", "accessibility", "user_command",
       "output_display", "primary_param", "aliases", "parameters", "returns"}));
  for (absl::string_view field :
       {"type", "executor", "description", "accessibility", "output_display",
        "parameters"}) {
    if (!node[std::string(field)])
      return SchemaError(name, absl::StrCat("missing '", field, "'"));
  }
  ActionDefinition def;
  def.name = name;
  ASSIGN_OR_RETURN(def.type,
                   ChoiceField(node["type"], name, "type",
                               {"read", "write", "meta", "git", "dynamic"}));
  ASSIGN_OR_RETURN(def.executor,
                   ScalarField(node["executor"], name, "executor"));
  ASSIGN_OR_RETURN(def.description,
                   ScalarField(node["description"], name, "description"));
  ASSIGN_OR_RETURN(def.accessibility, StringListField(node["accessibility"],
                                                      name, "accessibility"));
  if (def.accessibility.empty())
    return SchemaError(name, "'accessibility' must name llm and/or user");
  for (const std::string& who : def.accessibility) {
    if (who != "llm" && who != "user") {
      return SchemaError(
          name, absl::StrCat("accessibility '", who, "' is not llm or user"));
    }
  }
  if (node["user_command"]) {
    ASSIGN_OR_RETURN(def.user_command,
                     ScalarField(node["user_command"], name, "user_command"));
  }
  if (def.IsUserAccessible() && def.user_command.empty()) {
    return SchemaError(
        name, "accessibility includes user but 'user_command' is missing");
  }
  if (!def.IsUserAccessible() && !def.user_command.empty()) {
    return SchemaError(
        name, "'user_command' is set but accessibility does not include user");
  }
  ASSIGN_OR_RETURN(def.output_display,
                   ChoiceField(node["output_display"], name, "output_display",
                               {"always", "never", "conditional"}));
  if (node["aliases"]) {
    ASSIGN_OR_RETURN(def.aliases,
                     StringListField(node["aliases"], name, "aliases"));
  }
  const YAML::Node params = node["parameters"];
  if (!params.IsMap())
    return SchemaError(name, "'parameters' must be a map ({} for none)");
  for (const auto& kv : params) {
    ASSIGN_OR_RETURN(std::string param_name,
                     ScalarField(kv.first, name, "parameters"));
    if (param_name == "action")
      return SchemaError(name, "'action' cannot be a parameter name");
    if (def.FindParameter(param_name) != nullptr) {
      return SchemaError(
          name, absl::StrCat("parameter '", param_name, "' is listed twice"));
    }
    ASSIGN_OR_RETURN(ParameterDef param,
                     ParseParameter(name, param_name, kv.second));
    def.parameters.push_back(std::move(param));
  }
  if (node["primary_param"]) {
    ASSIGN_OR_RETURN(def.primary_param,
                     ScalarField(node["primary_param"], name, "primary_param"));
    if (def.FindParameter(def.primary_param) == nullptr) {
      return SchemaError(name,
                         absl::StrCat("primary_param '", def.primary_param,
                                      "' is not a parameter"));
    }
  }
  if (def.output_display == "conditional" &&
      def.FindParameter("return_output") == nullptr) {
    return SchemaError(
        name, "output_display 'conditional' needs a 'return_output' parameter");
  }
  if (node["returns"]) def.returns = NodeToJson(node["returns"]);
  return def;
}

absl::StatusOr<ActionSchema> ParseSchemaDocument(const YAML::Node& root) {
  if (!root.IsMap()) return SchemaError("top level", "must be a map");
  ActionSchema schema;
  if (root["SHAM_syntax_example"]) {
    ASSIGN_OR_RETURN(schema.syntax_example,
                     ScalarField(root["SHAM_syntax_example"], "top level",
                                 "SHAM_syntax_example"));
  }
  const YAML::Node tools = root["tools"];
  if (!tools || !tools.IsMap())
    return SchemaError("top level", "'tools' must be a map of actions");
  absl::flat_hash_map<std::string, std::string> alias_owner;
  for (const auto& kv : tools) {
    ASSIGN_OR_RETURN(std::string name,
                     ScalarField(kv.first, "tools", "action name"));
    if (schema.Find(name) != nullptr)
      return SchemaError(name, "action is listed twice");
    ASSIGN_OR_RETURN(ActionDefinition def, ParseTool(name, kv.second));
    for (const std::string& alias : def.aliases) {
      auto [it, inserted] = alias_owner.emplace(alias, name);
      if (!inserted) {
        return SchemaError(
            name, absl::StrCat("alias '", alias, "' is also an alias of ",
                               it->second));
      }
    }
    schema.actions.push_back(std::move(def));
  }
  for (const ActionDefinition& def : schema.actions) {
    auto it = alias_owner.find(def.name);
    if (it != alias_owner.end()) {
      return SchemaError(
          it->second,
          absl::StrCat("alias '", def.name, "' is the name of an action"));
    }
  }
  return schema;
}

}  // namespace

absl::string_view ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kString:
      return "string";
    case ParamType::kInteger:
      return "integer";
    case ParamType::kBoolean:
      return "boolean";
    case ParamType::kEnum:
      return "enum";
  }
  return "string";
}

bool ActionDefinition::IsLlmAccessible() const {
  return std::find(accessibility.begin(), accessibility.end(), "llm") !=
         accessibility.end();
}

bool ActionDefinition::IsUserAccessible() const {
  return std::find(accessibility.begin(), accessibility.end(), "user") !=
         accessibility.end();
}

const ParameterDef* ActionDefinition::FindParameter(
    absl::string_view param_name) const {
  for (const ParameterDef& p : parameters) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

const ActionDefinition* ActionSchema::Find(
    absl::string_view action_name) const {
  for (const ActionDefinition& a : actions) {
    if (a.name == action_name) return &a;
  }
  return nullptr;
}

absl::StatusOr<ActionSchema> ParseActionSchema(absl::string_view yaml_text) {
  try {
    return ParseSchemaDocument(YAML::Load(std::string(yaml_text)));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("unified-design.yaml: line ", e.mark.line + 1, ", column ",
                     e.mark.column + 1, ": ", e.msg));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("unified-design.yaml: ", e.what()));
  }
}

core::Json ActionSchemaToJson(const ActionSchema& schema) {
  core::Json tools = core::Json::object();
  for (const ActionDefinition& a : schema.actions) {
    core::Json t = core::Json::object();
    t["type"] = a.type;
    t["executor"] = a.executor;
    t["description"] = a.description;
    t["accessibility"] = a.accessibility;
    if (!a.user_command.empty()) t["user_command"] = a.user_command;
    t["output_display"] = a.output_display;
    if (!a.primary_param.empty()) t["primary_param"] = a.primary_param;
    if (!a.aliases.empty()) t["aliases"] = a.aliases;
    core::Json params = core::Json::object();
    for (const ParameterDef& p : a.parameters) {
      core::Json j = core::Json::object();
      j["type"] = std::string(ParamTypeName(p.type));
      j["required"] = p.required;
      if (!p.format.empty()) j["format"] = p.format;
      if (!p.values.empty()) j["values"] = p.values;
      if (p.default_value.has_value()) j["default"] = *p.default_value;
      if (!p.description.empty()) j["description"] = p.description;
      params[p.name] = std::move(j);
    }
    t["parameters"] = std::move(params);
    t["returns"] = a.returns;
    tools[a.name] = std::move(t);
  }
  return core::Json{{"SHAM_syntax_example", schema.syntax_example},
                    {"tools", std::move(tools)}};
}

}  // namespace clada::sham_action_parser
