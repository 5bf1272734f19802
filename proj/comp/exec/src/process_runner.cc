#include "proj/comp/exec/src/process_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proj/comp/exec/src/output_capture.h"

namespace clada::exec::internal {
namespace {

using Clock = std::chrono::steady_clock;

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    reset(o.release());
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// pidfds (Linux 5.3) let us wait for a process with poll() and signal it
// without racing against pid reuse. Without them we fall back to short
// polling intervals and kill().
int PidfdOpen(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  errno = ENOSYS;
  return -1;
#endif
}

int PidfdSendSignal(int pidfd, int sig) {
#ifdef SYS_pidfd_send_signal
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
#else
  errno = ENOSYS;
  return -1;
#endif
}

int MillisUntil(Clock::time_point t, Clock::time_point now) {
  if (t <= now) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(t - now).count();
  return static_cast<int>(std::min<int64_t>(ms, 24 * 3600 * 1000));
}

// The whole of a small /proc file, or "" when it cannot be read.
std::string ReadProcFile(const char* path) {
  Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return "";
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

// "pid (comm) S ppid pgrp ... flags ...": the state letter, the process
// group and the flags field.
bool ReadStat(pid_t pid, char* state, uint64_t* flags, pid_t* pgrp = nullptr) {
  const std::string stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat").c_str());
  // comm may hold spaces and ')', so fields count from the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is the state (field 3), fields[2] the group (field 5),
  // fields[6] the flags (field 9).
  if (fields.size() < 7 || fields[0].empty()) return false;
  *state = fields[0][0];
  if (pgrp != nullptr && !absl::SimpleAtoi(fields[2], pgrp)) return false;
  return absl::SimpleAtoi(fields[6], flags);
}

// What /proc/<pid>/environ says about the marker.
enum class Mark {
  kAbsent,  // gone, not ours to read, or an environment without it
  kPresent,
  kPending,  // no environment yet: caught inside execve, between the switch
             // to the new memory and the setup of its arguments (the
             // parent of a vfork resumes in between); look again shortly
};

bool HasEntry(absl::string_view block, absl::string_view entry) {
  for (size_t pos = block.find(entry); pos != absl::string_view::npos; pos = block.find(entry, pos + 1)) {
    const bool starts = pos == 0 || block[pos - 1] == '\0';
    const size_t end = pos + entry.size();
    const bool ends = end == block.size() || block[end] == '\0';
    if (starts && ends) return true;
  }
  return false;
}

constexpr uint64_t kPfKthread = 0x00200000;  // PF_KTHREAD

Mark ReadMark(pid_t pid, absl::string_view marker) {
  Fd fd(::open(absl::StrCat("/proc/", pid, "/environ").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Mark::kAbsent;
  std::string env;
  char buf[16384];
  constexpr size_t kMaxEnviron = 8 << 20;
  while (env.size() < kMaxEnviron) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    env.append(buf, static_cast<size_t>(n));
  }
  if (!env.empty()) return HasEntry(env, marker) ? Mark::kPresent : Mark::kAbsent;
  // Empty: a cleared environment (its command line is set), a zombie, a
  // kernel thread, or a process inside execve (no command line either).
  if (!ReadProcFile(absl::StrCat("/proc/", pid, "/cmdline").c_str()).empty()) return Mark::kAbsent;
  char state = 0;
  uint64_t flags = 0;
  if (!ReadStat(pid, &state, &flags) || state == 'Z' || state == 'X' || (flags & kPfKthread) != 0) {
    return Mark::kAbsent;
  }
  return Mark::kPending;
}

// Whether `pid` is one of the snippet's: a live member of `group` (the group
// of a leader that is not yet reaped, so that its id is still the leader's
// alone, and no process outside the leader's session can join it), or a
// process whose environment carries the marker. The group decides first: a
// process inside execve shows its new command line a moment before its new
// environment, which ReadMark would take for a cleared environment.
Mark ReadOwnership(pid_t pid, absl::string_view marker, pid_t group) {
  if (group > 0) {
    char state = 0;
    uint64_t flags = 0;
    pid_t pgrp = 0;
    if (ReadStat(pid, &state, &flags, &pgrp) && pgrp == group && state != 'Z' && state != 'X') {
      return Mark::kPresent;
    }
  }
  return ReadMark(pid, marker);
}

// /proc/loadavg: "0.20 0.18 0.12 1/80 11206": tasks after the '/', then the
// last pid allocated in our pid namespace.
bool ReadLoadavg(int64_t* tasks, int64_t* last_pid) {
  const std::string text = ReadProcFile("/proc/loadavg");
  std::vector<absl::string_view> fields = absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  if (fields.size() < 5) return false;
  const size_t slash = fields[3].find('/');
  return slash != absl::string_view::npos && absl::SimpleAtoi(fields[3].substr(slash + 1), tasks) &&
         absl::SimpleAtoi(fields[4], last_pid);
}

// The pids (leader, last] in the kernel's cyclic order, when no pid can have
// been handed out twice since `before`.
struct PidWindow {
  int64_t leader = 0;
  int64_t last = 0;
  int64_t pid_max = 0;
  bool Contains(int64_t pid) const {
    const int64_t d = ((pid - leader) % pid_max + pid_max) % pid_max;
    const int64_t span = ((last - leader) % pid_max + pid_max) % pid_max;
    return d >= 1 && d <= span;
  }
};

std::optional<PidWindow> CurrentPidWindow(pid_t leader, const std::optional<PidAllocation>& before) {
  if (leader <= 0 || !before) return std::nullopt;
  std::optional<PidAllocation> now = ReadPidAllocation();
  int64_t tasks = 0, last = 0, pid_max = 0;
  if (!now || !ReadLoadavg(&tasks, &last) ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadProcFile("/proc/sys/kernel/pid_max")), &pid_max) ||
      pid_max <= 0) {
    return std::nullopt;
  }
  // The allocation cursor moves by one per new task plus one per pid it
  // skips because that pid is in use; 300 pids are never reused after a
  // wrap. If it cannot have come back round to the leader, the window holds.
  const int64_t created = now->forks - before->forks;
  const int64_t max_advance = created + (before->tasks + created) + 300;
  if (created < 0 || max_advance >= pid_max) return std::nullopt;
  return PidWindow{leader, last, pid_max};
}

bool IsGoneOrZombie(pid_t pid) {
  char state = 0;
  uint64_t flags = 0;
  return !ReadStat(pid, &state, &flags) || state == 'Z' || state == 'X';
}

// Reads what is available on a pipe; false at EOF or on an error.
bool ReadChunk(int fd, HeadTailBuffer& buffer, Stream stream,
               const std::function<void(Stream, absl::string_view)>& on_output) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      absl::string_view chunk(buf, static_cast<size_t>(n));
      buffer.Append(chunk);
      if (on_output) on_output(stream, chunk);
      return true;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// Holds the termination signals this thread would otherwise act on, for
// poll() to see them through a signalfd; raises what it caught once it is
// done, after the old mask is back.
class SignalWatch {
 public:
  SignalWatch() {
    sigset_t blocked;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
    ::sigemptyset(&watched_);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
      struct sigaction action;
      if (::sigismember(&blocked, sig) || ::sigaction(sig, nullptr, &action) != 0 || action.sa_handler == SIG_IGN) {
        continue;
      }
      ::sigaddset(&watched_, sig);
    }
    ::pthread_sigmask(SIG_BLOCK, &watched_, &old_mask_);
    fd_.reset(::signalfd(-1, &watched_, SFD_CLOEXEC | SFD_NONBLOCK));
  }
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;
  ~SignalWatch() {
    fd_.reset();
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    if (caught_ != 0) ::raise(caught_);
  }

  int fd() const { return fd_.get(); }

  // The signal read from the signalfd, or 0.
  int Read() {
    struct signalfd_siginfo info;
    ssize_t n;
    do {
      n = ::read(fd_.get(), &info, sizeof info);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof info)) return 0;
    if (caught_ == 0) caught_ = static_cast<int>(info.ssi_signo);
    return static_cast<int>(info.ssi_signo);
  }

 private:
  sigset_t watched_;
  sigset_t old_mask_;
  Fd fd_;
  int caught_ = 0;
};

// `group`, when not 0, is the process group of an exited, unreaped leader:
// its live members are killed whatever their environment says.
int KillMarked(absl::string_view marker, std::chrono::milliseconds wait_limit, pid_t leader,
               const std::optional<PidAllocation>& before, pid_t group) {
  if (marker.empty()) return 0;
  const pid_t self = ::getpid();
  // A /proc mounted for another pid namespace names other processes by
  // these numbers: signalling them would hit strangers.
  char self_link[32] = {0};
  if (::readlink("/proc/self", self_link, sizeof self_link - 1) <= 0 || absl::StrCat(self) != self_link) return 0;
  std::set<pid_t> victims;
  std::vector<Fd> pidfds;
  std::vector<pid_t> without_pidfd;
  // Signals `pid` if it carries the marker; true when it was signalled.
  auto kill_if_marked = [&](pid_t pid) {
    Fd pidfd(PidfdOpen(pid));
    if (pidfd.valid()) {
      // The pid may have been reused since it was read: the pidfd pins the
      // process, so check again before signalling it.
      if (ReadOwnership(pid, marker, group) != Mark::kPresent || PidfdSendSignal(pidfd.get(), SIGKILL) != 0) {
        return false;
      }
      pidfds.push_back(std::move(pidfd));
    } else {
      if (::kill(pid, SIGKILL) != 0) return false;
      without_pidfd.push_back(pid);
    }
    victims.insert(pid);
    return true;
  };
  // Scan until a scan finds no one new (a victim may have forked during the
  // last one). A process caught inside execve gets its environment within
  // microseconds: look at such processes again every 200 us, for at most
  // kPendingLimit, and scan again if one of them was ours.
  constexpr std::chrono::milliseconds kPendingLimit{50};
  const Clock::time_point pending_deadline = Clock::now() + kPendingLimit;
  for (int round = 0; round < 20; ++round) {
    int found = 0;
    std::vector<pid_t> pending;
    const std::optional<PidWindow> window = CurrentPidWindow(leader, before);
    DIR* dir = ::opendir("/proc");
    if (dir == nullptr) break;
    while (struct dirent* entry = ::readdir(dir)) {
      int pid = 0;
      if (!absl::SimpleAtoi(entry->d_name, &pid) || pid <= 0 || pid == self) continue;
      if ((window && !window->Contains(pid)) || victims.count(pid) > 0) continue;
      const Mark mark = ReadOwnership(pid, marker, group);
      if (mark == Mark::kPending) pending.push_back(pid);
      if (mark == Mark::kPresent && kill_if_marked(pid)) ++found;
    }
    ::closedir(dir);
    while (!pending.empty() && Clock::now() < pending_deadline) {
      const struct timespec pause = {0, 200'000};
      ::nanosleep(&pause, nullptr);
      std::vector<pid_t> still;
      for (pid_t pid : pending) {
        const Mark mark = ReadOwnership(pid, marker, group);
        if (mark == Mark::kPending) still.push_back(pid);
        if (mark == Mark::kPresent && kill_if_marked(pid)) ++found;
      }
      pending.swap(still);
    }
    if (found == 0) break;
  }
  if (victims.empty()) return 0;

  // SIGKILL is asynchronous: wait until each victim has exited.
  const Clock::time_point deadline = Clock::now() + wait_limit;
  std::vector<struct pollfd> fds;
  for (const Fd& fd : pidfds) fds.push_back({fd.get(), POLLIN, 0});
  for (;;) {
    fds.erase(std::remove_if(fds.begin(), fds.end(), [](const struct pollfd& p) { return p.revents != 0; }), fds.end());
    without_pidfd.erase(std::remove_if(without_pidfd.begin(), without_pidfd.end(), IsGoneOrZombie),
                        without_pidfd.end());
    const Clock::time_point now = Clock::now();
    if ((fds.empty() && without_pidfd.empty()) || now >= deadline) break;
    int wait_ms = MillisUntil(deadline, now);
    if (!without_pidfd.empty()) wait_ms = std::min(wait_ms, 5);
    for (auto& p : fds) p.revents = 0;
    ::poll(fds.data(), fds.size(), wait_ms);
  }
  // Victims that were reparented to us (when this process is a subreaper)
  // would stay zombies; reap them. For anyone else waitpid says ECHILD.
  for (pid_t pid : victims) ::waitpid(pid, nullptr, WNOHANG);
  return static_cast<int>(victims.size());
}

// True once the leader has exited; it stays a zombie (WNOWAIT), so its pid
// and its group id cannot be reused until Reap().
bool LeaderHasExited(pid_t pid) {
  siginfo_t info = {};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  return rc == 0 && info.si_pid == pid;
}

// The wait status of the exited leader, which it reaps.
int Reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Once the leader has exited (and before it is reaped, so that its group id
// is still its own): every live member of its group and every process
// carrying the marker that left the group, then the group again for members
// forked during the scan. Returns how many it found.
int KillLeftovers(absl::string_view marker, pid_t leader, const std::optional<PidAllocation>& before) {
  const int killed = KillMarked(marker, std::chrono::seconds(2), leader, before, leader);
  ::kill(-leader, SIGKILL);
  return killed;
}

}  // namespace

std::string SignalName(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  if (abbrev == nullptr) return absl::StrCat("signal ", sig);
  return absl::StrCat("SIG", abbrev);
}

std::optional<PidAllocation> ReadPidAllocation() {
  PidAllocation a;
  int64_t last = 0;
  if (!ReadLoadavg(&a.tasks, &last)) return std::nullopt;
  const std::string stat = ReadProcFile("/proc/stat");
  const size_t at = stat.find("\nprocesses ");
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + 11;
  const size_t end = stat.find('\n', start);
  if (!absl::SimpleAtoi(absl::string_view(stat).substr(start, end - start), &a.forks)) return std::nullopt;
  return a;
}

int KillMarkedProcesses(absl::string_view marker, std::chrono::milliseconds wait_limit, pid_t leader,
                        std::optional<PidAllocation> before) {
  return KillMarked(marker, wait_limit, leader, before, /*group=*/0);
}

absl::StatusOr<RunResult> RunProcess(const RunSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("RunProcess: empty argv");
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(errno)));
  }
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(errno)));
  }
  Fd err_read(err_pipe[0]), err_write(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  ::posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  ::posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  ::sigemptyset(&empty);
  ::sigemptyset(&defaults);
  // Signals this process ignores (e.g. SIGPIPE) would stay ignored in the
  // child; give it the defaults a shell would.
  for (int sig = 1; sig < SIGRTMIN; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaddset(&defaults, sig);
  }
  ::posix_spawnattr_setsigmask(&attr, &empty);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv, envp;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  SignalWatch signals;
  const std::optional<PidAllocation> before = ReadPidAllocation();
  const Clock::time_point start = Clock::now();
  const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("cannot start ", spec.argv[0], " in '", spec.cwd, "': ", ::strerror(rc)));
  }
  out_write.reset();
  err_write.reset();
  ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err_read.get(), F_SETFL, O_NONBLOCK);
  Fd pidfd(PidfdOpen(pid));

  HeadTailBuffer out_buf(spec.max_output_bytes), err_buf(spec.max_output_bytes);
  RunResult result;
  const Clock::time_point deadline = start + spec.timeout;
  Clock::time_point kill_at{};
  std::optional<Clock::time_point> drain_deadline;
  bool leader_done = false;
  bool stopping = false;  // SIGTERM sent: on timeout or on a signal to us

  for (;;) {
    Clock::time_point now = Clock::now();
    if (!leader_done) {
      if (!stopping && (now >= deadline || result.interrupted_by != 0)) {
        stopping = true;
        result.timed_out = result.interrupted_by == 0;
        ::kill(-pid, SIGTERM);
        kill_at = now + spec.kill_grace;
      } else if (stopping && !result.sent_sigkill && now >= kill_at) {
        ::kill(-pid, SIGKILL);
        result.sent_sigkill = true;
      }
    }
    if (leader_done && !out_read.valid() && !err_read.valid()) break;
    if (drain_deadline && now >= *drain_deadline) {
      result.pipes_abandoned = true;
      break;
    }

    Clock::time_point wake = Clock::time_point::max();
    if (!leader_done) wake = stopping ? (result.sent_sigkill ? wake : kill_at) : deadline;
    if (drain_deadline) wake = std::min(wake, *drain_deadline);
    int wait_ms = wake == Clock::time_point::max() ? -1 : MillisUntil(wake, now);
    if (!leader_done && !pidfd.valid()) wait_ms = wait_ms < 0 ? 10 : std::min(wait_ms, 10);

    struct pollfd fds[4];
    int nfds = 0, out_i = -1, err_i = -1, pid_i = -1, sig_i = -1;
    if (out_read.valid()) {
      out_i = nfds;
      fds[nfds++] = {out_read.get(), POLLIN, 0};
    }
    if (err_read.valid()) {
      err_i = nfds;
      fds[nfds++] = {err_read.get(), POLLIN, 0};
    }
    if (!leader_done && pidfd.valid()) {
      pid_i = nfds;
      fds[nfds++] = {pidfd.get(), POLLIN, 0};
    }
    if (!leader_done && signals.fd() >= 0) {
      sig_i = nfds;
      fds[nfds++] = {signals.fd(), POLLIN, 0};
    }
    int ready = ::poll(fds, static_cast<nfds_t>(nfds), wait_ms);
    if (ready < 0 && errno != EINTR) {
      const int err = errno;
      if (!leader_done) {
        ::kill(-pid, SIGKILL);
        KillLeftovers(spec.marker, pid, before);
        Reap(pid);
      }
      return absl::InternalError(absl::StrCat("poll failed: ", ::strerror(err)));
    }
    if (ready > 0) {
      if (sig_i >= 0 && fds[sig_i].revents != 0) {
        const int sig = signals.Read();
        if (result.interrupted_by == 0) result.interrupted_by = sig;
      }
      if (out_i >= 0 && fds[out_i].revents != 0 &&
          !ReadChunk(out_read.get(), out_buf, Stream::kStdout, spec.on_output)) {
        out_read.reset();
      }
      if (err_i >= 0 && fds[err_i].revents != 0 &&
          !ReadChunk(err_read.get(), err_buf, Stream::kStderr, spec.on_output)) {
        err_read.reset();
      }
    }
    const bool maybe_exited = !pidfd.valid() || (pid_i >= 0 && ready > 0 && fds[pid_i].revents != 0);
    if (!leader_done && maybe_exited && LeaderHasExited(pid)) {
      leader_done = true;
      result.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      result.leftovers_killed = KillLeftovers(spec.marker, pid, before);
      const int status = Reap(pid);
      if (WIFEXITED(status)) {
        result.exited = true;
        result.exit_code = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        result.term_signal = WTERMSIG(status);
      }
      drain_deadline = Clock::now() + spec.drain_limit;
    }
  }
  result.stdout_bytes = out_buf.total_bytes();
  result.stderr_bytes = err_buf.total_bytes();
  result.stdout_text = out_buf.Finish("stdout");
  result.stderr_text = err_buf.Finish("stderr");
  return result;
}

}  // namespace clada::exec::internal
