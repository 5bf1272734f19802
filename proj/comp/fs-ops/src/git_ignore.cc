#include "proj/comp/fs-ops/src/git_ignore.h"

#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/fs-ops/src/glob_pattern.h"

namespace clada::fs_ops::internal {
namespace {

void InitLibgit2Once() {
  static std::once_flag once;
  // Never shut down: other components may use libgit2 for the whole run.
  std::call_once(once, [] { git_libgit2_init(); });
}

// Reads an ignore file into `filter`; a missing file adds nothing, an
// unreadable one makes the filter match everything.
void AddFile(const std::string& path, IgnoreNameFilter* filter) {
  // Only a regular file is read: a FIFO named .gitignore would block.
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return;
  absl::StatusOr<std::string> text = core::ReadFileToString(path, 1 << 20);
  if (text.ok()) {
    filter->AddRules(*text);
  } else if (text.status().code() != absl::StatusCode::kNotFound) {
    filter->MatchEverything();
  }
}

struct ConfigDeleter {
  void operator()(git_config* c) const { git_config_free(c); }
};

// core.excludesFile, or git's default ($XDG_CONFIG_HOME/git/ignore).
std::string ExcludesFile(git_repository* repo) {
  git_config* raw = nullptr;
  if (git_repository_config_snapshot(&raw, repo) == 0) {
    std::unique_ptr<git_config, ConfigDeleter> config(raw);
    git_buf buf = GIT_BUF_INIT;
    if (git_config_get_path(&buf, config.get(), "core.excludesfile") == 0) {
      std::string path(buf.ptr, buf.size);
      git_buf_dispose(&buf);
      return path;
    }
  }
  const char* xdg = getenv("XDG_CONFIG_HOME");
  if (xdg != nullptr && *xdg != '\0') return absl::StrCat(xdg, "/git/ignore");
  const char* home = getenv("HOME");
  return home != nullptr ? absl::StrCat(home, "/.config/git/ignore") : "";
}

}  // namespace

bool IgnoreNameFilter::MightIgnore(absl::string_view name, bool is_dir) const {
  if (match_all_) return true;
  if (rules_.empty()) return false;
  std::string lower = absl::AsciiStrToLower(name);
  for (const Rule& r : rules_) {
    if (r.dir_only && !is_dir) continue;
    if (MatchComponent(r.last, lower)) return true;
  }
  return false;
}

std::shared_ptr<const IgnoreNameFilter> IgnoreNameFilter::WithFile(const std::string& path) const {
  auto next = std::make_shared<IgnoreNameFilter>(*this);
  AddFile(path, next.get());
  return next;
}

void IgnoreNameFilter::AddRules(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Trailing spaces do not count unless escaped.
    while (!line.empty() && line.back() == ' ' && !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
      line.remove_suffix(1);
    }
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '!') continue;  // a negation can only un-ignore
    Rule r;
    if (line.back() == '/') {
      r.dir_only = true;
      line.remove_suffix(1);
    }
    size_t slash = line.rfind('/');
    absl::string_view last = slash == absl::string_view::npos ? line : line.substr(slash + 1);
    if (last.empty() || last == "**" || last.find("[:") != absl::string_view::npos) {
      match_all_ = true;
      return;
    }
    r.last = absl::AsciiStrToLower(last);
    rules_.push_back(std::move(r));
  }
}

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
  auto global = std::make_shared<IgnoreNameFilter>();
  const char* common = git_repository_commondir(repo.get());
  if (common != nullptr) AddFile(absl::StrCat(common, "/info/exclude"), global.get());
  std::string excludes = ExcludesFile(repo.get());
  if (!excludes.empty()) AddFile(excludes, global.get());
  ignore->global_filter_ = std::move(global);
  ignore->repo_ = std::move(repo);
  return ignore;
}

std::shared_ptr<const IgnoreNameFilter> GitIgnore::FilterAbove(const std::string& canonical_dir) const {
  if (repo_ == nullptr) return nullptr;
  std::shared_ptr<const IgnoreNameFilter> filter = global_filter_;
  absl::string_view dir = canonical_dir;
  if (dir.size() <= workdir_.size() || dir.substr(0, workdir_.size()) != workdir_ ||
      (workdir_ != "/" && dir[workdir_.size()] != '/')) {
    return filter;
  }
  // .gitignore files of the work tree's top and of each directory down to
  // dir's parent.
  std::string at = workdir_;
  filter = filter->WithFile(at + "/.gitignore");
  absl::string_view rest = dir.substr(workdir_.size() + 1);
  std::vector<absl::string_view> parts = absl::StrSplit(rest, '/', absl::SkipEmpty());
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    absl::StrAppend(&at, "/", parts[i]);
    filter = filter->WithFile(at + "/.gitignore");
  }
  return filter;
}

bool GitIgnore::IsIgnored(absl::string_view canonical_path, bool is_dir, const IgnoreNameFilter* filter) const {
  if (repo_ == nullptr) return false;
  if (filter != nullptr) {
    size_t slash = canonical_path.rfind('/');
    absl::string_view name = slash == absl::string_view::npos ? canonical_path : canonical_path.substr(slash + 1);
    if (!filter->MightIgnore(name, is_dir)) return false;
  }
  return IsIgnored(canonical_path, is_dir);
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
  std::lock_guard<std::mutex> lock(mu_);
  if (git_ignore_path_is_ignored(&ignored, repo_.get(), path.c_str()) != 0) return false;
  return ignored == 1;
}

}  // namespace clada::fs_ops::internal
