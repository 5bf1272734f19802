#include "proj/comp/git-tx/src/internal/git_handles.h"

#include "absl/strings/str_cat.h"

namespace clada::git_tx::internal {

absl::Status EnsureLibgit2() {
  static int init_result = [] { return git_libgit2_init(); }();
  if (init_result < 0) return GitStatus(init_result, "initialise libgit2");
  return absl::OkStatus();
}

absl::Status GitStatus(int code, absl::string_view what) {
  if (code >= 0) return absl::OkStatus();
  const git_error* last = git_error_last();
  std::string detail = (last != nullptr && last->message != nullptr)
                           ? std::string(last->message)
                           : absl::StrCat("libgit2 error ", code);
  std::string message = absl::StrCat(what, ": ", detail);
  switch (code) {
    case GIT_ENOTFOUND:
      return absl::NotFoundError(message);
    case GIT_EEXISTS:
      return absl::AlreadyExistsError(message);
    case GIT_ELOCKED:
      return absl::UnavailableError(message);
    case GIT_EMODIFIED:
      return absl::AbortedError(message);
    case GIT_ECONFLICT:
    case GIT_EMERGECONFLICT:
    case GIT_EUNMERGED:
    case GIT_EUNCOMMITTED:
    case GIT_EBAREREPO:
    case GIT_EUNBORNBRANCH:
      return absl::FailedPreconditionError(message);
    case GIT_EINVALIDSPEC:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

std::string OidHex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof(buf), &oid);
  return buf;
}

std::string ShortOid(const git_oid& oid) { return OidHex(oid).substr(0, 7); }

}  // namespace clada::git_tx::internal
