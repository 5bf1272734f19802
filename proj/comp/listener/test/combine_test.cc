// CombineSummaries and CombineFullReports, driven by test-data: what one
// write-back shows when it carries runs nobody could see yet.
#include "proj/comp/listener/src/internal/combine.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/listener/test/test_support.h"

namespace clada::listener {
namespace {

using internal::ShownRun;
using testing::CaseName;
using testing::Json;
using testing::LoadCases;
using testing::TextOf;

class CombineRunsTest : public ::testing::TestWithParam<Json> {};

TEST_P(CombineRunsTest, ShowsEachRunEarlierFirst) {
  const Json& c = GetParam();
  std::vector<ShownRun> runs;
  for (const Json& r : c.at("runs")) {
    runs.push_back(ShownRun{r.at("heading").get<std::string>(), TextOf(r.at("summary")), TextOf(r.at("fullReport"))});
  }
  const size_t left_out = c.value("leftOut", 0);
  const std::string summary = internal::CombineSummaries(runs, left_out);
  EXPECT_EQ(summary, TextOf(c.at("expectSummary")));
  EXPECT_EQ(internal::CombineFullReports(runs, left_out), TextOf(c.at("expectFullReport")));

  // Written at the top of FILE, it is one section the scanner skips and the
  // next summary replaces whole.
  const std::string section = FormatSummarySection("clada listen 10:00:05: ran 1 block", summary);
  const std::string file = InsertSummary("the chat\n", section);
  EXPECT_EQ(StripResultsSections(file), "\nthe chat\n");
  EXPECT_EQ(InsertSummary(file, FormatSummarySection("clada listen 10:00:09: ran 1 block", "")),
            "=== CLADA RESULTS ===\nclada listen 10:00:09: ran 1 block\n=== END ===\n\nthe chat\n");
}

INSTANTIATE_TEST_SUITE_P(Cases, CombineRunsTest, ::testing::ValuesIn(LoadCases("combine_runs.json")), CaseName);

}  // namespace
}  // namespace clada::listener
