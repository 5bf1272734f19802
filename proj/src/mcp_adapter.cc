#include "proj/src/mcp_adapter.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/fs-ops/src/file_store.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/mcp/src/stdio_transport.h"
#include "proj/src/clada.h"
#include "proj/src/cli.h"
#include "proj/src/report.h"

namespace clada {
namespace {

using sham_action_parser::ActionDefinition;
using sham_action_parser::ParameterDef;
using sham_action_parser::ParamType;

constexpr char kInstructions[] =
    "clada applies each tool call to the project as one batch: the same path policy, limits and exec policy as "
    "`clada run`, and in a git repository a [clada:pre] snapshot of the user's own changes and one AI commit, so "
    "`clada undo` takes back the last call. Paths are relative to the working root (allowed_roots lists the "
    "roots); a path outside them, or into .git, .ssh or .clada, is refused. apply_answer runs a whole answer "
    "written in any dialect clada reads.";

// A JSON Schema for one entry of the schema's `returns` language: a type
// name, {"type": "array", "items": X}, or an object of named entries (a
// name ending in '?' is optional).
core::Json ReturnsToSchema(const core::Json& spec) {
  if (spec.is_string()) {
    const std::string& t = spec.get_ref<const std::string&>();
    if (t == "string" || t == "integer" || t == "boolean" || t == "number" || t == "object" || t == "array") {
      return {{"type", t}};
    }
    return core::Json::object();
  }
  if (!spec.is_object()) return core::Json::object();
  if (spec.contains("type") && spec["type"] == "array") {
    core::Json s = {{"type", "array"}};
    if (spec.contains("items")) s["items"] = ReturnsToSchema(spec["items"]);
    return s;
  }
  core::Json properties = core::Json::object();
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    std::string name = it.key();
    if (absl::EndsWith(name, "?")) name.pop_back();
    properties[name] = ReturnsToSchema(it.value());
  }
  return {{"type", "object"}, {"properties", std::move(properties)}};
}

std::string TypeOfJson(const core::Json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_null()) return "null";
  if (v.is_array()) return "an array";
  return "an object";
}

// The code of what failed in a batch that did not succeed: its fatal
// error's, else its first failed action's, else its first refused block's.
std::string FailureCode(const ExecutionResult& result) {
  if (!result.fatal_code.empty()) return result.fatal_code;
  for (const ActionResult& r : result.results) {
    if (!r.success && !r.code.empty()) return r.code;
  }
  for (const auto& e : result.parse_errors) {
    if (!e.error_type.empty()) return e.error_type;
  }
  return "internal";
}

// The result of an action run through the engine, as a CallToolResult.
// Its data is moved into structuredContent: it can hold a whole file.
mcp::ToolResult ActionToolResult(ExecutionResult result, bool structured, int64_t report_budget) {
  mcp::ToolResult out = mcp::ToolResult::Text(FormatReport(result, report_budget), !result.success);
  if (!result.success) out.meta = core::Json{{mcp::kMetaErrorCode, FailureCode(result)}};
  if (!structured) return out;
  core::Json data = core::Json::object();
  bool ok = result.success;
  std::string error = result.fatal_error.value_or("");
  if (!result.results.empty()) {
    ActionResult& r = result.results[0];
    if (r.data.is_object()) {
      data = std::move(r.data);
    } else if (!r.data.is_null()) {
      data["data"] = std::move(r.data);
    }
    ok = ok && r.success;
    if (error.empty()) error = r.error;
  }
  data.erase("planned");
  data["success"] = ok;
  if (!ok && !error.empty()) data["error"] = error;
  out.structured_content = std::move(data);
  return out;
}

std::string FormatTimeUtc(time_t seconds) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
}

std::string FileType(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "device";
  return "other";
}

// The path policy of a call: the roots it runs with.
struct CallContext {
  CladaOptions clada;
  std::vector<std::string> roots;
  bool client_roots = false;
};

// The roots of the calls, what was made for them, and the client roots
// they came from (empty: none, the server's).
struct KeptRoots {
  std::vector<std::string> client_roots;
  std::vector<std::string> roots;
  std::shared_ptr<const core::PathPolicy> policy;
  std::shared_ptr<git_tx::RunLockKeeper> run_lock;
};

// What every call starts from, built once: a Settings holds the source of
// every setting in a map, and building a default one and copying the
// server's over it took a tenth of a file_read call. And what is kept from
// call to call while the roots stay the same (they change with the
// client's roots/list): their path policy, canonicalised once instead of
// twice a call, and the run lock's state directory and pid file.
struct CallBase {
  CladaOptions clada;
  std::mutex mu;
  std::optional<KeptRoots> kept;  // guarded by mu
};

std::shared_ptr<CallBase> MakeCallBase(const McpServerOptions& options) {
  auto base = std::make_shared<CallBase>();
  base->clada.working_root = options.root;
  base->clada.settings = options.settings;
  base->clada.settings.quiet = true;  // exec's live output goes to progress notifications, not stderr
  // Where each setting came from is for `clada config`; copied into every
  // call's options it was a map of every setting, 40 allocations a call.
  base->clada.settings.source.clear();
  base->clada.dry_run = options.dry_run;
  base->clada.full_outputs = true;
  base->clada.read_only_skips_git = true;  // a read commits nothing; opening git was most of its time
  return base;
}

absl::StatusOr<std::vector<std::string>> EffectiveRootsOf(const McpServerOptions& options,
                                                          const std::optional<std::vector<std::string>>& client_roots,
                                                          bool* complete);

// The roots of a call with what was made for them: those of the call
// before when the client offers the same roots, else made anew (and kept
// for the calls after when every root could be resolved: a root that does
// not exist yet is looked for again at the next call).
absl::StatusOr<KeptRoots> RootsOfCall(const McpServerOptions& options, CallBase& base, const mcp::ToolCall& call) {
  std::vector<std::string> client = call.client_roots.value_or(std::vector<std::string>());
  std::lock_guard<std::mutex> hold(base.mu);
  if (base.kept.has_value() && base.kept->client_roots == client) return *base.kept;
  bool complete = true;
  absl::StatusOr<std::vector<std::string>> roots = EffectiveRootsOf(options, call.client_roots, &complete);
  if (!roots.ok()) return roots.status();
  KeptRoots made{std::move(client), *std::move(roots), nullptr, nullptr};
  Settings settings = base.clada.settings;
  settings.allow.assign(made.roots.begin() + 1, made.roots.end());
  absl::StatusOr<core::PathPolicy> policy = MakeRunPathPolicy(made.roots[0], settings);
  // A root gone since EffectiveRoots saw it: the batch reports it.
  if (!policy.ok() || !complete) return made;
  made.policy = std::make_shared<const core::PathPolicy>(*std::move(policy));
  // The same working root keeps its lock's pid file.
  made.run_lock = base.kept.has_value() && base.kept->run_lock != nullptr &&
                          base.kept->run_lock->working_root() == made.policy->working_root
                      ? base.kept->run_lock
                      : std::make_shared<git_tx::RunLockKeeper>(made.policy->working_root);
  base.kept = made;
  return made;
}

absl::StatusOr<CallContext> MakeCallContext(const McpServerOptions& options, CallBase& base,
                                            const mcp::ToolCall& call) {
  absl::StatusOr<KeptRoots> kept = RootsOfCall(options, base, call);
  if (!kept.ok()) return kept.status();
  CallContext c{base.clada, std::move(kept->roots), call.client_roots.has_value() && !call.client_roots->empty()};
  c.clada.working_root = c.roots[0];
  c.clada.settings.allow.assign(c.roots.begin() + 1, c.roots.end());
  c.clada.path_policy = std::move(kept->policy);
  c.clada.run_lock = std::move(kept->run_lock);
  // exec's output as progress notifications; cancellation kills its process group.
  c.clada.cancel = call.cancelled;
  if (call.progress) {
    c.clada.on_exec_output = [progress = call.progress](absl::string_view stream, absl::string_view text) {
      progress(stream == "stderr" ? absl::StrCat("[stderr] ", text) : std::string(text));
    };
  }
  return c;
}

// Walks a directory for dir_tree as fs-ops' listings do: through its
// DirHandle (every directory opened from its parent's descriptor with
// O_NOFOLLOW | O_DIRECTORY, so a symlink swapped in for a directory during
// the walk is never followed), names sorted, denied names (.git, .ssh,
// .clada, ...) left out, every entry but a symlink passed through
// ResolvePath (one that fails is left out), symlinks shown and never
// followed. Iterative (an explicit stack),
// at most kMaxTreeEntries entries and kMaxTreeDepth levels, checking the
// call's deadline and cancellation: where it stops, `stopped` says why.
constexpr int kMaxTreeEntries = 20000;
constexpr int kMaxTreeDepth = 64;

struct TreeWalk {
  std::vector<std::string> excludes;
  const core::PathPolicy* policy = nullptr;
  absl::Time deadline = absl::InfiniteFuture();
  const std::atomic<bool>* cancelled = nullptr;
  int entries = 0;
  bool truncated = false;
  bool halted = false;  // stopped whole: no more entries at all
  std::string stopped;  // max_entries, max_depth, deadline or cancelled; "" when whole
};

bool Excluded(const TreeWalk& walk, const std::string& name, const std::string& relative) {
  for (const std::string& pattern : walk.excludes) {
    if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
    if (::fnmatch(pattern.c_str(), relative.c_str(), FNM_PATHNAME) == 0) return true;
  }
  return false;
}

void StopWalk(TreeWalk& walk, const char* why) {
  walk.truncated = true;
  walk.halted = true;
  if (walk.stopped.empty()) walk.stopped = why;
}

// The names of the directory `dir` holds to show, sorted; an errno.
int TreeNames(const TreeWalk& walk, const fs_ops::DirHandle& dir, const std::string& relative,
              std::vector<std::string>* names) {
  std::vector<fs_ops::DirEntry> listed;
  const int err = dir.List(&listed);
  names->clear();
  if (err != 0) return err;
  for (fs_ops::DirEntry& e : listed) {
    if (core::IsDeniedName(e.name)) continue;
    if (Excluded(walk, e.name, relative.empty() ? e.name : absl::StrCat(relative, "/", e.name))) continue;
    names->push_back(std::move(e.name));
  }
  std::sort(names->begin(), names->end());
  return 0;
}

core::Json WalkTree(const std::string& top, TreeWalk& walk) {
  struct Frame {
    std::string dir, relative;
    fs_ops::DirHandle handle;  // `dir`, held open
    std::vector<std::string> names;
    size_t next = 0;
    core::Json entry;     // this directory's entry in its parent (not for the top)
    core::Json children;  // filled as the walk goes
  };
  std::vector<Frame> stack;
  stack.push_back({top, "", fs_ops::DirHandle(), {}, 0, core::Json(), core::Json::array()});
  if (fs_ops::DirHandle::Open(top, &stack.back().handle) != 0) return core::Json::array();
  TreeNames(walk, stack.back().handle, "", &stack.back().names);
  while (true) {
    Frame& f = stack.back();
    const bool out_of_time = walk.entries % 64 == 0 && absl::Now() >= walk.deadline;
    const bool cancelled = walk.cancelled != nullptr && walk.cancelled->load();
    if (out_of_time) StopWalk(walk, "deadline");
    if (cancelled) StopWalk(walk, "cancelled");
    if (f.next < f.names.size() && walk.entries >= kMaxTreeEntries) StopWalk(walk, "max_entries");
    if (f.next >= f.names.size() || walk.halted) {
      if (stack.size() == 1) return std::move(f.children);
      core::Json entry = std::move(f.entry);
      entry["children"] = std::move(f.children);
      stack.pop_back();
      stack.back().children.push_back(std::move(entry));
      continue;
    }
    const std::string name = f.names[f.next++];
    const std::string full = absl::StrCat(f.dir, "/", name);
    const std::string rel = f.relative.empty() ? name : absl::StrCat(f.relative, "/", name);
    struct stat st;
    if (f.handle.Lstat(name, &st) != 0) continue;
    core::Json entry = {{"name", name}, {"type", FileType(st.st_mode)}};
    if (S_ISLNK(st.st_mode)) {
      std::string target;
      if (f.handle.Readlink(name, &target) == 0) entry["target"] = std::move(target);
      ++walk.entries;
      f.children.push_back(std::move(entry));
      continue;
    }
    // Every entry as every tool's path: a planted repository, a protected
    // file, a path that resolves out of the roots is left out.
    if (walk.policy != nullptr && !core::ResolvePath(*walk.policy, full).ok()) continue;
    ++walk.entries;
    if (!S_ISDIR(st.st_mode)) {
      f.children.push_back(std::move(entry));
      continue;
    }
    // Opened from its parent, not by its path: if it was swapped for a
    // symlink since the lstat above, the open fails and it is left out.
    fs_ops::DirHandle handle;
    if (f.handle.OpenChild(name, &handle) != 0) {
      --walk.entries;
      continue;
    }
    std::vector<std::string> names;
    TreeNames(walk, handle, rel, &names);
    if (static_cast<int>(stack.size()) > kMaxTreeDepth) {
      entry["children"] = core::Json::array();
      if (!names.empty()) {
        entry["truncated"] = true;
        walk.truncated = true;
        if (walk.stopped.empty()) walk.stopped = "max_depth";
      }
      f.children.push_back(std::move(entry));
      continue;
    }
    stack.push_back({full, rel, std::move(handle), std::move(names), 0, std::move(entry), core::Json::array()});
  }
}

// image/... or audio/... for a file name, or "".
std::string MediaType(absl::string_view path) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".png", "image/png"},   {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"}, {".gif", "image/gif"},
      {".webp", "image/webp"}, {".bmp", "image/bmp"},  {".svg", "image/svg+xml"}, {".mp3", "audio/mpeg"},
      {".wav", "audio/wav"},   {".ogg", "audio/ogg"},  {".flac", "audio/flac"},  {".m4a", "audio/mp4"}};
  const std::string lower = absl::AsciiStrToLower(path);
  for (const auto& [ext, type] : kTypes) {
    if (absl::EndsWith(lower, ext)) return type;
  }
  return "";
}

core::Json PathParam(const std::string& description) {
  return {{"type", "string"},
          {"description", absl::StrCat(description,
                                       " Relative to the working root, or absolute inside an allowed root.")}};
}

// The MCP hints of an action, all three always given (an omitted
// destructiveHint means true to a client, an omitted openWorldHint true):
// reads change nothing; exec runs any command, which may reach the network
// and destroy; a write that only adds (file_append, dir_create,
// context_add) is not destructive; the working-set actions touch only
// .clada/context.json.
core::Json ActionAnnotations(const ActionDefinition& def) {
  const bool read_only = def.type == "read" || def.name == "context_list";
  const bool additive = def.name == "file_append" || def.name == "dir_create" || def.name == "context_add";
  const bool exec = def.type == "dynamic";
  return {{"readOnlyHint", read_only},
          {"destructiveHint", !read_only && !additive},
          {"idempotentHint", read_only || def.name == "file_write" || def.name == "dir_create"},
          {"openWorldHint", exec}};
}

// A failed call: `text`, and `code` in the result's _meta
// (mcp::kMetaErrorCode), the executors' codes.
mcp::ToolResult ErrorResult(absl::string_view code, std::string text) {
  return mcp::ToolResult::Error(std::string(code), std::move(text));
}
// A failed call for `status` (its message after `prefix`), with its code
// (core::ErrorCode).
mcp::ToolResult ErrorResult(const absl::Status& status, absl::string_view prefix = "") {
  return ErrorResult(core::ErrorCode(status), absl::StrCat(prefix, status.message()));
}

// Resolves `args.path` for an extra tool through the call's path policy.
absl::StatusOr<std::string> ResolveToolPath(const CallContext& c, const core::Json& args) {
  if (!args.contains("path") || !args["path"].is_string()) {
    return absl::InvalidArgumentError("invalid arguments: path (a string) is required");
  }
  const std::string path = args["path"].get<std::string>();
  if (c.clada.path_policy != nullptr) return core::ResolvePath(*c.clada.path_policy, path);
  absl::StatusOr<core::PathPolicy> policy = MakeRunPathPolicy(c.clada.working_root, c.clada.settings);
  if (!policy.ok()) return policy.status();
  return core::ResolvePath(*policy, path);
}

// The run lock for dir_tree and file_info, as a batch takes it (none for a
// dry-run server, which touches nothing, .clada/lock included).
absl::StatusOr<std::optional<git_tx::RunLock>> LockForTool(const CallContext& c) {
  if (c.clada.dry_run) return std::optional<git_tx::RunLock>();
  const absl::Duration timeout = absl::Milliseconds(c.clada.settings.lock_timeout_ms);
  absl::StatusOr<git_tx::RunLock> held = c.clada.run_lock != nullptr ? c.clada.run_lock->Acquire(timeout)
                                                                     : git_tx::RunLock::Acquire(c.clada.working_root, timeout);
  if (!held.ok()) return held.status();
  return std::optional<git_tx::RunLock>(*std::move(held));
}

struct McpSession;
void RecordBatch(McpSession& session, const std::string& working_root, const ExecutionResult& result);

void AddExtraTools(const McpServerOptions& options, const std::shared_ptr<CallBase>& base,
                   const std::shared_ptr<McpSession>& session, mcp::ToolRegistry& tools) {
  const core::Json read_only = {{"readOnlyHint", true}, {"destructiveHint", false}, {"openWorldHint", false}};

  mcp::Tool apply;
  apply.name = "apply_answer";
  apply.title = "Apply a whole answer";
  apply.description =
      "Runs every action block of an answer, in any dialect clada reads (SHAM, CML, CSL, SEARCH/REPLACE, "
      "apply_patch, unified diff), exactly as `clada run` does: one batch, one git commit. Returns clada's report.";
  apply.input_schema = {
      {"type", "object"},
      {"properties",
       {{"text", {{"type", "string"}, {"description", "The answer: text with the action blocks in it."}}},
        {"dry_run",
         {{"type", "boolean"}, {"default", false}, {"description", "Check what would run; change nothing."}}}}},
      {"required", {"text"}},
      {"additionalProperties", false}};
  apply.output_schema = core::Json{{"type", "object"},
                                   {"properties",
                                    {{"success", {{"type", "boolean"}}},
                                     {"totalBlocks", {{"type", "integer"}}},
                                     {"executedActions", {{"type", "integer"}}},
                                     {"results", {{"type", "array"}}}}},
                                   {"required", {"success"}}};
  apply.call = [options, base, session](const mcp::ToolCall& call) {
    const core::Json& args = call.arguments;
    if (!args.contains("text") || !args["text"].is_string()) {
      return ErrorResult("invalid_params", "invalid arguments for apply_answer: text (a string) is required");
    }
    if (args.contains("dry_run") && !args["dry_run"].is_boolean()) {
      return ErrorResult("invalid_params",
                         absl::StrCat("invalid arguments for apply_answer: dry_run must be a boolean, got ",
                                      TypeOfJson(args["dry_run"])));
    }
    for (auto it = args.begin(); it != args.end(); ++it) {
      if (it.key() != "text" && it.key() != "dry_run") {
        return ErrorResult("invalid_params", absl::StrCat("invalid arguments for apply_answer: unknown parameter '",
                                                          it.key(), "' (apply_answer takes text, dry_run)"));
      }
    }
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    c->clada.dry_run = c->clada.dry_run || args.value("dry_run", false);
    // What the report shows is kept, as `clada run` keeps it (the typed
    // tools keep whole outputs): an answer of 300,000 tasks would otherwise
    // keep every result and return them all in structuredContent.
    c->clada.full_outputs = false;
    std::string text = args["text"].get<std::string>();
    core::DropUtf8Bom(&text);
    const std::string working_root = c->clada.working_root;
    ExecutionResult result = Clada(std::move(c->clada)).Execute(text);
    RecordBatch(*session, working_root, result);
    const std::string report = FormatTextReport(result, options.settings.report_budget_bytes);
    mcp::ToolResult out = mcp::ToolResult::Text(report, !result.success);
    out.structured_content = ExecutionResultToJson(result);
    if (!result.success) out.meta = core::Json{{mcp::kMetaErrorCode, FailureCode(result)}};
    return out;
  };
  // An answer may hold any action, exec included.
  apply.annotations = {
      {"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}, {"openWorldHint", true}};
  tools.Add(std::move(apply));

  mcp::Tool tree;
  tree.name = "dir_tree";
  tree.title = "Directory tree";
  tree.description =
      "The whole tree under a directory as JSON: each entry {name, type: file|directory|symlink|fifo|socket|"
      "device|other, children (directories), target (symlinks, not followed)}. .git, .ssh, .clada and every "
      "path the other tools refuse are left out; at most 20000 entries and 64 levels, within the total timeout "
      "(truncated says so, stopped says why: max_entries, max_depth, deadline, cancelled).";
  tree.input_schema = {{"type", "object"},
                       {"properties",
                        {{"path", PathParam("Directory to list.")},
                         {"exclude_patterns",
                          {{"type", "array"},
                           {"items", {{"type", "string"}}},
                           {"description", "Globs of names or relative paths to leave out, e.g. node_modules."}}}}},
                       {"required", {"path"}},
                       {"additionalProperties", false}};
  tree.output_schema = core::Json{{"type", "object"},
                                  {"properties",
                                   {{"path", {{"type", "string"}}},
                                    {"tree", {{"type", "array"}}},
                                    {"entries", {{"type", "integer"}}},
                                    {"truncated", {{"type", "boolean"}}},
                                    {"stopped", {{"type", "string"}}}}},
                                  {"required", {"path", "tree", "entries", "truncated"}}};
  tree.annotations = read_only;
  tree.call = [options, base](const mcp::ToolCall& call) {
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    absl::StatusOr<std::string> dir = ResolveToolPath(*c, call.arguments);
    if (!dir.ok()) return ErrorResult(dir.status(), "dir_tree: ");
    absl::StatusOr<std::optional<git_tx::RunLock>> lock = LockForTool(*c);
    if (!lock.ok()) return ErrorResult(lock.status(), "dir_tree: ");
    struct stat st;
    if (fs_ops::DiskStore::Get().Stat(*dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      return ErrorResult("failed_precondition",
                         absl::StrCat("dir_tree: not a directory: ", call.arguments["path"].get<std::string>()));
    }
    std::optional<core::PathPolicy> made;
    TreeWalk walk;
    walk.policy = c->clada.path_policy.get();
    if (walk.policy == nullptr) {
      absl::StatusOr<core::PathPolicy> policy = MakeRunPathPolicy(c->clada.working_root, c->clada.settings);
      if (!policy.ok()) return ErrorResult(policy.status(), "dir_tree: ");
      made = *std::move(policy);
      walk.policy = &*made;
    }
    if (c->clada.settings.total_timeout_ms > 0) {
      walk.deadline = absl::Now() + absl::Milliseconds(c->clada.settings.total_timeout_ms);
    }
    walk.cancelled = call.cancelled;
    if (call.arguments.contains("exclude_patterns")) {
      const core::Json& ex = call.arguments["exclude_patterns"];
      if (!ex.is_array())
        return ErrorResult("invalid_params", "invalid arguments for dir_tree: exclude_patterns must be an array");
      for (const core::Json& p : ex) {
        if (!p.is_string())
          return ErrorResult("invalid_params", "invalid arguments for dir_tree: exclude_patterns holds strings");
        walk.excludes.push_back(p.get<std::string>());
      }
    }
    core::Json children = WalkTree(*dir, walk);
    core::Json data = {{"path", *dir}, {"tree", std::move(children)}, {"entries", walk.entries},
                       {"truncated", walk.truncated}};
    if (!walk.stopped.empty()) data["stopped"] = walk.stopped;
    mcp::ToolResult out = mcp::ToolResult::Text(data.dump(1, ' ', false, core::Json::error_handler_t::replace));
    out.structured_content = std::move(data);
    return out;
  };
  tools.Add(std::move(tree));

  mcp::Tool info;
  info.name = "file_info";
  info.title = "File metadata";
  info.description =
      "Metadata of a file or directory: type, size, modification, access and change times (UTC), permissions, "
      "link count.";
  info.input_schema = {{"type", "object"},
                       {"properties", {{"path", PathParam("File or directory.")}}},
                       {"required", {"path"}},
                       {"additionalProperties", false}};
  info.output_schema = core::Json{{"type", "object"},
                                  {"properties",
                                   {{"path", {{"type", "string"}}},
                                    {"type", {{"type", "string"}}},
                                    {"size", {{"type", "integer"}}},
                                    {"modified", {{"type", "string"}}},
                                    {"accessed", {{"type", "string"}}},
                                    {"changed", {{"type", "string"}}},
                                    {"permissions", {{"type", "string"}}},
                                    {"links", {{"type", "integer"}}}}},
                                  {"required", {"path", "type", "size"}}};
  info.annotations = read_only;
  info.quick = true;
  info.call = [options, base](const mcp::ToolCall& call) {
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    absl::StatusOr<std::string> path = ResolveToolPath(*c, call.arguments);
    if (!path.ok()) return ErrorResult(path.status(), "file_info: ");
    absl::StatusOr<std::optional<git_tx::RunLock>> lock = LockForTool(*c);
    if (!lock.ok()) return ErrorResult(lock.status(), "file_info: ");
    // lstat(2) through fs-ops' store: a FIFO or device is described, never opened.
    struct stat st;
    if (fs_ops::DiskStore::Get().Lstat(*path, &st) != 0) {
      return ErrorResult("not_found",
                         absl::StrCat("file_info: file_not_found: ", call.arguments["path"].get<std::string>()));
    }
    core::Json data = {{"path", *path},
                       {"type", FileType(st.st_mode)},
                       {"size", static_cast<int64_t>(st.st_size)},
                       {"modified", FormatTimeUtc(st.st_mtime)},
                       {"accessed", FormatTimeUtc(st.st_atime)},
                       {"changed", FormatTimeUtc(st.st_ctime)},
                       {"permissions", absl::StrFormat("%04o", st.st_mode & 07777)},
                       {"links", static_cast<int64_t>(st.st_nlink)}};
    mcp::ToolResult out = mcp::ToolResult::Text(data.dump(1));
    out.structured_content = std::move(data);
    return out;
  };
  tools.Add(std::move(info));

  mcp::Tool roots;
  roots.name = "allowed_roots";
  roots.title = "Allowed roots";
  roots.description =
      "The directories tool calls may reach: the working root (relative paths start there) first, then the "
      "other allowed roots; and whether they are the client's roots or the server's (--root, --allow).";
  roots.input_schema = {{"type", "object"}, {"properties", core::Json::object()}, {"additionalProperties", false}};
  roots.output_schema = core::Json{{"type", "object"},
                                   {"properties",
                                    {{"working_root", {{"type", "string"}}},
                                     {"roots", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                                     {"source", {{"type", "string"}, {"enum", {"client", "server"}}}}}},
                                   {"required", {"working_root", "roots", "source"}}};
  roots.annotations = read_only;
  roots.quick = true;
  roots.call = [options, base](const mcp::ToolCall& call) {
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    core::Json data = {{"working_root", c->roots[0]},
                       {"roots", c->roots},
                       {"source", c->client_roots ? "client" : "server"}};
    mcp::ToolResult out = mcp::ToolResult::Text(absl::StrCat("Allowed roots (", c->client_roots ? "the client's" : "the server's",
                                                             "; the first is the working root):\n",
                                                             absl::StrJoin(c->roots, "\n")));
    out.structured_content = std::move(data);
    return out;
  };
  tools.Add(std::move(roots));

  mcp::Tool media;
  media.name = "file_read_media";
  media.title = "Read an image or audio file";
  media.description =
      "An image (png, jpeg, gif, webp, bmp, svg) or audio file (mp3, wav, ogg, flac, m4a) as MCP image or audio "
      "content (base64), up to the file size limit.";
  media.input_schema = {{"type", "object"},
                        {"properties", {{"path", PathParam("Image or audio file.")}}},
                        {"required", {"path"}},
                        {"additionalProperties", false}};
  media.annotations = read_only;
  media.quick = true;
  media.call = [options, base](const mcp::ToolCall& call) {
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    absl::StatusOr<std::string> path = ResolveToolPath(*c, call.arguments);
    if (!path.ok()) return ErrorResult(path.status(), "file_read_media: ");
    const std::string type = MediaType(*path);
    if (type.empty()) {
      return ErrorResult("invalid_params",
                         absl::StrCat("file_read_media: not an image or audio file by its name: ",
                                      call.arguments["path"].get<std::string>(), "; file_read reads text"));
    }
    // Read as fs-ops reads: a non-blocking open, and a FIFO, socket or
    // device named like an image refused, not waited on.
    std::string bytes;
    struct stat st;
    const int err = fs_ops::DiskStore::Get().ReadRegular(*path, options.settings.max_file_bytes, &bytes, &st);
    if (err == fs_ops::kNotRegular) {
      return ErrorResult("not_a_file",
                         absl::StrCat("file_read_media: '", call.arguments["path"].get<std::string>(),
                                      "' is not a regular file (a FIFO, socket or device); it was not opened, so "
                                      "nothing waits on it"));
    }
    if (err == EFBIG) {
      return ErrorResult("too_large", absl::StrCat("file_read_media: '", call.arguments["path"].get<std::string>(),
                                                   "' is over the limit of ", options.settings.max_file_bytes,
                                                   " bytes (setting max_file_size)"));
    }
    if (err != 0) {
      return ErrorResult(core::ErrnoStatus(err, "cannot read", *path), "file_read_media: ");
    }
    mcp::ToolResult out;
    out.content.push_back({{"type", absl::StartsWith(type, "image/") ? "image" : "audio"},
                           {"data", absl::Base64Escape(bytes)},
                           {"mimeType", type}});
    return out;
  };
  tools.Add(std::move(media));
}

}  // namespace

core::Json ActionInputSchema(const ActionDefinition& def) {
  core::Json properties = core::Json::object();
  core::Json required = core::Json::array();
  for (const ParameterDef& p : def.parameters) {
    core::Json s = core::Json::object();
    switch (p.type) {
      case ParamType::kString:
        s["type"] = "string";
        break;
      case ParamType::kInteger:
        s["type"] = "integer";
        break;
      case ParamType::kBoolean:
        s["type"] = "boolean";
        break;
      case ParamType::kEnum:
        s["type"] = "string";
        s["enum"] = p.values;
        break;
    }
    std::string description = p.description;
    if (p.format == "path") {
      absl::StrAppend(&description, description.empty() ? "" : " ",
                      "Relative to the working root, or absolute inside an allowed root.");
    } else if (p.format == "multiline_paths") {
      absl::StrAppend(&description, description.empty() ? "" : " ",
                      "Each relative to the working root, or absolute inside an allowed root.");
    }
    if (!description.empty()) s["description"] = description;
    if (p.default_value.has_value()) s["default"] = *p.default_value;
    properties[p.name] = std::move(s);
    if (p.required) required.push_back(p.name);
  }
  core::Json schema = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

std::optional<core::Json> ActionOutputSchema(const ActionDefinition& def) {
  if (!def.returns.is_object()) return std::nullopt;
  bool data = false;
  for (auto it = def.returns.begin(); it != def.returns.end(); ++it) {
    if (it.key() != "success" && it.key() != "error?" && it.key() != "error") data = true;
  }
  if (!data) return std::nullopt;
  core::Json schema = ReturnsToSchema(def.returns);
  schema["required"] = {"success"};
  return schema;
}

std::string ArgumentsToParams(const ActionDefinition& def, const core::Json& arguments, core::Json* params) {
  std::vector<std::string> problems;
  *params = core::Json::object();
  std::vector<std::string> names;
  for (const ParameterDef& p : def.parameters) names.push_back(p.name);
  const std::string takes =
      names.empty() ? absl::StrCat(def.name, " takes no parameter")
                    : absl::StrCat(def.name, " takes ", absl::StrJoin(names, ", "));
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    const ParameterDef* p = def.FindParameter(it.key());
    if (p == nullptr) {
      problems.push_back(absl::StrCat("unknown parameter '", it.key(), "' (", takes, ")"));
      continue;
    }
    const core::Json& v = it.value();
    switch (p->type) {
      case ParamType::kString:
        if (v.is_string()) {
          // The format checks a SHAM block's value gets (path, line range,
          // path list, UTF-8): one validator for both.
          absl::StatusOr<core::Json> checked = sham_action_parser::CheckParameterValue(*p, v.get<std::string>());
          if (checked.ok()) {
            (*params)[p->name] = *std::move(checked);
          } else {
            problems.push_back(std::string(checked.status().message()));
          }
        } else {
          problems.push_back(absl::StrCat(p->name, " must be a string, got ", TypeOfJson(v)));
        }
        break;
      case ParamType::kInteger:
        if (v.is_number_integer() || v.is_number_unsigned()) {
          (*params)[p->name] = v.get<int64_t>();
        } else if (v.is_number_float() && std::trunc(v.get<double>()) == v.get<double>() &&
                   std::fabs(v.get<double>()) < 9e15) {
          (*params)[p->name] = static_cast<int64_t>(v.get<double>());
        } else {
          problems.push_back(absl::StrCat(p->name, " must be an integer, got ", TypeOfJson(v)));
        }
        break;
      case ParamType::kBoolean:
        if (v.is_boolean()) {
          (*params)[p->name] = v;
        } else {
          problems.push_back(absl::StrCat(p->name, " must be a boolean (true or false), got ", TypeOfJson(v)));
        }
        break;
      case ParamType::kEnum:
        if (v.is_string() && std::find(p->values.begin(), p->values.end(), v.get<std::string>()) != p->values.end()) {
          (*params)[p->name] = v;
        } else {
          problems.push_back(absl::StrCat(p->name, " must be one of ", absl::StrJoin(p->values, ", "), ", got ",
                                          v.is_string() ? absl::StrCat("'", v.get<std::string>(), "'") : TypeOfJson(v)));
        }
        break;
    }
  }
  for (const ParameterDef& p : def.parameters) {
    if (params->contains(p.name) || arguments.contains(p.name)) continue;
    if (p.required) {
      problems.push_back(absl::StrCat(p.name, " is required"));
    } else if (p.default_value.has_value()) {
      (*params)[p.name] = *p.default_value;
    }
  }
  if (problems.empty()) return "";
  return absl::StrCat("invalid arguments for ", def.name, ": ", absl::StrJoin(problems, "; "));
}

namespace {

// EffectiveRoots; `complete` set false when a root was left out because it
// does not exist.
absl::StatusOr<std::vector<std::string>> EffectiveRootsOf(const McpServerOptions& options,
                                                          const std::optional<std::vector<std::string>>& client_roots,
                                                          bool* complete) {
  std::vector<std::string> server = {options.root};
  for (const std::string& a : options.settings.allow) {
    char real[PATH_MAX];
    if (::realpath(a.c_str(), real) != nullptr) {
      server.push_back(real);
    } else {
      *complete = false;
    }
  }
  if (!client_roots.has_value() || client_roots->empty()) return server;
  const bool limited = !options.settings.allow.empty();
  std::vector<std::string> kept;
  std::vector<std::string> refused;
  auto keep = [&kept](const std::string& r) {
    if (std::find(kept.begin(), kept.end(), r) == kept.end()) kept.push_back(r);
  };
  for (const std::string& root : *client_roots) {
    char real[PATH_MAX];
    if (::realpath(root.c_str(), real) == nullptr) {
      refused.push_back(absl::StrCat(root, " (does not exist)"));
      *complete = false;
      continue;
    }
    const std::string canonical = real;
    if (!limited) {
      keep(canonical);
      continue;
    }
    // The intersection of the client's root with the server's roots.
    bool any = false;
    for (const std::string& s : server) {
      if (core::IsWithin(canonical, s)) {
        keep(canonical);
        any = true;
        break;
      }
      if (core::IsWithin(s, canonical)) {
        keep(s);
        any = true;
      }
    }
    if (!any) refused.push_back(absl::StrCat(root, " (outside --root and --allow)"));
  }
  if (kept.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("path_escape: none of the client's roots may be reached: ", absl::StrJoin(refused, ", "),
                     "; the server allows ", absl::StrJoin(server, ", ")));
  }
  return kept;
}

// The batches this MCP connection committed, oldest first, each with the
// working root it was made in: what its `undo` may take back and its `log`
// marks (a user's own commits and other sessions' are never undone here).
struct McpSession {
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> commits;  // working root, AI: commit id
};

void RecordBatch(McpSession& session, const std::string& working_root, const ExecutionResult& result) {
  if (!result.git.ai_commit.has_value()) return;
  std::lock_guard<std::mutex> lock(session.mu);
  session.commits.emplace_back(working_root, *result.git.ai_commit);
}

// `action` run as one batch of the session (one run lock, one AI commit
// that undo_batch may take back), as a tool result.
mcp::ToolResult RunActionAsBatch(CallContext& c, McpSession& session, core::Action action, bool structured,
                                 int64_t report_budget) {
  action.metadata.block_id = "mcp";
  std::vector<core::Action> actions;
  actions.push_back(std::move(action));
  const std::string working_root = c.clada.working_root;
  // The tools are SHAM's actions: a failure's fix in SHAM's words.
  ExecutionResult result = Clada(std::move(c.clada)).ExecuteActions(std::move(actions), "mcp", "sham");
  RecordBatch(session, working_root, result);
  return ActionToolResult(std::move(result), structured, report_budget);
}

// `clada log -n N --json` in `working_root`: the recent clada commits,
// newest first ({commit, time, subject, kind}).
absl::StatusOr<core::Json> RecentBatches(const std::string& working_root, const Settings& settings, int n) {
  std::ostringstream out, err;
  const int code = git_tx::RunGitCommand("log", {"-n", absl::StrCat(n), "--json"}, working_root,
                                         MakeGitOptions(settings), out, err);
  if (code != 0) return absl::FailedPreconditionError(absl::StripAsciiWhitespace(err.str()));
  core::Json list = core::Json::parse(out.str(), nullptr, false);
  if (!list.is_array()) return absl::InternalError("clada log --json printed no JSON array");
  return list;
}

// One edit of edit_file: `old_text` occurs exactly once in `text`.
absl::Status ApplyOneEdit(std::string& text, const std::string& old_text, const std::string& new_text) {
  if (old_text.empty()) return core::WithCode(absl::InvalidArgumentError("old_text is empty"), "invalid_params");
  const size_t at = text.find(old_text);
  if (at == std::string::npos) {
    return core::WithCode(absl::NotFoundError("old_text was not found"), "search_not_found");
  }
  size_t count = 1;
  for (size_t next = text.find(old_text, at + 1); next != std::string::npos; next = text.find(old_text, next + 1)) {
    ++count;
  }
  if (count > 1) {
    return core::WithCode(absl::FailedPreconditionError(absl::StrCat(
                              "old_text occurs ", count, " times; add the lines around it so that it names one place")),
                          "match_count_mismatch");
  }
  text.replace(at, old_text.size(), new_text);
  return absl::OkStatus();
}

void AddSessionTools(const McpServerOptions& options, const std::shared_ptr<CallBase>& base,
                     const std::shared_ptr<McpSession>& session, mcp::ToolRegistry& tools) {
  mcp::Tool edit;
  edit.name = "edit_file";
  edit.title = "Several edits of one file";
  edit.description =
      "Applies several exact-text edits to one file, all or none: each old_text must occur exactly once in the "
      "text as the edits before it left it; if any does not, nothing is written and the error says which. "
      "dry_run returns the unified diff and changes nothing. Otherwise the new text is written as one batch "
      "(one git commit that undo_batch takes back), and only if the file still holds the text the edits were "
      "made on (a change since then fails the call, writing nothing); the report shows the diff.";
  edit.input_schema = {
      {"type", "object"},
      {"properties",
       {{"path", PathParam("File to edit.")},
        {"edits",
         {{"type", "array"},
          {"minItems", 1},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"old_text", {{"type", "string"}, {"description", "Exact text to find; once in the file."}}},
              {"new_text", {{"type", "string"}, {"description", "Text that replaces it (may be empty)."}}}}},
            {"required", {"old_text", "new_text"}},
            {"additionalProperties", false}}},
          {"description", "The edits, applied in order."}}},
        {"dry_run",
         {{"type", "boolean"}, {"default", false}, {"description", "Return the diff; change nothing."}}}}},
      {"required", {"path", "edits"}},
      {"additionalProperties", false}};
  edit.annotations = {
      {"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}, {"openWorldHint", false}};
  edit.call = [options, base, session](const mcp::ToolCall& call) {
    const core::Json& args = call.arguments;
    for (auto it = args.begin(); it != args.end(); ++it) {
      if (it.key() != "path" && it.key() != "edits" && it.key() != "dry_run") {
        return ErrorResult("invalid_params", absl::StrCat("invalid arguments for edit_file: unknown parameter '",
                                                          it.key(), "' (edit_file takes path, edits, dry_run)"));
      }
    }
    if (!args.contains("edits") || !args["edits"].is_array() || args["edits"].empty()) {
      return ErrorResult("invalid_params",
                         "invalid arguments for edit_file: edits (a non-empty array of {old_text, new_text}) is "
                         "required");
    }
    if (args.contains("dry_run") && !args["dry_run"].is_boolean()) {
      return ErrorResult("invalid_params",
                         absl::StrCat("invalid arguments for edit_file: dry_run must be a boolean, got ",
                                      TypeOfJson(args["dry_run"])));
    }
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    absl::StatusOr<std::string> resolved = ResolveToolPath(*c, args);
    if (!resolved.ok()) return ErrorResult(resolved.status());
    absl::StatusOr<std::string> before = core::ReadFileToString(*resolved, c->clada.settings.max_file_bytes);
    if (!before.ok()) return ErrorResult(before.status(), "edit_file: ");
    std::string text = *before;
    const core::Json& edits = args["edits"];
    for (size_t i = 0; i < edits.size(); ++i) {
      const core::Json& e = edits[i];
      if (!e.is_object() || !e.contains("old_text") || !e["old_text"].is_string() || !e.contains("new_text") ||
          !e["new_text"].is_string()) {
        return ErrorResult("invalid_params", absl::StrCat("invalid arguments for edit_file: edits[", i,
                                                          "] needs old_text and new_text, both strings"));
      }
      const absl::Status problem =
          ApplyOneEdit(text, e["old_text"].get<std::string>(), e["new_text"].get<std::string>());
      if (!problem.ok()) {
        return ErrorResult(
            core::ErrorCode(problem),
            absl::StrCat("edit_file: edit ", i + 1, " of ", edits.size(), " in ", args["path"].get<std::string>(), ": ",
                         problem.message(), "; nothing was written (the edits apply all or none)"));
      }
    }
    c->clada.dry_run = c->clada.dry_run || args.value("dry_run", false);
    // The file was read before the batch's run lock is taken: the batch
    // replaces exactly the text read, so an editor's save in between makes
    // it fail (old_text not found) instead of being overwritten. `before`
    // is not empty: every edit's old_text was found in it.
    core::Action action;
    action.name = "file_replace_text";
    action.params = {{"path", args["path"]}, {"old_text", *std::move(before)}, {"new_text", std::move(text)}};
    return RunActionAsBatch(*c, *session, std::move(action), false, options.settings.report_budget_bytes);
  };
  tools.Add(std::move(edit));

  mcp::Tool undo;
  // Not "undo": the schema's undo is the user's (`clada undo`), any AI: commit at HEAD.
  undo.name = "undo_batch";
  undo.title = "Take back this session's last batch";
  undo.description =
      "Takes back the last batch this MCP session committed (its AI: commit), as `clada undo` does, only while it "
      "is still the newest clada commit and no file it changed was edited since. Never undoes the user's commits "
      "or another session's.";
  undo.input_schema = {{"type", "object"}, {"properties", core::Json::object()}, {"additionalProperties", false}};
  undo.annotations = {
      {"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}, {"openWorldHint", false}};
  undo.call = [options, base, session](const mcp::ToolCall& call) {
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    const std::string& root = c->clada.working_root;
    std::string last;
    {
      std::lock_guard<std::mutex> lock(session->mu);
      for (auto it = session->commits.rbegin(); it != session->commits.rend() && last.empty(); ++it) {
        if (it->first == root) last = it->second;
      }
    }
    if (last.empty()) {
      return ErrorResult("failed_precondition",
                         absl::StrCat("undo_batch: this session has committed no batch in ", root,
                                      " to take back (the user's own commits are theirs: `clada undo` in a terminal)"));
    }
    if (c->clada.dry_run) {
      return ErrorResult("failed_precondition", "undo_batch: the server runs with --dry-run; nothing is undone");
    }
    absl::StatusOr<core::Json> recent = RecentBatches(root, c->clada.settings, 1);
    if (!recent.ok()) return ErrorResult(recent.status(), "undo_batch: ");
    const std::string newest = !recent->empty() ? (*recent)[0].value("commit", "") : "";
    if (newest != last) {
      return ErrorResult(
          "failed_precondition",
          absl::StrCat("undo_batch: this session's last batch ", last.substr(0, 7),
                       " is no longer the newest clada commit (", newest.empty() ? "none" : newest.substr(0, 7),
                       " is): another batch came after it; nothing was undone"));
    }
    std::ostringstream out, err;
    const int code = git_tx::RunGitCommand("undo", {}, root, MakeGitOptions(c->clada.settings), out, err);
    if (code != 0)
      return ErrorResult("failed_precondition", absl::StrCat("undo_batch: ", absl::StripAsciiWhitespace(err.str())));
    {
      std::lock_guard<std::mutex> lock(session->mu);
      auto& v = session->commits;
      v.erase(std::remove(v.begin(), v.end(), std::make_pair(root, last)), v.end());
    }
    return mcp::ToolResult::Text(out.str());
  };
  tools.Add(std::move(undo));

  mcp::Tool log;
  log.name = "log";
  log.title = "Recent batches";
  log.description =
      "The recent clada commits in the working root, newest first: AI: batches and [clada:pre] snapshots of the "
      "user's own changes, each marked when this session made it (undo_batch takes back the newest of those).";
  log.input_schema = {
      {"type", "object"},
      {"properties",
       {{"limit",
         {{"type", "integer"}, {"minimum", 1}, {"maximum", 200}, {"default", 10}, {"description", "How many."}}}}},
      {"additionalProperties", false}};
  log.annotations = {
      {"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}};
  log.call = [options, base, session](const mcp::ToolCall& call) {
    const core::Json& args = call.arguments;
    for (auto it = args.begin(); it != args.end(); ++it) {
      if (it.key() != "limit") {
        return ErrorResult("invalid_params", absl::StrCat("invalid arguments for log: unknown parameter '", it.key(),
                                                          "' (log takes limit)"));
      }
    }
    int limit = 10;
    if (args.contains("limit")) {
      if (!args["limit"].is_number_integer() || args["limit"].get<int64_t>() < 1 || args["limit"].get<int64_t>() > 200) {
        return ErrorResult("invalid_params", "invalid arguments for log: limit must be an integer from 1 to 200");
      }
      limit = args["limit"].get<int>();
    }
    absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
    if (!c.ok()) return ErrorResult(c.status());
    const std::string& root = c->clada.working_root;
    absl::StatusOr<core::Json> recent = RecentBatches(root, c->clada.settings, limit);
    if (!recent.ok()) return ErrorResult(recent.status(), "log: ");
    std::set<std::string> mine;
    {
      std::lock_guard<std::mutex> lock(session->mu);
      for (const auto& [r, commit] : session->commits) {
        if (r == root) mine.insert(commit);
      }
    }
    std::string text;
    for (core::Json& entry : *recent) {
      const std::string commit = entry.value("commit", "");
      const bool this_session = mine.count(commit) > 0;
      entry["this_session"] = this_session;
      absl::StrAppend(&text, commit.substr(0, 7), "  ", entry.value("time", ""), "  ", entry.value("subject", ""),
                      this_session ? "  (this session)" : "", "\n");
    }
    if (recent->empty()) text = "no clada commits on this branch yet\n";
    mcp::ToolResult out = mcp::ToolResult::Text(text);
    out.structured_content = core::Json{{"batches", *std::move(recent)}};
    return out;
  };
  tools.Add(std::move(log));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> EffectiveRoots(const McpServerOptions& options,
                                                        const std::optional<std::vector<std::string>>& client_roots) {
  bool complete = true;
  return EffectiveRootsOf(options, client_roots, &complete);
}

mcp::ToolRegistry MakeCladaTools(const McpServerOptions& options) {
  mcp::ToolRegistry tools;
  const std::shared_ptr<CallBase> base = MakeCallBase(options);
  const auto session = std::make_shared<McpSession>();
  for (const ActionDefinition& def : sham_action_parser::LoadedSchema().actions) {
    if (!def.IsLlmAccessible()) continue;
    mcp::Tool tool;
    tool.name = def.name;
    tool.description = def.description;
    tool.input_schema = ActionInputSchema(def);
    tool.output_schema = ActionOutputSchema(def);
    tool.annotations = ActionAnnotations(def);
    // A bounded read of one file or one directory: run on the reading
    // thread (mcp::Tool::quick). Walks (grep, glob), commands and writes
    // (which take git) are not.
    tool.quick = def.name == "file_read" || def.name == "ls";
    const bool structured = tool.output_schema.has_value();
    const ActionDefinition* d = &def;
    tool.call = [options, base, session, d, structured](const mcp::ToolCall& call) {
      if (call.cancelled != nullptr && call.cancelled->load())
        return ErrorResult("cancelled", "cancelled before it ran");
      core::Json params;
      std::string problem = ArgumentsToParams(*d, call.arguments, &params);
      if (!problem.empty()) return ErrorResult("invalid_params", problem);
      absl::StatusOr<CallContext> c = MakeCallContext(options, *base, call);
      if (!c.ok()) return ErrorResult(c.status());
      core::Action action;
      action.name = d->name;
      action.params = std::move(params);
      return RunActionAsBatch(*c, *session, std::move(action), structured, options.settings.report_budget_bytes);
    };
    tools.Add(std::move(tool));
  }
  AddExtraTools(options, base, session, tools);
  AddSessionTools(options, base, session, tools);
  return tools;
}

int RunMcpServer(const McpServerOptions& options, int in_fd, int out_fd, std::ostream& err) {
  ::signal(SIGPIPE, SIG_IGN);  // a client gone: writes fail, the server ends at end of input
  int protocol_fd = out_fd;
  if (out_fd == STDOUT_FILENO) {
    // Only protocol on the client's stdout: anything else writing to fd 1
    // lands on stderr.
    protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      err << "clada mcp: cannot set up stdout\n";
      return 2;
    }
  }
  mcp::ServerInfo info{"clada", kVersion, kInstructions, 5000};
  info.description =
      "clada's file, search and exec actions as tools, under its path policy; each call that changes files is "
      "one git commit that `clada undo` takes back.";
  int code = 0;
  {
    mcp::Server server(info, MakeCladaTools(options), mcp::FdWriter(protocol_fd));
    err << "clada mcp: serving " << options.root << (options.dry_run ? " (dry run)" : "")
        << " over stdin/stdout; closing stdin stops it\n";
    err.flush();
    const size_t max_line = static_cast<size_t>(std::max<int64_t>(options.settings.max_input_bytes, 1 << 20)) + (1 << 20);
    absl::Status status = mcp::ServeLines(in_fd, max_line, server);
    if (!status.ok()) {
      err << "clada mcp: " << status.message() << "\n";
      code = 2;
    }
  }
  if (protocol_fd != out_fd) ::close(protocol_fd);
  return code;
}

}  // namespace clada
