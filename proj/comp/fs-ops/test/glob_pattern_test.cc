#include "proj/comp/fs-ops/src/glob_pattern.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

class GlobPatternCase : public ::testing::TestWithParam<json> {};

TEST_P(GlobPatternCase, MatchesExpectation) {
  const json& c = GetParam();
  absl::StatusOr<GlobPattern> g = GlobPattern::Compile(c.at("pattern").get<std::string>());
  if (c.contains("error")) {
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.status().message().find(c["error"].get<std::string>()), absl::string_view::npos) << g.status();
    return;
  }
  ASSERT_TRUE(g.ok()) << g.status();
  for (const json& p : c.value("matches", json::array())) EXPECT_TRUE(g->Matches(p.get<std::string>())) << p;
  for (const json& p : c.value("rejects", json::array())) EXPECT_FALSE(g->Matches(p.get<std::string>())) << p;
  for (const json& d : c.value("descends", json::array())) EXPECT_TRUE(g->CouldMatchBelow(d.get<std::string>())) << d;
  for (const json& d : c.value("prunes", json::array())) EXPECT_FALSE(g->CouldMatchBelow(d.get<std::string>())) << d;
  if (c.contains("name_only")) {
    EXPECT_EQ(g->NameOnly(), c["name_only"].get<bool>());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GlobPatternCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("glob_pattern.json", "patterns")),
                         testing::CaseName);

}  // namespace
}  // namespace clada::fs_ops::internal
