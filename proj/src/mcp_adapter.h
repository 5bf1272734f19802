// `clada mcp`: clada's actions as MCP tools (proj/comp/mcp). Every action
// the schema gives the LLM is a tool of the same name, its inputSchema
// generated from the schema's parameters and, for actions that return data,
// an outputSchema from its `returns`; a call runs through
// Clada::ExecuteActions, so the path policy, deny list, limits, exec policy,
// run lock and git (one call, one batch) are `clada run`'s. Beside them:
// apply_answer (a whole answer, as `clada run`), and what the reference
// filesystem server has that the schema lacks: dir_tree, file_info,
// allowed_roots, file_read_media.
//
// Example:
//   McpServerOptions options;
//   options.root = "/home/me/proj";
//   options.settings = DefaultSettings();
//   return RunMcpServer(options, STDIN_FILENO, STDOUT_FILENO, std::cerr);
#ifndef CLADA_PROJ_SRC_MCP_ADAPTER_H_
#define CLADA_PROJ_SRC_MCP_ADAPTER_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "proj/comp/core/src/action.h"
#include "proj/comp/mcp/src/server.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/src/settings.h"

namespace clada {

struct McpServerOptions {
  std::string root;  // canonical working root (--root): used when the client offers no roots
  // settings.allow: the extra roots (--allow, the settings file). When it
  // is not empty, a client's roots are kept only inside root or these.
  Settings settings = DefaultSettings();
  bool dry_run = false;  // every call a dry run (--dry-run)
};

// The tools `clada mcp` offers, in schema order, then apply_answer and the
// extra tools.
mcp::ToolRegistry MakeCladaTools(const McpServerOptions& options);

// Serves MCP on `in_fd`/`out_fd` until `in_fd` ends. fd 1 is pointed at
// fd 2 while it serves when `out_fd` is 1, so that nothing but protocol
// reaches the client's stdout. Returns the exit code (0; 2 on a read error).
int RunMcpServer(const McpServerOptions& options, int in_fd, int out_fd, std::ostream& err);

// JSON Schema of an action's parameters: types, enums, defaults,
// descriptions, required; no other property.
core::Json ActionInputSchema(const sham_action_parser::ActionDefinition& def);

// JSON Schema of what an action returns (its `returns`, with `success`
// required and every other property optional), or nullopt when it returns
// nothing but success and error.
std::optional<core::Json> ActionOutputSchema(const sham_action_parser::ActionDefinition& def);

// Checks `arguments` against the action's parameters and gives its params
// (defaults filled, integral numbers as integers). Returns "" on success,
// else every problem, for the LLM ("invalid arguments for file_write: ...").
std::string ArgumentsToParams(const sham_action_parser::ActionDefinition& def, const core::Json& arguments,
                              core::Json* params);

// The roots a call runs with: the client's (canonical; those that do not
// exist dropped; inside root or settings.allow when settings.allow is not
// empty) when it offers any, else root and settings.allow. First: the
// working root. Error: FailedPrecondition naming the roots refused, when a
// client offered roots and none is left.
absl::StatusOr<std::vector<std::string>> EffectiveRoots(const McpServerOptions& options,
                                                        const std::optional<std::vector<std::string>>& client_roots);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_MCP_ADAPTER_H_
