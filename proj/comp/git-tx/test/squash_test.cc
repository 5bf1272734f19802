// Scenarios from test-data/squash.json, one test per case.
#include "gtest/gtest.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

class SquashScenario : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(SquashScenario, Holds) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, SquashScenario, ::testing::ValuesIn(LoadScenarios("squash.json")),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return ScenarioName(info.param);
    });

}  // namespace
}  // namespace clada::git_tx::testing
