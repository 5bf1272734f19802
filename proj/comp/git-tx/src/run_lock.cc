// RunLock: one clada process per working root, via flock(2) on
// `.clada/lock`. The file is kept (never unlinked) so every process locks
// the same inode; `.clada/.gitignore` hides it from git so it is never
// snapshotted, stashed or committed.
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
std::string HolderPid(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "unknown";
  std::string pid(buf, n);
  absl::StripAsciiWhitespace(&pid);
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
  const std::string dir = working_root + "/.clada";
  RETURN_IF_ERROR(core::CreateStateDirectory(dir));
  std::string path = dir + "/lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return core::ErrnoStatus(errno, "open the run lock", path);
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      absl::Status s = core::ErrnoStatus(errno, "lock", path);
      ::close(fd);
      return s;
    }
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      std::string holder = HolderPid(fd);
      ::close(fd);
      return absl::UnavailableError(absl::StrCat(
          "another clada run is working on '", working_root, "' (lock '", path,
          "' held by pid ", holder, "); waited ", absl::FormatDuration(timeout),
          ". Let it finish and run again, or give a longer --lock-timeout"));
    }
    absl::SleepFor(std::min(left, kPollInterval));
  }
  // Record the holder for the message a waiting process prints.
  std::string pid = absl::StrCat(::getpid(), "\n");
  if (::ftruncate(fd, 0) == 0) {
    (void)!::pwrite(fd, pid.data(), pid.size(), 0);
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
  // Closing the descriptor drops the flock; the file stays for the next run.
  (void)!::ftruncate(fd_, 0);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clada::git_tx
