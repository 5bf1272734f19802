// libFuzzer target for ParseShamResponse: parse, validate and transform
// arbitrary text, then render every action and error as JSON.
//
//   bazel build --config=fuzz //proj/comp/sham-action-parser:parse_sham_response_fuzz
//   tools/fuzz.sh 60 //proj/comp/sham-action-parser:parse_sham_response_fuzz
//
// Besides crashes and sanitizer reports it checks invariants: every action
// names a schema action, every error has a type the API promises, and the
// answer read with its actions deferred (ErrorKeeping::defer_actions) makes
// again exactly the actions it gives at once.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::sham_action_parser;
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  ActionParseResult result = ParseShamResponse(text);
  for (const clada::core::Action& action : result.actions) {
    if (FindAction(action.name) == nullptr) std::abort();
    (void)ActionToJson(action).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict);
  }
  for (const ActionParseError& error : result.errors) {
    if (error.error_type != "syntax" && error.error_type != "validation" && error.error_type != "type") {
      std::abort();
    }
    (void)ActionParseErrorToJson(error).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }
  if (static_cast<size_t>(result.total_blocks) < result.actions.size()) std::abort();
  ErrorKeeping keeping;
  keeping.defer_actions = true;
  ActionParseResult deferred = ParseShamResponse(text, clada::sham_parser::kMaxInputBytes, keeping);
  if (deferred.deferred.size() != result.actions.size() || deferred.errors.size() != result.errors.size()) std::abort();
  for (size_t i = 0; i < result.actions.size(); ++i) {
    absl::StatusOr<clada::core::Action> made = deferred.deferred.Make(i);
    if (!made.ok()) std::abort();
    const clada::core::Action& want = result.actions[i];
    if (made->name != want.name || made->params != want.params || made->warnings != want.warnings ||
        made->line_params != want.line_params || made->metadata.start_line != want.metadata.start_line ||
        made->metadata.end_line != want.metadata.end_line || made->metadata.block_id != want.metadata.block_id) {
      std::abort();
    }
  }
  return 0;
}
