// The read-only list of `exec: approve`: a bash or sh snippet that is one
// simple command of `cat head tail grep find ls pwd tree wc diff file stat
// realpath xxd` or `git status|diff|log|show|branch|ls-files`, with no shell
// metacharacters, no option that writes, deletes, runs a program or follows
// symbolic links out of a tree, and every other word inside the allowed
// roots, runs without an approval.
//
// The words are read as bash reads a simple command: unquoted words split at
// spaces and tabs, '…' literal, "…" literal when it holds no `$`, backquote,
// backslash or `!`. Outside quotes, any of `; & | < > $ ` \ ( ) { } * ? [ ] ! ~ #`
// and every control character refuse the command, so nothing expands into
// another word or another command.
//
// Every word that is not an option is checked as a path (relative to the
// snippet's cwd) with core::ResolvePath: a pattern such as `grep TODO src`
// passes, `cat /etc/passwd`, `cat ../x` or a symlink out of the root does not.
// An option's value after `=` is checked the same way; an option word holding
// `/` is refused.
//
// Example:
//   std::optional<std::string> why = ReadOnlyRefusal("grep -rn TODO src", cwd, ctx.paths);
//   // nullopt: runs without approval.
//   why = ReadOnlyRefusal("find . -delete", cwd, ctx.paths);
//   // "find -delete changes files"
#ifndef CLADA_PROJ_COMP_EXEC_SRC_READ_ONLY_H_
#define CLADA_PROJ_COMP_EXEC_SRC_READ_ONLY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/path_policy.h"

namespace clada::exec::internal {

// The words of `code` when it is one simple command bash would run without
// any expansion, or nullopt with `why` set.
std::optional<std::vector<std::string>> SimpleCommandWords(absl::string_view code, std::string* why);

// nullopt when `code` is on the read-only list and every path it names is
// inside the roots of `paths` (`cwd`: the canonical directory the snippet
// runs in); otherwise why not, one short phrase for the refusal message.
std::optional<std::string> ReadOnlyRefusal(absl::string_view code, const std::string& cwd,
                                           const core::PathPolicy& paths);

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_READ_ONLY_H_
