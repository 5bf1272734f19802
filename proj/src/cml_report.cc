#include "proj/src/cml_report.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/src/report.h"

namespace clada {
namespace {

// Output kept per task and stream; the rest is marked as the seeds do.
constexpr size_t kMaxOutputPerTask = 20'000;

// `s` as one line of XML text, shown escaped (core::EscapeForTerminal).
std::string XmlEscape(absl::string_view raw) {
  const std::string s = core::EscapeForTerminal(raw, core::TerminalForm::kOneLine);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
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

std::string OneLine(absl::string_view text) { return core::EscapeForTerminal(text, core::TerminalForm::kOneLine); }

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
  if (r.action == "file_move") {
    // The text report keeps only the primary parameter; the move's outcome
    // names where it went.
    std::string to = Param(r.params, "new_path");
    if (to.empty() && r.data.is_object()) to = r.data.value("new_path", "");
    return absl::StrCat("moved ", primary, " to ", to);
  }
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
    absl::StrAppend(out, "[", label, ":", kind, "] ", core::EscapeForTerminal(line), "\n");
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
  std::string text;    // its task line
  std::string output;  // its lines under OUTPUTS
  bool parse_error = false;
  // A parse error among the results a ResultKeeper left out: counted with
  // them, never shown.
  bool in_gap = false;
  bool shown = true;
  bool task() const { return !absl::StartsWith(label, "block-"); }
};

// 0-based task index: N-1 for "task-N", else `fallback`.
int TaskIndex(absl::string_view label, int fallback) {
  int n = 0;
  if (absl::ConsumePrefix(&label, "task-") && absl::SimpleAtoi(label, &n) && n > 0) return n - 1;
  return fallback;
}

// A failed task's element in its <block>, or a block's own error's.
std::string TaskElement(const Entry& e, int index) {
  if (!e.task()) return absl::StrCat("    <error type=\"", XmlEscape(e.type), "\">", XmlEscape(e.detail), "</error>\n");
  return absl::StrCat("    <task index=\"", index, "\" status=\"", e.status, "\">\n      <error type=\"",
                      XmlEscape(e.type), "\">", XmlEscape(e.detail), "</error>\n    </task>\n");
}

// Tasks by outcome, and the errors of whole blocks.
struct Counts {
  int tasks = 0, succeeded = 0, failed = 0, skipped = 0, block_errors = 0;
  void Add(const Entry& e) {
    if (!e.task()) {
      ++block_errors;
      return;
    }
    ++tasks;
    if (e.status == "success") {
      ++succeeded;
    } else if (e.status == "skipped") {
      ++skipped;
    } else {
      ++failed;
    }
  }
  void Add(const LeftOutResults::GroupShare& s) {
    tasks += s.count;
    succeeded += s.succeeded;
    skipped += s.not_run;
    failed += s.count - s.succeeded - s.not_run;
  }
  void Add(const LeftOutResults& l) {
    tasks += l.count;
    succeeded += l.succeeded;
    skipped += l.not_run;
    failed += l.count - l.succeeded - l.not_run;
  }
  std::string Outcomes() const {
    return absl::StrCat(
        succeeded, " succeeded, ", failed, " failed, ", skipped, " skipped",
        block_errors > 0 ? absl::StrCat(", and the errors of ", block_errors, block_errors == 1 ? " block" : " blocks")
                         : "");
  }
};

// The entries of the report: the results in the order they ran, then the
// parse errors.
std::vector<Entry> MakeEntries(const ExecutionResult& result) {
  std::vector<Entry> entries;
  entries.reserve(result.results.size() + result.parse_errors.size());
  for (const ActionResult& r : result.results) {
    Entry e;
    e.group = r.group;
    e.line = r.start_line;
    e.label = r.block_id;
    if (r.success) {
      e.status = "success";
      e.text = absl::StrCat("[", OneLine(e.label), "] ", result.dry_run ? "Would run: " : "Success: ", OneLine(What(r)),
                            "\n");
    } else if (r.data.is_object() && r.data.value("not_run", false)) {
      e.status = "skipped";
      e.type = "not_run";
      e.detail = std::string(absl::StripPrefix(r.error, "not run: "));
      e.text = absl::StrCat("[", OneLine(e.label), "] Skipped: ", OneLine(r.error), "\n");
    } else {
      e.status = "error";
      e.type = !r.error_type.empty() ? r.error_type : !r.code.empty() ? r.code : "operation_failed";
      e.detail = Detail(r.error, e.type, r.action);
      const std::string primary = PrimaryParamValue(r.action, r.params);
      e.text = absl::StrCat("[", OneLine(e.label), "] Error: ", OneLine(e.type), primary.empty() ? "" : " in ",
                            OneLine(primary), " (", OneLine(e.detail), ")\n");
      if (result.error_detail == "debug") {
        AppendOutput(&e.output, e.label, "debug", absl::StrCat(r.error, "\nparams ", r.params.dump()));
      }
    }
    if (r.data.is_object()) {
      const std::string exec_kind = "exec";
      if (r.data.contains("stdout") && r.data["stdout"].is_string()) {
        AppendOutput(&e.output, e.label, exec_kind, r.data["stdout"].get_ref<const std::string&>());
      }
      if (r.data.contains("stderr") && r.data["stderr"].is_string()) {
        AppendOutput(&e.output, e.label, exec_kind, r.data["stderr"].get_ref<const std::string&>());
      }
      if (r.data.contains("content") && r.data["content"].is_string()) {
        AppendOutput(&e.output, e.label, "read", r.data["content"].get_ref<const std::string&>());
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
    e.text = absl::StrCat(
        "[", OneLine(e.label), "] Error: ", OneLine(e.type), " (", OneLine(e.detail), ")",
        pe.fix.empty() || result.error_detail == "minimal" ? "" : absl::StrCat(" fix: ", OneLine(Detail(pe.fix, "", ""))),
        "\n");
    e.parse_error = true;
    entries.push_back(std::move(e));
  }
  return entries;
}

using Parts = DialectReportParts;

// The report of the entries marked shown; those that are not, and the
// results a ResultKeeper left out (result.left_out), are counted where they
// would stand. `budget_bytes` > 0: the outputs that do not fit are named.
Parts Render(const ExecutionResult& result, const std::vector<Entry>& entries, int64_t budget_bytes,
             ReportOutputs what) {
  const LeftOutResults& gap = result.left_out;
  const bool has_gap = gap.count > 0;
  const size_t n = entries.size();
  Parts parts;

  // The task lines, one line where some are left out.
  size_t cut_at = n + 1;
  Counts hidden, all;
  for (size_t i = 0; i < n; ++i) {
    if (!entries[i].shown) {
      cut_at = std::min(cut_at, i);
      hidden.Add(entries[i]);
    }
    all.Add(entries[i]);
  }
  if (has_gap) {
    cut_at = std::min(cut_at, gap.after);
    hidden.Add(gap);
    all.Add(gap);
  }
  // Refused SHAM blocks counted, not kept (LeftOutSkipped): each a block
  // and a failed task of the batch.
  const int refused = result.left_out_skipped.blocks;
  all.tasks += refused;
  all.failed += refused;
  std::string lines;
  for (size_t i = 0; i <= n; ++i) {
    if (i == cut_at) {
      absl::StrAppend(&lines, "[results truncated: ", hidden.tasks, hidden.tasks == 1 ? " task" : " tasks",
                      " left out here to keep the report within its budget (", hidden.Outcomes(),
                      "); --json or a larger --report-budget shows them all]\n");
    }
    if (i < n && entries[i].shown) lines += entries[i].text;
  }
  lines += Parts::RefusedBlocksLine(refused);

  // The blocks, in order. The blocks whose entries are all left out are
  // counted in one comment where they stand, and so are the tasks left out
  // of a failed block shown. The groups strictly between the first and the
  // last of the left-out results are known only by their counts.
  struct Member {
    const Entry* entry = nullptr;                       // a kept entry, or
    const LeftOutResults::GroupShare* share = nullptr;  // the group's left-out results
    int line = 0;
  };
  std::map<int, std::vector<Member>> groups;
  std::set<int> middle_error_groups;  // groups of parse errors among the left-out groups
  auto in_middle = [&](int group) { return has_gap && group > gap.first_group.group && group < gap.last_group.group; };
  for (const Entry& e : entries) {
    if (in_middle(e.group)) {
      middle_error_groups.insert(e.group);
      continue;
    }
    groups[e.group].push_back(Member{&e, nullptr, e.line});
  }
  int middle_blocks = 0, middle_failed = 0;
  if (has_gap) {
    const bool two = gap.groups > 1;
    groups[gap.first_group.group].push_back(Member{nullptr, &gap.first_group, gap.first_line});
    if (two) groups[gap.last_group.group].push_back(Member{nullptr, &gap.last_group, gap.last_line});
    // What the ResultKeeper counted of the first and the last group.
    auto with_error = [&](int group) {
      for (const Member& m : groups[group]) {
        if (m.entry != nullptr && m.entry->parse_error) return 1;
      }
      return 0;
    };
    auto failed = [&](const LeftOutResults::GroupShare& s) {
      return s.succeeded < s.count || with_error(s.group) == 1 ? 1 : 0;
    };
    const int ends = two ? 2 : 1;
    const int ends_failed = failed(gap.first_group) + (two ? failed(gap.last_group) : 0);
    const int ends_with_error = with_error(gap.first_group.group) + (two ? with_error(gap.last_group.group) : 0);
    // Middle groups with a parse error that the keeper counted, and those
    // of parse errors alone (a malformed block).
    const int shared = gap.groups_with_parse_errors - ends_with_error;
    const int errors_only = static_cast<int>(middle_error_groups.size()) - shared;
    middle_blocks = gap.groups - ends + errors_only;
    middle_failed = gap.failed_groups - ends_failed + errors_only;
  }
  for (auto& [g, members] : groups) {
    std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.line < b.line; });
  }

  std::string summary = absl::StrCat("<result blocks=\"", groups.size() + middle_blocks + refused, "\" tasks=\"", all.tasks,
                                     "\" succeeded=\"", all.succeeded, "\" failed=\"", all.failed, "\"",
                                     all.skipped > 0 ? absl::StrCat(" skipped=\"", all.skipped, "\"") : "", ">\n");
  int block = 0;
  int position = 0;
  int left_blocks = 0, left_failed = 0;
  auto blocks_left_out = [&] {
    if (left_blocks == 0) return;
    absl::StrAppend(&summary, "  <!-- ", left_blocks, left_blocks == 1 ? " block" : " blocks", " left out here (",
                    left_failed, " failed) -->\n");
    left_blocks = left_failed = 0;
  };
  bool middle_done = middle_blocks == 0;
  for (const auto& [g, members] : groups) {
    if (!middle_done && g > gap.first_group.group) {
      left_blocks += middle_blocks;
      left_failed += middle_failed;
      block += middle_blocks;
      middle_done = true;
    }
    bool ok = true, shown = false;
    Counts counts;
    for (const Member& m : members) {
      if (m.share != nullptr) {
        counts.Add(*m.share);
        ok = ok && m.share->succeeded == m.share->count;
      } else {
        counts.Add(*m.entry);
        ok = ok && m.entry->status == "success";
        shown = shown || m.entry->shown;
      }
    }
    if (!shown) {
      ++left_blocks;
      if (!ok) ++left_failed;
      ++block;
      position += counts.tasks;
      continue;
    }
    blocks_left_out();
    absl::StrAppend(&summary, "  <block index=\"", block++, "\" status=\"", ok ? "success" : "failed", "\" tasks=\"",
                    counts.tasks, "\"", ok ? "/>\n" : ">\n");
    if (ok) {
      position += counts.tasks;
      continue;
    }
    Counts left;
    auto tasks_left_out = [&] {
      if (left.tasks + left.block_errors == 0) return;
      absl::StrAppend(&summary, "    <!-- ", left.tasks, left.tasks == 1 ? " task" : " tasks", " left out here (",
                      left.Outcomes(), ") -->\n");
      left = Counts();
    };
    for (const Member& m : members) {
      if (m.share != nullptr) {
        left.Add(*m.share);
        position += m.share->count;
        continue;
      }
      const Entry& e = *m.entry;
      if (!e.shown) {
        left.Add(e);
        if (e.task()) ++position;
        continue;
      }
      const int index = TaskIndex(e.label, position);
      if (e.task()) ++position;
      if (e.status == "success") continue;
      tasks_left_out();
      summary += TaskElement(e, index);
    }
    tasks_left_out();
    absl::StrAppend(&summary, "  </block>\n");
  }
  if (!middle_done) {
    left_blocks += middle_blocks;
    left_failed += middle_failed;
  }
  blocks_left_out();
  if (refused > 0) {
    absl::StrAppend(&summary, "  <!-- ", refused, refused == 1 ? " refused block" : " refused blocks",
                    " left out (", refused, " failed) -->\n");
  }
  absl::StrAppend(&summary, "</result>\n");

  std::string& out = parts.results;
  out = std::move(lines);
  if (result.fatal_error) absl::StrAppend(&out, "[clada] Error: ", *result.fatal_error, "\n");
  for (const std::string& w : result.warnings) absl::StrAppend(&out, "[clada] Warning: ", w, "\n");
  if (result.git.ai_commit) {
    absl::StrAppend(&out, "[clada] git: changes committed as ", result.git.ai_commit->substr(0, 7), "\n");
  }
  absl::StrAppend(&out, "\n", summary);

  // The outputs of the tasks shown, as many as fit; the others named.
  if (what == ReportOutputs::kLeftOut) return parts;
  parts.AppendOutputs(
      n, [&entries](size_t i) { return &entries[i]; }, gap, budget_bytes, "task");
  return parts;
}

// The report within `budget_bytes` (0: no cap).
Parts Build(const ExecutionResult& result, int64_t budget_bytes, ReportOutputs what) {
  const LeftOutResults& gap = result.left_out;
  const bool has_gap = gap.count > 0;
  std::vector<Entry> entries = MakeEntries(result);
  const size_t n = entries.size();
  if (has_gap) {
    const std::pair<int, int> from{gap.first_group.group, gap.first_line}, to{gap.last_group.group, gap.last_line};
    for (Entry& e : entries) {
      const std::pair<int, int> at{e.group, e.line};
      e.in_gap = e.parse_error && from < at && at < to;
      e.shown = !e.in_gap;
    }
  }
  if (budget_bytes <= 0) return Render(result, entries, 0, what);
  // Its line, its element, and its block's when it starts one.
  int64_t outputs_total = 0;
  std::vector<int64_t> sizes(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = entries[i];
    if (e.in_gap) continue;
    sizes[i] = static_cast<int64_t>(e.text.size()) +
               (e.status == "success" ? 0 : static_cast<int64_t>(TaskElement(e, 0).size()) + 12) +
               (i == 0 || entries[i - 1].group != e.group ? 64 : 0);
    outputs_total += static_cast<int64_t>(e.output.size());
  }
  return FitDialectReport(
      sizes, outputs_total, has_gap, has_gap ? gap.after : n, has_gap ? n - gap.after : n, budget_bytes, what,
      [&](int64_t budget) { return Render(result, entries, budget, what); },
      [&](size_t i, bool on) { entries[i].shown = on && !entries[i].in_gap; });
}

}  // namespace

bool UsesCmlReport(const ExecutionResult& result) { return UsesDialectReport(result, "cml"); }

std::string FormatCmlResults(const ExecutionResult& result, int64_t budget_bytes) {
  return Build(result, budget_bytes, ReportOutputs::kLeftOut).results;
}

std::string FormatCmlReport(const ExecutionResult& result, int64_t budget_bytes, ReportOutputs what) {
  Parts parts = Build(result, budget_bytes, what);
  std::string out = absl::StrCat(kResultsMarker, "\n", parts.results);
  if (!parts.outputs.empty()) absl::StrAppend(&out, kOutputsMarker, "\n", parts.outputs);
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

}  // namespace clada
