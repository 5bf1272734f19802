// The working set: the files and directories the LLM should see, kept in
// <working root>/.clada/context.json so they last across runs of clada.
//
// Two faces over one store:
//   - the actions context_add(path), context_remove(path), context_list(),
//     context_prune() and context_clear(), for the LLM and the orchestrator;
//   - `clada context add|remove|list|prune|clear|show`, for the person at
//     the terminal; `show` prints every file of the set ready to paste into
//     an LLM.
// Every call reads the store afresh and writes changes through at once
// (atomically, under a lock), so a short-lived `clada run`, a long-running
// listener and a terminal command always agree on what the set is.
//
// Example:
//   clada::core::Action add;
//   add.name = "context_add";
//   add.params["path"] = "src";
//   clada::core::ActionOutcome out = clada::context::ExecuteContextAction(add,
//   ctx);
//   // out.data ==
//   {"path":"src","added":true,"type":"directory","files":3,"bytes":812}
//   std::vector<std::string> args = {"show", "--numbered"};
//   int code = clada::context::RunContextCommand(args, ctx, std::cout,
//   std::cerr);
#ifndef CLADA_PROJ_COMP_CONTEXT_SRC_CONTEXT_H_
#define CLADA_PROJ_COMP_CONTEXT_SRC_CONTEXT_H_

#include <ostream>
#include <string>
#include <vector>

#include "proj/comp/core/src/action.h"

namespace clada::context {

// Runs one context action against the store of ctx.paths.working_root.
// Actions and their `data` on success:
//   context_add {path}:    {path, added, type, files, bytes}; adding a path
//                          already in the set is a success with added=false
//                          and a warning saying so.
//   context_remove {path}: {removed: [stored paths]}; removing a directory
//                          also drops the entries below it.
//   context_list {}:       {entries: [{path, exists, type, size, files}],
//                           totals: {entries, files, bytes}}
//   context_prune {}:      {removed: [entries whose path no longer exists]}
//   context_clear {}:      {removed: [every entry]}
// Failures (success=false, error "<action>: <type>: <what to do>"):
//   path_escape / path_denied / invalid_path from core::ResolvePath,
//   not_found (add of a missing path), unsupported_file_type, clada_state
//   (a path inside .clada/), not_in_context (remove of a file that is only
//   included through a directory entry), context_corrupt (the store cannot be
//   read; it is never overwritten), invalid_params, unknown_action, io_error.
// touched_paths stays empty: .clada/ is clada's own state, not project content.
// Never throws.
core::ActionOutcome ExecuteContextAction(const core::Action& action,
                                         const core::ExecContext& ctx);

// The action names ExecuteContextAction handles, in schema order.
const std::vector<std::string>& ContextActionNames();

// `clada context ARGS...` (args exclude "context"):
//   add PATH...  remove PATH...  list  prune  clear  show [--numbered]
// PATHs resolve like action paths: relative to the working root.
// Results go to `out`, errors to `err` (and `show`'s notes to `err`, so `out`
// stays clean to paste). Returns 0 on success, 1 when any operation failed,
// 2 for a usage error. Never throws.
int RunContextCommand(const std::vector<std::string>& args,
                      const core::ExecContext& ctx, std::ostream& out,
                      std::ostream& err);

}  // namespace clada::context

#endif  // CLADA_PROJ_COMP_CONTEXT_SRC_CONTEXT_H_
