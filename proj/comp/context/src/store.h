// Internal: the on-disk working set, <working root>/.clada/context.json.
//
//   {
//     "version": 1,
//     "entries": ["src", "README.md", "/abs/path/in/an/allowed/root"]
//   }
//
// Entries are kept in the order they were added, relative to the working
// root when inside it. A file that cannot be read back as this shape is
// reported as context_corrupt and left untouched.
#ifndef CLADA_PROJ_COMP_CONTEXT_SRC_STORE_H_
#define CLADA_PROJ_COMP_CONTEXT_SRC_STORE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace clada::context::internal {

// <working_root>/.clada/context.json
std::string ContextFilePath(const std::string& working_root);

// The stored entries; a missing file is an empty set. Duplicates in a
// hand-edited file are dropped (first one kept).
// Errors: FailedPrecondition "context_corrupt: ..." naming the file, what is
// wrong with it and how to fix it; Internal/PermissionDenied "io_error: ..."
// when it cannot be read.
absl::StatusOr<std::vector<std::string>> LoadEntries(
    const std::string& working_root);

// Replaces the stored entries atomically (core::WriteFileAtomic), creating
// .clada/ when needed. Errors: "io_error: ..." with the failing path.
absl::Status SaveEntries(const std::string& working_root,
                         const std::vector<std::string>& entries);

// An exclusive flock(2) on <working_root>/.clada/context.lock, held for one
// load-modify-save so that concurrent clada processes do not lose updates.
// Released when destroyed. Move-only.
class StoreLock {
 public:
  // Creates .clada/ and the lock file when needed and blocks until the lock
  // is held. Errors: "io_error: ..." with the failing path.
  static absl::StatusOr<StoreLock> Acquire(const std::string& working_root);

  StoreLock(StoreLock&& other) noexcept;
  StoreLock& operator=(StoreLock&& other) noexcept;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();

 private:
  explicit StoreLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace clada::context::internal

#endif  // CLADA_PROJ_COMP_CONTEXT_SRC_STORE_H_
