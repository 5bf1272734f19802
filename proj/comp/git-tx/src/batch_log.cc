// `clada log`: the recent clada commits on the current branch.
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/internal/commands.h"
#include "proj/comp/git-tx/src/internal/git_handles.h"
#include "proj/comp/git-tx/src/internal/repo.h"

namespace clada::git_tx::internal {

absl::StatusOr<std::vector<BatchLogEntry>> ListRecentBatches(
    const std::string& working_root, int limit) {
  ASSIGN_OR_RETURN(WorkTree wt, OpenRequiredWorkTree(working_root));
  ASSIGN_OR_RETURN(CommitPtr c, HeadCommit(wt.repo.get()));
  std::vector<BatchLogEntry> out;
  while (c != nullptr && static_cast<int>(out.size()) < limit) {
    if (IsCladaCommit(c.get())) {
      out.push_back({OidHex(*git_commit_id(c.get())), IsoCommitTime(c.get()),
                     Subject(c.get()), IsSnapshotCommit(c.get())});
    }
    ASSIGN_OR_RETURN(c, FirstParent(c.get()));
  }
  return out;
}

}  // namespace clada::git_tx::internal
