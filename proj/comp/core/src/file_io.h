// Whole-file reads and crash-safe writes.
//
// Every write goes to a temp file in the target's directory, is fsynced and
// renamed over the target, so a crash leaves the old file or the new one,
// never a torn one. Mode bits of an existing target are kept.
//
// Example:
//   RETURN_IF_ERROR(clada::core::WriteFileAtomic("/p/a.txt", "hello\n"));
//   ASSIGN_OR_RETURN(std::string text, clada::core::ReadFileToString("/p/a.txt"));
#ifndef CLADA_PROJ_COMP_CORE_SRC_FILE_IO_H_
#define CLADA_PROJ_COMP_CORE_SRC_FILE_IO_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::core {

// Reads a whole file. `max_bytes` < 0 means no limit.
// Errors: NotFound (missing), FailedPrecondition (a directory, or larger
// than max_bytes: the message gives both sizes), PermissionDenied, Internal.
absl::StatusOr<std::string> ReadFileToString(const std::string& path, int64_t max_bytes = -1);

// Reads at most the first `max_bytes` of a regular file, never following a
// symlink as the last component and never blocking on a FIFO or device.
// For a file whose head says what is needed (a journal of any size).
// Errors: NotFound (missing), FailedPrecondition (not a regular file: a
// directory, a symlink, a FIFO...), PermissionDenied, Internal.
absl::StatusOr<std::string> ReadFileHead(const std::string& path, int64_t max_bytes);

// Replaces `path` with `data` atomically (temp file + fsync + rename). The parent directory must exist. An existing file's
// mode is kept; a new file gets 0666 minus the umask. `path` must be
// absolute and canonical (as ResolvePath returns it): the directories are
// opened one by one without following symlinks, so a directory swapped for
// a symlink after the path was checked is refused, never written through.
// A symlink as the last component is replaced, not followed.
// Errors: NotFound (parent missing), FailedPrecondition ("path_changed: …",
// or the target is a directory), PermissionDenied, Internal.
absl::Status WriteFileAtomic(const std::string& path, absl::string_view data);

// The same, the content written piece by piece: `produce` is called once
// with a function that appends a piece to the temp file, and returns the
// first error of those appends (or its own). For content too large to
// build in memory first (the journal of a batch of 300,000 paths).
using AppendPiece = absl::FunctionRef<absl::Status(absl::string_view piece)>;
absl::Status WriteFileAtomicPieces(const std::string& path, absl::FunctionRef<absl::Status(AppendPiece)> produce);

// Opens an absolute directory path without following any symlink in it.
// Returns an O_DIRECTORY descriptor the caller closes.
// Errors: FailedPrecondition "path_changed: …" when a component is a
// symlink or not a directory; NotFound; PermissionDenied.
absl::StatusOr<int> OpenDirectoryNoFollow(const std::string& dir);

// Creates `dir` and its missing parents (like mkdir -p). Succeeds when
// `dir` is already a directory or a symlink to one.
// Errors: FailedPrecondition when `dir` or a parent exists and is not a
// directory, or is a symlink whose target does not exist ("'d' is a symlink
// to 't', which does not exist; no directory was created ..."); NotFound,
// PermissionDenied, Internal from mkdir(2).
absl::Status CreateDirectories(const std::string& dir);

// Creates clada's state directory (`<working root>/.clada`) with a
// `.gitignore` that keeps run-time state (locks, listener state, the
// working set) out of commits, unless the user already has one there.
// Settings (`config.yaml`) and approved commands stay committable.
absl::Status CreateStateDirectory(const std::string& dir);

// Status for a failed system call: "<what> '<path>': <strerror> (<ENAME>)".
absl::Status ErrnoStatus(int err, absl::string_view what, absl::string_view path);

// Symbolic errno name, e.g. "ENOENT".
std::string ErrnoName(int err);

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_FILE_IO_H_
