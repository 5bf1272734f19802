// The `exec` action: runs a snippet of bash, sh, Python, JavaScript or Ruby
// that an LLM asked for, bounded in time and output, and reports what it
// printed and how it ended. Also the `clada approve` command that adds a
// snippet to the list `exec: approve` accepts.
//
// The interpreter is started directly (posix_spawn), never through a shell of
// ours: `bash -c CODE`, `sh -c CODE`, `python3 -c CODE`, `node -e CODE`,
// `ruby -e CODE` (code over 100 000 bytes, or holding NUL, goes through a
// temporary file instead). It runs in its own session and process group,
// with stdin from /dev/null; nothing it starts outlives the action.
//
// Example:
//   clada::core::Action action;
//   action.name = "exec";
//   action.params["lang"] = "bash";
//   action.params["code"] = "echo hi";
//   action.metadata.block_id = "k7m";
//   clada::core::ActionOutcome out = clada::exec::ExecuteCode(action, ctx);
//   // out.success, out.data["stdout"] == "hi\n", out.data["exit_code"] == 0
#ifndef CLADA_PROJ_COMP_EXEC_SRC_EXEC_H_
#define CLADA_PROJ_COMP_EXEC_SRC_EXEC_H_

#include <ostream>
#include <string>
#include <vector>

#include "proj/comp/core/src/action.h"

namespace clada::exec {

// Runs the `exec` action. Never throws.
//
// Params (typed JSON in action.params):
//   code (string), lang ("bash" | "sh" | "python" | "javascript" | "ruby"),
//   cwd? (path resolved by core::ResolvePath; an existing directory; default
//   the working root), timeout? (whole seconds, 1..86400; default
//   ctx.limits.timeout_ms), return_output? (bool, default true: false leaves
//   stdout and stderr out of data).
// The child's environment is this process's plus PAGER=cat,
// GIT_TERMINAL_PROMPT=0, CLADA_ROOT=<working root>, CLADA_EXEC_ID=<unique
// id>, and CI=1 and PYTHONUNBUFFERED=1 unless already set.
// Unless ctx.quiet, every output line is echoed to this process's stderr as
// "[<block_id>:exec] <line>" while it runs.
//
// Success: exit code 0. data = {stdout, stderr, exit_code, duration_ms,
// timed_out} (+ signal when a signal ended it); each stream is capped at
// ctx.limits.max_output_bytes: past it the first and last halves are kept
// around a line saying how many bytes were left out. Output is made valid
// UTF-8 (bad bytes become U+FFFD). touched_paths stays empty: a snippet may
// change anything.
//
// Failure (success == false; data as above once the snippet has run). The
// error starts with "exec: " and then:
//   "exec_failed: ..."           non-zero exit (code and last stderr lines)
//                                or killed by a signal (its name)
//   "exec_timeout: ..."          ran past its timeout; data.timed_out is true
//   "command_not_allowed: ..."   refused by ctx.exec_policy; under approve
//                                (lang, code) must be in ctx.approved_code;
//                                it gives the `clada approve --lang ...` command
//   "<bin> not found in PATH"    interpreter missing
//   "path_escape: ..." / "path_denied: ..." / "invalid_path: ..."  bad cwd
//   "cwd ..."                    cwd missing or not a directory
//   "invalid_params: ..."        a param missing or of the wrong type
core::ActionOutcome ExecuteCode(const core::Action& action, const core::ExecContext& ctx);

// Which containment exec code gets under `mode` (and exec_network) on this
// kernel, and why: `sandboxed` when a kernel sandbox applies, `full` when it
// is the whole sandbox (Landlock and user, mount and network namespaces),
// `text` one line for `clada config`, e.g. "Landlock ABI 7 + user, mount and
// network namespaces + io_uring refused by seccomp (sandbox: auto, the
// strongest this kernel offers)".
struct Containment {
  bool sandboxed = false;
  bool full = false;
  std::string text;
};
Containment DescribeContainment(core::SandboxMode mode, bool network);

// Under `sandbox: auto` on a kernel with no sandbox at all, the default
// `exec: allow` (exec_policy_is_default) becomes `exec: approve`, and
// ctx->exec_policy_note says why (refusals quote it). Nothing otherwise.
void ApplySandboxFallback(core::ExecContext* ctx, bool exec_policy_is_default);

// The action names ExecuteCode handles: {"exec"}.
const std::vector<std::string>& ExecActionNames();

// Reads the approvals of `exec: approve` into ctx->approved_code, from
// <working root>/.clada/allowed-commands.json, once, when a run starts:
// ExecuteCode never reads the file, so nothing a batch does to it approves
// anything before the next run. An entry binds a language to a code; a plain
// string entry (an earlier clada's format) approves nothing. When the file
// cannot be read, ctx->approvals_error says why and every exec is refused.
// Does nothing (clears both) unless ctx->exec_policy is approve. Never throws.
void LoadApprovedCode(core::ExecContext* ctx);

// `clada approve [--lang LANG] [--] <code>`: `args` are the words after
// "approve"; LANG is bash (default), sh, python, javascript or ruby.
// Records {lang, code} with the current UTC time in
// <working root>/.clada/allowed-commands.json (atomic replace) and says so
// on `out`. Returns 0 when recorded or already listed, 1 when the file
// cannot be read or written (message on `err`), 2 for a usage error
// (no code, an empty code, extra words, an unknown or missing LANG).
// "-h" / "--help" prints usage on `out` and returns 0.
int RunApproveCommand(const std::vector<std::string>& args, const core::ExecContext& ctx, std::ostream& out,
                      std::ostream& err);

}  // namespace clada::exec

#endif  // CLADA_PROJ_COMP_EXEC_SRC_EXEC_H_
