#include "proj/comp/exec/src/process_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proj/comp/exec/src/output_capture.h"
#include "proj/comp/exec/src/sandbox.h"

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

// ---- The supervisor: a forked child of this process that starts the
// snippet, is the child subreaper of everything below it, and kills all of
// it. It runs between fork() and _exit() in a copy of a possibly
// multi-threaded process, so it calls only async-signal-safe functions:
// raw system calls, no allocation, no stdio, no locks.

// What the supervisor tells its parent, one fixed-size write each (atomic:
// under PIPE_BUF).
struct SupervisorMessage {
  int32_t kind;     // kSpawnFailed, kStarted or kDone
  int32_t value;    // errno of posix_spawn, the snippet's pid, or its wait status
  int32_t killed;   // kDone: descendants that were still running
  int32_t left;     // kDone: 1 when some were still not dead at the limit
  int64_t exit_ns;  // kDone: CLOCK_MONOTONIC when the snippet exited
};
constexpr int32_t kSpawnFailed = 1;
constexpr int32_t kStarted = 2;
constexpr int32_t kDone = 3;
constexpr int32_t kSandboxFailed = 4;  // value: errno, killed: the step

// Commands from the parent, one byte each.
constexpr char kCommandTerm = 'T';  // SIGTERM to the snippet's group
constexpr char kCommandKill = 'K';  // SIGKILL to the snippet's group

struct SupervisorSetup {
  pid_t parent;
  int status_fd;   // write end, to the parent
  int command_fd;  // read end, from the parent
  int out_fd;      // the snippet's stdout and stderr (write ends)
  int err_fd;
  const char* program;
  char* const* argv;
  char* const* envp;
  const posix_spawn_file_actions_t* actions;
  const posix_spawnattr_t* attr;
  bool stop_before_report;  // RunSpec::stop_supervisor_before_report_for_testing
  const Sandbox* sandbox;   // entered before anything else; may be null
};

int64_t MonotonicNanos() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void SendMessage(int fd, int32_t kind, int32_t value, int32_t killed = 0, int64_t exit_ns = 0, int32_t left = 0) {
  SupervisorMessage m = {kind, value, killed, left, exit_ns};
  WriteAll(fd, &m, sizeof m);
}

// Closes every descriptor but the sorted `keep` (close_range, else one by
// one up to the limit).
void CloseAllBut(const int* keep, int n) {
  unsigned int from = 0;
  for (int i = 0; i <= n; ++i) {
    const unsigned int to = i < n ? static_cast<unsigned int>(keep[i]) : ~0U;
    if (to > from) {
      bool done = false;
#ifdef SYS_close_range
      done = ::syscall(SYS_close_range, from, to - 1, 0) == 0;
#endif
      if (!done) {
        const long max = ::sysconf(_SC_OPEN_MAX);
        const unsigned int last = max > 0 ? static_cast<unsigned int>(std::min<long>(max, 1 << 20)) : 1024U;
        for (unsigned int fd = from; fd < to && fd < last; ++fd) ::close(static_cast<int>(fd));
      }
    }
    if (i < n) from = static_cast<unsigned int>(keep[i]) + 1;
  }
}

// Decimal of a non-negative number into `out` (NUL-terminated); its length.
int FormatInt(int64_t v, char* out) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  for (int i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
  out[n] = '\0';
  return n;
}

// The parent pid and state letter from /proc/<pid>/stat; false if gone.
bool ReadParentOf(pid_t pid, pid_t* ppid, char* state) {
  char path[48] = "/proc/";
  int len = 6 + FormatInt(pid, path + 6);
  const char kStat[] = "/stat";
  for (size_t i = 0; i < sizeof kStat; ++i) path[len + i] = kStat[i];
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return false;
  // "pid (comm) S ppid ...": comm may hold ')' and spaces.
  ssize_t close_paren = -1;
  for (ssize_t i = 0; i < n; ++i) {
    if (buf[i] == ')') close_paren = i;
  }
  if (close_paren < 0 || close_paren + 4 >= n) return false;
  *state = buf[close_paren + 2];
  int64_t v = 0;
  ssize_t i = close_paren + 4;
  if (i >= n || buf[i] < '0' || buf[i] > '9') return false;
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) v = v * 10 + (buf[i] - '0');
  *ppid = static_cast<pid_t>(v);
  return true;
}

// Whether /proc is this process's pid namespace, so that its numbers are
// the ones kill() takes.
bool ProcIsOurs() {
  char link[32];
  const ssize_t n = ::readlink("/proc/self", link, sizeof link - 1);
  if (n <= 0) return false;
  link[n] = '\0';
  char self[24];
  FormatInt(::getpid(), self);
  for (int i = 0;; ++i) {
    if (link[i] != self[i]) return false;
    if (link[i] == '\0') return true;
  }
}

// SIGKILL to every child of this process except `skip`, as read from /proc;
// counts into *killed those that were running and not seen before (`seen`
// holds up to kMaxSeen pids). Returns how many children it found (zombies
// included). Children stay unreaped here, so none of the pids read can have
// been reused when the signal goes.
constexpr int kMaxSeen = 4096;
int KillChildren(pid_t skip, pid_t* seen, int* seen_count, int* killed) {
  const pid_t self = ::getpid();
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  int found = 0;
  alignas(8) char buf[16384];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      unsigned short reclen;
      ::memcpy(&reclen, buf + off + 16, sizeof reclen);
      const char* name = buf + off + 19;
      off += reclen;
      int64_t pid = 0;
      bool numeric = name[0] != '\0';
      for (const char* c = name; *c != '\0'; ++c) {
        if (*c < '0' || *c > '9') {
          numeric = false;
          break;
        }
        pid = pid * 10 + (*c - '0');
      }
      if (!numeric || pid == skip || pid == self) continue;
      pid_t ppid = 0;
      char state = 0;
      if (!ReadParentOf(static_cast<pid_t>(pid), &ppid, &state) || ppid != self) continue;
      ++found;
      if (state == 'Z' || state == 'X') continue;
      ::kill(static_cast<pid_t>(pid), SIGKILL);
      bool known = false;
      for (int i = 0; i < *seen_count && !known; ++i) known = seen[i] == pid;
      if (!known) {
        ++*killed;
        if (*seen_count < kMaxSeen) seen[(*seen_count)++] = static_cast<pid_t>(pid);
      }
    }
  }
  ::close(dir);
  return found;
}

// Reaps every child that has ended; true when no child is left.
bool ReapChildren() {
  for (;;) {
    const pid_t r = ::waitpid(-1, nullptr, WNOHANG);
    if (r > 0) continue;
    if (r < 0 && errno == EINTR) continue;
    return r < 0 && errno == ECHILD;
  }
}

// Kills every descendant (the snippet already reaped, or `leader` not yet):
// children are killed, their children re-parent to us (we are their
// subreaper) and are killed in the next round, until no child is left or
// `limit_ns` has passed (a process in uninterruptible sleep). False when
// some child was left at the limit.
bool KillAllDescendants(pid_t* seen, int* seen_count, int* killed, int64_t limit_ns) {
  const bool proc_ok = ProcIsOurs();
  const int64_t end = MonotonicNanos() + limit_ns;
  for (;;) {
    if (proc_ok) KillChildren(0, seen, seen_count, killed);
    if (ReapChildren()) return true;
    if (MonotonicNanos() >= end) return false;
    const struct timespec pause = {0, 1'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

[[noreturn]] void RunSupervisor(const SupervisorSetup& s) {
  sigset_t all;
  ::sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  // The sandbox first: entering a user namespace may clear the parent-death
  // signal set below.
  if (s.sandbox != nullptr) {
    int step = 0;
    const int err = s.sandbox->Enter(&step);
    if (err != 0) {
      SendMessage(s.status_fd, kSandboxFailed, err, step);
      ::_exit(0);
    }
  }
  // If the parent dies (even by SIGKILL), SIGTERM arrives here (blocked,
  // read through the signalfd) and the command pipe reaches EOF: either way
  // the whole tree is killed.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  int keep[4] = {s.status_fd, s.command_fd, s.out_fd, s.err_fd};
  std::sort(keep, keep + 4);
  CloseAllBut(keep, 4);
  if (::getppid() != s.parent) ::_exit(0);  // the parent died before prctl

  pid_t snippet = -1;
  const int rc = ::posix_spawn(&snippet, s.program, s.actions, s.attr, s.argv, s.envp);
  ::close(s.out_fd);
  ::close(s.err_fd);
  if (rc != 0) {
    SendMessage(s.status_fd, kSpawnFailed, rc);
    ::_exit(0);
  }
  if (s.stop_before_report) ::raise(SIGSTOP);
  SendMessage(s.status_fd, kStarted, snippet);

  sigset_t term;
  ::sigemptyset(&term);
  ::sigaddset(&term, SIGTERM);
  const int sig_fd = ::signalfd(-1, &term, SFD_CLOEXEC | SFD_NONBLOCK);
  const int snippet_fd = PidfdOpen(snippet);
  bool orphaned = false;
  for (;;) {
    siginfo_t info = {};
    int w;
    do {
      w = ::waitid(P_PID, static_cast<id_t>(snippet), &info, WEXITED | WNOHANG | WNOWAIT);
    } while (w < 0 && errno == EINTR);
    if (w == 0 && info.si_pid == snippet) break;
    struct pollfd fds[3];
    nfds_t nfds = 0;
    fds[nfds++] = {s.command_fd, POLLIN, 0};
    if (sig_fd >= 0) fds[nfds++] = {sig_fd, POLLIN, 0};
    if (snippet_fd >= 0) fds[nfds++] = {snippet_fd, POLLIN, 0};
    const int ready = ::poll(fds, nfds, snippet_fd >= 0 ? -1 : 10);
    if (ready < 0 && errno != EINTR) {
      orphaned = true;
      break;
    }
    if (ready <= 0) continue;
    if (fds[0].revents != 0) {
      char command = 0;
      ssize_t n;
      do {
        n = ::read(s.command_fd, &command, 1);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) {
        orphaned = true;
        break;
      }
      if (command == kCommandTerm) ::kill(-snippet, SIGTERM);
      if (command == kCommandKill) ::kill(-snippet, SIGKILL);
    }
    if (sig_fd >= 0 && fds[1].revents != 0) {
      orphaned = true;
      break;
    }
  }

  pid_t seen[kMaxSeen];
  int seen_count = 0, killed = 0;
  if (orphaned) {
    ::kill(-snippet, SIGKILL);
    KillAllDescendants(seen, &seen_count, &killed, 2'000'000'000);
    ::_exit(0);
  }
  const int64_t exit_ns = MonotonicNanos();
  // The leader has ended but is not reaped: its group id is still its own.
  // Count and kill what it left (its orphans are ours now), then the group.
  KillChildren(snippet, seen, &seen_count, &killed);
  ::kill(-snippet, SIGKILL);
  int status = 0;
  while (::waitpid(snippet, &status, 0) < 0 && errno == EINTR) {
  }
  const bool all_gone = KillAllDescendants(seen, &seen_count, &killed, 2'000'000'000);
  SendMessage(s.status_fd, kDone, status, killed, exit_ns, all_gone ? 0 : 1);
  ::_exit(0);
}

// One message from the supervisor; false at EOF or on an error.
bool ReadMessage(int fd, SupervisorMessage* m) {
  char* p = reinterpret_cast<char*>(m);
  size_t got = 0;
  while (got < sizeof *m) {
    const ssize_t n = ::read(fd, p + got, sizeof *m - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

// clada's own process is a child subreaper while a snippet runs, so that
// when a snippet kills its supervisor (its `$PPID`), the supervisor's
// children re-parent to us instead of init and can still be killed. The
// attribute is process-wide: counted across the threads running snippets,
// and cleared when the last one ends, so that a long-lived host (`clada
// listen`) does not collect the orphans of everything else it starts.
struct ReaperState {
  std::mutex mu;
  int users = 0;
  bool host_set = false;           // the host was a subreaper already: leave it so
  std::vector<pid_t> supervisors;  // the live supervisors of every RunProcess
  std::vector<pid_t> unreaped;     // adopted processes still alive after their kill
};

ReaperState& Reaper() {
  static ReaperState* const state = new ReaperState;
  return *state;
}

// Reaps the adopted processes that were stuck in the kernel when killed and
// have ended since (waitpid on each pid: never a child someone else waits
// for). Called with mu held.
void ReapUnreapedLocked(ReaperState& r) {
  r.unreaped.erase(std::remove_if(r.unreaped.begin(), r.unreaped.end(),
                                  [](pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) != 0; }),
                   r.unreaped.end());
}

class SubreaperScope {
 public:
  SubreaperScope() {
    ReaperState& r = Reaper();
    std::lock_guard<std::mutex> lock(r.mu);
    ReapUnreapedLocked(r);
    if (r.users++ == 0) {
      int set = 0;
      r.host_set = ::prctl(PR_GET_CHILD_SUBREAPER, &set) == 0 && set != 0;
      if (!r.host_set) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    }
  }
  SubreaperScope(const SubreaperScope&) = delete;
  SubreaperScope& operator=(const SubreaperScope&) = delete;
  ~SubreaperScope() {
    ReaperState& r = Reaper();
    std::lock_guard<std::mutex> lock(r.mu);
    if (--r.users == 0 && !r.host_set) ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
};

// The fields after "(comm) " of /proc/<pid>/stat: [0] state, [1] parent,
// [19] start time (clock ticks since boot). False when gone.
bool ReadStatFields(pid_t pid, char* state, pid_t* ppid, uint64_t* start) {
  const std::string stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat").c_str());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(close + 2), ' ', absl::SkipEmpty());
  if (fields.size() < 20 || fields[0].empty()) return false;
  *state = fields[0][0];
  return absl::SimpleAtoi(fields[1], ppid) && absl::SimpleAtoi(fields[19], start);
}

struct Child {
  pid_t pid;
  char state;
  uint64_t start;
};

std::vector<Child> ChildrenOf(pid_t parent) {
  std::vector<Child> children;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return children;
  while (struct dirent* e = ::readdir(dir)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(e->d_name, &pid) || pid <= 0) continue;
    Child c{pid, 0, 0};
    pid_t ppid = 0;
    if (ReadStatFields(pid, &c.state, &ppid, &c.start) && ppid == parent) children.push_back(c);
  }
  ::closedir(dir);
  return children;
}

// After a supervisor died before it reported: kills and reaps every child
// of this process started no earlier than that supervisor (`since`, in
// clock ticks since boot; 0: any), other than the live supervisors of other
// RunProcess calls. Those are the snippet's processes, re-parented to us. A
// killed child's own children re-parent to us in turn and are killed in the
// next round, so a tree that keeps forking loses the race as soon as the
// signal lands; it stops when none is left or at `limit` (a process stuck
// in the kernel, reaped at a later RunProcess). Returns how many it killed.
// The round holds the supervisors' lock, so no new supervisor is forked
// (and taken for one of the snippet's) meanwhile.
int KillAdopted(uint64_t since, Clock::time_point limit) {
  if (!ProcIsOurs()) return 0;
  const pid_t self = ::getpid();
  std::set<pid_t> killed;
  for (;;) {
    ReaperState& r = Reaper();
    std::vector<pid_t> alive;
    {
      std::lock_guard<std::mutex> lock(r.mu);
      for (const Child& c : ChildrenOf(self)) {
        if (c.start < since || std::find(r.supervisors.begin(), r.supervisors.end(), c.pid) != r.supervisors.end()) {
          continue;
        }
        if (c.state == 'Z' || c.state == 'X') {
          ::waitpid(c.pid, nullptr, WNOHANG);
          continue;
        }
        ::kill(c.pid, SIGKILL);  // our unreaped child: its pid is still its own
        killed.insert(c.pid);
        alive.push_back(c.pid);
      }
      if (!alive.empty() && Clock::now() >= limit) {
        for (pid_t pid : alive) {
          if (std::find(r.unreaped.begin(), r.unreaped.end(), pid) == r.unreaped.end()) r.unreaped.push_back(pid);
        }
        alive.clear();
      }
    }
    if (alive.empty()) break;
    const struct timespec pause = {0, 1'000'000};
    ::nanosleep(&pause, nullptr);
  }
  return static_cast<int>(killed.size());
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
  auto make_pipe = [](Fd* read_end, Fd* write_end) -> absl::Status {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return absl::InternalError(absl::StrCat("cannot create a pipe: ", ::strerror(errno)));
    }
    read_end->reset(fds[0]);
    write_end->reset(fds[1]);
    return absl::OkStatus();
  };
  Fd out_read, out_write, err_read, err_write, status_read, status_write, command_read, command_write;
  for (auto [r, w] : {std::pair{&out_read, &out_write}, std::pair{&err_read, &err_write},
                      std::pair{&status_read, &status_write}}) {
    absl::Status made = make_pipe(r, w);
    if (!made.ok()) return made;
  }
  // Commands go through a socket, so that a command sent just as the
  // supervisor exits fails with EPIPE (MSG_NOSIGNAL) instead of raising
  // SIGPIPE here.
  int command_pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, command_pair) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a socket pair: ", ::strerror(errno)));
  }
  command_read.reset(command_pair[0]);
  command_write.reset(command_pair[1]);

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

  SignalWatch signals;
  SubreaperScope subreaper;  // before the fork: the supervisor's orphans come to us
  const std::optional<PidAllocation> before = ReadPidAllocation();
  const SupervisorSetup setup = {::getpid(),     status_write.get(), command_read.get(), out_write.get(),
                                 err_write.get(), argv[0],           argv.data(),        envp.data(),
                                 &actions,        &attr,
                                 spec.stop_supervisor_before_report_for_testing,
                                 spec.sandbox};
  const Clock::time_point start = Clock::now();
  pid_t supervisor = -1;
  int fork_errno = 0;
  {
    // Registered before any KillAdopted round can see it.
    std::lock_guard<std::mutex> lock(Reaper().mu);
    supervisor = ::fork();
    if (supervisor == 0) RunSupervisor(setup);
    fork_errno = errno;
    if (supervisor > 0) Reaper().supervisors.push_back(supervisor);
  }
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  if (supervisor < 0) {
    return absl::InternalError(
        absl::StrCat("cannot start ", spec.argv[0], ": fork failed: ", ::strerror(fork_errno)));
  }
  out_write.reset();
  err_write.reset();
  status_write.reset();
  command_read.reset();
  // Closing the command pipe tells the supervisor to kill everything; it
  // then exits and is reaped here, on every way out of this function.
  int supervisor_status = 0;
  bool supervisor_reaped = false;
  auto finish_supervisor = [&]() {
    if (supervisor_reaped) return;
    command_write.reset();
    while (::waitpid(supervisor, &supervisor_status, 0) < 0 && errno == EINTR) {
    }
    supervisor_reaped = true;
    ReaperState& r = Reaper();
    std::lock_guard<std::mutex> lock(r.mu);
    r.supervisors.erase(std::remove(r.supervisors.begin(), r.supervisors.end(), supervisor), r.supervisors.end());
  };
  // The supervisor's start time, read while it is unreaped (its pid is its
  // own): every process of its snippet started no earlier.
  auto supervisor_start = [&]() {
    char state = 0;
    pid_t ppid = 0;
    uint64_t since = 0;
    return ReadStatFields(supervisor, &state, &ppid, &since) ? since : 0;
  };

  ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err_read.get(), F_SETFL, O_NONBLOCK);

  HeadTailBuffer out_buf(spec.max_output_bytes), err_buf(spec.max_output_bytes);
  RunResult result;
  const Clock::time_point deadline = start + spec.timeout;
  Clock::time_point kill_at{};
  std::optional<Clock::time_point> drain_deadline;
  bool leader_done = false;
  bool stopping = false;  // SIGTERM sent: on timeout or on a signal to us
  auto command = [&](char c) {
    while (::send(command_write.get(), &c, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
  };
  // The supervisor ended before it reported, or is stopped (`stop_signal`;
  // -1: it did not report in time): the snippet killed or stopped its
  // $PPID. We are its children's subreaper: kill them all ourselves.
  std::optional<Clock::time_point> report_by;  // the supervisor's last chance
  auto abandon_supervisor = [&](int stop_signal) {
    const uint64_t since = supervisor_start();
    if (stop_signal != 0) ::kill(supervisor, SIGKILL);
    finish_supervisor();
    result.supervisor_lost = true;
    result.supervisor_stopped = stop_signal != 0;
    result.supervisor_signal = stop_signal > 0                  ? stop_signal
                               : WIFSIGNALED(supervisor_status) ? WTERMSIG(supervisor_status)
                                                                : 0;
    result.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    result.leftovers_killed = KillAdopted(since, Clock::now() + std::chrono::seconds(2)) +
                              KillMarked(spec.marker, std::chrono::seconds(2), supervisor, before, /*group=*/0);
    leader_done = true;
    report_by.reset();
    drain_deadline = Clock::now() + spec.drain_limit;
  };
  // The signal that stopped the supervisor, or 0.
  auto supervisor_stop = [&]() {
    siginfo_t info = {};
    if (::waitid(P_PID, static_cast<id_t>(supervisor), &info, WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == supervisor && info.si_code == CLD_STOPPED) {
      return info.si_status;
    }
    return 0;
  };
  // The start is read in the loop below, not waited for here: a snippet
  // can stop its supervisor before the supervisor reports it, and the
  // timeout must still apply.
  bool started = false;

  for (;;) {
    Clock::time_point now = Clock::now();
    if (!leader_done) {
      const bool cancelled = spec.cancel != nullptr && spec.cancel->load();
      if (!stopping && (now >= deadline || result.interrupted_by != 0 || cancelled)) {
        stopping = true;
        result.cancelled = cancelled && result.interrupted_by == 0 && now < deadline;
        result.timed_out = result.interrupted_by == 0 && !result.cancelled;
        command(kCommandTerm);
        kill_at = now + spec.kill_grace;
        if (const int sig = supervisor_stop()) abandon_supervisor(sig);
      } else if (stopping && !result.sent_sigkill && now >= kill_at) {
        command(kCommandKill);
        result.sent_sigkill = true;
        // Its clean-up takes at most 2 s (a process stuck in the kernel).
        report_by = now + std::chrono::seconds(3);
        if (const int sig = supervisor_stop()) abandon_supervisor(sig);
      } else if (report_by && now >= *report_by) {
        const int sig = supervisor_stop();
        abandon_supervisor(sig != 0 ? sig : -1);
      }
    }
    if (leader_done && !out_read.valid() && !err_read.valid()) break;
    if (drain_deadline && now >= *drain_deadline) {
      result.pipes_abandoned = true;
      break;
    }

    Clock::time_point wake = Clock::time_point::max();
    if (!leader_done) wake = stopping ? (result.sent_sigkill ? wake : kill_at) : deadline;
    if (!leader_done && report_by) wake = std::min(wake, *report_by);
    if (drain_deadline) wake = std::min(wake, *drain_deadline);
    if (spec.cancel != nullptr && !stopping && !leader_done) wake = std::min(wake, now + std::chrono::milliseconds(50));
    const int wait_ms = wake == Clock::time_point::max() ? -1 : MillisUntil(wake, now);

    struct pollfd fds[4];
    int nfds = 0, out_i = -1, err_i = -1, status_i = -1, sig_i = -1;
    if (out_read.valid()) {
      out_i = nfds;
      fds[nfds++] = {out_read.get(), POLLIN, 0};
    }
    if (err_read.valid()) {
      err_i = nfds;
      fds[nfds++] = {err_read.get(), POLLIN, 0};
    }
    if (!leader_done) {
      status_i = nfds;
      fds[nfds++] = {status_read.get(), POLLIN, 0};
    }
    if (!leader_done && signals.fd() >= 0) {
      sig_i = nfds;
      fds[nfds++] = {signals.fd(), POLLIN, 0};
    }
    int ready = ::poll(fds, static_cast<nfds_t>(nfds), wait_ms);
    if (ready < 0 && errno != EINTR) {
      const int err = errno;
      finish_supervisor();
      return absl::InternalError(absl::StrCat("poll failed: ", ::strerror(err)));
    }
    if (ready <= 0) continue;
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
    if (status_i >= 0 && fds[status_i].revents != 0) {
      SupervisorMessage done = {};
      if (!ReadMessage(status_read.get(), &done)) {
        abandon_supervisor(0);
        continue;
      }
      if (!started) {
        if (done.kind == kSandboxFailed && spec.sandbox != nullptr) {
          finish_supervisor();
          return absl::FailedPreconditionError(
              absl::StrCat("sandbox_failed: could not enter the sandbox (", spec.sandbox->description(), ") at ",
                           spec.sandbox->StepName(done.killed), ": ", ::strerror(done.value),
                           "; nothing was run. Setting `sandbox: off` runs code unconfined"));
        }
        if (done.kind != kStarted) {
          finish_supervisor();
          const int err = done.kind == kSpawnFailed ? done.value : EIO;
          return absl::InternalError(
              absl::StrCat("cannot start ", spec.argv[0], " in '", spec.cwd, "': ", ::strerror(err)));
        }
        started = true;
        continue;
      }
      if (done.kind != kDone) {
        abandon_supervisor(0);
        continue;
      }
      leader_done = true;
      report_by.reset();
      const int64_t start_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count();
      result.duration_ms = std::max<int64_t>(0, (done.exit_ns - start_ns) / 1'000'000);
      // Processes the supervisor could not kill in 2 s (stuck in the
      // kernel) become ours when it exits: killed again, reaped later.
      const uint64_t since = done.left != 0 ? supervisor_start() : 0;
      finish_supervisor();
      if (done.left != 0) KillAdopted(since, Clock::now());
      // Belt and braces: a process carrying the marker outside the tree
      // (none can be: orphans re-parent to the supervisor).
      result.leftovers_killed =
          done.killed + KillMarked(spec.marker, std::chrono::seconds(2), supervisor, before, /*group=*/0);
      const int status = done.value;
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
