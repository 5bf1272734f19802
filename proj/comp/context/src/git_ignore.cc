#include "proj/comp/context/src/git_ignore.h"

#include <limits.h>
#include <stdlib.h>

#include "git2.h"
#include "proj/comp/core/src/path_policy.h"

namespace clada::context::internal {
namespace {

// libgit2 must be initialised once per process before any other call; the
// matching shutdown is left to process exit, since other components may
// still use the library.
void InitLibgit2Once() {
  static const int kInit = git_libgit2_init();
  (void)kInit;
}

}  // namespace

void GitRepositoryDeleter::operator()(git_repository* repo) const {
  git_repository_free(repo);
}

IgnoreFilter IgnoreFilter::ForDirectory(const std::string& dir) {
  InitLibgit2Once();
  IgnoreFilter filter;
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, dir.c_str(), 0, nullptr) != 0)
    return filter;
  GitRepositoryPtr repo(raw);
  const char* workdir = git_repository_workdir(repo.get());
  if (git_repository_is_bare(repo.get()) || workdir == nullptr) return filter;
  char real[PATH_MAX];
  if (::realpath(workdir, real) == nullptr) return filter;
  filter.repo_ = std::move(repo);
  filter.workdir_ = real;
  return filter;
}

bool IgnoreFilter::IsIgnored(const std::string& path) const {
  if (repo_ == nullptr || path == workdir_ || !core::IsWithin(path, workdir_))
    return false;
  std::string relative = path.substr(workdir_ == "/" ? 1 : workdir_.size() + 1);
  int ignored = 0;
  if (git_ignore_path_is_ignored(&ignored, repo_.get(), relative.c_str()) != 0)
    return false;
  return ignored == 1;
}

}  // namespace clada::context::internal
