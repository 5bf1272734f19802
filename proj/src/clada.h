// The orchestrator: turns an LLM's answer into executed actions and an
// ExecutionResult. Parses and validates every block, runs every valid action
// in document order (a failure never stops the others, nothing is rolled
// back), and wraps the batch in git commits when the root is a repository.
//
// Example:
//   CladaOptions options;
//   options.settings = DefaultSettings();
//   options.working_root = "/home/me/proj";
//   ExecutionResult result = Clada(options).Execute(answer_text);
//   std::cout << FormatReport(result, options.settings.report_budget_bytes);
#ifndef CLADA_PROJ_SRC_CLADA_H_
#define CLADA_PROJ_SRC_CLADA_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <atomic>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/src/settings.h"

namespace clada {

// One executed (or, with dry_run, planned) action.
struct ActionResult {
  int seq = 0;  // 1-based execution order
  std::string block_id;
  std::string action;
  core::Json params = core::Json::object();
  bool success = false;
  std::string error;
  // The error's code (core::ActionOutcome::code: not_found,
  // search_not_found, path_escape, exec_timeout, not_run, ...); "" on
  // success. --json shows it as `code`.
  std::string code;
  core::Json data = core::Json::object();
  std::vector<std::string> warnings;
  // The reason the answer gives for the action (a replacer block's
  // EXPLANATION): shown beside its result and in the AI commit's body.
  std::string explanation;
  int start_line = 0;
  int end_line = 0;
  // Which reader the action came from ("sham", "cml", "csl", ...), and its
  // group: each SHAM block and each standalone CML task or CSL operation is a
  // group of its own ("independent"); a CML <tasks> block is one "fail_fast"
  // group, in which the first failure stops the rest ("not run: task N
  // failed"); a CSL TASKS block is one "atomic_validation" group: none of it
  // runs when one operation is invalid, and the first failure stops the
  // rest ("not run: task-N.M failed"). Groups are numbered from 0 in
  // document order.
  // CML: the seeds' error type of a failed task (search_not_found,
  // match_count_mismatch, file_not_found, ...; cml_parser::ErrorType maps
  // `code` to it), also the leading word of `error`. Empty otherwise.
  std::string error_type;
  std::string dialect;
  int group = 0;
  std::string group_policy = "independent";
};

struct GitSummary {
  bool active = false;
  std::optional<std::string> snapshot_commit;  // [clada:pre] commit of the user's changes
  std::optional<std::string> ai_commit;        // AI: commit of the batch
  std::vector<std::string> notes;              // e.g. "running without git"
  std::vector<std::string> foreign_changes;    // changed meanwhile, left uncommitted
};

// The actions of a batch of many thousands that a text report cannot show
// (the middle of its results, between a head and a tail that fill the
// report): counted, not kept (ResultKeeper, report.h), so memory holds
// what the report shows, not one ActionResult per action.
struct LeftOutResults {
  size_t after = 0;  // they come after results[after - 1], before results[after]
  int count = 0;
  int succeeded = 0;
  // What their entries would take in the results section, escaped.
  int64_t section_lines = 0;
  int64_t section_bytes = 0;
  // How many of them have an output the report would print, and the block
  // ids of the first ten: the report names them as left out.
  int outputs = 0;
  std::vector<std::string> output_ids;
  // The same for what the seeds' forms print (exec's streams, what a read
  // read).
  int stream_outputs = 0;
  std::vector<std::string> stream_output_ids;

  // What the seeds' report forms (cml_report.h, csl_report.h) need to keep
  // their counts exact. Of the `count - succeeded` that did not succeed,
  // how many were not run (data.not_run: an earlier task of their <tasks>
  // or TASKS block failed); the others failed.
  int not_run = 0;
  // The groups (ActionResult::group) they span: how many, how many of those
  // failed (a left-out result that did not succeed, or a parse error of the
  // group: ResultKeeper::NoteParseErrorGroups), and how many have a parse
  // error. The first and the last of them may also hold kept results (a
  // <tasks> block of 300,000 tasks straddles both cuts): their own share of
  // the left-out is counted apart.
  int groups = 0;
  int failed_groups = 0;
  int groups_with_parse_errors = 0;
  struct GroupShare {
    int group = 0;
    int count = 0;
    int succeeded = 0;
    int not_run = 0;
  };
  GroupShare first_group;
  GroupShare last_group;  // the same group as first_group when groups == 1
  // The start lines of the first and the last of them.
  int first_line = 0;
  int last_line = 0;
  // The readers they came from (ActionResult::dialect), each once.
  std::vector<std::string> dialects;
};

// The refused blocks of an answer of many thousands that a text report
// cannot show (sham_action_parser::ErrorKeeping): counted, not kept.
struct LeftOutSkipped {
  size_t after = 0;  // they come after parse_errors[after - 1], before parse_errors[after]
  int blocks = 0;
  // What their entries would take in the results section, escaped.
  int64_t section_lines = 0;
  int64_t section_bytes = 0;
  // A --json run (CladaOptions::spill_results): their errors, each block's
  // as elements of the document's "parseErrors" array (separated by ",\n"),
  // at `spans` (offset, size) of `file`, in order; printed by
  // WriteExecutionResultJson where they belong.
  std::shared_ptr<std::FILE> file;
  std::vector<std::pair<int64_t, int64_t>> spans;
};

// The results of a --json run (CladaOptions::spill_results), written as
// they finished to an unnamed temporary file instead of being kept: each
// element of the JSON document's "results" array, as
// ExecutionResultToJson(...).dump(2) prints it, the first preceded by
// nothing and the others by ",\n". WriteExecutionResultJson prints them.
struct SpilledResults {
  std::shared_ptr<std::FILE> file;  // closed (and so removed) with the last copy
  int count = 0;
  int succeeded = 0;
};

struct ExecutionResult {
  bool success = false;  // every block valid and every action succeeded
  int total_blocks = 0;
  int executed_actions = 0;
  bool dry_run = false;
  std::vector<ActionResult> results;
  // The actions counted but not kept (only a text report's Execute, with
  // CladaOptions::full_outputs false, leaves any out).
  LeftOutResults left_out;
  // The results written out instead (only a --json run's Execute spills;
  // `results` is then empty).
  SpilledResults spilled;
  std::vector<sham_action_parser::ActionParseError> parse_errors;
  // The refused blocks counted but not kept (only a text report's Execute,
  // with CladaOptions::full_outputs false, leaves any out).
  LeftOutSkipped left_out_skipped;
  // The reader of each parse error ("sham", "cml"), aligned with parse_errors.
  std::vector<std::string> parse_error_dialects;
  // The group of each parse error (ActionResult::group), aligned likewise.
  std::vector<int> parse_error_groups;
  // Which form the text report takes: "auto" (CML's or CSL's when every
  // block is of that dialect), "clada", "cml" or "csl" (the --report
  // setting).
  std::string report_form = "auto";
  // How much of each error the text report shows: "minimal", "full" or
  // "debug" (the error_detail setting).
  std::string error_detail = "full";
  std::vector<std::string> warnings;  // batch-level (e.g. duplicate block ids)
  std::optional<std::string> fatal_error;
  // The fatal error's code (core::ErrorCode: input_too_large, timeout,
  // path_escape, git_operation_failed, ...); "" without one.
  std::string fatal_code;
  GitSummary git;
  double elapsed_ms = 0;
};

struct CladaOptions {
  std::string working_root;  // absolute; canonicalised by Clada
  Settings settings = DefaultSettings();
  bool dry_run = false;
  // Which outputs the batch keeps in memory (an OutputBudget, report.h).
  // false: what the text report shows, report_budget for the whole report
  // (three quarters of it for the outputs), and only each action's primary
  // parameter. true (--json, the listener's output file): each output up to
  // max_output and all of them together up to twice max_output, and every
  // parameter. false also keeps, of a batch of many thousands of actions,
  // only the results the text report shows (ExecutionResult::left_out
  // counts the rest).
  bool full_outputs = false;
  // With full_outputs: write each result, as it finishes, to a temporary
  // file (ExecutionResult::spilled) instead of keeping it, so a --json run
  // of a million blocks does not hold a million results. The result is then
  // printed by WriteExecutionResultJson.
  bool spill_results = false;
  // With full_outputs and without spill_results (`clada listen`'s output
  // file): > 0 keeps, of a batch of many thousands of blocks, only the
  // results and refused blocks' errors a report of this many bytes shows
  // (the others counted, as for a text report), the outputs still whole.
  // 0: every one is kept.
  int64_t full_report_budget_bytes = 0;
  // Canonical files no action may read or change (core::PathPolicy's
  // protected_files): `clada listen` puts its FILE and the report beside it.
  std::vector<std::string> protected_files;
  // The line record of the answer this batch is part of (core::AnswerLines:
  // a line edit numbers a file as the model read it, before the answer),
  // kept by a caller that runs one answer in several batches (`clada listen`:
  // an answer saved in pieces while it was written); every edit of the batch
  // is recorded in it, for every file. Unset: the batch is the whole answer
  // and keeps its own.
  core::AnswerLines* answer_lines = nullptr;
  // exec's live output and its cancellation (core::ExecContext::on_output
  // and cancel), for `clada mcp`'s progress notifications and
  // notifications/cancelled. Unset: none.
  std::function<void(absl::string_view stream, absl::string_view text)> on_exec_output;
  const std::atomic<bool>* cancel = nullptr;
  // A batch that only reads (no write action with a path, no exec: what
  // git_tx::BeginBatch treats as read-only, committing nothing, not even a
  // snapshot) does not open git at all: no repository, no interrupted-batch
  // recovery, no git note in the result. It still holds the run lock.
  // `clada mcp` sets it: a read commits nothing either way, and opening the
  // repository took most of a read's time.
  bool read_only_skips_git = false;
  // What a caller that runs batch after batch on the same roots (`clada
  // mcp`, a batch a tool call) keeps between them; unset, each batch makes
  // its own, as `clada run` does.
  // The path policy of working_root and settings.allow (MakeRunPathPolicy),
  // made once: the roots are canonicalised when it is made, so a root
  // replaced by a symlink afterwards is not followed (the paths under it
  // resolve to where it leads, outside the roots).
  std::shared_ptr<const core::PathPolicy> path_policy;
  // The run lock of working_root, used when it is that policy's working
  // root: each batch still takes the lock, the state directory and pid
  // file are kept (git_tx::RunLockKeeper).
  std::shared_ptr<git_tx::RunLockKeeper> run_lock;
};

class Clada {
 public:
  explicit Clada(CladaOptions options);

  // Parses, validates and runs every block of `llm_output`. Never throws:
  // a problem that stops the whole batch (input too large, bad root, git
  // failure, lock timeout) is ExecutionResult::fatal_error, and no action
  // runs after it.
  ExecutionResult Execute(absl::string_view llm_output);

  // Runs `actions`, already built (not read from an answer), as one batch
  // exactly as Execute runs an answer's: the same path policy, limits,
  // exec policy, run lock and git transaction (snapshot, one AI commit), in
  // order, each action a group of its own (a failure never stops the
  // others). `dialect` names where they came from in each ActionResult
  // (`clada mcp`: "mcp"); `words`, the dialect whose words a failure is
  // phrased in (PhraseFixIn), `dialect` when empty (`clada mcp`'s tools are
  // SHAM's actions: "sham"). Actions are not validated against the schema here: an
  // unknown action fails with "Unknown action". Never throws; a bad root,
  // git failure or lock timeout is fatal_error as for Execute.
  ExecutionResult ExecuteActions(std::vector<core::Action> actions, absl::string_view dialect,
                                 absl::string_view words = "");

 private:
  CladaOptions options_;
};

// `clada validate`: the plan a dry run of `input` makes, without touching
// a file: what would run and what is refused, every dialect in document
// order and printed alike (each action as `<label> <action> <value>`, its
// value's first line; each refused block as `<label> line <N> <type>:
// <message>` and its fix); exit code 0 when nothing is refused.
// `csl_start`/`csl_end`: the CSL delimiters (settings csl_start, csl_end).
int RunValidateAnswer(absl::string_view input, bool json, std::ostream& out, size_t max_input_bytes,
                      absl::string_view csl_start = "<---", absl::string_view csl_end = "--->");

// Every action the schema lists, run by the executor the schema names.
// The test of the registry checks both directions against the schema.
core::ActionOutcome DispatchAction(const core::Action& action, const core::ExecContext& ctx);

// Actions each executor component implements, keyed by executor name.
std::vector<std::pair<std::string, std::vector<std::string>>> ExecutorActionNames();

// The value of the schema's primary parameter of `action_name` in `params`
// (strings as is, other values as JSON), or "" when there is none.
std::string PrimaryParamValue(absl::string_view action_name, const core::Json& params);

// Says a failed action's error in the words of `dialect`: the schema's
// words its message names (core::Term) as the dialect says them
// (answer::Reader::SayTerm), then how to fix it (answer::Reader::PhraseFix):
// the executors' messages name no dialect's markers or tools. Bare words and
// no fix for a dialect the registry lacks.
void PhraseFixIn(ActionResult& r, absl::string_view dialect);

// Git options from settings; git_author may be "Name <email>".
git_tx::GitOptions MakeGitOptions(const Settings& settings);

// The path policy of a run on `working_root` with these settings: the
// root, settings.allow, and `/` with allow_escape, canonicalised.
absl::StatusOr<core::PathPolicy> MakeRunPathPolicy(const std::string& working_root, const Settings& settings);

// Builds the ExecContext for a working root from settings: with `policy`
// (one MakeRunPathPolicy made earlier for them), that policy, else a new one.
absl::StatusOr<core::ExecContext> MakeExecContext(const std::string& working_root, const Settings& settings,
                                                  const core::PathPolicy* policy = nullptr);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_CLADA_H_
