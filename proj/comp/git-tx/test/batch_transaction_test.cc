// Scenarios from test-data/batch_transaction.json, one test per case.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

class BatchTransactionScenario
    : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(BatchTransactionScenario, Holds) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, BatchTransactionScenario,
    ::testing::ValuesIn(LoadScenarios("batch_transaction.json")),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return ScenarioName(info.param);
    });

// issue 17 #9: a batch of a million deletes held each planned path as a
// string of its own; PathList keeps them in one buffer and gives each back.
TEST(PathList, KeepsEveryPathInOrder) {
  PathList list{"/r/a", "", "/r/b/c"};
  list.push_back("/r/d");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_FALSE(list.empty());
  EXPECT_EQ(list[0], "/r/a");
  EXPECT_EQ(list[1], "");
  EXPECT_EQ(list[2], "/r/b/c");
  std::vector<std::string> seen;
  for (absl::string_view p : list) seen.emplace_back(p);
  EXPECT_EQ(seen, (std::vector<std::string>{"/r/a", "", "/r/b/c", "/r/d"}));
  EXPECT_TRUE(PathList().empty());
  // Across its 1 MB buffers, and a path longer than one.
  PathList many;
  std::vector<std::string> want;
  for (int i = 0; i < 100000; ++i) want.push_back(absl::StrCat("/some/root/directory/file-", i));
  want.insert(want.begin() + 5000, std::string(3 << 20, 'x'));
  want.insert(want.begin() + 7000, "");
  for (const std::string& p : want) many.push_back(p);
  ASSERT_EQ(many.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(many[i], want[i]) << i;
}

}  // namespace
}  // namespace clada::git_tx::testing
