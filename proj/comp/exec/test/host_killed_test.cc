// Cases from test-data/host_killed.json: the process running ExecuteCode is
// killed with SIGKILL while its snippet runs (as `kill -9` of clada); every
// process of the snippet must die too. (A snippet's own `kill -9 $PPID`
// hits its supervisor: exec_subreaper.cases.md, KillsItsOwnSupervisor.)
// Each case's code writes the pids to watch into `pids` and then creates
// `ready`.
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/exec.h"

namespace clada::exec {
namespace {

using Json = nlohmann::ordered_json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Json> Cases() {
  std::ifstream in("proj/comp/exec/test-data/host_killed.json");
  const Json doc = Json::parse(in);
  std::vector<Json> cases;
  for (const Json& c : doc["cases"]) cases.push_back(c);
  return cases;
}

// Gone, or a zombie waiting for its reaper.
bool ProcessIsDead(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t close = stat.rfind(')');
  if (stat.empty() || close == std::string::npos || close + 2 >= stat.size()) return true;
  return stat[close + 2] == 'Z' || stat[close + 2] == 'X';
}

void SleepMs(int ms) {
  const struct timespec t = {ms / 1000, (ms % 1000) * 1'000'000L};
  ::nanosleep(&t, nullptr);
}

class HostKilledTest : public ::testing::TestWithParam<Json> {};

TEST_P(HostKilledTest, SnippetTreeDies) {
  const Json& c = GetParam();
  std::string root = std::string(::getenv("TEST_TMPDIR")) + "/host-killed-XXXXXX";
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  char real[PATH_MAX];
  ASSERT_NE(::realpath(root.c_str(), real), nullptr);
  root = real;

  const pid_t host = ::fork();
  ASSERT_GE(host, 0);
  if (host == 0) {
    absl::StatusOr<core::PathPolicy> paths = core::MakePathPolicy(root, {});
    if (!paths.ok()) ::_exit(3);
    core::ExecContext ctx;
    ctx.paths = *paths;
    ctx.quiet = true;
    ctx.limits.timeout_ms = 60'000;
    core::Action action;
    action.name = "exec";
    action.params["lang"] = "bash";
    action.params["code"] = c["code"].get<std::string>();
    ExecuteCode(action, ctx);
    ::_exit(0);
  }

  struct stat st;
  const std::string ready = root + "/ready";
  for (int waited = 0; waited < 20'000 && ::stat(ready.c_str(), &st) != 0; waited += 10) SleepMs(10);
  ASSERT_EQ(::stat(ready.c_str(), &st), 0) << "the snippet never got ready";
  ASSERT_EQ(::kill(host, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(host, &status, 0), host);
  ASSERT_TRUE(WIFSIGNALED(status));

  std::vector<pid_t> pids;
  for (absl::string_view p : absl::StrSplit(ReadFile(root + "/pids"), absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    int pid = 0;
    ASSERT_TRUE(absl::SimpleAtoi(p, &pid)) << p;
    pids.push_back(pid);
  }
  ASSERT_FALSE(pids.empty());
  // SIGKILL and the clean-up after it are asynchronous: allow 5 s.
  for (pid_t pid : pids) {
    for (int waited = 0; waited < 5'000 && !ProcessIsDead(pid); waited += 10) SleepMs(10);
    EXPECT_TRUE(ProcessIsDead(pid)) << "pid " << pid << " outlived its killed host";
  }
  for (pid_t pid : pids) {
    if (!ProcessIsDead(pid)) ::kill(pid, SIGKILL);  // leave nothing behind
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, HostKilledTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Json>& info) { return info.param["name"].get<std::string>(); });

}  // namespace
}  // namespace clada::exec
