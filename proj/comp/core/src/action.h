// The types that pass between the action parser, the executors and the
// orchestrator: a validated action, the context it runs in, and its outcome.
//
// Example:
//   clada::core::Action action;
//   action.name = "file_write";
//   action.params["path"] = "src/a.txt";
//   action.params["content"] = "hi";
//   clada::core::ActionOutcome out = clada::fs_ops::ExecuteFileOperation(action, ctx);
//   if (!out.success) std::cerr << out.error;
#ifndef CLADA_PROJ_COMP_CORE_SRC_ACTION_H_
#define CLADA_PROJ_COMP_CORE_SRC_ACTION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/path_policy.h"

namespace clada::core {

using Json = nlohmann::ordered_json;

// Where an action came from in the LLM's answer.
struct BlockMetadata {
  std::string block_id;
  int start_line = 0;
  int end_line = 0;
  // The reason the answer gives for the action (a replacer block's EXPLANATION),
  // shown beside its result and in the AI commit's body; "" when none.
  std::string explanation;
};

// What an edit may do beyond its schema parameters, each named for what it
// does. No schema parameter sets them (so no SHAM, CML, CSL or MCP edit can
// ask for them): a reader whose format promises them sets them on its
// actions, and the executors never learn which format that was.
struct EditOptions {
  // file_replace_text: after an exact miss, the tolerance tiers (line
  // breaks and trailing whitespace, indentation, `...` lines standing for
  // unchanged code), each still requiring one match.
  bool tolerant_match = false;
  // file_replace_text: a path where nothing is resolves to the one regular
  // file of that name under the working root, with a warning naming both.
  bool find_file_by_name = false;
  // file_append: content the file already holds exactly, whole, is not
  // appended again (the creation of a re-sent answer).
  bool append_once = false;
  // file_delete: a path that is a directory is deleted with everything in
  // it (the engine runs it as dir_delete, recursive, deciding on the view
  // the action would see just before it runs).
  bool delete_directories = false;

  bool operator==(const EditOptions& o) const {
    return tolerant_match == o.tolerant_match && find_file_by_name == o.find_file_by_name &&
           append_once == o.append_once && delete_directories == o.delete_directories;
  }
};

// A block that passed validation: `params` holds typed values (string,
// integer, boolean) keyed by the schema's parameter names, in block order.
struct Action {
  std::string name;
  Json params = Json::object();
  BlockMetadata metadata;
  // Notes for the LLM that do not stop the action (e.g. ignored keys).
  std::vector<std::string> warnings;
  // Parameters whose value the answer gave as lines (a SHAM heredoc) rather
  // than as an exact string (a quoted value): their text ends with a newline
  // and an append of such content starts on a line of its own.
  std::vector<std::string> line_params;
  EditOptions edit_options;

  bool IsLineParam(const std::string& name) const {
    for (const std::string& p : line_params) {
      if (p == name) return true;
    }
    return false;
  }
};

// Limits that every executor honours.
struct Limits {
  int64_t max_file_bytes = 10 * 1024 * 1024;    // read and edit actions
  int64_t max_output_bytes = 10 * 1024 * 1024;  // per stream, per action
  int64_t timeout_ms = 30'000;                  // per action
  // When the batch's total timeout runs out (`--total-timeout`); every
  // action, not only exec, stops by then. InfiniteFuture: no total timeout.
  absl::Time deadline = absl::InfiniteFuture();
};

// How `exec` treats code it is asked to run.
enum class ExecPolicy { kAllow, kDeny, kApprove };

// Setting `sandbox`: how `exec` code is contained by the kernel. kAuto: the
// strongest containment the kernel offers; kRequired: exec is refused
// without the full sandbox; kOff: code runs unconfined (the report says so).
enum class SandboxMode { kAuto, kRequired, kOff };

// Code a person approved with `clada approve` for `exec: approve`: it runs
// only in that language. An empty `lang` is an entry from an earlier clada
// that did not record one: it approves nothing.
struct ApprovedCode {
  std::string lang;
  std::string code;
};

// Everything an executor needs besides the action itself.
class AnswerLines;

struct ExecContext {
  PathPolicy paths;  // working root, allowed roots, deny list
  Limits limits;
  ExecPolicy exec_policy = ExecPolicy::kAllow;
  SandboxMode sandbox = SandboxMode::kAuto;
  bool exec_network = false;  // setting exec_network: allow (default deny)
  // Set when exec_policy fell back from the default allow to approve
  // because no sandbox is available (sandbox: auto); the report says so.
  std::string exec_policy_note;
  bool quiet = false;  // no live output on stderr
  // Live output of an action written to stderr in one piece when it ends
  // (output_mode: buffer), not line by line as it comes. Ignored when quiet.
  bool buffer_echo = false;
  // exec: approve: .clada/allowed-commands.json as it was when the run
  // started (exec::LoadApprovedCode), never re-read during the run, so an
  // action that rewrites the file approves nothing. When the file could not
  // be read, `approvals_error` says why and no code runs.
  std::vector<ApprovedCode> approved_code;
  std::string approvals_error;
  // exec: called with each piece of the program's output as it is read
  // ("stdout" or "stderr", the bytes), on the thread that runs the action;
  // `clada mcp` turns it into progress notifications. Optional.
  std::function<void(absl::string_view stream, absl::string_view text)> on_output;
  // exec: when it becomes true while the program runs, the program's
  // process group is stopped as on timeout (SIGTERM, SIGKILL after the
  // grace) and the action fails `cancelled: ...`; `clada mcp` sets it on
  // notifications/cancelled. Null: never. Not owned.
  const std::atomic<bool>* cancel = nullptr;
  // The batch's record of the lines its edits changed in each file
  // (answer_lines.h): fs-ops moves a line-addressed edit's lines by it and
  // adds each edit to it. Null: lines are the file's as it is now. Not owned.
  AnswerLines* answer_lines = nullptr;
};

// What running one action produced. Executors never throw: every failure is
// an outcome with success == false, an error written for the LLM and the
// error's code.
struct ActionOutcome {
  bool success = false;
  std::string error;          // full message, e.g. "file_replace_text: ..."
  // The error's code (core::ErrorCode: not_found, search_not_found,
  // match_count_mismatch, path_escape, exec_timeout, ...): what the engine
  // and the report forms tell errors apart by, never the message's text.
  // "" on success.
  std::string code;
  Json data = Json::object();  // action-specific result
  std::vector<std::string> warnings;
  // Canonical paths the action created, changed or removed (for git-tx to
  // tell the batch's changes from changes made meanwhile by someone else).
  std::vector<std::string> touched_paths;

  static ActionOutcome Ok(Json data = Json::object()) {
    ActionOutcome o;
    o.success = true;
    o.data = std::move(data);
    return o;
  }
  static ActionOutcome Failure(std::string code, std::string error, Json data = Json::object()) {
    ActionOutcome o;
    o.code = std::move(code);
    o.error = std::move(error);
    o.data = std::move(data);
    return o;
  }
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_ACTION_H_
