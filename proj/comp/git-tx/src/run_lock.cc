// RunLock: one clada process per working root, via flock(2) on the working
// root directory itself, and one per git repository, via flock(2) on its git
// directory (taken second, so never crosswise): an action can delete or replace any file in it
// (`rm .clada/lock`), but not the directory it runs in, so the lock cannot
// be taken away from the run holding it. The holder's pid is also written
// to `.clada/lock` (hidden from git by `.clada/.gitignore`), for the message
// a waiting process prints; that file is only informative.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"

namespace clada::git_tx {
namespace {

constexpr absl::Duration kPollInterval = absl::Milliseconds(20);
std::string HolderPid(const std::string& path) {
  absl::StatusOr<std::string> text = core::ReadFileToString(path, 64);
  if (!text.ok()) return "unknown";
  std::string pid(absl::StripAsciiWhitespace(*text));
  return pid.empty() ? "unknown" : pid;
}

// Takes flock(2) on `fd`, polling until `timeout`; closes `fd` on failure
// unless `keep` (a descriptor the caller keeps).
template <typename BusyMessage>
absl::Status WaitForFlock(int fd, absl::Duration timeout, const std::string& what, BusyMessage busy,
                          bool keep = false) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return absl::OkStatus();
    if (errno != EWOULDBLOCK && errno != EINTR) {
      absl::Status s = core::ErrnoStatus(errno, "lock", what);
      if (!keep) ::close(fd);
      return s;
    }
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      if (!keep) ::close(fd);
      return absl::UnavailableError(busy());
    }
    absl::SleepFor(std::min(left, kPollInterval));
  }
}

// The pid file's width: any pid, blank-padded, then a newline.
constexpr size_t kPidFileWidth = 24;

// `pid` (or blanks, for "") as the pid file's text: blank-padded to the
// width, then a newline.
std::string PidFileText(absl::string_view pid) {
  std::string text(pid);
  text.resize(kPidFileWidth - 1, ' ');
  text.push_back('\n');
  return text;
}

// Opens the pid file at `path` (created when missing; a symlink is not
// followed) and writes this process's pid over its start; returns the
// descriptor Release blanks it through, or -1. A file longer than the
// width (not written by clada) is cut to it.
int WritePidFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return -1;
  const std::string text = PidFileText(absl::StrCat(::getpid()));
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(text.size())) {
    (void)!::ftruncate(fd, static_cast<off_t>(text.size()));
  }
  (void)!::pwrite(fd, text.data(), text.size(), 0);
  return fd;
}

}  // namespace

absl::StatusOr<RunLock> RunLock::AcquireFile(const std::string& lock_file, absl::Duration timeout) {
  // Opened for reading only: flock needs no more, and a lock file that
  // names an existing file of the user's is never written.
  int fd = ::open(lock_file.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return core::ErrnoStatus(errno, "open the lock file (setting lock_file)", lock_file);
  absl::Status locked = WaitForFlock(fd, timeout, lock_file, [&] {
    return absl::StrCat("another process holds the lock file '", lock_file, "' (setting lock_file); waited ",
                        absl::FormatDuration(timeout), ". Let it finish and run again, or give a longer --lock-timeout");
  });
  if (!locked.ok()) return locked;
  return RunLock(fd, "");
}

namespace {

// Takes flock(2) on `fd`, the working root's descriptor, waiting up to
// `timeout`; closes it on failure unless `keep`.
absl::Status FlockRoot(int fd, const std::string& working_root, absl::Duration timeout, bool keep) {
  return WaitForFlock(
      fd, timeout, working_root,
      [&] {
        return absl::StrCat("another clada run is working on '", working_root, "' (the run lock is held by pid ",
                            HolderPid(working_root + "/.clada/lock"), "); waited ", absl::FormatDuration(timeout),
                            ". Let it finish and run again, or give a longer --lock-timeout");
      },
      keep);
}

// Opens `working_root` and takes flock(2) on it, waiting up to `timeout`;
// returns the descriptor that holds the lock.
absl::StatusOr<int> LockRoot(const std::string& working_root, absl::Duration timeout) {
  int fd = ::open(working_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat("working root '", working_root,
                                              "' is not an existing directory"));
    }
    return core::ErrnoStatus(errno, "open the working root to lock it",
                             working_root);
  }
  absl::Status locked = FlockRoot(fd, working_root, timeout, /*keep=*/false);
  if (!locked.ok()) return locked;
  return fd;
}

// The git directory of the repository around `working_root`, as
// OpenWorkTree finds it (not across file systems), without a trailing
// slash; "" when there is none.
std::string FindGitDir(const std::string& working_root) {
  if (!internal::EnsureLibgit2().ok()) return "";
  git_buf buf = GIT_BUF_INIT;
  if (git_repository_discover(&buf, working_root.c_str(), 0, nullptr) != 0) {
    git_buf_dispose(&buf);
    return "";
  }
  std::string dir(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// Takes flock(2) on `gitdir`, waiting up to `timeout`, after the working
// root's lock (held on `root_fd`): a run rooted elsewhere in the same
// repository holds it. Returns the descriptor, or -1 when `gitdir` is ""
// or cannot be opened (git itself would then fail), or is the root itself.
absl::StatusOr<int> LockGitDir(const std::string& gitdir, int root_fd, absl::Duration timeout) {
  if (gitdir.empty()) return -1;
  const int fd = ::open(gitdir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat g, r;
  if (::fstat(fd, &g) == 0 && ::fstat(root_fd, &r) == 0 && g.st_dev == r.st_dev && g.st_ino == r.st_ino) {
    ::close(fd);  // a root that is the git directory: its own lock covers it
    return -1;
  }
  absl::Status locked = WaitForFlock(fd, std::max(timeout, absl::ZeroDuration()), gitdir, [&] {
    return absl::StrCat("another clada run is working in the same git repository (its git directory '", gitdir,
                        "' is locked by a run from another folder of it); waited ", absl::FormatDuration(timeout),
                        ". Let it finish and run again, or give a longer --lock-timeout");
  });
  if (!locked.ok()) return locked;
  return fd;
}

}  // namespace

absl::StatusOr<RunLock> RunLock::Acquire(const std::string& working_root, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::StatusOr<int> fd = LockRoot(working_root, timeout);
  if (!fd.ok()) return fd.status();
  absl::StatusOr<int> repo_fd = LockGitDir(FindGitDir(working_root), *fd, deadline - absl::Now());
  if (!repo_fd.ok()) {
    ::close(*fd);
    return repo_fd.status();
  }
  const std::string dir = working_root + "/.clada";
  std::string path = dir + "/lock";
  // Record the holder for the message a waiting process prints. Not being
  // able to (a `.clada/lock` an answer turned into a directory, say) does
  // not matter: the lock is the directory's.
  // A pid for that message, not data: written in place with one pwrite(2)
  // at offset 0, blank-padded to a fixed width, and blanked the same way
  // by Release; never truncated and never fsynced (a crash drops the
  // flock, so the pid means nothing after one). An fsync here cost 8 ms a
  // run; truncating the file on every release cost ext4 a flush of it to
  // disk (auto_da_alloc) that the next acquire waited for, 0.2 to 3 ms, most
  // of a `clada mcp` tool call.
  // The pid file's descriptor is kept until Release, which blanks it.
  const int pid_fd = core::CreateStateDirectory(dir).ok() ? WritePidFile(path) : -1;
  return RunLock(*fd, std::move(path), pid_fd, nullptr, *repo_fd);
}

RunLockKeeper::RunLockKeeper(std::string working_root) : root_(std::move(working_root)) {}

RunLockKeeper::~RunLockKeeper() {
  if (root_fd_ >= 0) ::close(root_fd_);  // nothing is lent: a RunLock it gave does not outlive it
  if (pid_fd_ < 0) return;
  // Blanked as RunLock::Release blanks it, the pid naming no holder now;
  // but only under the lock: a run holding it meanwhile has written its
  // own pid there, which a waiting one must still read.
  const int root_fd = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd >= 0) {
    if (::flock(root_fd, LOCK_EX | LOCK_NB) == 0) {
      const std::string blank = PidFileText("");
      (void)!::pwrite(pid_fd_, blank.data(), blank.size(), 0);
    }
    ::close(root_fd);
  }
  ::close(pid_fd_);
}

absl::StatusOr<RunLock> RunLockKeeper::Acquire(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::StatusOr<RunLock> lock = AcquireRoot(timeout);
  if (!lock.ok()) return lock;
  // Then the repository's lock, through the git directory found before
  // while it can still be opened (a lookup walks every folder up to it).
  std::string gitdir;
  {
    std::lock_guard<std::mutex> hold(mu_);
    gitdir = gitdir_;
  }
  struct stat st;
  if (gitdir.empty() || ::stat(gitdir.c_str(), &st) != 0) {
    gitdir = FindGitDir(root_);
    std::lock_guard<std::mutex> hold(mu_);
    gitdir_ = gitdir;
  }
  absl::StatusOr<int> repo_fd = LockGitDir(gitdir, lock->fd_, deadline - absl::Now());
  if (!repo_fd.ok()) return repo_fd.status();  // `lock` lets the root go
  lock->repo_fd_ = *repo_fd;
  return lock;
}

absl::StatusOr<RunLock> RunLockKeeper::AcquireRoot(absl::Duration timeout) {
  // The root's descriptor kept from the last acquire, when no RunLock holds
  // it now and the path still names that directory (a stat of the path, by
  // device and inode): flocked again, it locks the directory the path
  // names now, as an open would.
  int kept = -1;
  {
    std::lock_guard<std::mutex> hold(mu_);
    if (root_fd_ >= 0 && !lent_) {
      struct stat now;
      if (::stat(root_.c_str(), &now) == 0 && now.st_dev == root_id_.st_dev && now.st_ino == root_id_.st_ino) {
        kept = root_fd_;
        lent_ = true;
      } else {
        ::close(root_fd_);
        root_fd_ = -1;
      }
    }
  }
  if (kept >= 0) {
    absl::Status locked = FlockRoot(kept, root_, timeout, /*keep=*/true);
    if (!locked.ok()) {
      Return(kept, /*unlocked=*/true);
      return locked;
    }
    NotePid(kept);
    return RunLock(kept, root_ + "/.clada/lock", -1, this);
  }
  absl::StatusOr<int> fd = LockRoot(root_, timeout);
  if (!fd.ok()) return fd.status();
  NotePid(*fd);
  {
    // Kept for the acquires after this one, when none is kept yet (a
    // second RunLock at once, from another thread, opens its own: two
    // descriptors exclude each other; one would not).
    std::lock_guard<std::mutex> hold(mu_);
    if (root_fd_ < 0 && ::fstat(*fd, &root_id_) == 0) {
      root_fd_ = *fd;
      lent_ = true;
      return RunLock(*fd, root_ + "/.clada/lock", -1, this);
    }
  }
  // The pid file stays open with the keeper: this RunLock only closes the
  // root's descriptor, which drops the flock.
  return RunLock(*fd, root_ + "/.clada/lock");
}

void RunLockKeeper::Return(int root_fd, bool unlocked) {
  std::lock_guard<std::mutex> hold(mu_);
  if (root_fd != root_fd_) return;
  lent_ = false;
  if (!unlocked) {
    ::close(root_fd_);
    root_fd_ = -1;
  }
}

void RunLockKeeper::NotePid(int root_fd) {
  std::lock_guard<std::mutex> hold(mu_);
  struct stat now;
  // Still the file this keeper wrote, unchanged since: it names this
  // process. A write changes the change time, and the fstat after this
  // keeper's own write makes the kernel give the next change a finer one
  // than the clock tick (multigrain timestamps, ext4, xfs, btrfs, tmpfs
  // since Linux 6.13); elsewhere another run's write in the same tick as
  // this keeper's goes unseen, and the file shows that run's pid or none.
  if (pid_fd_ >= 0 && ::fstatat(root_fd, ".clada/lock", &now, AT_SYMLINK_NOFOLLOW) == 0 &&
      now.st_dev == written_.st_dev && now.st_ino == written_.st_ino && now.st_ctim.tv_sec == written_.st_ctim.tv_sec &&
      now.st_ctim.tv_nsec == written_.st_ctim.tv_nsec) {
    return;
  }
  // Deleted, replaced or written since (another run's pid or its blanks):
  // set up again and written, through a new descriptor (a file an action
  // moved away is not written to).
  if (pid_fd_ >= 0) ::close(pid_fd_);
  const std::string dir = root_ + "/.clada";
  pid_fd_ = core::CreateStateDirectory(dir).ok() ? WritePidFile(dir + "/lock") : -1;
  if (pid_fd_ >= 0 && ::fstat(pid_fd_, &written_) != 0) {
    ::close(pid_fd_);
    pid_fd_ = -1;
  }
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), pid_fd_(other.pid_fd_), keeper_(other.keeper_),
      repo_fd_(other.repo_fd_) {
  other.repo_fd_ = -1;
  other.fd_ = -1;
  other.pid_fd_ = -1;
  other.keeper_ = nullptr;
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    pid_fd_ = other.pid_fd_;
    keeper_ = other.keeper_;
    repo_fd_ = other.repo_fd_;
    other.repo_fd_ = -1;
    other.fd_ = -1;
    other.pid_fd_ = -1;
    other.keeper_ = nullptr;
  }
  return *this;
}

RunLock::~RunLock() { Release(); }

void RunLock::Release() {
  if (repo_fd_ >= 0) {  // the repository's lock first: taken last
    ::close(repo_fd_);
    repo_fd_ = -1;
  }
  if (fd_ < 0) return;
  if (keeper_ != nullptr) {  // the keeper's descriptor: unlocked and given back, not closed
    // An unlock that fails (a FUSE or NFS root can) would leave the lock
    // held while the server idles: the keeper closes the descriptor then,
    // which always drops it.
    keeper_->Return(fd_, ::flock(fd_, LOCK_UN) == 0);
    keeper_ = nullptr;
    fd_ = -1;
    return;
  }
  if (path_.empty()) {  // AcquireFile: nothing was written
    ::close(fd_);
    fd_ = -1;
    return;
  }
  // Closing the descriptor drops the flock. The pid file is blanked first
  // (not removed: `.clada/` stays as the user left it), through the
  // descriptor Acquire wrote it with: a file an action removed or replaced
  // meanwhile is not created again.
  if (pid_fd_ >= 0) {
    const std::string blank = PidFileText("");
    (void)!::pwrite(pid_fd_, blank.data(), blank.size(), 0);
    ::close(pid_fd_);
    pid_fd_ = -1;
  }
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clada::git_tx
