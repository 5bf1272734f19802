// unified-design.yaml as compiled into the binary by the `embedded_schema`
// genrule (see BUILD.bazel): checked by ParseActionSchema at build time and
// stored as ActionSchemaToJson's JSON; no file is read at run time.
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_EMBEDDED_SCHEMA_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_EMBEDDED_SCHEMA_H_

#include "absl/strings/string_view.h"

namespace clada::sham_action_parser::internal {

// The schema as JSON (ActionSchemaToJson); static storage.
absl::string_view EmbeddedSchemaJson();

}  // namespace clada::sham_action_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_EMBEDDED_SCHEMA_H_
