// The schema and the executors must agree in both directions: every action
// the schema lists is implemented by the executor it names, and every
// action an executor implements is in the schema.
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/src/clada.h"

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

TEST(Registry, UnknownActionFailsCleanly) {
  core::Action action;
  action.name = "no_such_action";
  core::ActionOutcome out = DispatchAction(action, core::ExecContext{});
  EXPECT_FALSE(out.success);
  EXPECT_NE(out.error.find("no_such_action"), std::string::npos);
}

}  // namespace
}  // namespace clada
