// ExecuteGitAction: scenarios from test-data/git_actions.json, plus the tool
// list.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

TEST(GitActionNames, ListsTheSchemaGitTools) {
  EXPECT_THAT(GitActionNames(),
              ::testing::ElementsAre("undo", "git_step_back",
                                     "git_step_forward", "git_squash"));
}

class GitActionScenario : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(GitActionScenario, Holds) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, GitActionScenario,
    ::testing::ValuesIn(LoadScenarios("git_actions.json")),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return ScenarioName(info.param);
    });

}  // namespace
}  // namespace clada::git_tx::testing
