// unified-design.yaml as compiled into the binary by the `embedded_schema`
// genrule (see BUILD.bazel): checked by ParseActionSchema at build time and
// written out as code that constructs the schema; no file is read and no
// text is parsed at run time.
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_EMBEDDED_SCHEMA_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_EMBEDDED_SCHEMA_H_

#include "proj/comp/sham-action-parser/src/action_schema.h"

namespace clada::sham_action_parser::internal {

// A new copy of the schema that unified-design.yaml held at build time.
ActionSchema BuildEmbeddedSchema();

}  // namespace clada::sham_action_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_SRC_EMBEDDED_SCHEMA_H_
