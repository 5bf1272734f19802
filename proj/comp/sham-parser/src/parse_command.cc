#include "proj/comp/sham-parser/src/parse_command.h"

#include <array>
#include <cstdio>
#include <string>

#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_parser {
namespace {

// Bytes a JSON string holds as they are: all but the control characters,
// the quote and the backslash.
constexpr std::array<bool, 256> kJsonPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x100; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

// Appends `s` as a JSON string, escaped exactly as nlohmann's dump() does
// (UTF-8 kept, control characters escaped). Every string in a ParseResult is
// valid UTF-8 already.
void AppendJsonString(absl::string_view s, std::string& out) {
  out += '"';
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (true) {
    const size_t run = i;  // a run of plain bytes, copied at once
    while (i < n && kJsonPlain[b[i]]) ++i;
    out.append(s.data() + run, i - run);
    if (i == n) break;
    const unsigned char c = b[i++];
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      }
    }
  }
  out += '"';
}

void AppendKey(absl::string_view indent, absl::string_view key, std::string& out) {
  out.append(indent.data(), indent.size());
  AppendJsonString(key, out);
  out += ": ";
}

}  // namespace

std::string ParseResultToJsonText(const ParseResult& result) {
  // The layout of nlohmann's dump(2), written directly: building the JSON
  // tree first took ten times as long as parsing.
  // Reserved once: the values, escaped about as long as they are, and each
  // key, index and line's share of the layout.
  size_t size = 64;
  for (const Block& b : result.blocks) {
    size += 128 + b.id.size();
    for (const auto& [key, value] : b.properties) size += 16 + key.size() + value.size() + value.size() / 8;
  }
  for (const ParseError& e : result.errors) size += 256 + e.content.size() + e.context.size() + e.message.size();
  std::string out;
  out.reserve(size);
  out += "{\n  \"blocks\": ";
  if (result.blocks.empty()) out += "[]";
  for (size_t i = 0; i < result.blocks.size(); ++i) {
    const Block& b = result.blocks[i];
    out += i == 0 ? "[\n    {\n" : ",\n    {\n";
    AppendKey("      ", "id", out);
    AppendJsonString(b.id, out);
    out += ",\n";
    AppendKey("      ", "properties", out);
    if (b.properties.empty()) out += "{}";
    for (size_t p = 0; p < b.properties.size(); ++p) {
      out += p == 0 ? "{\n" : ",\n";
      AppendKey("        ", b.properties[p].first, out);
      AppendJsonString(b.properties[p].second, out);
    }
    if (!b.properties.empty()) out += "\n      }";
    out += ",\n";
    AppendKey("      ", "startLine", out);
    out += std::to_string(b.start_line);
    out += ",\n";
    AppendKey("      ", "endLine", out);
    out += b.end_line ? std::to_string(*b.end_line) : "null";
    out += "\n    }";
  }
  if (!result.blocks.empty()) out += "\n  ]";
  out += ",\n  \"errors\": ";
  if (result.errors.empty()) out += "[]";
  for (size_t i = 0; i < result.errors.size(); ++i) {
    const ParseError& e = result.errors[i];
    out += i == 0 ? "[\n    {\n" : ",\n    {\n";
    AppendKey("      ", "code", out);
    AppendJsonString(e.code, out);
    for (auto [key, value] : {std::pair<const char*, int>{"line", e.line}, {"column", e.column}, {"length", e.length}}) {
      out += ",\n";
      AppendKey("      ", key, out);
      out += std::to_string(value);
    }
    out += ",\n";
    AppendKey("      ", "blockId", out);
    if (e.block_id.empty()) {
      out += "null";
    } else {
      AppendJsonString(e.block_id, out);
    }
    for (auto [key, value] : {std::pair<const char*, const std::string*>{"content", &e.content},
                              {"context", &e.context},
                              {"message", &e.message}}) {
      out += ",\n";
      AppendKey("      ", key, out);
      AppendJsonString(*value, out);
    }
    out += "\n    }";
  }
  if (!result.errors.empty()) out += "\n  ]";
  out += "\n}";
  return out;
}

int RunParseCommand(absl::string_view input, std::ostream& out) {
  const ParseResult result = ParseBlocks(input);
  out << ParseResultToJsonText(result) << "\n";
  return result.errors.empty() ? 0 : 1;
}

}  // namespace clada::sham_parser
