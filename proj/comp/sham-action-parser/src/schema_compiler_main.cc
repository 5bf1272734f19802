// schema_compiler YAML OUT.cc: checks the action schema with
// ParseActionSchema and writes a C++ source defining
// internal::EmbeddedSchemaJson() as its JSON (ActionSchemaToJson), as a byte
// array, so no delimiter can clash. A schema that does not pass fails the
// build with the reason.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "proj/comp/sham-action-parser/src/action_schema.h"

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
  const std::string json = clada::sham_action_parser::ActionSchemaToJson(*schema).dump();
  std::string out =
      "// Generated from unified-design.yaml by //proj/comp/sham-action-parser:schema_compiler.\n"
      "#include \"proj/comp/sham-action-parser/src/embedded_schema.h\"\n"
      "namespace clada::sham_action_parser::internal {\n"
      "namespace {\n"
      "constexpr char kSchemaJson[] = {\n";
  for (size_t i = 0; i < json.size(); ++i) {
    absl::StrAppendFormat(&out, "%d,%s", static_cast<signed char>(json[i]), i % 24 == 23 ? "\n" : "");
  }
  out +=
      "0};\n"
      "}  // namespace\n"
      "absl::string_view EmbeddedSchemaJson() { return absl::string_view(kSchemaJson, sizeof(kSchemaJson) - 1); }\n"
      "}  // namespace clada::sham_action_parser::internal\n";
  std::ofstream(argv[2], std::ios::binary) << out;
  return 0;
}
