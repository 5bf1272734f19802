// Path containment: every path an action names is resolved against the
// working root, canonicalised (`..`, symlinks) and checked against the
// allowed roots and the deny list before anything touches it.
//
// Example:
//   ASSIGN_OR_RETURN(clada::core::PathPolicy policy,
//                    clada::core::MakePathPolicy("/home/me/proj", {}));
//   absl::StatusOr<std::string> p = clada::core::ResolvePath(policy, "src/a.cc");
//   // p == "/home/me/proj/src/a.cc"; "../x" gives a path_escape error.
#ifndef CLADA_PROJ_COMP_CORE_SRC_PATH_POLICY_H_
#define CLADA_PROJ_COMP_CORE_SRC_PATH_POLICY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::core {

struct PathPolicy {
  std::string working_root;                // canonical, absolute
  std::vector<std::string> allowed_roots;  // canonical; includes working_root
  // Canonical files clada itself keeps during this run (under `clada
  // listen`: the listened file and the report beside it; the lock_file
  // setting's file). No action may
  // read, write, move or delete them, nor delete or move a directory
  // holding one.
  std::vector<std::string> protected_files;
};

// True when a path component is `.git`, `.ssh` or `.clada` as a
// case-insensitive file system sees it (`.Git`, `.gıt`, `.git.`, `GIT~1`).
bool IsDeniedName(absl::string_view component);

// The first of `policy.protected_files` at or below `path` (canonical), or
// "" when none is. By spelling, and by identity: `path` a directory that is
// (device and inode) one of a protected file's parents under another name
// (a case-insensitive file system's other case, a bind mount).
std::string ProtectedFileWithin(const PathPolicy& policy, absl::string_view path);

// Builds a policy from a working root and extra allowed roots. Each root is
// canonicalised; a root that does not exist is an InvalidArgument error.
absl::StatusOr<PathPolicy> MakePathPolicy(const std::string& working_root,
                                          const std::vector<std::string>& extra_roots);

// Lexically normalises an absolute path: collapses `//`, `.` and `..`.
std::string NormalizeAbsolutePath(absl::string_view path);

// Resolves `path` (absolute, or relative to the working root) to a canonical
// absolute path. Existing prefixes are resolved through symlinks; the part
// that does not exist yet is appended lexically.
// Errors (message starts with the error type the LLM sees):
//   InvalidArgument "invalid_path: ..." for an empty path or one with NUL;
//   InvalidArgument "path_too_deep: ..." for a canonical path of more than
//   99 components (git cannot track a folder nested 100 deep, and every
//   later commit and undo would fail);
//   PermissionDenied "path_escape: ..." when the result leaves every allowed root;
//   PermissionDenied "path_denied: ..." for `.git` internals, `.ssh`, `.clada`, /etc, /proc, /sys,
//   a planted git repository, a protected file, or a path realpath(3) cannot resolve.
absl::StatusOr<std::string> ResolvePath(const PathPolicy& policy, absl::string_view path);

// True when `path` equals `root` or lies below it (both canonical).
bool IsWithin(absl::string_view path, absl::string_view root);

// `path` relative to the working root when inside it, else `path` itself.
std::string DisplayPath(const PathPolicy& policy, absl::string_view path);

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_PATH_POLICY_H_
