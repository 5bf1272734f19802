// Cases from test-data/kill_marked.json: which processes KillMarkedProcesses
// kills (marker entry, pid window) and that it waits for and reaps them.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/exec/src/process_runner.h"

namespace clada::exec::internal {
namespace {

using Json = nlohmann::ordered_json;

std::vector<Json> Cases() {
  std::ifstream in("proj/comp/exec/test-data/kill_marked.json");
  const Json data = Json::parse(in);
  return std::vector<Json>(data["cases"].begin(), data["cases"].end());
}

pid_t Spawn(const std::string& program, const std::string& env_entry) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
  if (!env_entry.empty()) env.push_back(env_entry);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string prog = program;
  std::string arg = "30";
  char* argv[] = {prog.data(), arg.data(), nullptr};
  pid_t pid = -1;
  if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv, envp.data()) != 0) return -1;
  return pid;
}

std::string SleepPath() { return ::access("/usr/bin/sleep", X_OK) == 0 ? "/usr/bin/sleep" : "/bin/sleep"; }

class KillMarkedTest : public ::testing::TestWithParam<Json> {};

TEST_P(KillMarkedTest, KillsExactlyTheMarked) {
  const Json& c = GetParam();
  const std::string marker = absl::StrCat("CLADA_EXEC_ID=test-", ::getpid(), "-", c["name"].get<std::string>());
  std::vector<pid_t> pids(c["processes"].size(), -1);
  auto spawn_all = [&](const char* when) {
    for (size_t i = 0; i < pids.size(); ++i) {
      const Json& p = c["processes"][i];
      if (p["started"] != when) continue;
      pids[i] = Spawn(SleepPath(), absl::StrReplaceAll(p["env"].get<std::string>(), {{"MARK", marker}}));
      ASSERT_GT(pids[i], 0);
    }
  };
  spawn_all("before_mark");
  const std::optional<PidAllocation> before = ReadPidAllocation();
  ASSERT_TRUE(before.has_value());
  const pid_t leader = Spawn("/bin/true", "");
  ASSERT_GT(leader, 0);
  ::waitpid(leader, nullptr, 0);
  spawn_all("after_leader");

  const bool window = c.value("window", true);
  const int killed = window ? KillMarkedProcesses(marker, std::chrono::seconds(2), leader, before)
                            : KillMarkedProcesses(marker, std::chrono::seconds(2));

  int want_killed = 0;
  for (size_t i = 0; i < pids.size(); ++i) {
    const bool want = c["processes"][i]["killed"].get<bool>();
    want_killed += want ? 1 : 0;
    // A killed child has been reaped by KillMarkedProcesses already.
    int status = 0;
    const pid_t w = ::waitpid(pids[i], &status, WNOHANG);
    if (want) {
      EXPECT_TRUE(w == -1 && errno == ECHILD) << "process " << i << " was not killed and reaped (waitpid " << w << ")";
    } else {
      EXPECT_EQ(w, 0) << "process " << i << " should still be running";
    }
    if (w == 0) {
      ::kill(pids[i], SIGKILL);
      ::waitpid(pids[i], nullptr, 0);
    }
  }
  EXPECT_EQ(killed, want_killed);
}

INSTANTIATE_TEST_SUITE_P(Cases, KillMarkedTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Json>& info) {
                           return info.param["name"].get<std::string>();
                         });

}  // namespace
}  // namespace clada::exec::internal
