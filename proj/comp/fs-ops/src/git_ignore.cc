#include "proj/comp/fs-ops/src/git_ignore.h"

#include <git2.h>
#include <limits.h>
#include <stdlib.h>

#include <mutex>

#include "absl/strings/str_cat.h"

namespace clada::fs_ops::internal {
namespace {

void InitLibgit2Once() {
  static std::once_flag once;
  // Never shut down: other components may use libgit2 for the whole run.
  std::call_once(once, [] { git_libgit2_init(); });
}

}  // namespace

void GitRepositoryDeleter::operator()(git_repository* repo) const { git_repository_free(repo); }

std::unique_ptr<GitIgnore> GitIgnore::ForDirectory(const std::string& canonical_dir) {
  InitLibgit2Once();
  auto ignore = std::make_unique<GitIgnore>();
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, canonical_dir.c_str(), 0, nullptr) != 0) return ignore;
  GitRepositoryPtr repo(raw);
  const char* workdir = git_repository_workdir(repo.get());
  if (workdir == nullptr) return ignore;  // bare
  char real[PATH_MAX];
  if (::realpath(workdir, real) == nullptr) return ignore;
  ignore->workdir_ = real;
  if (ignore->workdir_.size() > 1 && ignore->workdir_.back() == '/') ignore->workdir_.pop_back();
  ignore->repo_ = std::move(repo);
  return ignore;
}

bool GitIgnore::IsIgnored(absl::string_view canonical_path, bool is_dir) const {
  if (repo_ == nullptr) return false;
  absl::string_view root = workdir_;
  if (canonical_path.size() <= root.size() || canonical_path.substr(0, root.size()) != root ||
      (root != "/" && canonical_path[root.size()] != '/')) {
    return false;
  }
  absl::string_view rel = canonical_path.substr(root == "/" ? 1 : root.size() + 1);
  std::string path = is_dir ? absl::StrCat(rel, "/") : std::string(rel);
  int ignored = 0;
  if (git_ignore_path_is_ignored(&ignored, repo_.get(), path.c_str()) != 0) return false;
  return ignored == 1;
}

}  // namespace clada::fs_ops::internal
