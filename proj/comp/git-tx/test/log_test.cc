// Scenarios from test-data/log.json, one test per case.
#include "gtest/gtest.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

class LogScenario : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(LogScenario, Holds) { RunScenario(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Cases, LogScenario, ::testing::ValuesIn(LoadScenarios("log.json")),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return ScenarioName(info.param);
    });

}  // namespace
}  // namespace clada::git_tx::testing
