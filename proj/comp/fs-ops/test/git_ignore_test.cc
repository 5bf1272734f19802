#include "proj/comp/fs-ops/src/git_ignore.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

// The prefilter may say "might be ignored" too often, never too rarely:
// each "might" entry must pass it, each "never" entry must not.
class IgnoreNameFilterCase : public ::testing::TestWithParam<json> {};

TEST_P(IgnoreNameFilterCase, MatchesExpectation) {
  const json& c = GetParam();
  IgnoreNameFilter f;
  f.AddRules(c.at("rules").get<std::string>());
  for (const json& e : c.value("might", json::array())) {
    EXPECT_TRUE(f.MightIgnore(e[0].get<std::string>(), e[1].get<bool>())) << e;
  }
  for (const json& e : c.value("never", json::array())) {
    EXPECT_FALSE(f.MightIgnore(e[0].get<std::string>(), e[1].get<bool>())) << e;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, IgnoreNameFilterCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("ignore_rules.json", "filters")),
                         testing::CaseName);

TEST(GitIgnore, OutsideARepositoryIgnoresNothing) {
  std::unique_ptr<GitIgnore> ig = GitIgnore::ForDirectory("/");
  EXPECT_FALSE(ig->active());
  EXPECT_FALSE(ig->IsIgnored("/tmp/x.log", false));
  EXPECT_EQ(ig->FilterAbove("/tmp"), nullptr);
}

}  // namespace
}  // namespace clada::fs_ops::internal
