// Runs the BUILD parser on the cases in test-data/build_file_cases.json.

#include "tools/xd5/src/build_file.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::xd5 {
namespace {

class BuildFileCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(BuildFileCase, MatchesExpectation) {
  const nlohmann::json& c = GetParam();
  std::string text =
      absl::StrJoin(c["build"].get<std::vector<std::string>>(), "\n") + "\n";
  absl::StatusOr<std::vector<RuleCall>> rules = ParseBuildFile(text);
  if (c.contains("parse_error")) {
    ASSERT_FALSE(rules.ok()) << "parsed " << rules->size() << " calls";
    EXPECT_EQ(rules.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(rules.status().message(), c["parse_error"].get<std::string>());
    return;
  }
  ASSERT_TRUE(rules.ok()) << rules.status();
  if (c.contains("calls")) {
    std::vector<std::string> calls;
    for (const RuleCall& r : *rules) calls.push_back(r.kind + ":" + r.Name());
    EXPECT_EQ(calls, c["calls"].get<std::vector<std::string>>());
  }
  if (!c.contains("rule")) return;
  const RuleCall* rule = FindRule(*rules, c["rule"][0].get<std::string>(),
                                  c["rule"][1].get<std::string>());
  if (!c.value("found", true)) {
    EXPECT_EQ(rule, nullptr);
    return;
  }
  ASSERT_NE(rule, nullptr);
  for (const auto& [attr, want] : c["attrs"].items()) {
    absl::StatusOr<std::vector<std::string>> got = StringListAttr(*rule, attr);
    if (want.is_array()) {
      ASSERT_TRUE(got.ok()) << attr << ": " << got.status();
      EXPECT_EQ(*got, want.get<std::vector<std::string>>()) << attr;
    } else {
      ASSERT_FALSE(got.ok()) << attr << " read as " << absl::StrJoin(*got, ",");
      EXPECT_EQ(got.status().code(), absl::StatusCode::kUnimplemented);
      EXPECT_EQ(got.status().message(), want.get<std::string>());
    }
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("tools/xd5/test-data/build_file_cases.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(
    TestData, BuildFileCase, ::testing::ValuesIn(LoadCases()),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return info.param["name"].get<std::string>();
    });

TEST(BuildFile, FindAnyRuleIgnoresLoad) {
  absl::StatusOr<std::vector<RuleCall>> rules = ParseBuildFile(
      "load(\"//x:y.bzl\", name = \"impl\")\nfilegroup(name = \"impl\")\n");
  ASSERT_TRUE(rules.ok()) << rules.status();
  const RuleCall* r = FindAnyRule(*rules, "impl");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, "filegroup");
  EXPECT_EQ(r->line, 2);
}

}  // namespace
}  // namespace clada::xd5
