// FormatSummarySection and InsertSummary, driven by test-data.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
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
  // And no line inside it, even trimmed, even split at a lone CR, is a
  // section marker or a block line, whatever the summary held.
  std::vector<absl::string_view> lines = absl::StrSplit(section, absl::ByAnyChar("\r\n"));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front(), kResultsMarker);
  EXPECT_EQ(lines[lines.size() - 2], kEndMarker);
  for (size_t i = 1; i + 2 < lines.size(); ++i) {
    absl::string_view t = absl::StripAsciiWhitespace(lines[i]);
    EXPECT_NE(t, kResultsMarker) << "line " << i;
    EXPECT_NE(t, kOutputsMarker) << "line " << i;
    EXPECT_NE(t, kEndMarker) << "line " << i;
    EXPECT_FALSE(absl::StartsWith(t, "#!")) << "line " << i << ": " << t;
  }
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
