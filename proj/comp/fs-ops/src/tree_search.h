// Directory listing and tree searches for ls, grep and glob. Walks never
// follow symlinks (a link could lead outside the allowed roots), always skip
// `.git` and `.ssh`, and leave out what git ignores.
//
// Example:
//   std::unique_ptr<GitIgnore> ig = GitIgnore::ForDirectory(root);
//   ASSIGN_OR_RETURN(GrepOutcome g, Grep(root, *GrepQuery::Create("TODO"), nullptr, *ig, SearchLimits{}));
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_TREE_SEARCH_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_TREE_SEARCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proj/comp/fs-ops/src/git_ignore.h"
#include "proj/comp/fs-ops/src/glob_pattern.h"

namespace re2 {
class RE2;
}

namespace clada::fs_ops::internal {

struct SearchLimits {
  int64_t max_file_bytes = 10 * 1024 * 1024;  // grep skips bigger files
  size_t max_matches = 1000;                  // grep matches returned
  size_t max_line_bytes = 500;                // longer lines are cut
  size_t max_glob_matches = 10000;
  int threads = 0;  // grep workers; 0: one per CPU
  // The batch's total timeout: a walk stops at it (outcome `timed_out`).
  absl::Time deadline = absl::InfiniteFuture();
};

struct ListedEntry {
  std::string name;
  std::string type;      // file | directory | symlink | other
  int64_t size = 0;      // bytes; 0 for directories
  std::string modified;  // ISO 8601 UTC, e.g. "2026-01-02T03:04:05Z"
  std::string target;    // symlinks: where the link points
};

struct Listing {
  std::vector<ListedEntry> entries;  // sorted by name
  int64_t ignored = 0;               // entries left out because git ignores them
};

// Lists `dir` (canonical). Entries git ignores are left out (counted in
// `ignored`) unless `dir` itself is ignored. Errors: NotFound,
// FailedPrecondition (not a directory), PermissionDenied.
absl::StatusOr<Listing> ListDirectory(const std::string& dir, const GitIgnore& ignore);

// A compiled grep pattern: RE2, or a plain substring when the pattern has no
// regex syntax.
class GrepQuery {
 public:
  // Errors: InvalidArgument with RE2's message for a bad pattern.
  static absl::StatusOr<std::unique_ptr<GrepQuery>> Create(absl::string_view pattern);
  ~GrepQuery();
  // Appends (line number, line) for each line of `text` that matches.
  // Returns the number of matching lines.
  int64_t SearchText(absl::string_view text, std::vector<std::pair<int64_t, absl::string_view>>* out) const;

 private:
  GrepQuery() = default;
  std::string literal_;
  bool is_literal_ = false;
  std::unique_ptr<re2::RE2> re_;
};

struct GrepMatch {
  std::string path;  // canonical
  int64_t line_number = 0;
  std::string line;  // without its line break, cut to max_line_bytes, valid UTF-8
};

struct GrepOutcome {
  std::vector<GrepMatch> matches;  // by path, then line; at most max_matches
  int64_t total_matches = 0;
  int64_t files_searched = 0;
  int64_t binary_skipped = 0;
  int64_t large_skipped = 0;
  int64_t unreadable = 0;
  int64_t special_skipped = 0;  // FIFOs, sockets, devices: never opened
  bool truncated = false;
  bool timed_out = false;  // stopped at SearchLimits::deadline
};

// Searches `root` (a canonical file, or directory searched recursively).
// `include`, when given, selects files: a name-only pattern ("*.cc") is
// matched against file names, others against paths relative to `root`.
// Binary files (with a NUL byte) and files over max_file_bytes are skipped;
// what is not a regular file (a FIFO, socket or device) is counted in
// special_skipped and never opened, so nothing blocks. The walk stops at
// limits.deadline (timed_out). Errors: NotFound when root is missing.
absl::StatusOr<GrepOutcome> Grep(const std::string& root, const GrepQuery& query, const GlobPattern* include,
                                 const GitIgnore& ignore, const SearchLimits& limits);

struct GlobOutcome {
  std::vector<std::string> paths;  // canonical, sorted; at most max_glob_matches
  int64_t total = 0;
  bool truncated = false;
  int64_t special_skipped = 0;  // FIFOs, sockets, devices left out
  bool timed_out = false;       // stopped at SearchLimits::deadline
};

// Files (and symlinks) below directory `base` whose path relative to it
// matches `pattern`; FIFOs, sockets and devices are left out (counted).
// Stops at limits.deadline (timed_out). Errors: NotFound,
// FailedPrecondition (not a directory).
absl::StatusOr<GlobOutcome> Glob(const std::string& base, const GlobPattern& pattern, const GitIgnore& ignore,
                                 const SearchLimits& limits);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_TREE_SEARCH_H_
