// Runs one program in its own session and process group, feeds it
// /dev/null, reads its stdout and stderr concurrently with poll(), enforces a
// timeout, and kills every process it left behind.
//
// Example:
//   clada::exec::internal::RunSpec spec;
//   spec.argv = {"/usr/bin/bash", "-c", "echo hi"};
//   spec.env = {"PATH=/usr/bin", "CLADA_EXEC_ID=1234-1"};
//   spec.marker = "CLADA_EXEC_ID=1234-1";
//   spec.cwd = "/home/me/proj";
//   ASSIGN_OR_RETURN(RunResult r, RunProcess(spec));
#ifndef CLADA_PROJ_COMP_EXEC_SRC_PROCESS_RUNNER_H_
#define CLADA_PROJ_COMP_EXEC_SRC_PROCESS_RUNNER_H_

#include <sys/types.h>

#include <atomic>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::exec::internal {

enum class Stream { kStdout, kStderr };

class Sandbox;

struct RunSpec {
  std::vector<std::string> argv;  // argv[0]: absolute path of the program
  std::vector<std::string> env;   // the complete environment, "KEY=VALUE"
  // One entry of `env` that marks every descendant (e.g. "CLADA_EXEC_ID=..").
  // Processes whose environment holds it are killed once the program ends.
  // Empty: only the process group is killed.
  std::string marker;
  std::string cwd;  // an existing directory
  std::chrono::milliseconds timeout{30'000};
  std::chrono::milliseconds kill_grace{500};  // SIGTERM -> SIGKILL
  // How long to keep reading after every process known to us is dead, for
  // pipes held open by a process we could not find.
  std::chrono::milliseconds drain_limit{500};
  int64_t max_output_bytes = 10 * 1024 * 1024;  // per stream; < 0: no cap
  // Called with each chunk as it is read (optional).
  std::function<void(Stream, absl::string_view)> on_output;
  // Checked every 50 ms while the program runs: once true, the program is
  // stopped as on timeout, and RunResult::cancelled says so. Not owned.
  const std::atomic<bool>* cancel = nullptr;
  // The kernel sandbox the supervisor enters before it starts the program
  // (and so the program and all it starts); null: none. Not owned.
  const Sandbox* sandbox = nullptr;
  // Tests only: the supervisor stops itself (SIGSTOP) after starting the
  // program and before it reports the start, as a snippet's `kill -STOP
  // $PPID` can when it runs first.
  bool stop_supervisor_before_report_for_testing = false;
};

struct RunResult {
  std::string stdout_text;  // UTF-8, head + marker + tail past the cap
  std::string stderr_text;
  int64_t stdout_bytes = 0;  // bytes the program wrote, kept or not
  int64_t stderr_bytes = 0;
  bool exited = false;  // normal exit: exit_code is valid
  int exit_code = 0;
  int term_signal = 0;  // the signal that ended the program, when !exited
  bool timed_out = false;
  bool cancelled = false;  // stopped because spec.cancel became true
  // SIGINT, SIGTERM, SIGHUP or SIGQUIT that reached this thread while the
  // program ran (0: none); it was stopped like on timeout.
  int interrupted_by = 0;
  bool sent_sigkill = false;     // the grace ran out after SIGTERM
  int64_t duration_ms = 0;       // spawn to exit of the program
  int leftovers_killed = 0;      // other processes killed after it ended
  bool pipes_abandoned = false;  // stopped reading a pipe someone held open
  // The supervisor ended, or was found stopped, before it reported (a
  // snippet's `kill -9 $PPID` or `kill -STOP $PPID`): the program's end was
  // not seen (exited and term_signal unset); its processes were killed
  // here, counted in leftovers_killed.
  bool supervisor_lost = false;
  bool supervisor_stopped = false;  // stopped (or silent past its time), then killed by us
  int supervisor_signal = 0;        // the signal that killed or stopped it; 0: unknown
};

// Starts `spec.argv` and waits for it. The child runs in a new session
// (setsid: a new process group, no controlling terminal) with stdin from
// /dev/null, every signal at its default disposition and an empty mask.
// On timeout the group gets SIGTERM, then SIGKILL after kill_grace. When the
// program has ended, whatever is left of its group, and every process that
// carries `spec.marker` in its environment, gets SIGKILL; RunProcess returns
// only once those are dead.
// While it runs this process is a child subreaper (PR_SET_CHILD_SUBREAPER,
// counted across threads and cleared after the last RunProcess): if the
// program kills or stops the supervisor process between us (its parent),
// every process of it re-parents to us, and every child of ours started
// after that supervisor, other threads' supervisors excepted, is killed
// and reaped before RunProcess returns (supervisor_lost). Other threads
// must not start processes of their own meanwhile.
// SIGINT, SIGTERM, SIGHUP and SIGQUIT, unless this thread blocks or the
// process ignores them, are held while the program runs: one that arrives
// stops the program as a timeout would, and is raised again before
// RunProcess returns, so the process's handler or default action still
// follows (the child is in its own session: a terminal's Ctrl-C does not
// reach it directly).
// Errors: Internal when the pipes cannot be made or the program cannot be
// started (the message names the program and errno); FailedPrecondition
// "sandbox_failed: ..." when the supervisor could not enter spec.sandbox
// (nothing ran).
absl::StatusOr<RunResult> RunProcess(const RunSpec& spec);

// Counters of the kernel's pid allocation (/proc/stat "processes",
// /proc/loadavg), read just before a program is started so that a later scan
// can skip every pid handed out before it.
struct PidAllocation {
  int64_t forks = 0;  // tasks created since boot (all namespaces)
  int64_t tasks = 0;  // tasks existing now
};
std::optional<PidAllocation> ReadPidAllocation();

// Sends SIGKILL to every process other than this one whose environment
// contains `marker` as a whole entry and waits (at most `wait_limit`) until
// they are dead; reaps those that are our own children. Returns how many it
// killed. Repeats the scan until it finds no one, for processes forked
// during a scan. Does nothing when /proc belongs to another pid namespace.
//
// With `leader` (a process started after `before` was read), only pids the
// kernel allocated after the leader's are read: pids are handed out in
// cyclic order, so a descendant's pid lies between the leader's and the
// last one allocated, unless the counter went all the way round, which the
// fork count rules out (else every pid is read). A root process that moves
// the counter (ns_last_pid, clone3 set_tid) defeats this.
int KillMarkedProcesses(absl::string_view marker, std::chrono::milliseconds wait_limit, pid_t leader = 0,
                        std::optional<PidAllocation> before = std::nullopt);

// The name of a signal ("SIGKILL"), or "signal N" for one without a name.
std::string SignalName(int sig);

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_PROCESS_RUNNER_H_
