// Two snippets run at once in two threads of one process; the first kills
// its supervisor. clada then kills every process adopted from it, but not
// the other snippet's supervisor, although that one is younger: the other
// snippet runs on and succeeds.
#include <stdlib.h>

#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/exec.h"

namespace clada::exec {
namespace {

core::Action Bash(const std::string& code) {
  core::Action action;
  action.name = "exec";
  action.params["lang"] = "bash";
  action.params["code"] = code;
  return action;
}

TEST(ParallelExec, KillingOneSupervisorSparesTheOtherSnippet) {
  std::string root = std::string(::getenv("TEST_TMPDIR")) + "/parallel-XXXXXX";
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  absl::StatusOr<core::PathPolicy> paths = core::MakePathPolicy(root, {});
  ASSERT_TRUE(paths.ok()) << paths.status();
  core::ExecContext ctx;
  ctx.paths = *paths;
  ctx.quiet = true;
  ctx.limits.timeout_ms = 20'000;

  // The killer starts first, so the survivor's supervisor is the younger:
  // only the list of live supervisors keeps it from being taken for one of
  // the killer's processes.
  core::ActionOutcome killer;
  std::thread first(
      [&] { killer = ExecuteCode(Bash("touch started; /bin/sleep 0.3; kill -9 $PPID; /bin/sleep 1000"), ctx); });
  const std::string started = root + "/started";
  for (int i = 0; i < 2000 && ::access(started.c_str(), F_OK) != 0; ++i) ::usleep(1000);
  const core::ActionOutcome survivor = ExecuteCode(Bash("/bin/sleep 0.8; echo survived"), ctx);
  first.join();

  EXPECT_FALSE(killer.success);
  EXPECT_TRUE(absl::StrContains(killer.error, "killed the process that supervised it")) << killer.error;
  EXPECT_TRUE(survivor.success) << survivor.error;
  EXPECT_EQ(survivor.data.value("stdout", ""), "survived\n") << survivor.data.dump();
}

}  // namespace
}  // namespace clada::exec
