// `clada context ...`, case by case from test-data/command.cases.md.
#include "gtest/gtest.h"
#include "proj/comp/context/test/case_runner.h"

namespace clada::context::testing {
namespace {

class ContextCommand : public ::testing::TestWithParam<Case> {};

TEST_P(ContextCommand, BehavesAsTheCaseSays) { RunCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, ContextCommand,
                         ::testing::ValuesIn(LoadCases(
                             "proj/comp/context/test-data/command.cases.md")),
                         CaseName);

}  // namespace
}  // namespace clada::context::testing
