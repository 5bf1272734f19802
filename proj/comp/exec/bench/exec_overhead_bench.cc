// What ExecuteCode costs beyond starting the interpreter itself.
//
//   bazel run -c opt //proj/comp/exec:exec_overhead_bench -- --benchmark_repetitions=5
//
// BM_SpawnWait*: posix_spawn of `bash -c true` (or python3) and waitpid: the
// interpreter's own start and exit, nothing else. BM_ExecuteCode*: the same
// snippet through ExecuteCode (quiet, policy allow). The difference is the
// overhead; BM_Paired* measures it pair by pair (counters spawn_us,
// execute_us, overhead_us: medians), which holds up on a busy machine.
// BM_KillMarkedProcesses*/N: the /proc scan that runs after every snippet,
// with N extra idle processes on the machine. BM_Sandbox*: ExecuteCode with
// `sandbox: off` against the default sandbox, pair by pair (added_us). Run with PATH=/usr/bin:/bin
// where python3 on PATH is a pyenv shim (a shell script). BM_SeccompPerSyscall:
// what the sandbox's seccomp filter adds to every system call the code makes
// (getppid, in a child, before and after installing it: counters bare_ns,
// filtered_ns, added_ns), and what installing it costs once per exec
// (install_us: the prctl, in which the kernel compiles the program).
#include <linux/seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/exec/src/process_runner.h"
#include "proj/comp/exec/src/sandbox.h"

extern char** environ;

namespace clada::exec {
namespace {

// The first executable `binary` on PATH, as ExecuteCode would find it.
std::string Which(const std::string& binary) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string p = dirs.substr(start, end - start) + "/" + binary;
    if (::access(p.c_str(), X_OK) == 0) return p;
    start = end + 1;
  }
  return binary;
}

void SpawnWait(benchmark::State& state, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto _ : state) {
    pid_t pid;
    if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      state.SkipWithError("posix_spawn failed");
      break;
    }
    int status;
    ::waitpid(pid, &status, 0);
  }
}

void RunExecuteCode(benchmark::State& state, const char* lang, const char* code) {
  core::ExecContext ctx;
  char cwd[4096];
  ctx.paths = *core::MakePathPolicy(::getcwd(cwd, sizeof cwd), {});
  ctx.quiet = true;
  core::Action action;
  action.name = "exec";
  action.params["lang"] = lang;
  action.params["code"] = code;
  for (auto _ : state) {
    core::ActionOutcome out = ExecuteCode(action, ctx);
    if (!out.success) {
      state.SkipWithError(out.error.c_str());
      break;
    }
    benchmark::DoNotOptimize(out);
  }
}

// Alternates a bare spawn+wait and ExecuteCode of the same snippet, so that
// noise from other work on the machine hits both alike, and reports the
// medians of each and of their per-pair difference (counters, in us).
void Paired(benchmark::State& state, const std::string& binary, const char* flag, const char* lang, const char* code) {
  using Clock = std::chrono::steady_clock;
  std::string bin = Which(binary);
  char* argv[] = {bin.data(), const_cast<char*>(flag), const_cast<char*>(code), nullptr};
  core::ExecContext ctx;
  char cwd[4096];
  ctx.paths = *core::MakePathPolicy(::getcwd(cwd, sizeof cwd), {});
  ctx.quiet = true;
  core::Action action;
  action.name = "exec";
  action.params["lang"] = lang;
  action.params["code"] = code;
  std::vector<double> spawn_us, exec_us, diff_us;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    pid_t pid;
    if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv, environ) != 0) {
      state.SkipWithError("posix_spawn failed");
      break;
    }
    ::waitpid(pid, nullptr, 0);
    const Clock::time_point t1 = Clock::now();
    core::ActionOutcome out = ExecuteCode(action, ctx);
    const Clock::time_point t2 = Clock::now();
    if (!out.success) {
      state.SkipWithError(out.error.c_str());
      break;
    }
    spawn_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    exec_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    diff_us.push_back(exec_us.back() - spawn_us.back());
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  state.counters["spawn_us"] = median(spawn_us);
  state.counters["execute_us"] = median(exec_us);
  state.counters["overhead_us"] = median(diff_us);
}

// The sandbox's cost: ExecuteCode of the same snippet with `sandbox: off`
// and with the default sandbox, alternately, in a fresh directory (a git
// repository, so .git is bind-mounted too); counters off_us, sandbox_us and
// added_us (medians, the last of the per-pair differences).
void PairedSandbox(benchmark::State& state, const char* lang, const char* code) {
  using Clock = std::chrono::steady_clock;
  std::string root = "/tmp/clada-bench-XXXXXX";
  if (::mkdtemp(root.data()) == nullptr || std::system(("git init -q " + root).c_str()) != 0) {
    state.SkipWithError("cannot make the bench directory");
    return;
  }
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(root, {});
  ctx.quiet = true;
  core::ExecContext off = ctx;
  off.sandbox = core::SandboxMode::kOff;
  core::Action action;
  action.name = "exec";
  action.params["lang"] = lang;
  action.params["code"] = code;
  std::vector<double> off_us, on_us, diff_us;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    core::ActionOutcome a = ExecuteCode(action, off);
    const Clock::time_point t1 = Clock::now();
    core::ActionOutcome b = ExecuteCode(action, ctx);
    const Clock::time_point t2 = Clock::now();
    if (!a.success || !b.success) {
      state.SkipWithError((a.error + b.error).c_str());
      break;
    }
    off_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    on_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    diff_us.push_back(on_us.back() - off_us.back());
  }
  if (std::system(("rm -rf " + root).c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", root.c_str());
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  state.counters["off_us"] = median(off_us);
  state.counters["sandbox_us"] = median(on_us);
  state.counters["added_us"] = median(diff_us);
}

// Nanoseconds per getppid() over `n` calls (the fastest of 5 rounds).
double NsPerSyscall(int n) {
  double best = 1e18;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) ::syscall(SYS_getppid);
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  }
  return best;
}

// A child measures getppid() bare, installs the filter as Sandbox::Enter
// does (no_new_privs, then the filter with the socket rules, its longest
// form), timing that, measures again, and writes the three to a pipe.
void BM_SeccompPerSyscall(benchmark::State& state) {
  const std::vector<struct sock_filter> filter = internal::SeccompFilter(internal::NativeSeccompRows(), true);
  if (filter.empty()) {
    state.SkipWithError("no seccomp table for this architecture");
    return;
  }
  std::vector<double> bare, filtered, install;
  for (auto _ : state) {
    int fds[2];
    if (::pipe(fds) != 0) {
      state.SkipWithError("pipe failed");
      break;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      double out[3] = {NsPerSyscall(1000000), 0, 0};
      struct sock_fprog prog = {static_cast<unsigned short>(filter.size()),
                                const_cast<struct sock_filter*>(filter.data())};
      if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(1);
      const auto t0 = std::chrono::steady_clock::now();
      if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) ::_exit(1);
      out[2] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      out[1] = NsPerSyscall(1000000);
      ::_exit(::write(fds[1], out, sizeof out) == sizeof out ? 0 : 1);
    }
    ::close(fds[1]);
    double in[3] = {0, 0, 0};
    const bool got = ::read(fds[0], in, sizeof in) == sizeof in;
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    if (!got) {
      state.SkipWithError("the child could not install the filter");
      break;
    }
    bare.push_back(in[0]);
    filtered.push_back(in[1]);
    install.push_back(in[2]);
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  state.counters["bare_ns"] = median(bare);
  state.counters["filtered_ns"] = median(filtered);
  state.counters["added_ns"] = median(filtered) - median(bare);
  state.counters["install_us"] = median(install);
}

// The walk for nested repositories at its bound: a project of more
// directories (3 levels of 14, 2,954 in all, a file in each) than the walk
// reads, so every call reads kNestedGitDirs of them.
void BM_NestedGitWalkAtItsBound(benchmark::State& state) {
  std::string root = "/tmp/clada-bench-XXXXXX";
  if (::mkdtemp(root.data()) == nullptr) {
    state.SkipWithError("cannot make the bench tree");
    return;
  }
  std::vector<std::string> level = {root};
  for (int depth = 0; depth < 3; ++depth) {
    std::vector<std::string> next;
    for (const std::string& dir : level) {
      for (int i = 0; i < 14; ++i) {
        next.push_back(dir + "/d" + std::to_string(i));
        ::mkdir(next.back().c_str(), 0755);
        std::fclose(std::fopen((next.back() + "/f").c_str(), "w"));
      }
    }
    level = std::move(next);
  }
  bool complete = true;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        internal::NestedGitDirs(root, internal::kNestedGitDepth, internal::kNestedGitDirs, &complete));
  }
  state.counters["complete"] = complete ? 1 : 0;
  if (std::system(("rm -rf " + root).c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", root.c_str());
}

void BM_SandboxBashTrue(benchmark::State& state) { PairedSandbox(state, "bash", "true"); }
void BM_SandboxPythonPass(benchmark::State& state) { PairedSandbox(state, "python", "pass"); }

void BM_PairedBashTrue(benchmark::State& state) { Paired(state, "bash", "-c", "bash", "true"); }
void BM_PairedPythonPass(benchmark::State& state) { Paired(state, "python3", "-c", "python", "pass"); }

void BM_SpawnWaitBashTrue(benchmark::State& state) { SpawnWait(state, {Which("bash"), "-c", "true"}); }
void BM_ExecuteCodeBashTrue(benchmark::State& state) { RunExecuteCode(state, "bash", "true"); }
void BM_SpawnWaitPythonPass(benchmark::State& state) { SpawnWait(state, {Which("python3"), "-c", "pass"}); }
void BM_ExecuteCodePythonPass(benchmark::State& state) { RunExecuteCode(state, "python", "pass"); }

// N idle processes on the machine for the life of the object.
class IdleProcesses {
 public:
  explicit IdleProcesses(int64_t n) {
    std::string sleep = Which("sleep");
    char* argv[] = {sleep.data(), const_cast<char*>("1000"), nullptr};
    for (int64_t i = 0; i < n; ++i) {
      pid_t pid;
      if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv, environ) == 0) pids_.push_back(pid);
    }
  }
  ~IdleProcesses() {
    for (pid_t pid : pids_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }

 private:
  std::vector<pid_t> pids_;
};

// The scan when every pid must be read (no pid window).
void BM_KillMarkedProcessesFullScan(benchmark::State& state) {
  IdleProcesses idle(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(internal::KillMarkedProcesses("CLADA_EXEC_ID=no-such-exec", std::chrono::seconds(1)));
  }
}

// The scan as RunProcess does it: only pids allocated after a leader that
// was started after the idle processes.
void BM_KillMarkedProcessesWindowed(benchmark::State& state) {
  IdleProcesses idle(state.range(0));
  const std::optional<internal::PidAllocation> before = internal::ReadPidAllocation();
  std::string true_bin = Which("true");
  char* argv[] = {true_bin.data(), nullptr};
  pid_t leader;
  if (::posix_spawn(&leader, argv[0], nullptr, nullptr, argv, environ) != 0) {
    state.SkipWithError("posix_spawn failed");
    return;
  }
  ::waitpid(leader, nullptr, 0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        internal::KillMarkedProcesses("CLADA_EXEC_ID=no-such-exec", std::chrono::seconds(1), leader, before));
  }
}

BENCHMARK(BM_PairedBashTrue)->Unit(benchmark::kMicrosecond)->UseRealTime()->Iterations(2000);
BENCHMARK(BM_PairedPythonPass)->Unit(benchmark::kMicrosecond)->UseRealTime()->Iterations(300);
BENCHMARK(BM_NestedGitWalkAtItsBound)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SandboxBashTrue)->Unit(benchmark::kMicrosecond)->UseRealTime()->Iterations(500);
BENCHMARK(BM_SandboxPythonPass)->Unit(benchmark::kMicrosecond)->UseRealTime()->Iterations(200);
BENCHMARK(BM_SeccompPerSyscall)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(9);
BENCHMARK(BM_SpawnWaitBashTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ExecuteCodeBashTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SpawnWaitPythonPass)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ExecuteCodePythonPass)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_KillMarkedProcessesFullScan)->Arg(0)->Arg(500)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_KillMarkedProcessesWindowed)->Arg(0)->Arg(500)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace clada::exec
