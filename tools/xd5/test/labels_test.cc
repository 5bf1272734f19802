// Maps the labels in test-data/label_cases.json to API.md names.

#include "tools/xd5/src/labels.h"

#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::xd5 {
namespace {

nlohmann::json LoadData() {
  std::ifstream in("tools/xd5/test-data/label_cases.json");
  return nlohmann::json::parse(in);
}

std::string CaseName(const ::testing::TestParamInfo<nlohmann::json>& info) {
  std::string name;
  for (char c : info.param["label"].get<std::string>()) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name + "_in_" + std::to_string(info.index);
}

class DepLabel : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(DepLabel, Classifies) {
  const nlohmann::json& c = GetParam();
  DepRef ref = ClassifyDep(c["label"].get<std::string>(),
                           c["package"].get<std::string>());
  if (c.contains("local")) {
    EXPECT_TRUE(ref.local);
    EXPECT_EQ(ref.target, c["local"].get<std::string>());
  } else {
    EXPECT_FALSE(ref.local);
    EXPECT_EQ(ref.key, c["key"].get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(
    TestData, DepLabel,
    ::testing::ValuesIn(LoadData()["deps"].get<std::vector<nlohmann::json>>()),
    CaseName);

class HeaderLabel : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(HeaderLabel, BecomesPackagePath) {
  const nlohmann::json& c = GetParam();
  EXPECT_EQ(HeaderPath(c["label"].get<std::string>(),
                       c["package"].get<std::string>()),
            c["path"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(
    TestData, HeaderLabel,
    ::testing::ValuesIn(
        LoadData()["headers"].get<std::vector<nlohmann::json>>()),
    CaseName);

}  // namespace
}  // namespace clada::xd5
