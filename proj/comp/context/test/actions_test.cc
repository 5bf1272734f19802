// The context_* actions, case by case from test-data/actions.cases.md.
#include <stdlib.h>

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proj/comp/context/src/context.h"
#include "proj/comp/context/test/case_runner.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/state_dir.h"
#include "proj/comp/core/test/test_dir.h"

namespace clada::context::testing {
namespace {

class ContextAction : public ::testing::TestWithParam<Case> {};

TEST_P(ContextAction, BehavesAsTheCaseSays) { RunCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, ContextAction,
                         ::testing::ValuesIn(LoadCases(
                             "proj/comp/context/test-data/actions.cases.md")),
                         CaseName);

// Issue 17 #10: a context.json nested 100,000 levels deep crashed clada
// (SIGSEGV in the JSON parser). It is context_corrupt, named, with the fix.
TEST(ContextStore, DeeplyNestedFileIsCorruptNotACrash) {
  const std::string root = core::testing::MakeTestDir("clada_context_deep_");
  const std::string deep = "{\"version\": 1, \"entries\": " +
                           std::string(100000, '[') + std::string(100000, ']') + "}";
  ASSERT_TRUE(core::CreateStateDirectory(core::StateDir(root)).ok());
  ASSERT_TRUE(core::WriteFileAtomic(core::StatePath(root, "context.json"), deep).ok());
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(root, {});
  core::Action list;
  list.name = "context_list";
  core::ActionOutcome out = ExecuteContextAction(list, ctx);
  EXPECT_FALSE(out.success);
  EXPECT_TRUE(absl::StrContains(out.error, "context_corrupt: ")) << out.error;
  EXPECT_TRUE(absl::StrContains(out.error, "context.json")) << out.error;
  EXPECT_TRUE(absl::StrContains(out.error, "more than 64 levels deep")) << out.error;
  EXPECT_TRUE(absl::StrContains(out.error, "or delete it")) << out.error;
}

}  // namespace
}  // namespace clada::context::testing
