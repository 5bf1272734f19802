// The approval list of `exec: approve`: <root>/.clada/allowed-commands.json,
// in the CML seed's format:
//   {"commands": ["npm test"], "added": {"npm test": "2024-01-20T10:30:00Z"}}
// A snippet may run when its code equals one of "commands" exactly.
//
// Example:
//   ASSIGN_OR_RETURN(std::vector<std::string> ok, LoadAllowedCommands(root));
//   if (std::find(ok.begin(), ok.end(), code) == ok.end()) refuse(ApproveCommandLine(code));
#ifndef CLADA_PROJ_COMP_EXEC_SRC_ALLOWED_COMMANDS_H_
#define CLADA_PROJ_COMP_EXEC_SRC_ALLOWED_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace clada::exec::internal {

// "<root>/.clada/allowed-commands.json".
std::string AllowedCommandsPath(absl::string_view root);

// The approved snippets. A missing file is an empty list.
// Errors: FailedPrecondition when the file is not JSON, or "commands" is not
// an array of strings (the message names the file); the errors of
// core::ReadFileToString otherwise.
absl::StatusOr<std::vector<std::string>> LoadAllowedCommands(absl::string_view root);

// Appends `code` to "commands" and records `now` (UTC, seconds) under
// "added", creating .clada/ and the file when missing and keeping any other
// keys. Returns false, without writing, when `code` is already listed.
// The file is replaced atomically. Two approvals racing may lose one.
// Errors: as LoadAllowedCommands, plus those of core::CreateDirectories and
// core::WriteFileAtomic.
absl::StatusOr<bool> AddAllowedCommand(absl::string_view root, const std::string& code, absl::Time now);

// `s` in single quotes for a POSIX shell; each ' becomes '\''.
std::string ShellQuote(absl::string_view s);

// The command that approves `code`: "clada approve '<code>'", with "--"
// before a code that starts with '-'.
std::string ApproveCommandLine(absl::string_view code);

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_ALLOWED_COMMANDS_H_
