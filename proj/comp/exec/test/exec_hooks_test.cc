// ExecContext's hooks for `clada mcp`: on_output sees the program's output
// as it is read, and `cancel` stops its process group while it runs.
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/exec.h"

namespace clada::exec {
namespace {

core::ExecContext Context(std::string* root) {
  *root = std::string(::getenv("TEST_TMPDIR")) + "/hooks-XXXXXX";
  EXPECT_NE(::mkdtemp(root->data()), nullptr);
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(*root, {});
  ctx.quiet = true;
  return ctx;
}

core::Action Bash(const std::string& code) {
  core::Action a;
  a.name = "exec";
  a.params = {{"code", code}, {"lang", "bash"}};
  return a;
}

TEST(ExecHooks, OnOutputSeesEachStream) {
  std::string root;
  core::ExecContext ctx = Context(&root);
  std::string out, err;
  ctx.on_output = [&](absl::string_view stream, absl::string_view text) {
    (stream == "stdout" ? out : err).append(text.data(), text.size());
  };
  core::ActionOutcome o = ExecuteCode(Bash("echo one; echo two >&2"), ctx);
  EXPECT_TRUE(o.success) << o.error;
  EXPECT_EQ(out, "one\n");
  EXPECT_EQ(err, "two\n");
}

TEST(ExecHooks, CancelStopsTheProcessGroup) {
  std::string root;
  core::ExecContext ctx = Context(&root);
  std::atomic<bool> cancel{false};
  ctx.cancel = &cancel;
  const std::string started = root + "/started", after = root + "/after";
  std::thread canceller([&] {
    for (int i = 0; i < 500 && ::access(started.c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  core::ActionOutcome o =
      ExecuteCode(Bash("touch started; (sleep 30; touch after) & sleep 30; touch after"), ctx);
  canceller.join();
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(o.success);
  EXPECT_TRUE(absl::StartsWith(o.error, "exec: cancelled: the client cancelled the call")) << o.error;
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_NE(::access(after.c_str(), F_OK), 0);
  EXPECT_EQ(o.data.value("timed_out", true), false);
}

}  // namespace
}  // namespace clada::exec
