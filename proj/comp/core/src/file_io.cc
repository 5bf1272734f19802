#include "proj/comp/core/src/file_io.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/status_macros.h"

namespace clada::core {
namespace {

mode_t CurrentUmask() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// Closes a descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

absl::Status WriteAll(int fd, absl::string_view data, const std::string& path) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", path);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

std::string ErrnoName(int err) {
  switch (err) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EEXIST: return "EEXIST";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case ENOTEMPTY: return "ENOTEMPTY";
    case ENOSPC: return "ENOSPC";
    case EROFS: return "EROFS";
    case ELOOP: return "ELOOP";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case EXDEV: return "EXDEV";
    case EBUSY: return "EBUSY";
    case EINVAL: return "EINVAL";
    default: return absl::StrCat("errno ", err);
  }
}

absl::Status ErrnoStatus(int err, absl::string_view what, absl::string_view path) {
  std::string msg = absl::StrCat(what, " '", path, "': ", std::strerror(err), " (", ErrnoName(err), ")");
  switch (err) {
    case ENOENT: return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
    case EROFS: return absl::PermissionDeniedError(msg);
    case EEXIST: return absl::AlreadyExistsError(msg);
    case ENOTDIR:
    case EISDIR:
    case ENOTEMPTY: return absl::FailedPreconditionError(msg);
    default: return absl::InternalError(msg);
  }
}

absl::StatusOr<std::string> ReadFileHead(const std::string& path, int64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ELOOP) {
      return WithCode(absl::FailedPreconditionError(absl::StrCat("'", path, "' is a symlink, not a file")),
                      "symlink_not_allowed");
    }
    return ErrnoStatus(errno, "cannot open", path);
  }
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "cannot stat", path);
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("'", path, "' is not a regular file"));
  }
  std::string out(static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(max_bytes, st.st_size))), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", path);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path, int64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "cannot stat", path);
  if (S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("'", path, "' is a directory, not a file"));
  }
  if (max_bytes >= 0 && st.st_size > max_bytes) {
    return WithCode(absl::FailedPreconditionError(absl::StrCat("'", path, "' is ", st.st_size,
                                                               " bytes, over the limit of ", max_bytes, " bytes")),
                    "too_large");
  }
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (max_bytes >= 0 && static_cast<int64_t>(out.size()) > max_bytes) {
      return WithCode(
          absl::FailedPreconditionError(absl::StrCat("'", path, "' is over the limit of ", max_bytes, " bytes")),
          "too_large");
    }
  }
  return out;
}

absl::StatusOr<int> OpenDirectoryNoFollow(const std::string& dir) {
  if (dir.empty() || dir[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat("'", dir, "' is not an absolute path"));
  }
  int fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", "/");
  size_t start = 1;
  while (start < dir.size()) {
    size_t end = dir.find('/', start);
    if (end == std::string::npos) end = dir.size();
    std::string part = dir.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    int next = ::openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    ::close(fd);
    if (next < 0) {
      if (err == ELOOP || (err == ENOTDIR && part != "..")) {
        return absl::FailedPreconditionError(absl::StrCat(
            "path_changed: '", dir, "' is no longer the directory that was checked ('", part,
            "' is now a symlink or not a directory); nothing was written"));
      }
      return ErrnoStatus(err, "cannot open directory", dir);
    }
    fd = next;
  }
  return fd;
}

absl::Status WriteFileAtomic(const std::string& path, absl::string_view data) {
  return WriteFileAtomicPieces(path, [&](AppendPiece append) { return append(data); });
}

absl::Status WriteFileAtomicPieces(const std::string& path, absl::FunctionRef<absl::Status(AppendPiece)> produce) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not an absolute path"));
  }
  std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  std::string base = path.substr(slash + 1);
  absl::StatusOr<int> dir_fd = OpenDirectoryNoFollow(dir);
  if (!dir_fd.ok()) return dir_fd.status();
  FdCloser dir_closer{*dir_fd};

  mode_t mode = 0666 & ~CurrentUmask();
  struct stat st;
  if (::fstatat(*dir_fd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat("'", path, "' is a directory, not a file"));
    }
    if (S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
  }

  // A temp file beside the target (same filesystem: rename is atomic).
  static thread_local uint64_t counter = 0;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = absl::StrCat(".", base.substr(0, 200), ".clada-tmp-", ::getpid(), "-", ++counter);
    fd = ::openat(*dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return ErrnoStatus(errno, "cannot create a temp file in", dir);
  }
  if (fd < 0) return ErrnoStatus(EEXIST, "cannot create a temp file in", dir);
  absl::Status status;
  {
    FdCloser closer{fd};
    status = produce([&](absl::string_view piece) { return WriteAll(fd, piece, path); });
    if (status.ok() && ::fchmod(fd, mode) != 0) status = ErrnoStatus(errno, "cannot set mode of", path);
    if (status.ok() && ::fsync(fd) != 0) status = ErrnoStatus(errno, "cannot fsync", path);
  }
  if (status.ok() && ::renameat(*dir_fd, tmp.c_str(), *dir_fd, base.c_str()) != 0) {
    status = ErrnoStatus(errno, "cannot rename into place", path);
  }
  if (!status.ok()) {
    ::unlinkat(*dir_fd, tmp.c_str(), 0);
    return status;
  }
  // No fsync of the directory: the rename is atomic without it, and after a
  // power loss the directory shows the old file or the new one, both whole.
  return absl::OkStatus();
}

namespace {

// Creates `dir`, whose parent exists; a directory (or a symlink to one) of
// that name made meanwhile is fine.
absl::Status CreateOneDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0) return absl::OkStatus();
  int err = errno;
  if (err != EEXIST) return ErrnoStatus(err, "cannot create directory", dir);
  struct stat st;
  // Something has the name: fine only if it is (or a symlink leads to) a
  // directory, e.g. one created meanwhile. A dangling symlink is EEXIST too.
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("'", dir, "' exists and is not a directory"));
  }
  int stat_err = errno;
  struct stat lst;
  if (::lstat(dir.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = ::readlink(dir.c_str(), target, sizeof target - 1);
    std::string shown = n >= 0 ? std::string(target, static_cast<size_t>(n)) : std::string("?");
    return absl::FailedPreconditionError(absl::StrCat(
        "'", dir, "' is a symlink to '", shown, "', which ",
        stat_err == ELOOP ? "is a symlink loop" : stat_err == ENOENT ? "does not exist" : std::strerror(stat_err),
        "; no directory was created (remove the link or create its target)"));
  }
  return ErrnoStatus(stat_err, "cannot create directory", dir);
}

}  // namespace

// A loop, not a recursion on the parent: a path from an answer may have
// thousands of components (2,040 in 4 KB), and a frame each overflowed the
// stack.
absl::Status CreateDirectories(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  // Ends of the prefixes of `dir` that do not exist yet, deepest first.
  std::vector<size_t> missing;
  size_t end = dir.size();
  while (true) {
    const std::string prefix = dir.substr(0, end);
    struct stat st;
    if (::stat(prefix.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) break;
      return absl::FailedPreconditionError(absl::StrCat("'", prefix, "' exists and is not a directory"));
    }
    missing.push_back(end);
    const size_t slash = end > 1 ? dir.rfind('/', end - 1) : std::string::npos;
    if (slash == std::string::npos || slash == 0) break;
    end = slash;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    RETURN_IF_ERROR(CreateOneDirectory(dir.substr(0, *it)));
  }
  return absl::OkStatus();
}

absl::Status CreateStateDirectory(const std::string& dir) {
  absl::Status made = CreateDirectories(dir);
  if (!made.ok()) return made;
  static constexpr char kGitignore[] =
      "# clada's run-time state is not part of the project.\n"
      "# config.yaml and allowed-commands.json are, and stay committable.\n"
      "lock\n"
      "*.lock\n"
      "listen-state.json\n"
      "context.json\n"
      ".gitignore\n";
  const std::string path = dir + "/.gitignore";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno == EEXIST ? absl::OkStatus() : ErrnoStatus(errno, "cannot create", path);
  FdCloser closer{fd};
  return WriteAll(fd, absl::string_view(kGitignore, sizeof(kGitignore) - 1), path);
}

}  // namespace clada::core
