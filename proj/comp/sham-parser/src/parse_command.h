// `clada parse`: parses an LLM response and prints every block and error as
// JSON, for people and scripts checking a response before applying it.
//
// Example:
//   std::string text = ...;  // the response
//   int exit_code = clada::sham_parser::RunParseCommand(text, std::cout);
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_PARSE_COMMAND_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_PARSE_COMMAND_H_

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_parser {

// ParseResultToJson(result).dump(2), byte for byte, written directly
// (several times faster than building the JSON tree).
std::string ParseResultToJsonText(const ParseResult& result);

// Writes ParseResultToJson(ParseBlocks(input)) to `out`, indented by two
// spaces and followed by a newline. Returns 0 when the input has no syntax
// errors and 1 when it has any (input_too_large included). Never throws.
int RunParseCommand(absl::string_view input, std::ostream& out);

}  // namespace clada::sham_parser

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_PARSE_COMMAND_H_
