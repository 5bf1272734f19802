// RunLock: one clada process per working root, via flock(2) on the working
// root directory itself: an action can delete or replace any file in it
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
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/git_tx.h"

namespace clada::git_tx {
namespace {

constexpr absl::Duration kPollInterval = absl::Milliseconds(20);
std::string HolderPid(const std::string& path) {
  absl::StatusOr<std::string> text = core::ReadFileToString(path, 64);
  if (!text.ok()) return "unknown";
  std::string pid(absl::StripAsciiWhitespace(*text));
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

absl::StatusOr<RunLock> RunLock::Acquire(const std::string& working_root,
                                         absl::Duration timeout) {
  struct stat st;
  if (::stat(working_root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat("working root '", working_root,
                                            "' is not an existing directory"));
  }
  int fd = ::open(working_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return core::ErrnoStatus(errno, "open the working root to lock it",
                             working_root);
  }
  const std::string dir = working_root + "/.clada";
  std::string path = dir + "/lock";
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      absl::Status s = core::ErrnoStatus(errno, "lock", working_root);
      ::close(fd);
      return s;
    }
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      std::string holder = HolderPid(path);
      ::close(fd);
      return absl::UnavailableError(absl::StrCat(
          "another clada run is working on '", working_root,
          "' (the run lock is held by pid ", holder, "); waited ",
          absl::FormatDuration(timeout),
          ". Let it finish and run again, or give a longer --lock-timeout"));
    }
    absl::SleepFor(std::min(left, kPollInterval));
  }
  // Record the holder for the message a waiting process prints. Not being
  // able to (a `.clada/lock` an answer turned into a directory, say) does
  // not matter: the lock is the directory's.
  if (core::CreateStateDirectory(dir).ok()) {
    (void)core::WriteFileAtomic(path, absl::StrCat(::getpid(), "\n"));
  }
  return RunLock(fd, std::move(path));
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() { Release(); }

void RunLock::Release() {
  if (fd_ < 0) return;
  // Closing the descriptor drops the flock. The pid file is emptied first
  // (not removed: `.clada/` stays as the user left it).
  int pid_fd = ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (pid_fd >= 0) ::close(pid_fd);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clada::git_tx
