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

// ContinuesAnswer: which saves continue the answer of the last run.
TEST(ContinuesAnswer, AddedToOnlyContinues) {
  const std::string a1 = "Here:\n#!SHAM [@three-char-SHA-256: a1]\naction = \"ls\"\n#!END_SHAM_a1\n";
  const std::string b1 = "#!SHAM [@three-char-SHA-256: b1]\naction = \"ls\"\n#!END_SHAM_b1\n";
  const AnswerMark mark = MarkAnswer(a1);
  // The rest of the answer (line 5 on).
  EXPECT_TRUE(ContinuesAnswer(mark, a1 + b1, 5));
  // Prose between the batches.
  EXPECT_TRUE(ContinuesAnswer(mark, a1 + "and then\n" + b1, 6));
  // The listener's own section written at the top meanwhile.
  const std::string section = FormatSummarySection("clada listen 10:00:00: ran 1 block", "a1 ok\n");
  const std::string written = InsertSummary(a1, section);
  EXPECT_TRUE(ContinuesAnswer(mark, written + b1, 5 + 5));
  // A save that stopped inside a line goes on in it.
  const AnswerMark cut = MarkAnswer(a1 + "#!SHAM [@three-char");
  EXPECT_TRUE(ContinuesAnswer(cut, a1 + b1, 5));
  // Blank lines at the top before the listener's section was put above them.
  const AnswerMark blank_top = MarkAnswer("\n\n" + a1);
  EXPECT_TRUE(ContinuesAnswer(blank_top, InsertSummary("\n\n" + a1, section) + b1, 5 + 5));
}

TEST(ContinuesAnswer, AnythingElseIsANewAnswer) {
  const std::string a1 = "Here:\n#!SHAM [@three-char-SHA-256: a1]\naction = \"ls\"\n#!END_SHAM_a1\n";
  const std::string b1 = "#!SHAM [@three-char-SHA-256: b1]\naction = \"ls\"\n#!END_SHAM_b1\n";
  const AnswerMark mark = MarkAnswer(a1);
  // The file replaced.
  EXPECT_FALSE(ContinuesAnswer(mark, b1, 1));
  // An earlier line edited.
  EXPECT_FALSE(ContinuesAnswer(mark, "Here, edited:\n#!SHAM [@three-char-SHA-256: a1]\naction = \"ls\"\n"
                                     "#!END_SHAM_a1\n" + b1, 5));
  // clada's report pasted back between: the next answer answers it.
  EXPECT_FALSE(ContinuesAnswer(mark, a1 + "=== CLADA RESULTS ===\na1 ok\n=== END ===\n" + b1, 8));
  // A new block above the answer.
  EXPECT_FALSE(ContinuesAnswer(mark, b1 + a1, 1));
}

}  // namespace
}  // namespace clada::listener
