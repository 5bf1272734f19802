// The approval list of `exec: approve`: <root>/.clada/allowed-commands.json.
// Each entry binds a language to a code:
//   {"commands": [{"lang": "bash", "code": "npm test",
//                  "added": "2024-01-20T10:30:00Z"}]}
// A snippet may run when its lang and code equal an entry's exactly. A plain
// string entry (the format of an earlier clada, which did not record the
// language) approves nothing: the code may have been approved for any
// language, since the same `clada approve '<code>'` was printed for all.
//
// Example:
//   ASSIGN_OR_RETURN(std::vector<core::ApprovedCode> ok, LoadAllowedCommands(root));
//   if (!Listed(ok, lang, code)) refuse(ApproveCommandLine(lang, code));
#ifndef CLADA_PROJ_COMP_EXEC_SRC_ALLOWED_COMMANDS_H_
#define CLADA_PROJ_COMP_EXEC_SRC_ALLOWED_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/action.h"

namespace clada::exec::internal {

// "<root>/.clada/allowed-commands.json".
std::string AllowedCommandsPath(absl::string_view root);

// The approvals, in file order; a plain string entry comes back with an
// empty lang. A missing file is an empty list.
// Errors: FailedPrecondition when the file is not a JSON object, "commands"
// is not an array, an entry is neither a string nor an object with string
// "lang" and "code", or "added" is not an object (the message names the
// file); the errors of core::ReadFileToString otherwise.
absl::StatusOr<std::vector<core::ApprovedCode>> LoadAllowedCommands(absl::string_view root);

// Appends {"lang", "code", "added": now (UTC, seconds)} to "commands",
// creating .clada/ and the file when missing and keeping every other entry
// and key. Returns false, without writing, when `code` is already approved
// for `lang` (a plain string entry does not count).
// The file is replaced atomically. Two approvals racing may lose one.
// Errors: as LoadAllowedCommands, plus those of core::CreateStateDirectory
// and core::WriteFileAtomic.
absl::StatusOr<bool> AddAllowedCommand(absl::string_view root, const std::string& lang, const std::string& code,
                                       absl::Time now);

// `s` in single quotes for a POSIX shell; each ' becomes '\''.
std::string ShellQuote(absl::string_view s);

// The command that approves `code` for `lang`:
// "clada approve --lang <lang> '<code>'", with "--" before a code that
// starts with '-'.
std::string ApproveCommandLine(absl::string_view lang, absl::string_view code);

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_ALLOWED_COMMANDS_H_
