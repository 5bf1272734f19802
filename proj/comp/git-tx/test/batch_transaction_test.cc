// Scenarios from test-data/batch_transaction.json, one test per case.
#include "gtest/gtest.h"
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

}  // namespace
}  // namespace clada::git_tx::testing
