// The file system as fs-ops sees it: DiskStore for a real run, OverlayStore
// for a dry run (an in-memory view over the disk in which the batch's
// earlier actions have happened, and nothing is ever written).
//
// Every path is canonical and absolute (through core::ResolvePath). Calls
// return 0 or an errno, as the system calls they stand for, so the handlers
// keep one code path and one set of messages for both runs.
//
// Example:
//   OverlayStore dry(DiskStore::Get());
//   ExecuteFileOperation(action, ctx, dry);   // nothing on disk changes
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_FILE_STORE_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_FILE_STORE_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/file_io.h"

namespace clada::fs_ops {

struct DirEntry {
  std::string name;
  bool is_dir = false;
};

class FileStore {
 public:
  virtual ~FileStore() = default;

  // stat(2) (follows a final symlink) and lstat(2): 0 or errno.
  virtual int Stat(const std::string& path, struct stat* st) const = 0;
  virtual int Lstat(const std::string& path, struct stat* st) const = 0;
  // readlink(2): the link's text, or errno (EINVAL: not a link).
  virtual int Readlink(const std::string& path, std::string* target) const = 0;
  // Reads a regular file whole, never blocking on a FIFO or device: the open
  // is non-blocking, and what fstat says is not a regular file is refused
  // (ENXIO... see kNotRegular). `limit` < 0: no limit; past it, EFBIG.
  // On success `st` holds the file's stat.
  virtual int ReadRegular(const std::string& path, int64_t limit, std::string* out, struct stat* st) const = 0;
  // core::WriteFileAtomic; core::CreateDirectories.
  virtual absl::Status WriteAtomic(const std::string& path, absl::string_view data) = 0;
  // The same, the data given piece by piece (core::WriteFileAtomicPieces);
  // a store without its own builds the data and calls WriteAtomic.
  virtual absl::Status WriteAtomicPieces(const std::string& path,
                                         absl::FunctionRef<absl::Status(core::AppendPiece)> produce);
  virtual absl::Status MakeDirs(const std::string& dir) = 0;
  // unlink(2), rmdir(2) (ENOTEMPTY), rename(2): 0 or errno.
  virtual int Unlink(const std::string& path) = 0;
  virtual int Rmdir(const std::string& path) = 0;
  virtual int Rename(const std::string& from, const std::string& to) = 0;
  // chmod(2) of a regular file's permission bits: 0 or errno.
  virtual int Chmod(const std::string& path, mode_t mode) = 0;
  // Entries of a directory (not "." and ".."), or errno.
  virtual int List(const std::string& dir, std::vector<DirEntry>* out) const = 0;
  // Whether this view differs from the disk at or below `path` (searches
  // read the disk directly when it does not).
  virtual bool ChangedAtOrBelow(const std::string& path) const = 0;
  // Whether writes only happen in memory.
  virtual bool dry() const = 0;
};

// An errno meaning "not a regular file" from ReadRegular.
inline constexpr int kNotRegular = -1;

// The real file system. Stateless; one instance serves every thread.
class DiskStore : public FileStore {
 public:
  static DiskStore& Get();
  int Stat(const std::string& path, struct stat* st) const override;
  int Lstat(const std::string& path, struct stat* st) const override;
  int Readlink(const std::string& path, std::string* target) const override;
  int ReadRegular(const std::string& path, int64_t limit, std::string* out, struct stat* st) const override;
  absl::Status WriteAtomic(const std::string& path, absl::string_view data) override;
  absl::Status WriteAtomicPieces(const std::string& path,
                                 absl::FunctionRef<absl::Status(core::AppendPiece)> produce) override;
  absl::Status MakeDirs(const std::string& dir) override;
  int Unlink(const std::string& path) override;
  int Rmdir(const std::string& path) override;
  int Rename(const std::string& from, const std::string& to) override;
  int Chmod(const std::string& path, mode_t mode) override;
  int List(const std::string& dir, std::vector<DirEntry>* out) const override;
  bool ChangedAtOrBelow(const std::string&) const override { return false; }
  bool dry() const override { return false; }
};

// A directory of the real file system held open, for a walk that must not
// follow a symlink swapped in for one of its directories while it runs
// (the MCP tool dir_tree): the top is opened one component at a time with
// O_NOFOLLOW (core::OpenDirectoryNoFollow), each child with openat(2)
// O_NOFOLLOW | O_DIRECTORY from its parent's descriptor, and entries are
// looked at through it (fstatat, readlinkat: never followed). Move-only.
//
// Example:
//   DirHandle top;
//   if (DirHandle::Open("/proj/src", &top) != 0) ...;
//   DirHandle sub;
//   top.OpenChild("lib", &sub);  // ELOOP: "lib" is now a symlink; not followed
class DirHandle {
 public:
  DirHandle() = default;
  ~DirHandle();
  DirHandle(DirHandle&& other) noexcept;
  DirHandle& operator=(DirHandle&& other) noexcept;
  DirHandle(const DirHandle&) = delete;
  DirHandle& operator=(const DirHandle&) = delete;

  // Opens the directory `path` (absolute): 0 or an errno (ELOOP, ENOTDIR: a
  // component is a symlink or not a directory).
  static int Open(const std::string& path, DirHandle* out);
  // Opens its subdirectory `name` (one component): 0 or an errno (ELOOP or
  // ENOTDIR when `name` is a symlink or not a directory).
  int OpenChild(const std::string& name, DirHandle* out) const;
  // Its entries (not "." and ".."): 0 or an errno.
  int List(std::vector<DirEntry>* out) const;
  // lstat(2) and readlink(2) of its entry `name`: 0 or an errno.
  int Lstat(const std::string& name, struct stat* st) const;
  int Readlink(const std::string& name, std::string* target) const;

 private:
  int fd_ = -1;
};

// A dry run's view: reads fall through to `base` except where an earlier
// action of the batch wrote, deleted, moved or created something, which is
// held in memory. Writes never reach `base`.
class OverlayStore : public FileStore {
 public:
  explicit OverlayStore(const FileStore& base) : base_(base) {}
  int Stat(const std::string& path, struct stat* st) const override;
  int Lstat(const std::string& path, struct stat* st) const override;
  int Readlink(const std::string& path, std::string* target) const override;
  int ReadRegular(const std::string& path, int64_t limit, std::string* out, struct stat* st) const override;
  absl::Status WriteAtomic(const std::string& path, absl::string_view data) override;
  absl::Status MakeDirs(const std::string& dir) override;
  int Unlink(const std::string& path) override;
  int Rmdir(const std::string& path) override;
  int Rename(const std::string& from, const std::string& to) override;
  // Changes the bits of a file this view wrote; a file only on disk is
  // left as it is (a dry run shows no mode).
  int Chmod(const std::string& path, mode_t mode) override;
  int List(const std::string& dir, std::vector<DirEntry>* out) const override;
  bool ChangedAtOrBelow(const std::string& path) const override;
  bool dry() const override { return true; }

 private:
  // What the overlay knows about one path.
  struct Node {
    enum Kind { kAbsent, kFile, kDir, kLink } kind = kAbsent;
    std::string content;     // kFile: bytes; kLink: the link's text
    struct stat st = {};     // as Lstat shows it
    bool opaque = false;     // kDir: the disk's entries below are hidden
    std::string source;      // kDir moved here: the disk directory it was
  };
  // The node governing `path`: its own, or what an ancestor implies.
  // Returns nullptr when the disk decides; `disk_path` then names where.
  int Lookup(const std::string& path, const Node** node, std::string* disk_path) const;
  // 0, or the errno a real change in `dir` would meet (EACCES, EROFS).
  int Writable(const std::string& dir) const;
  int LstatNoFollow(const std::string& path, struct stat* st, const Node** node, std::string* disk) const;
  struct stat Synthetic(mode_t type_and_mode, int64_t size);

  const FileStore& base_;
  std::map<std::string, Node> nodes_;
  ino_t next_ino_ = 1;
};

}  // namespace clada::fs_ops

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_FILE_STORE_H_
