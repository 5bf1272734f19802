#include "proj/comp/fs-ops/src/file_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/fs-ops/src/text_edit.h"

namespace clada::fs_ops {
namespace {

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

constexpr int kMaxHops = 40;

}  // namespace

// ------------------------------------------------------------------ disk

DiskStore& DiskStore::Get() {
  static DiskStore* store = new DiskStore();
  return *store;
}

int DiskStore::Stat(const std::string& path, struct stat* st) const {
  return ::stat(path.c_str(), st) == 0 ? 0 : errno;
}

int DiskStore::Lstat(const std::string& path, struct stat* st) const {
  return ::lstat(path.c_str(), st) == 0 ? 0 : errno;
}

int DiskStore::Readlink(const std::string& path, std::string* target) const {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n < 0) return errno;
  target->assign(buf, static_cast<size_t>(n));
  return 0;
}

int DiskStore::ReadRegular(const std::string& path, int64_t limit, std::string* out, struct stat* st) const {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; a
  // device could wait for anything. fstat then refuses both.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return errno;
  if (::fstat(fd, st) != 0) {
    int err = errno;
    ::close(fd);
    return err;
  }
  if (!S_ISREG(st->st_mode)) {
    ::close(fd);
    return S_ISDIR(st->st_mode) ? EISDIR : kNotRegular;
  }
  if (limit >= 0 && st->st_size > limit) {
    ::close(fd);
    return EFBIG;
  }
  out->clear();
  // A large buffer takes huge pages (see internal::ReserveLarge).
  internal::ReserveLarge(out, static_cast<size_t>(st->st_size));
  out->resize(static_cast<size_t>(st->st_size));
  size_t got = 0;
  char probe[4096];  // past the fstat size: EOF, or the file grew meanwhile
  while (true) {
    bool full = got == out->size();
    ssize_t n = full ? ::read(fd, probe, sizeof probe) : ::read(fd, out->data() + got, out->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return err;
    }
    if (n == 0) break;
    if (full) out->append(probe, static_cast<size_t>(n));
    got += static_cast<size_t>(n);
    if (limit >= 0 && static_cast<int64_t>(got) > limit) {
      ::close(fd);
      st->st_size = static_cast<off_t>(got);
      return EFBIG;
    }
  }
  ::close(fd);
  out->resize(got);
  st->st_size = static_cast<off_t>(got);
  return 0;
}

absl::Status DiskStore::WriteAtomic(const std::string& path, absl::string_view data) {
  return core::WriteFileAtomic(path, data);
}

absl::Status DiskStore::WriteAtomicPieces(const std::string& path,
                                          absl::FunctionRef<absl::Status(core::AppendPiece)> produce) {
  return core::WriteFileAtomicPieces(path, produce);
}

absl::Status FileStore::WriteAtomicPieces(const std::string& path,
                                          absl::FunctionRef<absl::Status(core::AppendPiece)> produce) {
  std::string data;
  absl::Status s = produce([&](absl::string_view piece) {
    data.append(piece.data(), piece.size());
    return absl::OkStatus();
  });
  return s.ok() ? WriteAtomic(path, data) : s;
}

absl::Status DiskStore::MakeDirs(const std::string& dir) { return core::CreateDirectories(dir); }

int DiskStore::Unlink(const std::string& path) { return ::unlink(path.c_str()) == 0 ? 0 : errno; }

int DiskStore::Rmdir(const std::string& path) { return ::rmdir(path.c_str()) == 0 ? 0 : errno; }

int DiskStore::Rename(const std::string& from, const std::string& to) {
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

int DiskStore::Chmod(const std::string& path, mode_t mode) { return ::chmod(path.c_str(), mode) == 0 ? 0 : errno; }

namespace {

// The entries of the open directory `fd` (closed here, whatever happens),
// without "." and "..", each marked a directory or not without following a
// symlink.
int ListAndClose(int fd, std::vector<DirEntry>* out) {
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    const int err = errno;
    ::close(fd);
    return err;
  }
  out->clear();
  while (struct dirent* e = ::readdir(d)) {
    absl::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      is_dir = ::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    out->push_back({std::string(name), is_dir});
  }
  ::closedir(d);
  return 0;
}

}  // namespace

int DiskStore::List(const std::string& dir, std::vector<DirEntry>* out) const {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  return ListAndClose(fd, out);
}

// ------------------------------------------------------------- DirHandle

DirHandle::~DirHandle() {
  if (fd_ >= 0) ::close(fd_);
}

DirHandle::DirHandle(DirHandle&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

DirHandle& DirHandle::operator=(DirHandle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

int DirHandle::Open(const std::string& path, DirHandle* out) {
  absl::StatusOr<int> fd = core::OpenDirectoryNoFollow(path);
  if (!fd.ok()) {
    // OpenDirectoryNoFollow says "path_changed" for a symlink or a
    // non-directory on the way.
    return fd.status().code() == absl::StatusCode::kFailedPrecondition ? ELOOP
           : fd.status().code() == absl::StatusCode::kNotFound        ? ENOENT
                                                                        : EACCES;
  }
  *out = DirHandle();
  out->fd_ = *fd;
  return 0;
}

int DirHandle::OpenChild(const std::string& name, DirHandle* out) const {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) return EINVAL;
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno;
  *out = DirHandle();
  out->fd_ = fd;
  return 0;
}

int DirHandle::List(std::vector<DirEntry>* out) const {
  // A new open file description of the same directory: fdopendir takes it
  // and reads from its start, whatever was read before.
  const int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  return ListAndClose(fd, out);
}

int DirHandle::Lstat(const std::string& name, struct stat* st) const {
  return ::fstatat(fd_, name.c_str(), st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
}

int DirHandle::Readlink(const std::string& name, std::string* target) const {
  char buf[PATH_MAX];
  const ssize_t n = ::readlinkat(fd_, name.c_str(), buf, sizeof buf);
  if (n < 0) return errno;
  target->assign(buf, static_cast<size_t>(n));
  return 0;
}

// --------------------------------------------------------------- overlay

struct stat OverlayStore::Synthetic(mode_t type_and_mode, int64_t size) {
  struct stat st = {};
  st.st_mode = type_and_mode;
  st.st_size = static_cast<off_t>(size);
  st.st_nlink = 1;
  st.st_dev = 0;  // no disk file has device 0, so never "the same file"
  st.st_ino = next_ino_++;
  return st;
}

int OverlayStore::Lookup(const std::string& path, const Node** node, std::string* disk_path) const {
  *node = nullptr;
  auto it = nodes_.find(path);
  if (it != nodes_.end()) {
    *node = &it->second;
    return 0;
  }
  // The nearest ancestor the overlay knows decides.
  std::string at = path;
  while (at != "/") {
    std::string parent = ParentOf(at);
    auto p = nodes_.find(parent);
    if (p != nodes_.end()) {
      const Node& n = p->second;
      switch (n.kind) {
        case Node::kAbsent:
          return ENOENT;
        case Node::kFile:
        case Node::kLink:
          return ENOTDIR;
        case Node::kDir:
          if (!n.source.empty()) {
            *disk_path = parent == "/" ? n.source + path : absl::StrCat(n.source, path.substr(parent.size()));
            return 0;
          }
          if (n.opaque) return ENOENT;
          *disk_path = path;
          return 0;
      }
    }
    at = parent;
  }
  *disk_path = path;
  return 0;
}

int OverlayStore::LstatNoFollow(const std::string& path, struct stat* st, const Node** node,
                                std::string* disk) const {
  int err = Lookup(path, node, disk);
  if (err != 0) return err;
  if (*node == nullptr) return base_.Lstat(*disk, st);
  const Node& n = **node;
  if (n.kind == Node::kAbsent) return ENOENT;
  if (n.kind == Node::kDir && !n.source.empty()) {
    int e = base_.Lstat(n.source, st);
    if (e != 0) return e;
    return 0;
  }
  if (n.kind == Node::kFile && !n.source.empty()) {
    struct stat src;
    int e = base_.Lstat(n.source, &src);
    if (e != 0) return e;
    *st = n.st;
    st->st_size = src.st_size;
    return 0;
  }
  *st = n.st;
  return 0;
}

int OverlayStore::Lstat(const std::string& path, struct stat* st) const {
  const Node* node = nullptr;
  std::string disk;
  return LstatNoFollow(path, st, &node, &disk);
}

int OverlayStore::Readlink(const std::string& path, std::string* target) const {
  const Node* node = nullptr;
  std::string disk;
  int err = Lookup(path, &node, &disk);
  if (err != 0) return err;
  if (node == nullptr) return base_.Readlink(disk, target);
  if (node->kind == Node::kAbsent) return ENOENT;
  if (node->kind != Node::kLink) return EINVAL;
  *target = node->content;
  return 0;
}

int OverlayStore::Stat(const std::string& path, struct stat* st) const {
  std::string at = path;
  for (int hop = 0; hop <= kMaxHops; ++hop) {
    int err = Lstat(at, st);
    if (err != 0 || !S_ISLNK(st->st_mode)) return err;
    std::string target;
    err = Readlink(at, &target);
    if (err != 0) return err;
    at = core::NormalizeAbsolutePath(!target.empty() && target[0] == '/' ? target
                                                                         : absl::StrCat(ParentOf(at), "/", target));
  }
  return ELOOP;
}

int OverlayStore::ReadRegular(const std::string& path, int64_t limit, std::string* out, struct stat* st) const {
  // Follow links to the file itself.
  std::string at = path;
  for (int hop = 0;; ++hop) {
    if (hop > kMaxHops) return ELOOP;
    const Node* node = nullptr;
    std::string disk;
    int err = Lookup(at, &node, &disk);
    if (err != 0) return err;
    if (node == nullptr) {
      struct stat lst;
      err = base_.Lstat(disk, &lst);
      if (err != 0) return err;
      if (!S_ISLNK(lst.st_mode)) return base_.ReadRegular(disk, limit, out, st);
    } else if (node->kind == Node::kAbsent) {
      return ENOENT;
    } else if (node->kind == Node::kDir) {
      return EISDIR;
    } else if (node->kind == Node::kFile) {
      if (!node->source.empty()) {
        err = base_.ReadRegular(node->source, limit, out, st);
        if (err == 0) {
          struct stat shown = node->st;
          shown.st_size = st->st_size;
          *st = shown;
        }
        return err;
      }
      *st = node->st;
      if (limit >= 0 && static_cast<int64_t>(node->content.size()) > limit) return EFBIG;
      *out = node->content;
      return 0;
    }
    std::string target;
    err = Readlink(at, &target);
    if (err != 0) return err;
    at = core::NormalizeAbsolutePath(!target.empty() && target[0] == '/' ? target
                                                                         : absl::StrCat(ParentOf(at), "/", target));
  }
}

int OverlayStore::Writable(const std::string& dir) const {
  const Node* node = nullptr;
  std::string disk;
  if (Lookup(dir, &node, &disk) != 0) return 0;
  if (node != nullptr && node->source.empty()) return 0;  // made in memory
  if (node != nullptr) disk = node->source;
  return ::access(disk.c_str(), W_OK | X_OK) == 0 ? 0 : errno;
}

absl::Status OverlayStore::WriteAtomic(const std::string& path, absl::string_view data) {
  struct stat pst;
  int err = Stat(ParentOf(path), &pst);
  if (err != 0) return core::ErrnoStatus(err, "cannot open directory", ParentOf(path));
  if (!S_ISDIR(pst.st_mode)) return core::ErrnoStatus(ENOTDIR, "cannot open directory", ParentOf(path));
  if (int w = Writable(ParentOf(path)); w != 0) return core::ErrnoStatus(w, "cannot create a file in", ParentOf(path));
  struct stat st;
  mode_t mode = 0644;
  if (Lstat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat("'", path, "' is a directory"));
    }
    if (S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
  }
  Node n;
  n.kind = Node::kFile;
  n.content = std::string(data);
  n.st = Synthetic(S_IFREG | mode, static_cast<int64_t>(data.size()));
  nodes_[path] = std::move(n);
  return absl::OkStatus();
}

int OverlayStore::Chmod(const std::string& path, mode_t mode) {
  auto it = nodes_.find(path);
  if (it != nodes_.end() && it->second.kind == Node::kFile) {
    it->second.st.st_mode = (it->second.st.st_mode & ~static_cast<mode_t>(07777)) | (mode & 07777);
  }
  return 0;
}

// As core::CreateDirectories, with the same messages.
absl::Status OverlayStore::MakeDirs(const std::string& dir) {
  if (dir.empty() || dir == "/") return absl::OkStatus();
  struct stat st;
  int stat_err = Stat(dir, &st);
  if (stat_err == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("'", dir, "' exists and is not a directory"));
  }
  absl::Status parent = MakeDirs(ParentOf(dir));
  if (!parent.ok()) return parent;
  struct stat lst;
  if (Lstat(dir, &lst) == 0) {  // a dangling symlink, or a loop
    if (S_ISLNK(lst.st_mode)) {
      std::string shown;
      if (Readlink(dir, &shown) != 0) shown = "?";
      return absl::FailedPreconditionError(absl::StrCat(
          "'", dir, "' is a symlink to '", shown, "', which ",
          stat_err == ELOOP ? "is a symlink loop" : stat_err == ENOENT ? "does not exist" : std::strerror(stat_err),
          "; no directory was created (remove the link or create its target)"));
    }
    return core::ErrnoStatus(stat_err, "cannot create directory", dir);
  }
  if (int w = Writable(ParentOf(dir)); w != 0) return core::ErrnoStatus(w, "cannot create directory", dir);
  Node n;
  n.kind = Node::kDir;
  n.opaque = true;  // a new directory: nothing of the disk's below it
  n.st = Synthetic(S_IFDIR | 0755, 0);
  nodes_[dir] = std::move(n);
  return absl::OkStatus();
}

int OverlayStore::Unlink(const std::string& path) {
  struct stat st;
  int err = Lstat(path, &st);
  if (err != 0) return err;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (int w = Writable(ParentOf(path)); w != 0) return w;
  Node gone;
  nodes_[path] = gone;
  return 0;
}

int OverlayStore::Rmdir(const std::string& path) {
  struct stat st;
  int err = Lstat(path, &st);
  if (err != 0) return err;
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  std::vector<DirEntry> entries;
  err = List(path, &entries);
  if (err != 0) return err;
  if (!entries.empty()) return ENOTEMPTY;
  if (int w = Writable(ParentOf(path)); w != 0) return w;
  nodes_.erase(nodes_.lower_bound(path + "/"), nodes_.lower_bound(path + "0"));  // "0" sorts right after "/"
  nodes_[path] = Node();
  return 0;
}

int OverlayStore::Rename(const std::string& from, const std::string& to) {
  struct stat st;
  const Node* node = nullptr;
  std::string disk;
  int err = LstatNoFollow(from, &st, &node, &disk);
  if (err != 0) return err;
  struct stat dst;
  if (Lstat(to, &dst) == 0 && S_ISDIR(dst.st_mode) != S_ISDIR(st.st_mode)) {
    return S_ISDIR(dst.st_mode) ? EISDIR : ENOTDIR;
  }
  struct stat to_parent;
  if (int e = Stat(ParentOf(to), &to_parent); e != 0) return e;
  if (int w = Writable(ParentOf(from)); w != 0) return w;
  if (int w = Writable(ParentOf(to)); w != 0) return w;
  Node moved;
  if (node != nullptr) {
    moved = *node;
  } else if (S_ISDIR(st.st_mode)) {
    moved.kind = Node::kDir;
    moved.source = disk;
    moved.st = st;
  } else if (S_ISLNK(st.st_mode)) {
    moved.kind = Node::kLink;
    err = base_.Readlink(disk, &moved.content);
    if (err != 0) return err;
    moved.st = st;
  } else {
    moved.kind = Node::kFile;
    moved.source = disk;  // read when asked for
    moved.st = st;
  }
  // The overlay's entries below `from` move along; those below `to` go.
  std::string from_prefix = from + "/";
  std::string to_prefix = to + "/";
  nodes_.erase(nodes_.lower_bound(to_prefix), nodes_.lower_bound(to + "0"));
  std::vector<std::pair<std::string, Node>> below;
  for (auto it = nodes_.lower_bound(from_prefix); it != nodes_.end() && absl::StartsWith(it->first, from_prefix);) {
    below.emplace_back(to_prefix + it->first.substr(from_prefix.size()), std::move(it->second));
    it = nodes_.erase(it);
  }
  nodes_[from] = Node();
  nodes_[to] = std::move(moved);
  for (auto& [path, n] : below) nodes_[path] = std::move(n);
  return 0;
}

int OverlayStore::List(const std::string& dir, std::vector<DirEntry>* out) const {
  const Node* node = nullptr;
  std::string disk;
  int err = Lookup(dir, &node, &disk);
  if (err != 0) return err;
  out->clear();
  if (node != nullptr && node->kind != Node::kDir) return node->kind == Node::kAbsent ? ENOENT : ENOTDIR;
  if (node != nullptr && !node->source.empty()) disk = node->source;
  bool from_disk = node == nullptr || !node->source.empty() || !node->opaque;
  std::map<std::string, bool> names;  // name -> is_dir
  if (from_disk) {
    std::vector<DirEntry> on_disk;
    err = base_.List(disk, &on_disk);
    if (err != 0 && node == nullptr) return err;
    for (DirEntry& e : on_disk) names[e.name] = e.is_dir;
  }
  std::string prefix = dir == "/" ? "/" : dir + "/";
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && absl::StartsWith(it->first, prefix); ++it) {
    absl::string_view rest = absl::string_view(it->first).substr(prefix.size());
    if (rest.empty() || rest.find('/') != absl::string_view::npos) continue;
    if (it->second.kind == Node::kAbsent) {
      names.erase(std::string(rest));
    } else {
      names[std::string(rest)] = it->second.kind == Node::kDir;
    }
  }
  for (auto& [name, is_dir] : names) out->push_back({name, is_dir});
  return 0;
}

bool OverlayStore::ChangedAtOrBelow(const std::string& path) const {
  if (nodes_.count(path) > 0) return true;
  std::string prefix = path == "/" ? "/" : path + "/";
  auto it = nodes_.lower_bound(prefix);
  if (it != nodes_.end() && absl::StartsWith(it->first, prefix)) return true;
  for (std::string at = path; at != "/";) {
    at = ParentOf(at);
    if (nodes_.count(at) > 0) return true;
  }
  return false;
}

}  // namespace clada::fs_ops
