// The schema compiled into the binary: the JSON that //proj/comp/
// sham-action-parser:schema_compiler wrote from unified-design.yaml at build
// time, after ParseActionSchema checked it.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "proj/comp/sham-action-parser/src/action_schema.h"
#include "proj/comp/sham-action-parser/src/embedded_schema.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

namespace clada::sham_action_parser {

const ActionSchema& LoadedSchema() {
  static const ActionSchema* const schema = [] {
    const core::Json json = core::Json::parse(internal::EmbeddedSchemaJson(), nullptr, /*allow_exceptions=*/false);
    absl::StatusOr<ActionSchema> read = ActionSchemaFromJson(json);
    if (json.is_discarded() || !read.ok()) {
      std::fprintf(stderr, "clada: the built-in action schema is broken: %s\n",
                   json.is_discarded() ? "not JSON" : std::string(read.status().message()).c_str());
      std::abort();
    }
    return new ActionSchema(*std::move(read));
  }();
  return *schema;
}

const ActionDefinition* FindAction(absl::string_view name) { return LoadedSchema().Find(name); }

}  // namespace clada::sham_action_parser
