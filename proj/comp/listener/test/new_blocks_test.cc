// FindNewBlocks and BuildRunText, driven by test-data: each case records
// the blocks of earlier texts as run, then looks at a new text.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/listener/test/test_support.h"

namespace clada::listener {
namespace {

using testing::CaseName;
using testing::Json;
using testing::LoadCases;
using testing::TextOf;

class NewBlocksTest : public ::testing::TestWithParam<Json> {};

TEST_P(NewBlocksTest, FindsOnlyBlocksNotRunBefore) {
  const Json& c = GetParam();
  ListenState state;
  for (const Json& earlier : c.at("ranBefore")) {
    for (const ScannedBlock& b : ScanBlocks(TextOf(earlier))) state.MarkRun(b.key);
  }
  const std::string text = TextOf(c.at("text"));
  std::vector<ScannedBlock> fresh = FindNewBlocks(text, state);
  std::vector<std::string> ids;
  for (const ScannedBlock& b : fresh) ids.push_back(testing::BlockId(b));
  EXPECT_EQ(ids, c.at("expectNew").get<std::vector<std::string>>());
  if (c.contains("expectRunText")) {
    std::string run_text = BuildRunText(text, fresh);
    EXPECT_EQ(run_text, TextOf(c.at("expectRunText")));
    // The run text holds exactly the new blocks, at their lines in the file.
    std::vector<ScannedBlock> again = ScanBlocks(run_text);
    ASSERT_EQ(again.size(), fresh.size());
    for (size_t i = 0; i < again.size(); ++i) {
      EXPECT_EQ(again[i].key, fresh[i].key);
      EXPECT_EQ(again[i].start_line, fresh[i].start_line);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, NewBlocksTest, ::testing::ValuesIn(LoadCases("new_blocks.json")), CaseName);

}  // namespace
}  // namespace clada::listener
