#include "proj/comp/sham-parser/src/parse_command.h"

#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_parser {

int RunParseCommand(absl::string_view input, std::ostream& out) {
  const ParseResult result = ParseBlocks(input);
  // Every string in a result is valid UTF-8; `replace` only guarantees that
  // dump() cannot throw.
  out << ParseResultToJson(result).dump(
             2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
      << "\n";
  return result.errors.empty() ? 0 : 1;
}

}  // namespace clada::sham_parser
