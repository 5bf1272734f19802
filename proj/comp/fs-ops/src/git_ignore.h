// Which paths git would ignore, by libgit2's own rules (.gitignore files at
// every level, .git/info/exclude, core.excludesFile), for grep, glob and ls.
//
// Example:
//   std::unique_ptr<GitIgnore> ig = GitIgnore::ForDirectory("/p/src");
//   if (ig->IsIgnored("/p/src/build", /*is_dir=*/true)) skip();
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_GIT_IGNORE_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_GIT_IGNORE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

struct git_repository;

namespace clada::fs_ops::internal {

struct GitRepositoryDeleter {
  void operator()(git_repository* repo) const;
};
using GitRepositoryPtr = std::unique_ptr<git_repository, GitRepositoryDeleter>;

// A conservative pre-check that spares most libgit2 calls in a walk: the
// last path component of every ignore rule in effect in a directory (dir-only
// rules apart). A path whose name none of them can match is not ignored
// (given its parent is not); otherwise libgit2 decides. Patterns are matched
// case-insensitively and POSIX classes ("[[:alpha:]]") or a last component
// "**" match everything, so the check errs only towards asking libgit2.
class IgnoreNameFilter {
 public:
  // False only when no rule can ignore an entry called `name`.
  bool MightIgnore(absl::string_view name, bool is_dir) const;

  // This filter plus the rules of the .gitignore file `path` (unreadable:
  // everything might be ignored).
  std::shared_ptr<const IgnoreNameFilter> WithFile(const std::string& path) const;

  // Adds the rules of one ignore file's text.
  void AddRules(absl::string_view text);
  void MatchEverything() { match_all_ = true; }

 private:
  struct Rule {
    std::string last;  // lower-cased last component
    bool dir_only = false;
  };
  std::vector<Rule> rules_;
  bool match_all_ = false;
};

class GitIgnore {
 public:
  // The rules of the repository whose work tree holds `canonical_dir`
  // (found by searching upward). Outside any repository, or in a bare one,
  // the result ignores nothing. Never fails.
  static std::unique_ptr<GitIgnore> ForDirectory(const std::string& canonical_dir);

  // True when git would ignore `canonical_path` (a directory when `is_dir`).
  // Paths outside the work tree are never ignored. Thread-safe (libgit2
  // calls are serialised).
  bool IsIgnored(absl::string_view canonical_path, bool is_dir) const;

  // IsIgnored, skipping the libgit2 call when `filter` (may be null) says
  // no rule can match the path's name.
  bool IsIgnored(absl::string_view canonical_path, bool is_dir, const IgnoreNameFilter* filter) const;

  // The name filter in effect in `canonical_dir`: info/exclude,
  // core.excludesFile and the .gitignore files from the work tree's top down
  // to `canonical_dir`'s parent (a walk adds each directory's own file).
  // Null when no repository applies.
  std::shared_ptr<const IgnoreNameFilter> FilterAbove(const std::string& canonical_dir) const;

  // True when a repository was found (its rules apply).
  bool active() const { return repo_ != nullptr; }
  const std::string& workdir() const { return workdir_; }

 private:
  GitRepositoryPtr repo_;
  mutable std::mutex mu_;                                  // one libgit2 call at a time on repo_
  std::string workdir_;                                    // canonical, without a trailing "/"
  std::shared_ptr<const IgnoreNameFilter> global_filter_;  // info/exclude, core.excludesFile
};

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_GIT_IGNORE_H_
