// fs-ops: runs every file, directory and search action of an LLM's answer
// (file_write, file_replace_text, grep, ...) exactly and safely.
//
// Exact: edits match old_text byte for byte (a line break matches either
// style); a miss changes nothing and explains where the text nearly is.
// Faithful: CRLF, mixed endings, a missing final newline, BOMs and tabs
// survive every edit. Safe: every path goes through core::ResolvePath, every
// write through core::WriteFileAtomic, searches never follow symlinks.
//
// Example:
//   clada::core::ExecContext ctx;
//   ctx.paths = *clada::core::MakePathPolicy("/home/me/proj", {});
//   clada::core::Action action;
//   action.name = "file_replace_text";
//   action.params = {{"path", "src/a.cc"}, {"old_text", "int x = 1;"}, {"new_text", "int x = 2;"}};
//   clada::core::ActionOutcome out = clada::fs_ops::ExecuteFileOperation(action, ctx);
//   if (!out.success) std::cerr << out.error;  // "file_replace_text: old_text was not found ..."
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_FS_OPS_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_FS_OPS_H_

#include <string>
#include <vector>

#include "proj/comp/core/src/action.h"
#include "proj/comp/fs-ops/src/file_store.h"

namespace clada::fs_ops {

// Runs `action` (one of FsOpsActionNames()) under `ctx` (path policy,
// limits). Never throws. On success, `data` holds the action's result
// (paths in it are relative to the working root) and `touched_paths` the
// canonical paths a write action created, changed or removed. On failure,
// `error` is one message for the LLM, "<action>: <what went wrong and how to
// fix it>", and nothing was changed (files_replace_all_text: the files that
// failed were not changed; the others were, and the error names them).
core::ActionOutcome ExecuteFileOperation(const core::Action& action, const core::ExecContext& ctx);

// The same over `store`: DiskStore for a real run, an OverlayStore for a
// dry run (every check of a real run, over a view in which the batch's
// earlier actions have happened; nothing is written). One store serves a
// whole batch, in order.
core::ActionOutcome ExecuteFileOperation(const core::Action& action, const core::ExecContext& ctx,
                                         FileStore& store);

// Every action ExecuteFileOperation implements, in schema order.
const std::vector<std::string>& FsOpsActionNames();

}  // namespace clada::fs_ops

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_FS_OPS_H_
