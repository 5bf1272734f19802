// Ownership and error helpers for libgit2, shared by every git-tx source.
//
// libgit2 hands out caller-owned objects through pointer-to-pointer
// out-parameters (libgit2 docs/conventions.md); each such type gets one
// unique_ptr alias here so no object is freed by hand. Getter results
// (git_commit_tree_id, git_reference_name, ...) are borrowed and never wrapped.
//
// Example:
//   RETURN_IF_ERROR(EnsureLibgit2());
//   git_repository* raw = nullptr;
//   RETURN_IF_ERROR(GitStatus(git_repository_open(&raw, path), "open
//   repository")); RepositoryPtr repo(raw);
#ifndef CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_GIT_HANDLES_H_
#define CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_GIT_HANDLES_H_

#include <git2.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace clada::git_tx::internal {

// Deleter functor calling libgit2's free function for T.
template <typename T, void (*Free)(T*)>
struct GitDeleter {
  void operator()(T* p) const { Free(p); }
};

using RepositoryPtr =
    std::unique_ptr<git_repository,
                    GitDeleter<git_repository, git_repository_free>>;
using IndexPtr =
    std::unique_ptr<git_index, GitDeleter<git_index, git_index_free>>;
using CommitPtr =
    std::unique_ptr<git_commit, GitDeleter<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, GitDeleter<git_tree, git_tree_free>>;
using TreeEntryPtr =
    std::unique_ptr<git_tree_entry,
                    GitDeleter<git_tree_entry, git_tree_entry_free>>;
using ObjectPtr =
    std::unique_ptr<git_object, GitDeleter<git_object, git_object_free>>;
using ReferencePtr =
    std::unique_ptr<git_reference,
                    GitDeleter<git_reference, git_reference_free>>;
using ReferenceIteratorPtr = std::unique_ptr<
    git_reference_iterator,
    GitDeleter<git_reference_iterator, git_reference_iterator_free>>;
using SignaturePtr =
    std::unique_ptr<git_signature,
                    GitDeleter<git_signature, git_signature_free>>;
using StatusListPtr =
    std::unique_ptr<git_status_list,
                    GitDeleter<git_status_list, git_status_list_free>>;
using RevwalkPtr =
    std::unique_ptr<git_revwalk, GitDeleter<git_revwalk, git_revwalk_free>>;
using TreebuilderPtr =
    std::unique_ptr<git_treebuilder,
                    GitDeleter<git_treebuilder, git_treebuilder_free>>;

// Initialises libgit2 once per process (never shut down: the library is
// reference counted and other components may use it too).
// Errors: Internal when libgit2 cannot start (e.g. no TLS/threads support).
absl::Status EnsureLibgit2();

// OK for `code` >= 0; otherwise a Status whose message is
// "<what>: <libgit2 message>". git_error_last() may be NULL in libgit2 1.5,
// in which case the numeric code is named instead. Codes map to:
// GIT_ENOTFOUND -> NotFound, GIT_EEXISTS -> AlreadyExists,
// GIT_ELOCKED -> Unavailable, GIT_EMODIFIED -> Aborted,
// conflict/unmerged/uncommitted/bare/unborn -> FailedPrecondition,
// GIT_EINVALIDSPEC -> InvalidArgument, anything else -> Internal.
absl::Status GitStatus(int code, absl::string_view what);

// Full 40-hex form of an object id.
std::string OidHex(const git_oid& oid);

// First 7 hex digits of an object id, as `git log --oneline` shows.
std::string ShortOid(const git_oid& oid);

}  // namespace clada::git_tx::internal

#endif  // CLADA_PROJ_COMP_GIT_TX_SRC_INTERNAL_GIT_HANDLES_H_
