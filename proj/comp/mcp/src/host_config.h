// What to paste into an MCP host's configuration to start a stdio server:
// the form each host reads (Claude Desktop, Claude Code, VS Code, Cursor,
// Codex, Gemini CLI, Windsurf, Zed), for one command and its arguments.
//
// Example:
//   absl::StatusOr<std::string> text =
//       mcp::RenderHostConfig("vscode", {"clada", "/usr/bin/clada", {"mcp", "--root", "/src/app"}});
//   // "# VS Code: .vscode/mcp.json ...\n{\n  \"servers\": {...}\n}\n"
#ifndef CLADA_PROJ_COMP_MCP_SRC_HOST_CONFIG_H_
#define CLADA_PROJ_COMP_MCP_SRC_HOST_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace clada::mcp {

struct StdioServer {
  std::string name;                // the server's key in the host's configuration
  std::string command;             // an absolute path: hosts start servers with a minimal PATH
  std::vector<std::string> args;
};

// The hosts RenderHostConfig knows, in the order help lists them.
const std::vector<std::string>& HostNames();

// One or more sections, each a comment line (or lines) starting with "# "
// that says where the text goes, then the text: JSON (every host but
// codex), TOML (codex) or a shell command line (claude-code's
// `claude mcp add`). A JSON or TOML section parses as its host reads it;
// a command line is quoted for a POSIX shell.
// Errors: InvalidArgument for a host not in HostNames() (the message lists
// them), or for a command or argument that is not valid UTF-8 (JSON and
// TOML cannot carry it).
absl::StatusOr<std::string> RenderHostConfig(absl::string_view host, const StdioServer& server);

}  // namespace clada::mcp

#endif  // CLADA_PROJ_COMP_MCP_SRC_HOST_CONFIG_H_
