#include <utility>

#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_parser {

nlohmann::ordered_json ParseResultToJson(const ParseResult& result) {
  using Json = nlohmann::ordered_json;
  Json blocks = Json::array();
  for (const Block& b : result.blocks) {
    // Keys are unique already; appending to the underlying vector skips
    // ordered_map's linear duplicate search.
    Json::object_t properties;
    properties.reserve(b.properties.size());
    for (const auto& [key, value] : b.properties)
      properties.emplace_back(key, value);
    Json block = Json::object();
    block["id"] = b.id;
    block["properties"] = std::move(properties);
    block["startLine"] = b.start_line;
    block["endLine"] =
        b.end_line.has_value() ? Json(*b.end_line) : Json(nullptr);
    blocks.push_back(std::move(block));
  }
  Json errors = Json::array();
  for (const ParseError& e : result.errors) {
    Json error = Json::object();
    error["code"] = e.code;
    error["line"] = e.line;
    error["column"] = e.column;
    error["length"] = e.length;
    error["blockId"] = e.block_id.empty() ? Json(nullptr) : Json(e.block_id);
    error["content"] = e.content;
    error["context"] = e.context;
    error["message"] = e.message;
    errors.push_back(std::move(error));
  }
  Json out = Json::object();
  out["blocks"] = std::move(blocks);
  out["errors"] = std::move(errors);
  return out;
}

}  // namespace clada::sham_parser
