// ExcludeFromCommits: clada's own side files listed in `info/exclude`.
#include <limits.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx {
namespace {

// `/rel` as a gitignore pattern that matches exactly that path: anchored,
// with the characters gitignore treats specially escaped.
std::string ExactPattern(absl::string_view rel) {
  std::string out = "/";
  for (char c : rel) {
    if (c == '*' || c == '?' || c == '[' || c == '\\' || c == '!' || c == '#' || c == ' ') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExcludeFromCommits(const std::string& working_root,
                                                            const std::vector<std::string>& paths,
                                                            const GitOptions& options) {
  std::vector<std::string> listed;
  if (options.mode == GitOptions::Mode::kOff) return listed;
  ASSIGN_OR_RETURN(std::string root, internal::CanonicalRoot(working_root));
  ASSIGN_OR_RETURN(std::optional<internal::WorkTree> wt, internal::OpenWorkTree(root));
  if (!wt) return listed;
  git_repository* repo = wt->repo.get();
  git_index* raw_index = nullptr;
  RETURN_IF_ERROR(internal::GitStatus(git_repository_index(&raw_index, repo), "read the index"));
  internal::IndexPtr index(raw_index);
  std::vector<std::string> patterns;
  for (const std::string& given : paths) {
    // The file may not exist yet: canonicalise its directory.
    size_t slash = given.rfind('/');
    if (slash == std::string::npos) continue;
    char real[PATH_MAX];
    if (::realpath(slash == 0 ? "/" : given.substr(0, slash).c_str(), real) == nullptr) continue;
    std::string path = absl::StrCat(real, given.substr(slash));
    if (!absl::StartsWith(path, wt->workdir + "/")) continue;
    std::string rel = path.substr(wt->workdir.size() + 1);
    if (git_index_get_bypath(index.get(), rel.c_str(), 0) != nullptr) continue;  // tracked
    int ignored = 0;
    RETURN_IF_ERROR(internal::GitStatus(git_ignore_path_is_ignored(&ignored, repo, rel.c_str()),
                                        absl::StrCat("check whether '", rel, "' is ignored")));
    if (ignored) continue;
    listed.push_back(rel);
    patterns.push_back(ExactPattern(rel));
  }
  if (patterns.empty()) return listed;
  // info/exclude lives in the common directory (shared by linked work trees).
  std::string info = git_repository_commondir(repo);
  while (!info.empty() && info.back() == '/') info.pop_back();
  info += "/info";
  RETURN_IF_ERROR(core::CreateDirectories(info));
  const std::string exclude = info + "/exclude";
  std::string text;
  absl::StatusOr<std::string> old = core::ReadFileToString(exclude);
  if (old.ok()) {
    text = *std::move(old);
  } else if (!absl::IsNotFound(old.status())) {
    return old.status();
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  absl::StrAppend(&text, "# clada: written by clada itself, never part of a batch\n");
  for (const std::string& p : patterns) absl::StrAppend(&text, p, "\n");
  RETURN_IF_ERROR(core::WriteFileAtomic(exclude, text));
  return listed;
}

}  // namespace clada::git_tx
