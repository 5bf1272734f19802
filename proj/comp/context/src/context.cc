#include "proj/comp/context/src/context.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proj/comp/context/src/expand.h"
#include "proj/comp/context/src/render.h"
#include "proj/comp/context/src/store.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/core/src/utf8.h"

namespace clada::context {
namespace {

using core::ActionOutcome;
using core::Json;
using internal::EntryInfo;
using internal::EntryKind;

// An action's result before it becomes an ActionOutcome: data and notes on
// success, a Status whose message starts with the error type otherwise.
struct Result {
  Json data = Json::object();
  std::vector<std::string> warnings;
};

absl::StatusOr<std::string> PathParam(const core::Action& action) {
  auto it = action.params.find("path");
  if (it == action.params.end()) {
    return absl::InvalidArgumentError(
        "invalid_params: the required parameter 'path' is missing");
  }
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid_params: 'path' must be a string, not ", it->type_name()));
  }
  return it->get<std::string>();
}

std::vector<EntryInfo> InspectAll(const core::PathPolicy& policy,
                                  const std::vector<std::string>& stored) {
  std::vector<EntryInfo> entries;
  entries.reserve(stored.size());
  for (const std::string& entry : stored)
    entries.push_back(internal::InspectEntry(policy, entry));
  return entries;
}

// Resolves a path the caller names, refusing what is not project content.
absl::StatusOr<std::string> ResolveNamedPath(const core::PathPolicy& policy,
                                             const std::string& path) {
  ASSIGN_OR_RETURN(std::string canonical, core::ResolvePath(policy, path));
  if (internal::IsCladaState(policy, canonical)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "clada_state: '", path,
        "' is inside .clada/, clada's own state, not project content"));
  }
  return canonical;
}

// The store half of context_add; the caller holds the lock.
absl::Status AddEntry(const core::PathPolicy& policy,
                      const std::string& canonical, const std::string& stored,
                      bool* added, std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(std::vector<std::string> entries,
                   internal::LoadEntries(policy.working_root));
  if (std::find(entries.begin(), entries.end(), stored) != entries.end()) {
    warnings->push_back(absl::StrCat(
        "'", stored, "' is already in the context; nothing changed"));
    return absl::OkStatus();
  }
  for (const std::string& other : entries) {
    absl::StatusOr<std::string> other_path = core::ResolvePath(policy, other);
    struct stat st;
    if (other_path.ok() && core::IsWithin(canonical, *other_path) &&
        ::stat(other_path->c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      warnings->push_back(absl::StrCat(
          "'", stored, "' was already included through the directory entry '",
          other, "'"));
      break;
    }
  }
  entries.push_back(stored);
  RETURN_IF_ERROR(internal::SaveEntries(policy.working_root, entries));
  *added = true;
  return absl::OkStatus();
}

absl::StatusOr<Result> Add(const core::Action& action,
                           const core::PathPolicy& policy) {
  ASSIGN_OR_RETURN(std::string path, PathParam(action));
  ASSIGN_OR_RETURN(std::string canonical, ResolveNamedPath(policy, path));
  struct stat st;
  if (::stat(canonical.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat(
          "not_found: '", path, "' does not exist (resolved to '", canonical,
          "'); only existing files and directories can be added"));
    }
    return core::ErrnoStatus(errno, "io_error: cannot stat", canonical);
  }
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unsupported_file_type: '", path,
        "' is neither a regular file nor a directory; it cannot be added"));
  }
  const std::string stored = core::DisplayPath(policy, canonical);
  if (!core::IsValidUtf8(stored)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid_path: '", stored,
        "' is not valid UTF-8; the context keeps UTF-8 paths only. "
        "Add its directory instead, or rename it"));
  }

  Result result;
  bool added = false;
  {
    ASSIGN_OR_RETURN(internal::StoreLock lock,
                     internal::StoreLock::Acquire(policy.working_root));
    RETURN_IF_ERROR(
        AddEntry(policy, canonical, stored, &added, &result.warnings));
  }
  // The walk runs without the lock: a large directory must not hold up
  // other writers.
  EntryInfo info = internal::InspectEntry(policy, stored);
  if (added && info.kind == EntryKind::kDirectory) {
    if (info.ignored_by_git) {
      result.warnings.push_back(absl::StrCat(
          "git ignores '", stored,
          "'; all its files count because it was named explicitly"));
    }
    if (info.files.empty()) {
      result.warnings.push_back(absl::StrCat(
          "'", stored,
          "' holds no files that count (ignored, symlinks or empty)"));
    }
  }
  for (std::string& warning : info.warnings)
    result.warnings.push_back(std::move(warning));
  result.data["path"] = stored;
  result.data["added"] = added;
  result.data["type"] = internal::EntryKindName(info.kind);
  result.data["files"] = info.files.size();
  result.data["bytes"] = info.bytes;
  return result;
}

absl::StatusOr<Result> Remove(const core::Action& action,
                              const core::PathPolicy& policy) {
  ASSIGN_OR_RETURN(std::string path, PathParam(action));
  ASSIGN_OR_RETURN(internal::StoreLock lock,
                   internal::StoreLock::Acquire(policy.working_root));
  ASSIGN_OR_RETURN(std::vector<std::string> entries,
                   internal::LoadEntries(policy.working_root));

  // An entry the policy now refuses (e.g. an --allow root given no more) can
  // still be removed by its stored spelling.
  absl::StatusOr<std::string> canonical = core::ResolvePath(policy, path);
  if (!canonical.ok() &&
      std::find(entries.begin(), entries.end(), path) == entries.end()) {
    return canonical.status();
  }

  std::vector<std::string> kept;
  Json removed = Json::array();
  std::string covering;  // a directory entry that includes `path`
  for (const std::string& entry : entries) {
    absl::StatusOr<std::string> entry_path = core::ResolvePath(policy, entry);
    bool drop = entry == path || (canonical.ok() && entry_path.ok() &&
                                  core::IsWithin(*entry_path, *canonical));
    if (drop) {
      removed.push_back(entry);
      continue;
    }
    if (canonical.ok() && entry_path.ok() && covering.empty() &&
        core::IsWithin(*canonical, *entry_path)) {
      covering = entry;
    }
    kept.push_back(entry);
  }

  Result result;
  if (removed.empty()) {
    if (!covering.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("not_in_context: '", path,
                       "' is not an entry of the context; it is included "
                       "through the directory entry '",
                       covering, "'. Remove '", covering,
                       "' and add back what is still needed"));
    }
    result.warnings.push_back(
        absl::StrCat("'", path, "' was not in the context; nothing changed"));
  } else {
    RETURN_IF_ERROR(internal::SaveEntries(policy.working_root, kept));
  }
  result.data["removed"] = std::move(removed);
  return result;
}

Json EntryJson(const EntryInfo& entry) {
  Json j = Json::object();
  j["path"] = entry.stored;
  j["exists"] =
      entry.kind == EntryKind::kFile || entry.kind == EntryKind::kDirectory;
  j["type"] = internal::EntryKindName(entry.kind);
  j["size"] = entry.bytes;
  j["files"] = entry.files.size();
  if (entry.kind == EntryKind::kRefused) j["error"] = entry.problem;
  return j;
}

absl::StatusOr<Result> List(const core::PathPolicy& policy) {
  ASSIGN_OR_RETURN(std::vector<std::string> stored,
                   internal::LoadEntries(policy.working_root));
  std::vector<EntryInfo> entries = InspectAll(policy, stored);
  Result result;
  Json list = Json::array();
  absl::flat_hash_set<std::string> distinct;
  int64_t bytes = 0;
  for (const EntryInfo& entry : entries) {
    list.push_back(EntryJson(entry));
    for (const std::string& warning : entry.warnings)
      result.warnings.push_back(warning);
    for (const internal::FileInfo& file : entry.files) {
      if (distinct.insert(file.path).second) bytes += file.size;
    }
  }
  result.data["entries"] = std::move(list);
  result.data["totals"] = {{"entries", entries.size()},
                           {"files", distinct.size()},
                           {"bytes", bytes}};
  return result;
}

absl::StatusOr<Result> Prune(const core::PathPolicy& policy) {
  ASSIGN_OR_RETURN(internal::StoreLock lock,
                   internal::StoreLock::Acquire(policy.working_root));
  ASSIGN_OR_RETURN(std::vector<std::string> entries,
                   internal::LoadEntries(policy.working_root));
  std::vector<std::string> kept;
  Json removed = Json::array();
  for (const std::string& entry : entries) {
    absl::StatusOr<std::string> path = core::ResolvePath(policy, entry);
    struct stat st;
    if (path.ok() && ::stat(path->c_str(), &st) != 0 &&
        (errno == ENOENT || errno == ENOTDIR)) {
      removed.push_back(entry);
    } else {
      kept.push_back(entry);
    }
  }
  if (!removed.empty())
    RETURN_IF_ERROR(internal::SaveEntries(policy.working_root, kept));
  Result result;
  result.data["removed"] = std::move(removed);
  return result;
}

absl::StatusOr<Result> Clear(const core::PathPolicy& policy) {
  ASSIGN_OR_RETURN(internal::StoreLock lock,
                   internal::StoreLock::Acquire(policy.working_root));
  ASSIGN_OR_RETURN(std::vector<std::string> entries,
                   internal::LoadEntries(policy.working_root));
  if (!entries.empty())
    RETURN_IF_ERROR(internal::SaveEntries(policy.working_root, {}));
  Result result;
  result.data["removed"] = entries;
  return result;
}

absl::StatusOr<Result> Dispatch(const core::Action& action,
                                const core::ExecContext& ctx) {
  if (ctx.paths.working_root.empty()) {
    return absl::InvalidArgumentError(
        "invalid_params: the execution context has no working root");
  }
  if (action.name == "context_add") return Add(action, ctx.paths);
  if (action.name == "context_remove") return Remove(action, ctx.paths);
  if (action.name == "context_list") return List(ctx.paths);
  if (action.name == "context_prune") return Prune(ctx.paths);
  if (action.name == "context_clear") return Clear(ctx.paths);
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown_action: '", action.name, "' is not a context action (",
      absl::StrJoin(ContextActionNames(), ", "), ")"));
}

// ---- the command ----

constexpr char kUsage[] =
    "usage: clada context add PATH...       add files or directories to the "
    "working set\n"
    "       clada context remove PATH...    remove entries (a directory also "
    "drops the entries below it)\n"
    "       clada context list              list the entries with their sizes\n"
    "       clada context prune             drop the entries whose files are "
    "gone\n"
    "       clada context clear             empty the working set\n"
    "       clada context show [--numbered] print every file, ready to paste "
    "into an LLM\n"
    "PATHs are relative to the working root.\n";

int Usage(std::ostream& err, absl::string_view problem) {
  err << "clada context: " << problem << "\n" << kUsage;
  return 2;
}

void PrintWarnings(const ActionOutcome& outcome, std::ostream& out) {
  for (const std::string& warning : outcome.warnings)
    out << "note: " << warning << "\n";
}

// The error without its "<action>: " prefix, after "clada context <sub>: ".
void PrintError(const ActionOutcome& outcome, const std::string& sub,
                std::ostream& err) {
  absl::string_view message = outcome.error;
  size_t colon = message.find(": ");
  if (colon != absl::string_view::npos) message.remove_prefix(colon + 2);
  err << "clada context " << sub << ": " << message << "\n";
}

std::string Plural(int64_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// "file, 12 bytes", "directory, 3 files, 812 bytes", "missing (...)".
std::string DescribeEntry(const std::string& type, int64_t files, int64_t bytes,
                          const std::string& error) {
  if (type == "file")
    return absl::StrCat("file, ", Plural(bytes, "byte", "bytes"));
  if (type == "directory") {
    return absl::StrCat("directory, ", Plural(files, "file", "files"), ", ",
                        Plural(bytes, "byte", "bytes"));
  }
  if (type == "missing") return "missing (`clada context prune` drops it)";
  return absl::StrCat("refused: ", error);
}

ActionOutcome RunAction(const std::string& name, const std::string* path,
                        const core::ExecContext& ctx) {
  core::Action action;
  action.name = name;
  if (path != nullptr) action.params["path"] = *path;
  return ExecuteContextAction(action, ctx);
}

int CommandAdd(const std::vector<std::string>& paths,
               const core::ExecContext& ctx, std::ostream& out,
               std::ostream& err) {
  int code = 0;
  for (const std::string& path : paths) {
    ActionOutcome outcome = RunAction("context_add", &path, ctx);
    if (!outcome.success) {
      PrintError(outcome, "add", err);
      code = 1;
      continue;
    }
    if (outcome.data["added"].get<bool>()) {
      const Json& d = outcome.data;
      out << "added " << d["path"].get<std::string>() << " ("
          << DescribeEntry(d["type"].get<std::string>(),
                           d["files"].get<int64_t>(), d["bytes"].get<int64_t>(),
                           "")
          << ")\n";
    }
    PrintWarnings(outcome, out);
  }
  return code;
}

int CommandRemove(const std::vector<std::string>& paths,
                  const core::ExecContext& ctx, std::ostream& out,
                  std::ostream& err) {
  int code = 0;
  for (const std::string& path : paths) {
    ActionOutcome outcome = RunAction("context_remove", &path, ctx);
    if (!outcome.success) {
      PrintError(outcome, "remove", err);
      code = 1;
      continue;
    }
    for (const Json& removed : outcome.data["removed"])
      out << "removed " << removed.get<std::string>() << "\n";
    PrintWarnings(outcome, out);
  }
  return code;
}

int CommandList(const core::ExecContext& ctx, std::ostream& out,
                std::ostream& err) {
  ActionOutcome outcome = RunAction("context_list", nullptr, ctx);
  if (!outcome.success) {
    PrintError(outcome, "list", err);
    return 1;
  }
  const Json& entries = outcome.data["entries"];
  if (entries.empty()) {
    out << "the context is empty; add files with `clada context add PATH`\n";
    return 0;
  }
  size_t width = 0;
  for (const Json& entry : entries)
    width = std::max(width, entry["path"].get<std::string>().size());
  for (const Json& entry : entries) {
    out << absl::StrFormat(
        "%-*s  %s\n", static_cast<int>(width), entry["path"].get<std::string>(),
        DescribeEntry(entry["type"].get<std::string>(),
                      entry["files"].get<int64_t>(),
                      entry["size"].get<int64_t>(), entry.value("error", "")));
  }
  const Json& totals = outcome.data["totals"];
  const int64_t bytes = totals["bytes"].get<int64_t>();
  out << "total: "
      << Plural(totals["entries"].get<int64_t>(), "entry", "entries") << ", "
      << Plural(totals["files"].get<int64_t>(), "file", "files") << ", "
      << Plural(bytes, "byte", "bytes") << " (~" << bytes / 4 << " tokens)\n";
  PrintWarnings(outcome, out);
  return 0;
}

int CommandPrune(const core::ExecContext& ctx, std::ostream& out,
                 std::ostream& err) {
  ActionOutcome outcome = RunAction("context_prune", nullptr, ctx);
  if (!outcome.success) {
    PrintError(outcome, "prune", err);
    return 1;
  }
  const Json& removed = outcome.data["removed"];
  if (removed.empty()) out << "nothing to prune: every entry exists\n";
  for (const Json& path : removed)
    out << "removed " << path.get<std::string>() << "\n";
  return 0;
}

int CommandClear(const core::ExecContext& ctx, std::ostream& out,
                 std::ostream& err) {
  ActionOutcome outcome = RunAction("context_clear", nullptr, ctx);
  if (!outcome.success) {
    PrintError(outcome, "clear", err);
    return 1;
  }
  const size_t n = outcome.data["removed"].size();
  if (n == 0) {
    out << "the context was already empty\n";
  } else {
    out << "cleared " << Plural(n, "entry", "entries") << "\n";
  }
  return 0;
}

int CommandShow(bool numbered, const core::ExecContext& ctx, std::ostream& out,
                std::ostream& err) {
  if (ctx.paths.working_root.empty()) {
    err << "clada context show: invalid_params: the execution context has no "
           "working root\n";
    return 1;
  }
  absl::StatusOr<std::vector<std::string>> stored =
      internal::LoadEntries(ctx.paths.working_root);
  if (!stored.ok()) {
    err << "clada context show: " << stored.status().message() << "\n";
    return 1;
  }
  internal::ShowOptions options;
  options.numbered = numbered;
  options.max_file_bytes = ctx.limits.max_file_bytes;
  internal::ShowResult shown =
      internal::RenderShow(InspectAll(ctx.paths, *stored), options);
  out << shown.text;
  if (stored->empty())
    err << "note: the context is empty; add files with `clada context add "
           "PATH`\n";
  for (const std::string& note : shown.notes) err << "note: " << note << "\n";
  return 0;
}

int RunCommand(const std::vector<std::string>& args,
               const core::ExecContext& ctx, std::ostream& out,
               std::ostream& err) {
  if (args.empty()) return Usage(err, "missing subcommand");
  const std::string& sub = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "-h" || sub == "--help" || sub == "help") {
    out << kUsage;
    return 0;
  }
  if (sub == "add" || sub == "remove") {
    if (rest.empty())
      return Usage(err, absl::StrCat("'", sub, "' needs at least one PATH"));
    return sub == "add" ? CommandAdd(rest, ctx, out, err)
                        : CommandRemove(rest, ctx, out, err);
  }
  if (sub == "show") {
    bool numbered = false;
    for (const std::string& arg : rest) {
      if (arg != "--numbered")
        return Usage(err, absl::StrCat("'show' does not take '", arg, "'"));
      numbered = true;
    }
    return CommandShow(numbered, ctx, out, err);
  }
  if (sub == "list" || sub == "prune" || sub == "clear") {
    if (!rest.empty())
      return Usage(err, absl::StrCat("'", sub, "' takes no arguments, got '", rest[0], "'"));
    if (sub == "list") return CommandList(ctx, out, err);
    if (sub == "prune") return CommandPrune(ctx, out, err);
    return CommandClear(ctx, out, err);
  }
  if (!sub.empty() && sub[0] == '-') {
    return Usage(err, absl::StrCat("unknown flag '", sub,
                                   "': give a subcommand first (add, remove, list, prune, clear, show); "
                                   "only show takes a flag (--numbered)"));
  }
  return Usage(err, absl::StrCat("unknown subcommand '", sub, "'"));
}

// Errors and warnings may quote paths with any bytes; the orchestrator
// serialises outcomes as JSON, which needs UTF-8.
std::string ReportableText(const std::string& text) {
  return internal::EscapeInvalidUtf8(text);
}

}  // namespace

const std::vector<std::string>& ContextActionNames() {
  static const auto* const kNames = new std::vector<std::string>{
      "context_add", "context_remove", "context_list", "context_prune",
      "context_clear"};
  return *kNames;
}

ActionOutcome ExecuteContextAction(const core::Action& action,
                                   const core::ExecContext& ctx) {
  try {
    absl::StatusOr<Result> result = Dispatch(action, ctx);
    if (!result.ok()) {
      return ActionOutcome::Failure(
          core::ErrorCode(result.status()),
          ReportableText(
              absl::StrCat(action.name, ": ", result.status().message())));
    }
    ActionOutcome outcome = ActionOutcome::Ok(std::move(result->data));
    for (const std::string& warning : result->warnings)
      outcome.warnings.push_back(ReportableText(warning));
    return outcome;
  } catch (const std::exception& e) {
    return ActionOutcome::Failure(
        "internal", absl::StrCat(action.name, ": internal_error: ", e.what()));
  }
}

int RunContextCommand(const std::vector<std::string>& args,
                      const core::ExecContext& ctx, std::ostream& out,
                      std::ostream& err) {
  try {
    return RunCommand(args, ctx, out, err);
  } catch (const std::exception& e) {
    err << "clada context: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace clada::context
