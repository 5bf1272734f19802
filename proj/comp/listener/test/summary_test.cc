// FormatSummarySection and InsertSummary, driven by test-data.
#include <string>

#include "gtest/gtest.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/listener/test/test_support.h"

namespace clada::listener {
namespace {

using testing::CaseName;
using testing::Json;
using testing::LoadCases;
using testing::TextOf;

class FormatSummaryTest : public ::testing::TestWithParam<Json> {};

TEST_P(FormatSummaryTest, WrapsSummaryInOneSection) {
  const Json& c = GetParam();
  std::string section = FormatSummarySection(c.at("firstLine").get<std::string>(), TextOf(c.at("summary")));
  EXPECT_EQ(section, TextOf(c.at("expect")));
  // What clada writes is exactly one section that the scanner skips.
  EXPECT_EQ(StripResultsSections(section), "");
}

INSTANTIATE_TEST_SUITE_P(Cases, FormatSummaryTest, ::testing::ValuesIn(LoadCases("format_summary.json")), CaseName);

class InsertSummaryTest : public ::testing::TestWithParam<Json> {};

TEST_P(InsertSummaryTest, PutsSectionOnTopWithoutStacking) {
  const Json& c = GetParam();
  const std::string section = TextOf(c.at("section"));
  std::string once = InsertSummary(TextOf(c.at("file")), section);
  EXPECT_EQ(once, TextOf(c.at("expect")));
  // Inserting the same section again changes nothing.
  EXPECT_EQ(InsertSummary(once, section), once);
}

INSTANTIATE_TEST_SUITE_P(Cases, InsertSummaryTest, ::testing::ValuesIn(LoadCases("insert_summary.json")), CaseName);

}  // namespace
}  // namespace clada::listener
