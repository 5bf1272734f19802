// schema_compiler YAML OUT.cc: checks the action schema with
// ParseActionSchema and writes a C++ source defining
// internal::BuildEmbeddedSchema(), which constructs the same ActionSchema
// field by field: a start-up then parses nothing. Every string is written
// as an octal-escaped literal with its length, so no text can end it early.
// A schema that does not pass fails the build with the reason.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proj/comp/sham-action-parser/src/action_schema.h"

namespace clada::sham_action_parser {
namespace {

// `std::string("...", n)`: printable ASCII as is (but `"`, `\` and `?`),
// every other byte as a three-digit octal escape.
std::string Str(const std::string& text) {
  std::string out = "std::string(\"";
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
      out += static_cast<char>(c);
    } else {
      absl::StrAppendFormat(&out, "\\%03o", c);
    }
  }
  absl::StrAppend(&out, "\", ", text.size(), ")");
  return out;
}

std::string StrList(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) absl::StrAppend(&out, i ? ", " : "", Str(items[i]));
  return out + "}";
}

// A C++ expression of type core::Json equal to `j`; objects keep their order.
std::string JsonExpr(const core::Json& j) {
  switch (j.type()) {
    case core::Json::value_t::null:
      return "core::Json()";
    case core::Json::value_t::boolean:
      return j.get<bool>() ? "core::Json(true)" : "core::Json(false)";
    case core::Json::value_t::number_integer:
      return absl::StrCat("core::Json(std::int64_t{", j.get<std::int64_t>(), "})");
    case core::Json::value_t::number_unsigned:
      return absl::StrCat("core::Json(std::uint64_t{", j.get<std::uint64_t>(), "}u)");
    case core::Json::value_t::number_float:
      return absl::StrFormat("core::Json(%.17g)", j.get<double>());
    case core::Json::value_t::string:
      return absl::StrCat("core::Json(", Str(j.get<std::string>()), ")");
    case core::Json::value_t::array: {
      std::string out = "Array({";
      for (size_t i = 0; i < j.size(); ++i) absl::StrAppend(&out, i ? ", " : "", JsonExpr(j[i]));
      return out + "})";
    }
    case core::Json::value_t::object: {
      std::string out = "Object({";
      bool first = true;
      for (const auto& [key, value] : j.items()) {
        absl::StrAppend(&out, first ? "" : ", ", "{", Str(key), ", ", JsonExpr(value), "}");
        first = false;
      }
      return out + "})";
    }
    default:  // binary and discarded values do not come from YAML
      return "core::Json()";
  }
}

std::string ParamTypeExpr(ParamType type) {
  switch (type) {
    case ParamType::kString: return "ParamType::kString";
    case ParamType::kInteger: return "ParamType::kInteger";
    case ParamType::kBoolean: return "ParamType::kBoolean";
    case ParamType::kEnum: return "ParamType::kEnum";
  }
  return "ParamType::kString";
}

std::string ToCpp(const ActionSchema& schema) {
  std::string out =
      "// Generated from unified-design.yaml by //proj/comp/sham-action-parser:schema_compiler.\n"
      "#include <cstdint>\n"
      "#include <initializer_list>\n"
      "#include <string>\n"
      "#include <utility>\n"
      "#include \"proj/comp/sham-action-parser/src/embedded_schema.h\"\n"
      "namespace clada::sham_action_parser::internal {\n"
      "namespace {\n"
      "[[maybe_unused]] core::Json Object(std::initializer_list<std::pair<std::string, core::Json>> members) {\n"
      "  core::Json o = core::Json::object();\n"
      "  for (const auto& [key, value] : members) o[key] = value;\n"
      "  return o;\n"
      "}\n"
      "[[maybe_unused]] core::Json Array(std::initializer_list<core::Json> items) {\n"
      "  core::Json a = core::Json::array();\n"
      "  for (const core::Json& item : items) a.push_back(item);\n"
      "  return a;\n"
      "}\n"
      "}  // namespace\n"
      "ActionSchema BuildEmbeddedSchema() {\n"
      "  ActionSchema s;\n";
  absl::StrAppend(&out, "  s.syntax_example = ", Str(schema.syntax_example), ";\n");
  absl::StrAppend(&out, "  s.actions.reserve(", schema.actions.size(), ");\n");
  for (const ActionDefinition& a : schema.actions) {
    absl::StrAppend(&out, "  {\n    ActionDefinition& a = s.actions.emplace_back();\n");
    absl::StrAppend(&out, "    a.name = ", Str(a.name), ";\n");
    absl::StrAppend(&out, "    a.type = ", Str(a.type), ";\n");
    absl::StrAppend(&out, "    a.executor = ", Str(a.executor), ";\n");
    absl::StrAppend(&out, "    a.description = ", Str(a.description), ";\n");
    absl::StrAppend(&out, "    a.accessibility = ", StrList(a.accessibility), ";\n");
    absl::StrAppend(&out, "    a.user_command = ", Str(a.user_command), ";\n");
    absl::StrAppend(&out, "    a.output_display = ", Str(a.output_display), ";\n");
    absl::StrAppend(&out, "    a.primary_param = ", Str(a.primary_param), ";\n");
    absl::StrAppend(&out, "    a.aliases = ", StrList(a.aliases), ";\n");
    absl::StrAppend(&out, "    a.parameters.reserve(", a.parameters.size(), ");\n");
    for (const ParameterDef& p : a.parameters) {
      absl::StrAppend(&out, "    {\n      ParameterDef& p = a.parameters.emplace_back();\n");
      absl::StrAppend(&out, "      p.name = ", Str(p.name), ";\n");
      absl::StrAppend(&out, "      p.type = ", ParamTypeExpr(p.type), ";\n");
      absl::StrAppend(&out, "      p.required = ", p.required ? "true" : "false", ";\n");
      absl::StrAppend(&out, "      p.format = ", Str(p.format), ";\n");
      absl::StrAppend(&out, "      p.values = ", StrList(p.values), ";\n");
      if (p.default_value.has_value()) {
        absl::StrAppend(&out, "      p.default_value = ", JsonExpr(*p.default_value), ";\n");
      }
      absl::StrAppend(&out, "      p.description = ", Str(p.description), ";\n    }\n");
    }
    absl::StrAppend(&out, "    a.returns = ", JsonExpr(a.returns), ";\n  }\n");
  }
  out +=
      "  return s;\n"
      "}\n"
      "}  // namespace clada::sham_action_parser::internal\n";
  return out;
}

}  // namespace
}  // namespace clada::sham_action_parser

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: schema_compiler unified-design.yaml out.cc\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream yaml;
  yaml << in.rdbuf();
  if (!in) {
    std::cerr << "schema_compiler: cannot read " << argv[1] << "\n";
    return 1;
  }
  absl::StatusOr<clada::sham_action_parser::ActionSchema> schema =
      clada::sham_action_parser::ParseActionSchema(yaml.str());
  if (!schema.ok()) {
    std::cerr << "schema_compiler: " << schema.status().message() << "\n";
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << clada::sham_action_parser::ToCpp(*schema);
  if (!out.flush()) {
    std::cerr << "schema_compiler: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
