// The context_* actions, case by case from test-data/actions.cases.md.
#include "gtest/gtest.h"
#include "proj/comp/context/test/case_runner.h"

namespace clada::context::testing {
namespace {

class ContextAction : public ::testing::TestWithParam<Case> {};

TEST_P(ContextAction, BehavesAsTheCaseSays) { RunCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, ContextAction,
                         ::testing::ValuesIn(LoadCases(
                             "proj/comp/context/test-data/actions.cases.md")),
                         CaseName);

}  // namespace
}  // namespace clada::context::testing
