// Loads the unit-test cases of test-data/unit/<name>.json for TEST_P.
#ifndef CLADA_PROJ_COMP_FS_OPS_TEST_UNIT_CASES_H_
#define CLADA_PROJ_COMP_FS_OPS_TEST_UNIT_CASES_H_

#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::fs_ops::testing {

// The array under `key` of test-data/unit/<file>, one case per element,
// each with a unique "name".
inline std::vector<nlohmann::json> LoadUnitCases(const std::string& file, const std::string& key) {
  std::ifstream in("proj/comp/fs-ops/test-data/unit/" + file);
  EXPECT_TRUE(in.good()) << "cannot open " << file;
  if (!in.good()) return {};
  nlohmann::json doc = nlohmann::json::parse(in);
  return doc.at(key).get<std::vector<nlohmann::json>>();
}

inline std::string CaseName(const ::testing::TestParamInfo<nlohmann::json>& info) {
  return info.param.at("name").get<std::string>();
}

// Bytes from a case: "hex" (for invalid UTF-8) or a JSON string.
inline std::string Bytes(const nlohmann::json& c, const std::string& key) {
  if (c.contains(key + "_hex")) {
    std::string hex = c[key + "_hex"].get<std::string>();
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
  }
  return c.at(key).get<std::string>();
}

}  // namespace clada::fs_ops::testing

#endif  // CLADA_PROJ_COMP_FS_OPS_TEST_UNIT_CASES_H_
