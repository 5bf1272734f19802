// Scenarios from test-data/undo.json, one test per case.
#include "gtest/gtest.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

class UndoScenario : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(UndoScenario, Holds) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, UndoScenario, ::testing::ValuesIn(LoadScenarios("undo.json")),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return ScenarioName(info.param);
    });

}  // namespace
}  // namespace clada::git_tx::testing
