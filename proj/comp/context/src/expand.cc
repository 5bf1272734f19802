#include "proj/comp/context/src/expand.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "proj/comp/context/src/git_ignore.h"

namespace clada::context::internal {
namespace {

const char* FileTypeName(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file or directory";
}

class DirectoryWalker {
 public:
  DirectoryWalker(const core::PathPolicy& policy, const IgnoreFilter* ignore,
                  EntryInfo* entry)
      : policy_(policy), ignore_(ignore), entry_(entry) {}

  void Walk(const std::string& dir) {
    DIR* handle = ::opendir(dir.c_str());
    if (handle == nullptr) {
      entry_->warnings.push_back(absl::StrCat(
          "cannot read directory '", core::DisplayPath(policy_, dir),
          "': ", std::strerror(errno), "; its files are left out"));
      return;
    }
    std::vector<std::string> names;
    while (const dirent* item = ::readdir(handle)) {
      std::string name = item->d_name;
      if (name == "." || name == ".." || name == ".git" || name == ".clada")
        continue;
      names.push_back(std::move(name));
    }
    ::closedir(handle);
    std::sort(names.begin(), names.end());

    for (const std::string& name : names) {
      std::string child =
          dir == "/" ? absl::StrCat("/", name) : absl::StrCat(dir, "/", name);
      struct stat st;
      if (::lstat(child.c_str(), &st) != 0) continue;  // vanished meanwhile
      if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) continue;
      if (!core::ResolvePath(policy_, child).ok()) continue;
      if (ignore_ != nullptr && ignore_->IsIgnored(child)) continue;
      if (S_ISDIR(st.st_mode)) {
        Walk(child);
      } else {
        entry_->files.push_back({child, core::DisplayPath(policy_, child),
                                 static_cast<int64_t>(st.st_size)});
        entry_->bytes += st.st_size;
      }
    }
  }

 private:
  const core::PathPolicy& policy_;
  const IgnoreFilter* ignore_;
  EntryInfo* entry_;
};

}  // namespace

const char* EntryKindName(EntryKind kind) {
  switch (kind) {
    case EntryKind::kFile:
      return "file";
    case EntryKind::kDirectory:
      return "directory";
    case EntryKind::kMissing:
      return "missing";
    case EntryKind::kRefused:
      return "refused";
  }
  return "missing";
}

bool IsCladaState(const core::PathPolicy& policy, const std::string& path) {
  return core::IsWithin(path, absl::StrCat(policy.working_root, "/.clada"));
}

EntryInfo InspectEntry(const core::PathPolicy& policy,
                       const std::string& stored) {
  EntryInfo entry;
  entry.stored = stored;
  absl::StatusOr<std::string> resolved = core::ResolvePath(policy, stored);
  if (!resolved.ok()) {
    entry.kind = EntryKind::kRefused;
    entry.problem = std::string(resolved.status().message());
    return entry;
  }
  entry.path = *resolved;
  if (IsCladaState(policy, entry.path)) {
    entry.kind = EntryKind::kRefused;
    entry.problem = "clada_state: it is inside .clada/, clada's own state";
    return entry;
  }
  struct stat st;
  if (::stat(entry.path.c_str(), &st) != 0) {
    entry.kind = EntryKind::kMissing;
    return entry;
  }
  if (S_ISREG(st.st_mode)) {
    entry.kind = EntryKind::kFile;
    entry.files.push_back({entry.path, core::DisplayPath(policy, entry.path),
                           static_cast<int64_t>(st.st_size)});
    entry.bytes = st.st_size;
    return entry;
  }
  if (!S_ISDIR(st.st_mode)) {
    entry.kind = EntryKind::kRefused;
    entry.problem =
        absl::StrCat("unsupported_file_type: it is ", FileTypeName(st.st_mode));
    return entry;
  }
  entry.kind = EntryKind::kDirectory;
  IgnoreFilter ignore = IgnoreFilter::ForDirectory(entry.path);
  entry.ignored_by_git = ignore.IsIgnored(entry.path);
  bool filter = ignore.in_work_tree() && !entry.ignored_by_git;
  DirectoryWalker(policy, filter ? &ignore : nullptr, &entry).Walk(entry.path);
  return entry;
}

}  // namespace clada::context::internal
