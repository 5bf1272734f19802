// Internal: what a stored entry stands for right now - a file, a directory
// and the files under it, or nothing.
//
// A directory expands to every regular file below it except:
//   - `.git` and `.clada` directories (git's and clada's own state);
//   - what git ignores, when the directory is in a work tree (IgnoreFilter),
//     unless the directory entry is itself ignored: then it was named on
//     purpose and everything below it counts;
//   - symlinks (they can loop or lead outside the allowed roots; add their
//     targets instead) and other non-regular files (FIFOs, sockets, devices);
//   - paths core::ResolvePath refuses (e.g. `.ssh`).
// An entry naming a file counts even when git ignores it.
#ifndef CLADA_PROJ_COMP_CONTEXT_SRC_EXPAND_H_
#define CLADA_PROJ_COMP_CONTEXT_SRC_EXPAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proj/comp/core/src/path_policy.h"

namespace clada::context::internal {

struct FileInfo {
  std::string path;     // canonical absolute
  std::string display;  // core::DisplayPath: relative to the working root when
                        // inside it
  int64_t size = 0;
};

enum class EntryKind {
  kFile,
  kDirectory,
  kMissing,  // the path does not exist (any more)
  kRefused,  // the path policy refuses it, or it is not a file or directory
};

// "file", "directory", "missing", "refused".
const char* EntryKindName(EntryKind kind);

struct EntryInfo {
  std::string stored;  // as kept in context.json
  std::string path;    // canonical absolute; empty when refused by the policy
  EntryKind kind = EntryKind::kMissing;
  std::string problem;          // why kRefused
  bool ignored_by_git = false;  // a directory entry git itself ignores
  std::vector<FileInfo>
      files;          // the file, or the directory's files in path order
  int64_t bytes = 0;  // sum of files[].size
  std::vector<std::string> warnings;  // e.g. an unreadable subdirectory
};

// Resolves `stored` under `policy` and lists its files. Never fails: what
// goes wrong is in kind/problem/warnings.
EntryInfo InspectEntry(const core::PathPolicy& policy,
                       const std::string& stored);

// True when `path` is clada's state directory <working root>/.clada or inside
// it.
bool IsCladaState(const core::PathPolicy& policy, const std::string& path);

}  // namespace clada::context::internal

#endif  // CLADA_PROJ_COMP_CONTEXT_SRC_EXPAND_H_
