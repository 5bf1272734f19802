// The schema compiled into the binary: the code that //proj/comp/
// sham-action-parser:schema_compiler wrote from unified-design.yaml at build
// time, after ParseActionSchema checked it.
#include "proj/comp/sham-action-parser/src/embedded_schema.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

namespace clada::sham_action_parser {

const ActionSchema& LoadedSchema() {
  static const ActionSchema* const schema = new ActionSchema(internal::BuildEmbeddedSchema());
  return *schema;
}

const ActionDefinition* FindAction(absl::string_view name) { return LoadedSchema().Find(name); }

}  // namespace clada::sham_action_parser
