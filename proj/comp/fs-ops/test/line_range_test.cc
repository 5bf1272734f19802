#include "proj/comp/fs-ops/src/line_range.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

void ExpectError(const absl::Status& s, const json& want) {
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(want.get<std::string>()), absl::string_view::npos) << s.message();
}

class ParseLineRangeCase : public ::testing::TestWithParam<json> {};

TEST_P(ParseLineRangeCase, MatchesExpectation) {
  const json& c = GetParam();
  absl::StatusOr<LineRange> r = ParseLineRange(c.at("spec").get<std::string>());
  if (c.contains("error")) {
    ExpectError(r.status(), c["error"]);
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->first, c.at("first").get<int64_t>());
  EXPECT_EQ(r->last, c.at("last").get<int64_t>());
}

INSTANTIATE_TEST_SUITE_P(Cases, ParseLineRangeCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("line_range.json", "parse")), testing::CaseName);

class NumberLinesCase : public ::testing::TestWithParam<json> {};

TEST_P(NumberLinesCase, MatchesExpectation) {
  const json& c = GetParam();
  std::optional<LineRange> range;
  if (c.contains("lines")) range = *ParseLineRange(c["lines"].get<std::string>());
  absl::StatusOr<NumberedText> n =
      NumberLines(c.at("text").get<std::string>(), range, c.value("delimiter", ": "), "f.txt");
  if (c.contains("error")) {
    ExpectError(n.status(), c["error"]);
    return;
  }
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(json(n->content).dump(), json(c.at("content")).dump());
  EXPECT_EQ(n->total_lines, c.at("total_lines").get<int64_t>());
  EXPECT_EQ(n->warnings.size(), c.value("warnings", 0u));
}

INSTANTIATE_TEST_SUITE_P(Cases, NumberLinesCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("line_range.json", "number")), testing::CaseName);

class ReplaceLinesCase : public ::testing::TestWithParam<json> {};

TEST_P(ReplaceLinesCase, MatchesExpectation) {
  const json& c = GetParam();
  LineRange range = *ParseLineRange(c.at("lines").get<std::string>());
  absl::StatusOr<EditResult> r = ReplaceLines(c.at("text").get<std::string>(), range, c.value("new", "x"), "f.txt");
  if (c.contains("error")) {
    ExpectError(r.status(), c["error"]);
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(json(r->content).dump(), json(c.at("content")).dump());
}

INSTANTIATE_TEST_SUITE_P(Cases, ReplaceLinesCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("line_range.json", "replace")), testing::CaseName);

TEST(IndexLines, CountsLinesLikeAnEditor) {
  EXPECT_EQ(IndexLines("").size(), 0);
  EXPECT_EQ(IndexLines("a").size(), 1);
  EXPECT_EQ(IndexLines("a\n").size(), 1);
  EXPECT_EQ(IndexLines("a\n\n").size(), 2);
  EXPECT_EQ(IndexLines("\n").size(), 1);
  LineTable t = IndexLines("a\r\nb");
  ASSERT_EQ(t.size(), 2);
  EXPECT_EQ(t.content_end[0], 1u);
  EXPECT_EQ(t.end[0], 3u);
}

}  // namespace
}  // namespace clada::fs_ops::internal
