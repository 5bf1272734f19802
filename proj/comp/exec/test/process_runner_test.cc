// RunProcess on states a snippet can reach only by winning a race, set up
// here through RunSpec's test switches.
#include "proj/comp/exec/src/process_runner.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

namespace clada::exec::internal {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Gone, or a zombie waiting for its reaper.
bool ProcessIsDead(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t close = stat.rfind(')');
  if (stat.empty() || close == std::string::npos || close + 2 >= stat.size()) return true;
  return stat[close + 2] == 'Z' || stat[close + 2] == 'X';
}

// The snippet stops its supervisor (`kill -STOP $PPID`) before the
// supervisor has said that it started it. RunProcess must still end at the
// timeout, with the supervisor killed and the snippet's processes too,
// instead of waiting for ever for the start. It runs in a child process so
// that a hang fails the test rather than the test's own timeout.
TEST(RunProcess, ASupervisorStoppedBeforeItReportsTheStartEndsAtTheTimeout) {
  const std::string dir = ::getenv("TEST_TMPDIR");
  const std::string pid_file = dir + "/stopped-before-report.pid";
  ::unlink(pid_file.c_str());
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    RunSpec spec;
    spec.argv = {"/bin/sh", "-c", absl::StrCat("echo $$ > '", pid_file, "'; exec /bin/sleep 1000")};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.cwd = dir;
    spec.timeout = std::chrono::milliseconds(1000);
    spec.stop_supervisor_before_report_for_testing = true;
    const absl::StatusOr<RunResult> r = RunProcess(spec);
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
}  // namespace clada::exec::internal
