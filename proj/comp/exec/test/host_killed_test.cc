// Cases from test-data/host_killed.json: the process running ExecuteCode is
// killed with SIGKILL while its snippet runs (as `kill -9` of clada); every
// process of the snippet must die too. (A snippet's own `kill -9 $PPID`
// hits its supervisor: exec_subreaper.cases.md, KillsItsOwnSupervisor.)
// Each case's code writes the pids to watch into `pids` and then creates
// `ready`. Also: RunProcess when the supervisor between clada and the
// snippet is stopped before it reports the start (a state a snippet reaches
// only by winning a race, set up through RunSpec's test switch).
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/status/statusor.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/exec/src/process_runner.h"

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

// The snippet stops its supervisor (`kill -STOP $PPID`) before the
// supervisor has said that it started it. RunProcess must still end at the
// timeout, with the supervisor killed and the snippet's processes too,
// instead of waiting for ever for the start. It runs in a child process so
// that a hang fails the test rather than the test's own timeout.
TEST(HostKilled, ASupervisorStoppedBeforeItReportsTheStartEndsAtTheTimeout) {
  const std::string dir = ::getenv("TEST_TMPDIR");
  const std::string pid_file = dir + "/stopped-before-report.pid";
  ::unlink(pid_file.c_str());
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    internal::RunSpec spec;
    spec.argv = {"/bin/sh", "-c", absl::StrCat("echo $$ > '", pid_file, "'; exec /bin/sleep 1000")};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.cwd = dir;
    spec.timeout = std::chrono::milliseconds(1000);
    spec.stop_supervisor_before_report_for_testing = true;
    const absl::StatusOr<internal::RunResult> r = internal::RunProcess(spec);
    int code = 0;
    if (!r.ok()) code |= 1;
    if (r.ok() && !r->supervisor_lost) code |= 2;
    if (r.ok() && !r->supervisor_stopped) code |= 4;
    if (r.ok() && r->supervisor_signal != SIGSTOP) code |= 8;
    if (r.ok() && !r->timed_out) code |= 16;
    ::_exit(code);
  }
  // 30 s: far beyond the 1 s timeout, the 0.5 s grace and 2 s of clean-up.
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 300 && !ended; ++i) {
    const pid_t w = ::waitpid(runner, &status, WNOHANG);
    if (w == runner) {
      ended = true;
      break;
    }
    const struct timespec pause = {0, 100'000'000};
    ::nanosleep(&pause, nullptr);
  }
  if (!ended) {
    ::kill(runner, SIGKILL);
    ::waitpid(runner, &status, 0);
  }
  std::string pid_text = ReadFile(pid_file);
  int snippet = 0;
  const bool have_pid = absl::SimpleAtoi(absl::StripAsciiWhitespace(pid_text), &snippet) && snippet > 0;
  if (have_pid && !ended) ::kill(snippet, SIGKILL);  // do not leave it behind
  ASSERT_TRUE(ended) << "RunProcess did not return in 30 s";
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits: 1 error, 2 supervisor_lost, 4 supervisor_stopped, "
                                       "8 supervisor_signal, 16 timed_out";
  ASSERT_TRUE(have_pid) << "the snippet did not run: '" << pid_text << "'";
  EXPECT_TRUE(ProcessIsDead(snippet));
}

}  // namespace
}  // namespace clada::exec
