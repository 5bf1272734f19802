#include "proj/src/cml_report.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "proj/src/report.h"

namespace clada {
namespace {

// Output kept per task and stream; the rest is marked as the seeds do.
constexpr size_t kMaxOutputPerTask = 20'000;

std::string XmlEscape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

// One line of prose: the message without its leading codes ("type: ",
// "action: "), its first line, at most 300 bytes.
std::string Detail(absl::string_view message, absl::string_view type, absl::string_view action) {
  absl::ConsumePrefix(&message, absl::StrCat(type, ": "));
  absl::ConsumePrefix(&message, absl::StrCat(action, ": "));
  message = message.substr(0, message.find('\n'));
  std::string out(message.substr(0, 300));
  if (message.size() > 300) {
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    out += "...";
  }
  return out;
}

std::string Param(const core::Json& params, const char* key) {
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

// What a successful task did, as the seeds word it ("created file.txt").
std::string What(const ActionResult& r) {
  const std::string primary = PrimaryParamValue(r.action, r.params);
  if (r.action == "file_write") {
    return absl::StrCat(r.data.value("created", false) ? "created " : "wrote ", primary);
  }
  if (r.action == "file_append") return absl::StrCat("appended to ", primary);
  if (absl::StrContains(r.action, "replace")) {
    return absl::StrCat("edited ", primary, " (", r.data.value("replacements_made", 0), " replaced)");
  }
  if (r.action == "file_move") return absl::StrCat("moved ", primary, " to ", Param(r.params, "new_path"));
  if (r.action == "file_delete" || r.action == "dir_delete") return absl::StrCat("removed ", primary);
  if (r.action == "exec") {
    std::string code = Param(r.params, "code");
    code = std::string(absl::StripAsciiWhitespace(code.substr(0, code.find('\n'))));
    if (code.empty()) code = absl::StrCat("a ", Param(r.params, "lang"), " command");
    if (r.data.value("would_run", false)) return code;  // dry run: not run, no exit code
    return absl::StrCat("ran ", code, " (exit ", r.data.value("exit_code", 0), ")");
  }
  return primary.empty() ? r.action : absl::StrCat(r.action, " ", primary);
}

// Output lines of a task, each prefixed `[label:kind] `.
void AppendOutput(std::string* out, absl::string_view label, absl::string_view kind, absl::string_view text) {
  if (text.empty()) return;
  const bool cut = text.size() > kMaxOutputPerTask;
  if (cut) text = text.substr(0, kMaxOutputPerTask);
  if (absl::EndsWith(text, "\n")) text.remove_suffix(1);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::StrAppend(out, "[", label, ":", kind, "] ", EscapeControlCharacters(line), "\n");
  }
  if (cut) absl::StrAppend(out, "[", label, ":", kind, "] [output truncated]\n");
}

struct Entry {
  int group = 0;
  int line = 0;
  std::string label;
  std::string status;  // success | error | skipped
  std::string type;    // error type
  std::string detail;
};

// 0-based task index: N-1 for "task-N", else `fallback`.
int TaskIndex(absl::string_view label, int fallback) {
  int n = 0;
  if (absl::ConsumePrefix(&label, "task-") && absl::SimpleAtoi(label, &n) && n > 0) return n - 1;
  return fallback;
}

}  // namespace

bool UsesCmlReport(const ExecutionResult& result) { return UsesDialectReport(result, "cml"); }

namespace {

// The task lines and the <result> summary; the outputs separately.
void Build(const ExecutionResult& result, std::string* results, std::string* outputs_out);

}  // namespace

std::string FormatCmlResults(const ExecutionResult& result) {
  std::string results, outputs;
  Build(result, &results, &outputs);
  return results;
}

std::string FormatCmlReport(const ExecutionResult& result) {
  std::string results, outputs;
  Build(result, &results, &outputs);
  std::string out = absl::StrCat(kResultsMarker, "\n", results);
  if (!outputs.empty()) absl::StrAppend(&out, kOutputsMarker, "\n", outputs);
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

namespace {

void Build(const ExecutionResult& result, std::string* results, std::string* outputs_out) {
  std::string& outputs = *outputs_out;
  std::vector<Entry> entries;
  std::string lines;
  for (const ActionResult& r : result.results) {
    Entry e;
    e.group = r.group;
    e.line = r.start_line;
    e.label = r.block_id;
    if (r.success) {
      e.status = "success";
      absl::StrAppend(&lines, "[", e.label, "] ", result.dry_run ? "Would run: " : "Success: ", What(r), "\n");
    } else if (r.data.is_object() && r.data.value("not_run", false)) {
      e.status = "skipped";
      e.type = "not_run";
      e.detail = std::string(absl::StripPrefix(r.error, "not run: "));
      absl::StrAppend(&lines, "[", e.label, "] Skipped: ", r.error, "\n");
    } else {
      e.status = "error";
      e.type = !r.error_type.empty() ? r.error_type : std::string(r.error.substr(0, r.error.find(':')));
      e.detail = Detail(r.error, e.type, r.action);
      const std::string primary = PrimaryParamValue(r.action, r.params);
      absl::StrAppend(&lines, "[", e.label, "] Error: ", e.type, primary.empty() ? "" : " in ", primary, " (",
                      e.detail, ")\n");
      if (result.error_detail == "debug") {
        AppendOutput(&outputs, e.label, "debug", absl::StrCat(r.error, "\nparams ", r.params.dump()));
      }
    }
    if (r.data.is_object()) {
      const std::string exec_kind = "exec";
      if (r.data.contains("stdout") && r.data["stdout"].is_string()) {
        AppendOutput(&outputs, e.label, exec_kind, r.data["stdout"].get_ref<const std::string&>());
      }
      if (r.data.contains("stderr") && r.data["stderr"].is_string()) {
        AppendOutput(&outputs, e.label, exec_kind, r.data["stderr"].get_ref<const std::string&>());
      }
      if (r.data.contains("content") && r.data["content"].is_string()) {
        AppendOutput(&outputs, e.label, "read", r.data["content"].get_ref<const std::string&>());
      }
    }
    entries.push_back(std::move(e));
  }
  for (size_t i = 0; i < result.parse_errors.size(); ++i) {
    const auto& pe = result.parse_errors[i];
    Entry e;
    e.group = i < result.parse_error_groups.size() ? result.parse_error_groups[i] : 0;
    e.line = pe.block_start_line;
    e.label = pe.block_id.empty() ? "?" : pe.block_id;
    e.status = "error";
    e.type = pe.error_type;
    e.detail = Detail(pe.message, pe.error_type, "");
    absl::StrAppend(&lines, "[", e.label, "] Error: ", e.type, " (", e.detail, ")",
                    pe.fix.empty() || result.error_detail == "minimal" ? "" : absl::StrCat(" fix: ", Detail(pe.fix, "", "")),
                    "\n");
    entries.push_back(std::move(e));
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.group != b.group ? a.group < b.group : a.line < b.line;
  });

  int succeeded = 0, failed = 0, skipped = 0, tasks = 0;
  std::map<int, std::vector<const Entry*>> groups;
  for (const Entry& e : entries) {
    groups[e.group].push_back(&e);
    if (absl::StartsWith(e.label, "block-")) continue;  // a block's own error, not a task
    ++tasks;
    if (e.status == "success") ++succeeded;
    else if (e.status == "skipped") ++skipped;
    else ++failed;
  }
  std::string summary = absl::StrCat("<result blocks=\"", groups.size(), "\" tasks=\"", tasks, "\" succeeded=\"",
                                     succeeded, "\" failed=\"", failed, "\"",
                                     skipped > 0 ? absl::StrCat(" skipped=\"", skipped, "\"") : "", ">\n");
  int block = 0;
  int position = 0;
  for (const auto& [g, members] : groups) {
    bool ok = true;
    int count = 0;
    for (const Entry* e : members) {
      ok = ok && e->status == "success";
      if (!absl::StartsWith(e->label, "block-")) ++count;
    }
    absl::StrAppend(&summary, "  <block index=\"", block++, "\" status=\"", ok ? "success" : "failed", "\" tasks=\"",
                    count, "\"", ok ? "/>\n" : ">\n");
    for (const Entry* e : members) {
      const int index = TaskIndex(e->label, position);
      if (!absl::StartsWith(e->label, "block-")) ++position;
      if (e->status == "success") continue;
      if (absl::StartsWith(e->label, "block-")) {
        absl::StrAppend(&summary, "    <error type=\"", XmlEscape(e->type), "\">", XmlEscape(e->detail), "</error>\n");
        continue;
      }
      absl::StrAppend(&summary, "    <task index=\"", index, "\" status=\"", e->status, "\">\n      <error type=\"",
                      XmlEscape(e->type), "\">", XmlEscape(e->detail), "</error>\n    </task>\n");
    }
    if (!ok) absl::StrAppend(&summary, "  </block>\n");
  }
  absl::StrAppend(&summary, "</result>\n");

  std::string& out = *results;
  out = lines;
  if (result.fatal_error) absl::StrAppend(&out, "[clada] Error: ", *result.fatal_error, "\n");
  for (const std::string& w : result.warnings) absl::StrAppend(&out, "[clada] Warning: ", w, "\n");
  if (result.git.ai_commit) {
    absl::StrAppend(&out, "[clada] git: changes committed as ", result.git.ai_commit->substr(0, 7), "\n");
  }
  absl::StrAppend(&out, "\n", summary);
}

}  // namespace
}  // namespace clada
