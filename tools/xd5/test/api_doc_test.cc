// Reads the doc/API.md texts in test-data/api_doc_cases.json.

#include "tools/xd5/src/api_doc.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::xd5 {
namespace {

class ApiDocCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(ApiDocCase, MatchesExpectation) {
  const nlohmann::json& c = GetParam();
  ApiDoc doc = ParseApiDoc(
      absl::StrJoin(c["markdown"].get<std::vector<std::string>>(), "\n") +
      "\n");
  EXPECT_EQ(doc.problems, c["problems"].get<std::vector<std::string>>());
  EXPECT_EQ(doc.dependencies,
            c["dependencies"].get<std::vector<std::string>>());
  EXPECT_EQ(doc.export_headers, c["headers"].get<std::vector<std::string>>());
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("tools/xd5/test-data/api_doc_cases.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(
    TestData, ApiDocCase, ::testing::ValuesIn(LoadCases()),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return info.param["name"].get<std::string>();
    });

}  // namespace
}  // namespace clada::xd5
