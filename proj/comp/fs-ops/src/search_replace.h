// Aider's matching tolerances for an edit written as a SEARCH/REPLACE block
// (core::Action::search_replace), after an exact miss: the SEARCH's lines
// with a uniform difference in leading indentation (the REPLACE re-indented
// the same way), or its `...` lines standing for unchanged code in the file
// (paired with the REPLACE's `...` lines). Unlike Aider, which edits the
// first place a tier finds, every tier needs exactly one match: two are an
// error naming their lines. A tolerated match says which tier in a warning.
//
// Example:
//   absl::StatusOr<EditResult> r =
//       ReplaceSearchBlock("    a\n    b\n", "a\nb\n", "a\nc\n", "f.py");
//   // r->content == "    a\n    c\n"; r->warnings[0] names the indentation tier
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_SEARCH_REPLACE_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_SEARCH_REPLACE_H_

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proj/comp/fs-ops/src/text_edit.h"

namespace clada::fs_ops::internal {

// ReplaceUnique(content, search, replace, label) first: its result stands
// when the SEARCH is found (once, or several times: an error) or the edit is
// already applied. When it is not found:
//  1. indentation: the SEARCH's lines match consecutive whole lines of the
//     file once the indentation common to SEARCH and REPLACE is taken off
//     and one prefix of blanks (the same for every non-blank line) is put
//     on; blank lines match blank lines. The REPLACE gets the same change.
//  2. `...`: when the SEARCH has lines that are only `...`, the REPLACE must
//     have as many (else FailedPrecondition "do not pair up"); the parts
//     between them must each occur once in the file, in order (a part after
//     a `...` at a line start), and each is replaced by the REPLACE's part
//     in the same place; what the `...` stand for is kept.
// Errors: ReplaceUnique's; FailedPrecondition when a tier matches several
// places (the lines listed) or the `...` parts are out of order; NotFound
// when a `...` part is not in the file (with its miss diagnosis);
// DeadlineExceeded (code `timeout`) when `deadline` (the action's:
// core::Limits::deadline) passes before or while the tiers and the miss
// diagnosis run: the clock is read between them and every 65,536 lines of
// work inside them (`now` reads it: absl::Now, or a test's clock). The exact
// search runs whatever the deadline.
absl::StatusOr<EditResult> ReplaceSearchBlock(absl::string_view content, absl::string_view search,
                                              absl::string_view replace, absl::string_view label,
                                              absl::Time deadline = absl::InfiniteFuture(),
                                              absl::FunctionRef<absl::Time()> now = absl::Now);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_SEARCH_REPLACE_H_
