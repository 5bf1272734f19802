// Internal: git's ignore rules (.gitignore, .git/info/exclude,
// core.excludesFile) for the files a directory entry expands to, through
// libgit2's git_ignore_path_is_ignored.
#ifndef CLADA_PROJ_COMP_CONTEXT_SRC_GIT_IGNORE_H_
#define CLADA_PROJ_COMP_CONTEXT_SRC_GIT_IGNORE_H_

#include <memory>
#include <string>

struct git_repository;

namespace clada::context::internal {

struct GitRepositoryDeleter {
  void operator()(git_repository* repo) const;
};
using GitRepositoryPtr = std::unique_ptr<git_repository, GitRepositoryDeleter>;

class IgnoreFilter {
 public:
  // Opens the work tree containing `dir` (a canonical absolute directory),
  // searching upwards as git does. Outside any work tree, or in a bare
  // repository, nothing is ignored.
  static IgnoreFilter ForDirectory(const std::string& dir);

  // True when `path` (canonical absolute, inside the work tree) is ignored,
  // directly or through an ignored parent. False outside a work tree, for
  // the work tree's root, and when libgit2 reports an error.
  bool IsIgnored(const std::string& path) const;

  bool in_work_tree() const { return repo_ != nullptr; }

 private:
  GitRepositoryPtr repo_;
  std::string workdir_;  // canonical, no trailing slash
};

}  // namespace clada::context::internal

#endif  // CLADA_PROJ_COMP_CONTEXT_SRC_GIT_IGNORE_H_
