// Test-data loading shared by the component's tests: cases from a JSON file,
// inputs built from compact specs (so that 10 MB values and 10,000 blocks
// need no 10 MB file), and blocks built from JSON.
//
// A text spec is one of:
//   "literal text"
//   {"repeat": "text", "times": N}          the text N times
//   {"hex": "ff fe"}                        raw bytes (for non-UTF-8 input)
//   {"template": "...{id}...", "count": N}  N copies, {id} = a distinct 3-char
//                                           ID (N <= 46656), {n} = 0, 1, ...
//   [spec, spec, ...]                       concatenation
#ifndef CLADA_PROJ_COMP_SHAM_ACTION_PARSER_TEST_TEST_CASES_H_
#define CLADA_PROJ_COMP_SHAM_ACTION_PARSER_TEST_TEST_CASES_H_

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::sham_action_parser::testing {

using CaseJson = nlohmann::ordered_json;

// The "cases" array of test-data/<file>.
inline std::vector<CaseJson> LoadCases(const std::string& file) {
  std::ifstream in("proj/comp/sham-action-parser/test-data/" + file);
  EXPECT_TRUE(in.good()) << "cannot open test-data/" << file;
  std::stringstream buffer;
  buffer << in.rdbuf();
  CaseJson doc = CaseJson::parse(buffer.str());
  return doc.at("cases").get<std::vector<CaseJson>>();
}

// A case's name as a test name: letters, digits and underscores.
inline std::string CaseName(const ::testing::TestParamInfo<CaseJson>& info) {
  std::string name = info.param.at("name").get<std::string>();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The 3-character ID number `n` (base 36, zero-padded).
inline std::string IdForIndex(int n) {
  const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string id(3, '0');
  for (int i = 2; i >= 0; --i, n /= 36) id[i] = digits[n % 36];
  return id;
}

inline std::string TextFromSpec(const CaseJson& spec) {
  if (spec.is_string()) return spec.get<std::string>();
  std::string out;
  if (spec.is_array()) {
    for (const CaseJson& part : spec) out += TextFromSpec(part);
    return out;
  }
  if (spec.contains("repeat")) {
    const std::string unit = spec.at("repeat").get<std::string>();
    const int times = spec.at("times").get<int>();
    out.reserve(unit.size() * times);
    for (int i = 0; i < times; ++i) out += unit;
    return out;
  }
  if (spec.contains("hex")) {
    for (absl::string_view byte : absl::StrSplit(
             spec.at("hex").get<std::string>(), ' ', absl::SkipEmpty())) {
      out.push_back(
          static_cast<char>(std::stoi(std::string(byte), nullptr, 16)));
    }
    return out;
  }
  if (spec.contains("template")) {
    const std::string templ = spec.at("template").get<std::string>();
    const int count = spec.at("count").get<int>();
    for (int i = 0; i < count; ++i)
      out += absl::StrReplaceAll(
          templ, {{"{id}", IdForIndex(i)}, {"{n}", std::to_string(i)}});
    return out;
  }
  ADD_FAILURE() << "unknown text spec: " << spec.dump();
  return out;
}

// {"id", "properties": {key: text spec} or [[key, text spec], ...],
// "startLine", "endLine"}.
inline sham_parser::Block BlockFromJson(const CaseJson& j) {
  sham_parser::Block block;
  block.id = j.value("id", "abc");
  block.start_line = j.value("startLine", 1);
  if (j.contains("endLine") && !j.at("endLine").is_null())
    block.end_line = j.at("endLine").get<int>();
  const CaseJson& props = j.at("properties");
  if (props.is_array()) {
    for (const CaseJson& kv : props)
      block.properties.emplace_back(kv.at(0).get<std::string>(),
                                    TextFromSpec(kv.at(1)));
  } else {
    for (const auto& [key, value] : props.items())
      block.properties.emplace_back(key, TextFromSpec(value));
  }
  if (!block.end_line.has_value() && !j.contains("endLine")) {
    block.end_line =
        block.start_line + static_cast<int>(block.properties.size()) + 1;
  }
  return block;
}

}  // namespace clada::sham_action_parser::testing

#endif  // CLADA_PROJ_COMP_SHAM_ACTION_PARSER_TEST_TEST_CASES_H_
