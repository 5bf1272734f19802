// Which paths git would ignore, by libgit2's own rules (.gitignore files at
// every level, .git/info/exclude, core.excludesFile), for grep, glob and ls.
//
// Example:
//   std::unique_ptr<GitIgnore> ig = GitIgnore::ForDirectory("/p/src");
//   if (ig->IsIgnored("/p/src/build", /*is_dir=*/true)) skip();
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_GIT_IGNORE_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_GIT_IGNORE_H_

#include <memory>
#include <string>

#include "absl/strings/string_view.h"

struct git_repository;

namespace clada::fs_ops::internal {

struct GitRepositoryDeleter {
  void operator()(git_repository* repo) const;
};
using GitRepositoryPtr = std::unique_ptr<git_repository, GitRepositoryDeleter>;

class GitIgnore {
 public:
  // The rules of the repository whose work tree holds `canonical_dir`
  // (found by searching upward). Outside any repository, or in a bare one,
  // the result ignores nothing. Never fails.
  static std::unique_ptr<GitIgnore> ForDirectory(const std::string& canonical_dir);

  // True when git would ignore `canonical_path` (a directory when `is_dir`).
  // Paths outside the work tree are never ignored.
  bool IsIgnored(absl::string_view canonical_path, bool is_dir) const;

  // True when a repository was found (its rules apply).
  bool active() const { return repo_ != nullptr; }
  const std::string& workdir() const { return workdir_; }

 private:
  GitRepositoryPtr repo_;
  std::string workdir_;  // canonical, without a trailing "/"
};

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_GIT_IGNORE_H_
