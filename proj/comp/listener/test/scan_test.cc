// ScanBlocks, StripResultsSections and BlockKey, driven by test-data.
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

class ScanBlocksTest : public ::testing::TestWithParam<Json> {};

TEST_P(ScanBlocksTest, FindsTheExpectedBlocks) {
  const Json& c = GetParam();
  std::vector<ScannedBlock> blocks = ScanBlocks(TextOf(c.at("text")));
  const Json& expect = c.at("expect");
  ASSERT_EQ(blocks.size(), expect.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    SCOPED_TRACE("block " + std::to_string(i));
    EXPECT_EQ(testing::BlockId(blocks[i]), expect[i].at("id").get<std::string>());
    EXPECT_EQ(blocks[i].start_line, expect[i].at("startLine").get<int>());
    EXPECT_EQ(blocks[i].end_line, expect[i].at("endLine").get<int>());
    EXPECT_EQ(blocks[i].closed, expect[i].at("closed").get<bool>());
    EXPECT_EQ(blocks[i].key, BlockKey(blocks[i].dialect, blocks[i].text));
  }
  if (c.contains("texts")) {
    ASSERT_EQ(blocks.size(), c.at("texts").size());
    for (size_t i = 0; i < blocks.size(); ++i) EXPECT_EQ(blocks[i].text, TextOf(c.at("texts")[i]));
  }
  // Without the texts (what the listener asks for): the same blocks and
  // keys, no text kept.
  std::vector<ScannedBlock> bare = ScanBlocks(TextOf(c.at("text")), {}, /*with_texts=*/false);
  ASSERT_EQ(bare.size(), blocks.size());
  for (size_t i = 0; i < bare.size(); ++i) {
    SCOPED_TRACE("block " + std::to_string(i) + " without its text");
    EXPECT_EQ(bare[i].dialect, blocks[i].dialect);
    EXPECT_EQ(bare[i].key, blocks[i].key);
    EXPECT_EQ(bare[i].start_line, blocks[i].start_line);
    EXPECT_EQ(bare[i].end_line, blocks[i].end_line);
    EXPECT_EQ(bare[i].closed, blocks[i].closed);
    EXPECT_TRUE(bare[i].text.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ScanBlocksTest, ::testing::ValuesIn(LoadCases("scan_blocks.json")), CaseName);

class StripResultsTest : public ::testing::TestWithParam<Json> {};

TEST_P(StripResultsTest, RemovesOnlyResultsSections) {
  const Json& c = GetParam();
  EXPECT_EQ(StripResultsSections(TextOf(c.at("text"))), TextOf(c.at("expect")));
}

INSTANTIATE_TEST_SUITE_P(Cases, StripResultsTest, ::testing::ValuesIn(LoadCases("strip_results.json")), CaseName);

class BlockKeyTest : public ::testing::TestWithParam<Json> {};

TEST_P(BlockKeyTest, KeyIsIdAndNormalisedHash) {
  const Json& c = GetParam();
  std::string key = BlockKey(c.at("id").get<std::string>(), TextOf(c.at("text")));
  if (c.contains("expectKey")) {
    EXPECT_EQ(key, c.at("expectKey").get<std::string>());
  }
  if (c.contains("differsFrom")) {
    EXPECT_NE(key, c.at("differsFrom").get<std::string>());
  }
  EXPECT_TRUE(c.contains("expectKey") || c.contains("differsFrom")) << "case checks nothing";
}

INSTANTIATE_TEST_SUITE_P(Cases, BlockKeyTest, ::testing::ValuesIn(LoadCases("block_key.json")), CaseName);

}  // namespace
}  // namespace clada::listener
