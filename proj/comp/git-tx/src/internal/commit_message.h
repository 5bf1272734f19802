// The `AI: <summary>` commit message written for a batch.
//
// Example:
//   BuildBatchMessage(records, {"notes.txt"}, "/home/me/proj")
//   // "AI: write src/a.ts, edit src/b.ts (2 ok, 1 failed)\n\nActions:\n- ok
//   ..."
#ifndef CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_COMMIT_MESSAGE_H_
#define CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_COMMIT_MESSAGE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "proj/comp/git-tx/src/git_tx.h"

namespace clada::git_tx::internal {

// Paths (repo-relative; "" the whole tree): "is `path` at or under one of
// them" in one lookup per component of `path`, however many they are.
class PathPrefixes {
 public:
  void Add(std::string p) { set_.insert(std::move(p)); }
  bool Covers(absl::string_view path) const;

 private:
  absl::flat_hash_set<std::string> set_;
};

// Repo-relative forms of `r`'s touched paths inside `workdir` ("" for the
// work tree itself), without a trailing '/'.
std::vector<std::string> RelTouched(const ActionRecord& r, absl::string_view workdir);

// The RelTouched paths of every record (`with_exec` false: of the records
// that may not change anything else).
PathPrefixes TouchedPrefixes(const std::vector<ActionRecord>& records, absl::string_view workdir,
                             bool with_exec = true);

// Short verb for an action name: file_write -> write, file_replace_text ->
// edit, file_delete -> delete, ...; unknown names are returned unchanged.
std::string ActionVerb(absl::string_view action);

// `target` relative to `workdir` when it lies inside it, else unchanged.
std::string DisplayTarget(absl::string_view target, absl::string_view workdir);

// Subject line: "AI: " + the actions that changed a file of `changed`
// (repo-relative paths committed) as "verb target" (deduplicated, at most
// ~60 characters then "and N more"; an exec only when it changed a file no
// other action touched) + "(N ok[, M failed])".
std::string BuildBatchSubject(const std::vector<ActionRecord>& records,
                              absl::string_view workdir,
                              const std::vector<std::string>& changed);

// Full message: subject, a blank line, every record as
// "- ok|failed <action> <target> (block <id>)" (its explanation's lines
// under it, indented two spaces), "Changed files:" with one
// bullet per path of `changed`, then the paths left uncommitted (`foreign`,
// repo-relative) if any. Each list shows its first 1,000 entries and
// counts the others in one line ("- and N more actions (X ok, Y failed)",
// "- and N more files").
std::string BuildBatchMessage(const std::vector<ActionRecord>& records,
                              const std::vector<std::string>& foreign,
                              absl::string_view workdir,
                              const std::vector<std::string>& changed);

// Message of a batch a killed clada left in its journal:
// "AI: interrupted batch: <files>", what it was about to change, what it
// changed.
std::string BuildInterruptedMessage(const std::vector<std::string>& planned,
                                    const std::vector<std::string>& changed,
                                    const std::vector<std::string>& foreign);

}  // namespace clada::git_tx::internal

#endif  // CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_COMMIT_MESSAGE_H_
