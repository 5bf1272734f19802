// Front ends for the user commands: `clada <command>` arguments and the
// schema's git tools, both formatting the structured results of
// internal/commands.h.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/src/internal/commands.h"

namespace clada::git_tx {
namespace {

using internal::BatchLogEntry;
using internal::SquashMode;
using internal::SquashRequest;
using internal::StepResult;

constexpr int kExitOk = 0;
constexpr int kExitRefused = 1;
constexpr int kExitUsage = 2;
constexpr int kDefaultLogLimit = 20;

std::string Short(const std::string& hex) { return hex.substr(0, 7); }

std::string Usage(const std::string& name) {
  if (name == "squash") {
    return "usage: clada squash --mode auto_ai|ai_messages|hours N|days "
           "N|msg_contains TEXT "
           "[--message M] [--contiguous-only] [--force] [--dry-run]";
  }
  if (name == "log") return "usage: clada log [-n N] [--json]";
  if (name == "undo" || name == "step-back" || name == "step-forward") {
    return absl::StrCat("usage: clada ", name, " [--dry-run]");
  }
  return "usage: clada undo | step-back | step-forward | squash ... | log [-n "
         "N]";
}

// Reads the value after args[*i] (or after '=' in "--flag=value").
bool TakeValue(const std::vector<std::string>& args, size_t* i,
               absl::string_view flag, std::string* value) {
  const std::string& a = args[*i];
  if (absl::StartsWith(a, absl::StrCat(flag, "="))) {
    *value = a.substr(flag.size() + 1);
    return true;
  }
  if (a != flag || *i + 1 >= args.size()) return false;
  *value = args[++*i];
  return true;
}

bool IsFlag(const std::string& a, absl::string_view flag) {
  return a == flag || absl::StartsWith(a, absl::StrCat(flag, "="));
}

// Parses `clada squash` arguments. InvalidArgument describes the mistake.
absl::StatusOr<SquashRequest> ParseSquashArgs(
    const std::vector<std::string>& args) {
  SquashRequest req;
  bool have_mode = false;
  auto number = [](const std::string& text,
                   absl::string_view what) -> absl::StatusOr<int64_t> {
    int64_t n = 0;
    if (!absl::SimpleAtoi(text, &n) || n <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " needs a positive whole number, got '", text, "'"));
    }
    return n;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string value;
    if (IsFlag(a, "--mode")) {
      if (!TakeValue(args, &i, "--mode", &value)) {
        return absl::InvalidArgumentError("--mode needs a value");
      }
      ASSIGN_OR_RETURN(req.mode, internal::ParseSquashMode(value));
      have_mode = true;
      const bool wants_arg = req.mode == SquashMode::kHours ||
                             req.mode == SquashMode::kDays ||
                             req.mode == SquashMode::kMsgContains;
      if (wants_arg && i + 1 < args.size() &&
          !absl::StartsWith(args[i + 1], "--")) {
        const std::string& arg = args[++i];
        if (req.mode == SquashMode::kHours) {
          ASSIGN_OR_RETURN(req.hours, number(arg, "--mode hours"));
        } else if (req.mode == SquashMode::kDays) {
          ASSIGN_OR_RETURN(req.days, number(arg, "--mode days"));
        } else {
          req.msg_target = arg;
        }
      }
    } else if (IsFlag(a, "--hours")) {
      if (!TakeValue(args, &i, "--hours", &value))
        return absl::InvalidArgumentError("--hours needs N");
      ASSIGN_OR_RETURN(req.hours, number(value, "--hours"));
    } else if (IsFlag(a, "--days")) {
      if (!TakeValue(args, &i, "--days", &value))
        return absl::InvalidArgumentError("--days needs N");
      ASSIGN_OR_RETURN(req.days, number(value, "--days"));
    } else if (IsFlag(a, "--msg-target")) {
      if (!TakeValue(args, &i, "--msg-target", &req.msg_target)) {
        return absl::InvalidArgumentError("--msg-target needs TEXT");
      }
    } else if (IsFlag(a, "--message")) {
      if (!TakeValue(args, &i, "--message", &value)) {
        return absl::InvalidArgumentError("--message needs a message");
      }
      req.message = value;
    } else if (a == "--contiguous-only") {
      req.contiguous_only = true;
    } else if (a == "--force") {
      req.force = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  if (!have_mode) return absl::InvalidArgumentError("--mode is required");
  return req;
}

void PrintUndo(const internal::UndoResult& r, std::ostream& out) {
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  const std::string would = r.dry_run ? "would " : "";
  out << (r.dry_run ? "would undo " : "undid ") << Short(r.undone_commit)
      << " " << r.undone_subject << "\n";
  if (r.head_commit.empty()) {
    out << "HEAD " << (r.dry_run ? "would be" : "is now")
        << " on an unborn branch, as before the first batch\n";
  } else {
    out << "HEAD " << (r.dry_run ? "would be" : "is now") << " "
        << Short(r.head_commit) << " " << r.head_subject << "\n";
  }
  if (!r.uncommitted.empty()) {
    out << "your uncommitted changes " << (r.dry_run ? "would be" : "are")
        << " back, uncommitted: " << absl::StrJoin(r.uncommitted, ", ")
        << "\n";
  }
  if (!r.restored.empty()) {
    out << "files " << (r.dry_run ? "it would restore" : "restored") << ": "
        << absl::StrJoin(r.restored, ", ") << "\n";
  }
  if (r.dry_run) out << "dry run: nothing was changed\n";
  (void)would;
}

void PrintStep(const StepResult& r, bool forward, std::ostream& out) {
  const bool dry = r.dry_run;
  if (r.at_tip) {
    out << (dry ? "would be back at the tip of " : "back at the tip of ")
        << r.branch << ": " << Short(r.commit) << " " << r.subject << "\n";
    if (r.conflicts.empty() && !r.stashed_files.empty()) {
      out << (dry ? "would restore " : "restored ") << r.stashed_files.size()
          << " uncommitted file(s): " << absl::StrJoin(r.stashed_files, ", ")
          << "\n";
    }
  } else {
    out << (dry ? "would move to " : "now at ") << Short(r.commit) << " "
        << r.subject << " (" << r.branch << " "
        << (dry ? "would stay" : "is") << " unchanged; HEAD "
        << (dry ? "would be" : "is") << " detached there)\n";
    if (!forward && !r.stashed_files.empty()) {
      out << (dry ? "would stash " : "stashed ") << r.stashed_files.size()
          << " uncommitted file(s): " << absl::StrJoin(r.stashed_files, ", ")
          << "; they come back when `clada step-forward` reaches the tip\n";
    }
  }
  if (!r.stash_note.empty()) out << "note: " << r.stash_note << "\n";
  if (dry) out << "dry run: nothing was changed\n";
}

core::Json StepData(const StepResult& r) {
  core::Json d;
  d["commit"] = r.commit;
  d["subject"] = r.subject;
  d["branch"] = r.branch;
  d["at_tip"] = r.at_tip;
  d["stashed_files"] = r.stashed_files;
  d["conflicts"] = r.conflicts;
  if (!r.stash_note.empty()) d["note"] = r.stash_note;
  return d;
}

std::string ConflictMessage(const StepResult& r) {
  return absl::StrCat("back at the tip of ", r.branch,
                      ", but restoring your uncommitted changes conflicts in ",
                      absl::StrJoin(r.conflicts, ", "), "; ", r.stash_note);
}

// Reads git_squash params from an action. InvalidArgument on a wrong type.
absl::StatusOr<SquashRequest> SquashRequestFromParams(const core::Json& p) {
  SquashRequest req;
  if (!p.contains("mode") || !p["mode"].is_string()) {
    return absl::InvalidArgumentError("param 'mode' (string) is required");
  }
  ASSIGN_OR_RETURN(req.mode,
                   internal::ParseSquashMode(p["mode"].get<std::string>()));
  auto integer = [&](const char* key, int64_t* out) -> absl::Status {
    if (!p.contains(key)) return absl::OkStatus();
    if (!p[key].is_number_integer()) {
      return absl::InvalidArgumentError(
          absl::StrCat("param '", key, "' must be an integer"));
    }
    *out = p[key].get<int64_t>();
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(integer("hours", &req.hours));
  RETURN_IF_ERROR(integer("days", &req.days));
  for (const char* key : {"message", "msg_target"}) {
    if (p.contains(key) && !p[key].is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("param '", key, "' must be a string"));
    }
  }
  if (p.contains("message")) req.message = p["message"].get<std::string>();
  if (p.contains("msg_target"))
    req.msg_target = p["msg_target"].get<std::string>();
  if (p.contains("contiguous_only")) {
    if (!p["contiguous_only"].is_boolean()) {
      return absl::InvalidArgumentError(
          "param 'contiguous_only' must be a boolean");
    }
    req.contiguous_only = p["contiguous_only"].get<bool>();
  }
  return req;
}

}  // namespace

int RunGitCommand(const std::string& name, const std::vector<std::string>& args,
                  const std::string& working_root, const GitOptions& options,
                  std::ostream& out, std::ostream& err) {
  auto fail = [&](const absl::Status& s) {
    err << "clada " << name << ": " << s.message() << "\n";
    if (absl::IsInvalidArgument(s)) {
      err << Usage(name) << "\n";
      return kExitUsage;
    }
    return kExitRefused;
  };
  auto usage = [&](const std::string& why) {
    err << "clada " << name << ": " << why << "\n" << Usage(name) << "\n";
    return kExitUsage;
  };
  if (options.mode == GitOptions::Mode::kOff) {
    return usage("git is off (--no-git), and this command needs it");
  }
  // --dry-run: every command but log says what it would do and changes
  // nothing.
  bool dry_run = false;
  std::vector<std::string> rest;
  for (const std::string& a : args) {
    if (a == "--dry-run" && name != "log") {
      dry_run = true;
    } else {
      rest.push_back(a);
    }
  }

  // The commands that change HEAD or the work tree wait for the run lock,
  // like `clada run`, so they never interleave with a batch in progress.
  // `log` does not: it only reads committed history, and a user looking at
  // it should not wait behind a long exec.
  auto take_run_lock = [&]() {
    return RunLock::Acquire(working_root, options.lock_timeout);
  };

  if (name == "undo") {
    if (!rest.empty())
      return usage(absl::StrCat("unexpected argument '", rest[0], "'"));
    absl::StatusOr<RunLock> lock = take_run_lock();
    if (!lock.ok()) return fail(lock.status());
    absl::StatusOr<internal::UndoResult> r =
        internal::UndoLastBatch(working_root, options, dry_run);
    if (!r.ok()) return fail(r.status());
    PrintUndo(*r, out);
    return kExitOk;
  }
  if (name == "step-back" || name == "step-forward") {
    if (!rest.empty())
      return usage(absl::StrCat("unexpected argument '", rest[0], "'"));
    const bool forward = name == "step-forward";
    absl::StatusOr<RunLock> lock = take_run_lock();
    if (!lock.ok()) return fail(lock.status());
    absl::StatusOr<StepResult> r =
        forward ? internal::StepForward(working_root, dry_run)
                : internal::StepBack(working_root, options, dry_run);
    if (!r.ok()) return fail(r.status());
    PrintStep(*r, forward, out);
    if (!r->conflicts.empty()) {
      err << "clada " << name << ": " << ConflictMessage(*r) << "\n";
      return kExitRefused;
    }
    return kExitOk;
  }
  if (name == "squash") {
    absl::StatusOr<SquashRequest> req = ParseSquashArgs(rest);
    if (!req.ok()) return usage(std::string(req.status().message()));
    absl::StatusOr<RunLock> lock = take_run_lock();
    if (!lock.ok()) return fail(lock.status());
    absl::StatusOr<internal::SquashResult> r =
        internal::SquashCommits(working_root, *req, options, dry_run);
    if (!r.ok()) return fail(r.status());
    std::vector<std::string> shorts;
    for (const std::string& c : r->squashed) shorts.push_back(Short(c));
    for (const std::string& n : r->notes) out << "note: " << n << "\n";
    if (dry_run) {
      out << "would squash " << r->squashed.size() << " commits ("
          << absl::StrJoin(shorts, ", ") << ") into one";
      if (r->replayed > 0)
        out << "; " << r->replayed << " other clada commit(s) would be rewritten";
      out << "\ndry run: nothing was changed\n";
      return kExitOk;
    }
    out << "squashed " << r->squashed.size() << " commits ("
        << absl::StrJoin(shorts, ", ") << ") into " << Short(r->squash_commit);
    if (r->replayed > 0)
      out << "; " << r->replayed << " other commit(s) rewritten";
    out << "; HEAD is now " << Short(r->new_head) << "\n";
    return kExitOk;
  }
  if (name == "log") {
    int limit = kDefaultLogLimit;
    bool json = false;
    for (size_t i = 0; i < args.size(); ++i) {
      std::string value;
      if (args[i] == "--json") {
        json = true;
      } else if ((IsFlag(args[i], "-n") && TakeValue(args, &i, "-n", &value)) ||
          (IsFlag(args[i], "--limit") &&
           TakeValue(args, &i, "--limit", &value))) {
        if (!absl::SimpleAtoi(value, &limit) || limit <= 0) {
          return usage(absl::StrCat("-n needs a positive whole number, got '",
                                    value, "'"));
        }
      } else if (args[i] == "-n" || args[i] == "--limit") {
        return usage("-n needs a positive whole number, got nothing");
      } else if (absl::StartsWith(args[i], "-")) {
        return usage(absl::StrCat("unknown flag '", args[i],
                                  "'; clada log takes -n N (--limit N) and --json"));
      } else {
        return usage(absl::StrCat("unexpected argument '", args[i], "'"));
      }
    }
    absl::StatusOr<std::vector<BatchLogEntry>> r =
        internal::ListRecentBatches(working_root, limit);
    if (!r.ok()) return fail(r.status());
    if (json) {
      core::Json list = core::Json::array();
      for (const BatchLogEntry& e : *r) {
        list.push_back({{"commit", e.commit},
                        {"time", e.time},
                        {"subject", e.subject},
                        {"kind", e.snapshot ? "snapshot" : "ai"}});
      }
      out << list.dump(2) << "\n";
      return kExitOk;
    }
    if (r->empty()) out << "no clada commits on this branch yet\n";
    for (const BatchLogEntry& e : *r) {
      out << Short(e.commit) << "  " << e.time << "  " << e.subject << "\n";
    }
    return kExitOk;
  }
  err << "clada: unknown git command '" << name << "'\n" << Usage("") << "\n";
  return kExitUsage;
}

const std::vector<std::string>& GitActionNames() {
  static const auto* const kNames = new std::vector<std::string>{
      "undo", "git_step_back", "git_step_forward", "git_squash"};
  return *kNames;
}

core::ActionOutcome ExecuteGitAction(const core::Action& action,
                                     const core::ExecContext& ctx) {
  const std::string& root = ctx.paths.working_root;
  auto fail = [&](const absl::Status& s,
                  core::Json data = core::Json::object()) {
    return core::ActionOutcome::Failure(
        core::ErrorCode(s), absl::StrCat(action.name, ": ", s.message()),
        std::move(data));
  };
  const GitOptions options;
  if (action.name == "undo") {
    absl::StatusOr<internal::UndoResult> r =
        internal::UndoLastBatch(root, options, /*dry_run=*/false);
    if (!r.ok()) return fail(r.status());
    return core::ActionOutcome::Ok({{"undone_commit", r->undone_commit},
                                    {"undone_subject", r->undone_subject},
                                    {"head", r->head_commit},
                                    {"head_subject", r->head_subject}});
  }
  if (action.name == "git_step_back" || action.name == "git_step_forward") {
    absl::StatusOr<StepResult> r = action.name == "git_step_forward"
                                       ? internal::StepForward(root, false)
                                       : internal::StepBack(root, options,
                                                            false);
    if (!r.ok()) return fail(r.status());
    if (!r->conflicts.empty()) {
      return core::ActionOutcome::Failure(
          "merge_conflict", absl::StrCat(action.name, ": ", ConflictMessage(*r)),
          StepData(*r));
    }
    return core::ActionOutcome::Ok(StepData(*r));
  }
  if (action.name == "git_squash") {
    absl::StatusOr<SquashRequest> req = SquashRequestFromParams(action.params);
    if (!req.ok()) return fail(req.status());
    absl::StatusOr<internal::SquashResult> r =
        internal::SquashCommits(root, *req, options, /*dry_run=*/false);
    if (!r.ok()) return fail(r.status());
    return core::ActionOutcome::Ok({{"commit", r->new_head},
                                    {"squash_commit", r->squash_commit},
                                    {"squashed", r->squashed},
                                    {"replayed", r->replayed}});
  }
  return core::ActionOutcome::Failure(
      "unknown_action",
      absl::StrCat("unknown git action '", action.name, "': use one of ",
                   absl::StrJoin(GitActionNames(), ", ")));
}

}  // namespace clada::git_tx
