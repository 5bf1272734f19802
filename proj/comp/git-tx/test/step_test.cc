// Scenarios from test-data/step.json, one test per case.
#include "gtest/gtest.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

class StepScenario : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(StepScenario, Holds) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, StepScenario, ::testing::ValuesIn(LoadScenarios("step.json")),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return ScenarioName(info.param);
    });

}  // namespace
}  // namespace clada::git_tx::testing
