#include "proj/src/report.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace clada {
namespace {

std::string JsonText(const core::Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The value shown after the action name: the schema's primary parameter,
// multi-line values (path lists, code) by their first line.
std::string PrimaryValue(const ActionResult& r) {
  std::string v = PrimaryParamValue(r.action, r.params);
  size_t nl = v.find('\n');
  if (nl != std::string::npos) v = absl::StrCat(v.substr(0, nl), " …");
  return v;
}

// First line after `head`, the rest indented under it.
void AppendMultiline(std::string& out, absl::string_view head, absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  absl::StrAppend(&out, head, lines[0], "\n");
  for (size_t i = 1; i < lines.size(); ++i) absl::StrAppend(&out, "    ", lines[i], "\n");
}

// What one action may show in the outputs section (--max-output), shared by
// everything it shows: what does not fit is cut, at a character boundary,
// and marked "[output truncated]". 0 or less: no limit.
class OutputBudget {
 public:
  explicit OutputBudget(int64_t max_bytes) : left_(max_bytes), unlimited_(max_bytes <= 0) {}

  std::string Take(const std::string& text) {
    if (unlimited_ || static_cast<int64_t>(text.size()) <= left_) {
      if (!unlimited_) left_ -= static_cast<int64_t>(text.size());
      return text;
    }
    size_t keep = static_cast<size_t>(left_);
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    left_ = 0;
    return absl::StrCat(text.substr(0, keep), "\n[output truncated]");
  }

 private:
  int64_t left_;
  bool unlimited_;
};

// A file between its START and END lines; the END line is always there.
void AppendFile(std::string& out, const std::string& path, const std::string& content, OutputBudget& budget) {
  absl::StrAppend(&out, "=== START FILE: ", path, " ===\n");
  std::string body = budget.Take(content);
  absl::StrAppend(&out, body);
  if (!body.empty() && body.back() != '\n') out += '\n';
  absl::StrAppend(&out, "=== END FILE: ", path, " ===\n");
}

std::string Str(const core::Json& data, const char* key) {
  auto it = data.find(key);
  return it == data.end() ? "" : JsonText(*it);
}

// The outputs of one action, shaped by what its data holds; "" if none.
// exec's streams come already cut to the limit (head and tail kept, with
// what was left out named), so they are shown whole.
std::string FormatOutput(const ActionResult& r, int64_t max_bytes) {
  const core::Json& d = r.data;
  OutputBudget budget(max_bytes);
  std::string body;
  bool listing = false;  // cut as a whole below
  if (d.contains("stdout") || d.contains("stderr")) {  // exec
    std::string out = Str(d, "stdout"), err = Str(d, "stderr");
    absl::StrAppend(&body, "exit code: ", Str(d, "exit_code"));
    if (d.value("timed_out", false)) absl::StrAppend(&body, " (timed out)");
    if (d.contains("duration_ms")) absl::StrAppend(&body, ", ", Str(d, "duration_ms"), " ms");
    body += "\n";
    if (!out.empty()) {
      absl::StrAppend(&body, "--- stdout ---\n", out);
      if (body.back() != '\n') body += '\n';
    }
    if (!err.empty()) {
      absl::StrAppend(&body, "--- stderr ---\n", err);
      if (body.back() != '\n') body += '\n';
    }
  } else if (d.contains("files") && d["files"].is_array()) {  // files_read
    for (const core::Json& f : d["files"]) AppendFile(body, Str(f, "path"), Str(f, "content"), budget);
  } else if (d.contains("content") && d["content"].is_string()) {  // file_read, file_read_numbered
    AppendFile(body, Str(d, "path"), d["content"].get<std::string>(), budget);
  } else if (d.contains("entries") && d["entries"].is_array()) {  // ls, context_list
    listing = true;
    for (const core::Json& e : d["entries"]) {
      if (e.contains("name")) {
        std::string name = Str(e, "name");
        if (Str(e, "type") == "directory") name += "/";
        absl::StrAppend(&body, absl::StrFormat("%-9s %10s  %s  %s\n", Str(e, "type"), Str(e, "size"),
                                               Str(e, "modified"), name));
      } else {  // context_list
        std::string what = Str(e, "type") == "directory" ? absl::StrCat("directory, ", Str(e, "files"), " files, ")
                                                          : "";
        absl::StrAppend(&body, Str(e, "path"), "  (", what, Str(e, "size"), " bytes)",
                        e.value("exists", true) ? "" : "  (missing)", "\n");
      }
    }
    if (d["entries"].empty()) body += "(empty)\n";
    if (d.contains("totals") && d["totals"].is_object()) {
      const core::Json& t = d["totals"];
      absl::StrAppend(&body, "total: ", Str(t, "entries"), " entries, ", Str(t, "files"), " files, ",
                      Str(t, "bytes"), " bytes\n");
    }
  } else if (d.contains("removed") && d["removed"].is_array()) {  // context_remove, _prune, _clear
    listing = true;
    for (const core::Json& p : d["removed"]) absl::StrAppend(&body, "removed ", JsonText(p), "\n");
    if (d["removed"].empty()) body += "(nothing removed)\n";
  } else if (d.contains("matches") && d["matches"].is_array()) {  // grep, glob
    listing = true;
    for (const core::Json& m : d["matches"]) {
      if (m.is_object()) {
        absl::StrAppend(&body, Str(m, "file"), ":", Str(m, "line_number"), ":", Str(m, "line"), "\n");
      } else {
        absl::StrAppend(&body, JsonText(m), "\n");
      }
    }
    if (d["matches"].empty()) body += "(no matches)\n";
  } else {
    return "";
  }
  if (listing) {
    body = budget.Take(body);
    if (body.back() != '\n') body += '\n';
  }
  std::string primary = PrimaryValue(r);
  return absl::StrCat("--- ", r.block_id, " ", r.action, primary.empty() ? "" : " ", primary, " ---\n", body);
}

struct SkippedBlock {
  std::string block_id;
  int start_line = 0;
  std::string action;
  std::vector<const sham_action_parser::ActionParseError*> errors;
};

// Parse errors grouped per block (by position, since ids may repeat).
std::vector<SkippedBlock> GroupSkipped(const ExecutionResult& result) {
  std::vector<SkippedBlock> blocks;
  for (const auto& e : result.parse_errors) {
    if (blocks.empty() || blocks.back().block_id != e.block_id || blocks.back().start_line != e.block_start_line) {
      blocks.push_back(SkippedBlock{e.block_id, e.block_start_line, e.action.value_or(""), {}});
    }
    blocks.back().errors.push_back(&e);
  }
  return blocks;
}

std::string ShortId(const std::optional<std::string>& id) { return id ? id->substr(0, 7) : ""; }

}  // namespace

int CountSkippedBlocks(const ExecutionResult& result) { return static_cast<int>(GroupSkipped(result).size()); }

std::string FormatResultsSection(const ExecutionResult& result) {
  std::string out = absl::StrCat(kResultsMarker, "\n");
  if (result.fatal_error) AppendMultiline(out, "FATAL: ", *result.fatal_error);
  if (result.dry_run) out += "(dry run: nothing was executed)\n";
  for (const ActionResult& r : result.results) {
    std::string head = absl::StrCat(r.block_id, r.success ? " ✅ " : " ❌ ", r.action);
    std::string primary = PrimaryValue(r);
    if (!primary.empty()) absl::StrAppend(&head, " ", primary);
    if (r.success) {
      if (r.data.value("already_applied", false)) absl::StrAppend(&head, " (already applied)");
      absl::StrAppend(&out, head, "\n");
    } else {
      AppendMultiline(out, absl::StrCat(head, " - "), r.error);
    }
    for (const std::string& w : r.warnings) absl::StrAppend(&out, "    warning: ", w, "\n");
  }
  for (const SkippedBlock& b : GroupSkipped(result)) {
    std::string head = absl::StrCat(b.block_id.empty() ? "?" : b.block_id, " ❌ ",
                                    b.action.empty() ? "block" : b.action, " (skipped, block at line ",
                                    b.start_line, ") - ");
    for (size_t i = 0; i < b.errors.size(); ++i) {
      std::string msg = absl::StrCat(b.errors[i]->error_type, " error: ", b.errors[i]->message);
      if (!b.errors[i]->fix.empty()) absl::StrAppend(&msg, "\nfix: ", b.errors[i]->fix);
      if (i == 0) {
        AppendMultiline(out, head, msg);
      } else {
        AppendMultiline(out, "    ", msg);
      }
    }
  }
  if (result.results.empty() && result.parse_errors.empty() && !result.fatal_error) {
    out += "No action blocks found.\n";
  }
  for (const std::string& w : result.warnings) absl::StrAppend(&out, "warning: ", w, "\n");
  const GitSummary& git = result.git;
  for (const std::string& note : git.notes) absl::StrAppend(&out, "git: ", note, "\n");
  if (git.snapshot_commit) {
    absl::StrAppend(&out, "git: your uncommitted changes were saved first as ", ShortId(git.snapshot_commit),
                    " [clada:pre]\n");
  }
  if (git.ai_commit) absl::StrAppend(&out, "git: changes committed as ", ShortId(git.ai_commit), "\n");
  if (!git.foreign_changes.empty()) {
    absl::StrAppend(&out, "git: changed during the run by something else, left uncommitted: ",
                    absl::StrJoin(git.foreign_changes, ", "), "\n");
  }
  return out;
}

std::string FormatReport(const ExecutionResult& result, int64_t max_output_bytes) {
  std::string out = FormatResultsSection(result);
  std::string outputs;
  for (const ActionResult& r : result.results) {
    // A failed action shows what it did produce: exec's streams, and the
    // files files_read could read (its error names the ones it could not).
    if (!r.success && !r.data.contains("stdout") && !r.data.contains("files")) continue;
    std::string o = FormatOutput(r, max_output_bytes);
    if (!o.empty()) absl::StrAppend(&outputs, o);
  }
  if (!outputs.empty()) absl::StrAppend(&out, kOutputsMarker, "\n", outputs);
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

core::Json ExecutionResultToJson(const ExecutionResult& result) {
  core::Json j;
  j["success"] = result.success;
  j["totalBlocks"] = result.total_blocks;
  j["executedActions"] = result.executed_actions;
  if (result.dry_run) j["dryRun"] = true;
  core::Json results = core::Json::array();
  for (const ActionResult& r : result.results) {
    core::Json a;
    a["seq"] = r.seq;
    a["blockId"] = r.block_id;
    a["action"] = r.action;
    a["params"] = r.params;
    a["success"] = r.success;
    if (!r.success) a["error"] = r.error;
    if (!r.data.empty()) a["data"] = r.data;
    if (!r.warnings.empty()) a["warnings"] = r.warnings;
    results.push_back(std::move(a));
  }
  j["results"] = std::move(results);
  core::Json errors = core::Json::array();
  for (const auto& e : result.parse_errors) errors.push_back(sham_action_parser::ActionParseErrorToJson(e));
  j["parseErrors"] = std::move(errors);
  if (!result.warnings.empty()) j["warnings"] = result.warnings;
  core::Json git;
  git["active"] = result.git.active;
  if (result.git.snapshot_commit) git["snapshotCommit"] = *result.git.snapshot_commit;
  if (result.git.ai_commit) git["aiCommit"] = *result.git.ai_commit;
  if (!result.git.notes.empty()) git["notes"] = result.git.notes;
  if (!result.git.foreign_changes.empty()) git["foreignChanges"] = result.git.foreign_changes;
  j["git"] = std::move(git);
  if (result.fatal_error) j["fatalError"] = *result.fatal_error;
  return j;
}

std::string FormatSummaryLine(const ExecutionResult& result) {
  int ok = 0, failed = 0;
  for (const ActionResult& r : result.results) (r.success ? ok : failed)++;
  std::string line = absl::StrFormat("%d succeeded, %d failed, %d skipped (%.0f ms)", ok, failed,
                                     CountSkippedBlocks(result), result.elapsed_ms);
  if (result.dry_run) line = absl::StrCat("dry run: ", ok, " would run, ", CountSkippedBlocks(result), " skipped");
  if (result.fatal_error) absl::StrAppend(&line, "; fatal: ", *result.fatal_error);
  return line;
}

}  // namespace clada
