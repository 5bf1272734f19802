// The schema and the executors must agree in both directions: every action
// the schema lists is implemented by the executor it names, and every
// action an executor implements is in the schema.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/src/clada.h"
#include "proj/test/test_util.h"

namespace clada {
namespace {

TEST(Registry, EverySchemaActionHasItsExecutor) {
  auto executors = ExecutorActionNames();
  for (const auto& def : sham_action_parser::LoadedSchema().actions) {
    bool found = false;
    for (const auto& [executor, names] : executors) {
      if (executor != def.executor) continue;
      found = std::find(names.begin(), names.end(), def.name) != names.end();
    }
    EXPECT_TRUE(found) << "schema action " << def.name << " names executor " << def.executor
                       << ", which does not implement it";
  }
}

TEST(Registry, EveryExecutorActionIsInTheSchema) {
  for (const auto& [executor, names] : ExecutorActionNames()) {
    for (const std::string& name : names) {
      const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(name);
      ASSERT_NE(def, nullptr) << executor << " implements " << name << ", which the schema lacks";
      EXPECT_EQ(def->executor, executor) << name;
    }
  }
}

// The lists above are written beside each executor's dispatch; this sends
// every schema action through the real dispatch (empty parameters, in an
// empty directory, exec denied) and fails if an executor answers that the
// action is not its own.
TEST(Registry, EverySchemaActionReachesItsHandler) {
  const std::string root = testing::MakeTempDir("clada_registry_");
  ASSERT_FALSE(root.empty());
  Settings settings;
  settings.exec = core::ExecPolicy::kDeny;
  absl::StatusOr<core::ExecContext> ctx = MakeExecContext(root, settings);
  ASSERT_TRUE(ctx.ok()) << ctx.status();
  const std::vector<std::string> not_mine = {
      "fs-ops does not run this action", "cannot run action",       // fs-ops, exec
      "is not a context action", "unknown git action", "Unknown action",  // context, git-tx, dispatch
  };
  for (const auto& def : sham_action_parser::LoadedSchema().actions) {
    core::Action action;
    action.name = def.name;
    core::ActionOutcome out = DispatchAction(action, *ctx);
    for (const std::string& text : not_mine) {
      EXPECT_EQ(out.error.find(text), std::string::npos) << def.name << " (" << def.executor << "): " << out.error;
    }
  }
}

TEST(Registry, UnknownActionFailsCleanly) {
  core::Action action;
  action.name = "no_such_action";
  core::ActionOutcome out = DispatchAction(action, core::ExecContext{});
  EXPECT_FALSE(out.success);
  EXPECT_NE(out.error.find("no_such_action"), std::string::npos);
}

}  // namespace
}  // namespace clada
