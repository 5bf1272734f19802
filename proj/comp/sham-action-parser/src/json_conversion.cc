// The JSON forms of actions and errors. Every string goes through
// ToValidUtf8 so that dumping the result never throws on bad bytes.
#include <string>

#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-action-parser/src/text_util.h"

namespace clada::sham_action_parser {
namespace {

core::Json ValidUtf8Json(const core::Json& value) {
  if (value.is_string())
    return internal::ToValidUtf8(value.get_ref<const std::string&>());
  if (value.is_object()) {
    core::Json out = core::Json::object();
    for (const auto& [key, item] : value.items())
      out[internal::ToValidUtf8(key)] = ValidUtf8Json(item);
    return out;
  }
  if (value.is_array()) {
    core::Json out = core::Json::array();
    for (const core::Json& item : value) out.push_back(ValidUtf8Json(item));
    return out;
  }
  return value;
}

}  // namespace

core::Json ActionParseErrorToJson(const ActionParseError& error) {
  core::Json out = core::Json::object();
  out["blockId"] = internal::ToValidUtf8(error.block_id);
  if (error.action.has_value())
    out["action"] = internal::ToValidUtf8(*error.action);
  out["errorType"] = error.error_type;
  out["message"] = internal::ToValidUtf8(error.message);
  out["blockStartLine"] = error.block_start_line;
  out["blockContent"] = internal::ToValidUtf8(error.block_content);
  out["fix"] = internal::ToValidUtf8(error.fix);
  return out;
}

core::Json ActionToJson(const core::Action& action) {
  core::Json out = core::Json::object();
  out["action"] = internal::ToValidUtf8(action.name);
  out["parameters"] = ValidUtf8Json(action.params);
  out["metadata"] = {
      {"blockId", internal::ToValidUtf8(action.metadata.block_id)},
      {"startLine", action.metadata.start_line},
      {"endLine", action.metadata.end_line}};
  if (!action.line_params.empty()) {
    core::Json names = core::Json::array();
    for (const std::string& p : action.line_params)
      names.push_back(internal::ToValidUtf8(p));
    out["lineParams"] = std::move(names);
  }
  if (!action.warnings.empty()) {
    core::Json warnings = core::Json::array();
    for (const std::string& w : action.warnings)
      warnings.push_back(internal::ToValidUtf8(w));
    out["warnings"] = std::move(warnings);
  }
  return out;
}

}  // namespace clada::sham_action_parser
