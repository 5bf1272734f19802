#include "proj/src/csl_report.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/comp/csl-parser/src/csl_parser.h"
#include "proj/src/report.h"

namespace clada {
namespace {

// Output kept per operation and stream; the rest is marked.
constexpr size_t kMaxOutputPerTask = 20'000;
// An error's text beyond its first line (a miss diagnosis) is kept to this.
constexpr size_t kMaxErrorText = 4'000;

std::string Param(const core::Json& params, const char* key) {
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

// Cut at a UTF-8 boundary, marked.
std::string Cut(absl::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return absl::StrCat(s.substr(0, end), " [...]");
}

// An error's lines: the first on the status line, the others indented below.
std::string Indented(absl::string_view text) {
  std::string out;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(Cut(text, kMaxErrorText), '\n')) {
    absl::StrAppend(&out, first ? "" : "\n    ", core::EscapeForTerminal(line));
    first = false;
  }
  return out;
}

// What a successful operation did.
std::string What(const ActionResult& r, bool dry_run) {
  const std::string primary = PrimaryParamValue(r.action, r.params);
  std::string what;
  if (r.action == "file_write") {
    const std::string summary = r.data.is_object() ? r.data.value("summary", "") : "";
    what = summary.empty() ? absl::StrCat("wrote ", primary) : absl::StrCat(primary, ": ", summary);
  } else if (r.action == "file_append") {
    what = absl::StrCat("appended to ", primary);
  } else if (absl::StrContains(r.action, "replace")) {
    const int n = r.data.is_object() ? r.data.value("replacements_made", 0) : 0;
    what = absl::StrCat(primary, ": ", n, n == 1 ? " replacement" : " replacements");
    if (r.data.is_object() && r.data.value("already_applied", false)) what = absl::StrCat(primary, ": already applied");
  } else if (r.action == "exec") {
    std::string code = Param(r.params, "code");
    code = std::string(absl::StripAsciiWhitespace(code.substr(0, code.find('\n'))));
    if (code.empty()) code = "the command";
    what = r.data.is_object() && r.data.value("would_run", false)
               ? absl::StrCat("would run ", code)
               : absl::StrCat("ran ", code, " (exit ", r.data.is_object() ? r.data.value("exit_code", 0) : 0, ")");
    return core::EscapeForTerminal(what);
  } else {
    what = primary.empty() ? r.action : absl::StrCat(r.action, " ", primary);
  }
  return core::EscapeForTerminal(dry_run ? absl::StrCat("dry run: ", what) : what);
}

// Output lines of an operation, each prefixed `[label:kind] `.
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

// The operation a parse error stopped: the first word of its marker line.
std::string OperationOfBlock(absl::string_view content) {
  size_t i = 0;
  while (i < content.size() && content[i] != '\n' && !absl::ascii_isalpha(static_cast<unsigned char>(content[i]))) ++i;
  size_t end = i;
  while (end < content.size() && absl::ascii_isalnum(static_cast<unsigned char>(content[end]))) ++end;
  return end > i ? std::string(content.substr(i, end - i)) : "BLOCK";
}

// The seed's form names operations `task-N` / `task-N.M`; in an answer
// CSL's own labels are `csl-N` (CML's are `task-N`), so the form shows a
// CSL label as `task-` only when every block of the answer is CSL, where no
// other label can be the same.
bool OnlyCsl(const ExecutionResult& result) {
  for (const std::string& dialect : result.left_out.dialects) {
    if (dialect != "csl") return false;
  }
  for (const ActionResult& r : result.results) {
    if (r.dialect != "csl") return false;
  }
  for (size_t i = 0; i < result.parse_errors.size(); ++i) {
    if (i >= result.parse_error_dialects.size() || result.parse_error_dialects[i] != "csl") return false;
  }
  return result.left_out_skipped.blocks == 0;
}

std::string SeedLabel(absl::string_view label, bool seed) {
  if (seed && absl::ConsumePrefix(&label, "csl-")) return absl::StrCat("task-", label);
  return std::string(label);
}

// A skipped operation's reason, which clada writes, names operations by
// label ("not run: csl-3.1 failed (...)", "... 1 invalid operation (csl-1.2
// on line 5: ...)"): named as their labels are.
std::string SeedSkipReason(absl::string_view reason, bool seed) {
  if (!seed) return std::string(reason);
  std::string out;
  size_t at;
  while ((at = reason.find("csl-")) != absl::string_view::npos) {
    const bool label = at + 4 < reason.size() && absl::ascii_isdigit(static_cast<unsigned char>(reason[at + 4])) &&
                       (at == 0 || !absl::ascii_isalnum(static_cast<unsigned char>(reason[at - 1])));
    absl::StrAppend(&out, reason.substr(0, at), label ? "task-" : "csl-");
    reason.remove_prefix(at + 4);
  }
  absl::StrAppend(&out, reason);
  return out;
}

struct Line {
  int group = 0;
  int line = 0;
  std::string label;
  std::string status;  // success | error | skipped
  std::string text;
  std::string output;  // its lines under OUTPUTS
  size_t result = 0;   // its index in result.results, for a result
  bool parse_error = false;
  // Where it stands against the results a ResultKeeper left out: before
  // them, among them (a parse error: counted with them, never shown), after.
  enum { kBefore, kAmong, kAfter } place = kBefore;
  bool shown = true;
};

struct Counts {
  int succeeded = 0, failed = 0, skipped = 0;
  void Add(const Line& l) {
    if (l.status == "success") {
      ++succeeded;
    } else if (l.status == "skipped") {
      ++skipped;
    } else {
      ++failed;
    }
  }
  void Add(const LeftOutResults& l) {
    succeeded += l.succeeded;
    skipped += l.not_run;
    failed += l.count - l.succeeded - l.not_run;
  }
  int total() const { return succeeded + failed + skipped; }
};

// The lines of the report in order (of group, then line).
std::vector<Line> MakeLines(const ExecutionResult& result) {
  std::vector<Line> lines;
  lines.reserve(result.results.size() + result.parse_errors.size());
  const bool seed = OnlyCsl(result);
  for (size_t i = 0; i < result.results.size(); ++i) {
    const ActionResult& r = result.results[i];
    const std::string label = r.block_id.empty() ? "?" : SeedLabel(r.block_id, seed);
    const std::string op = csl_parser::OperationOf(r.action);
    Line l;
    l.group = r.group;
    l.line = r.start_line;
    l.label = label;
    l.result = i;
    if (r.success) {
      l.status = "success";
      l.text = absl::StrCat("[", label, "] SUCCESS: ", op, " - ", What(r, result.dry_run));
    } else if (r.data.is_object() && r.data.value("not_run", false)) {
      l.status = "skipped";
      l.text = absl::StrCat("[", label, "] SKIP: ", op, " - ", core::EscapeForTerminal(SeedSkipReason(r.error, seed)));
    } else {
      l.status = "error";
      // exec's primary parameter is its language: a RUN is named by its command.
      const std::string primary = r.action == "exec" ? "" : PrimaryParamValue(r.action, r.params);
      // The type once, then the message without the codes it repeats
      // ("path_escape: exec: path_escape: ...").
      absl::string_view error = r.error;
      absl::ConsumePrefix(&error, absl::StrCat(r.error_type, ": "));
      absl::ConsumePrefix(&error, absl::StrCat(r.action, ": "));
      absl::ConsumePrefix(&error, absl::StrCat(r.error_type, ": "));
      l.text = absl::StrCat("[", label, "] ERROR: ", op, " - ", primary.empty() ? "" : absl::StrCat(primary, ": "),
                            r.error_type.empty() ? "" : absl::StrCat(r.error_type, ": "), Indented(error));
    }
    for (const std::string& w : r.warnings) absl::StrAppend(&l.text, "\n    warning: ", Indented(w));
    if (r.data.is_object()) {
      for (const char* stream : {"stdout", "stderr"}) {
        if (r.data.contains(stream) && r.data[stream].is_string()) {
          AppendOutput(&l.output, label, "exec", r.data[stream].get_ref<const std::string&>());
        }
      }
      if (r.data.contains("content") && r.data["content"].is_string()) {
        AppendOutput(&l.output, label, "read", r.data["content"].get_ref<const std::string&>());
      }
    }
    lines.push_back(std::move(l));
  }
  for (size_t i = 0; i < result.parse_errors.size(); ++i) {
    const auto& pe = result.parse_errors[i];
    Line l;
    l.group = i < result.parse_error_groups.size() ? result.parse_error_groups[i] : 0;
    l.line = pe.block_start_line;
    l.label = pe.block_id.empty() ? "?" : SeedLabel(pe.block_id, seed);
    l.status = "error";
    l.parse_error = true;
    const bool typed = absl::StartsWith(pe.message, absl::StrCat(pe.error_type, ": "));
    l.text =
        absl::StrCat("[", l.label, "] ERROR: ", OperationOfBlock(pe.block_content), " - line ", pe.block_start_line,
                     ": ", typed ? "" : absl::StrCat(pe.error_type, ": "), Indented(pe.message));
    if (!pe.fix.empty()) absl::StrAppend(&l.text, "\n    fix: ", Indented(pe.fix));
    lines.push_back(std::move(l));
  }
  const LeftOutResults& gap = result.left_out;
  if (gap.count > 0) {
    const std::pair<int, int> from{gap.first_group.group, gap.first_line}, to{gap.last_group.group, gap.last_line};
    for (Line& l : lines) {
      const std::pair<int, int> at{l.group, l.line};
      if (!l.parse_error) {
        l.place = l.result < gap.after ? Line::kBefore : Line::kAfter;
      } else {
        l.place = at <= from ? Line::kBefore : at < to ? Line::kAmong : Line::kAfter;
      }
      l.shown = l.place != Line::kAmong;
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    if (a.place != b.place) return a.place < b.place;
    return a.group != b.group ? a.group < b.group : a.line < b.line;
  });
  return lines;
}

using Parts = DialectReportParts;

// The report of the lines marked shown; those that are not, and the
// results a ResultKeeper left out (result.left_out), are counted in one
// line where they would stand. `budget_bytes` > 0: the outputs that do not
// fit are named.
Parts Render(const ExecutionResult& result, const std::vector<Line>& lines, int64_t budget_bytes,
             ReportOutputs what) {
  const LeftOutResults& gap = result.left_out;
  const bool has_gap = gap.count > 0;
  const size_t n = lines.size();
  Parts parts;
  std::string& out = parts.results;
  size_t cut_at = n + 1;
  size_t before = 0;  // lines before the left-out results
  Counts hidden, all;
  for (size_t i = 0; i < n; ++i) {
    if (!lines[i].shown) {
      cut_at = std::min(cut_at, i);
      hidden.Add(lines[i]);
    }
    if (lines[i].place == Line::kBefore) ++before;
    all.Add(lines[i]);
  }
  if (has_gap) {
    cut_at = std::min(cut_at, before);
    hidden.Add(gap);
    all.Add(gap);
  }
  // Refused SHAM blocks counted, not kept (LeftOutSkipped): each an
  // operation that failed.
  const int refused = result.left_out_skipped.blocks;
  all.failed += refused;
  for (size_t i = 0; i <= n; ++i) {
    if (i == cut_at) {
      const int count = hidden.total();
      absl::StrAppend(&out, "[results truncated: ", count, count == 1 ? " operation" : " operations",
                      " left out here to keep the report within its budget (", hidden.succeeded, " succeeded, ",
                      hidden.failed, " failed, ", hidden.skipped,
                      " skipped); --json or a larger --report-budget shows them all]\n");
    }
    if (i < n && lines[i].shown) absl::StrAppend(&out, lines[i].text, "\n");
  }
  out += Parts::RefusedBlocksLine(refused);
  if (result.fatal_error) {
    absl::StrAppend(&out, "[clada] FATAL: ", core::EscapeForTerminal(*result.fatal_error),
                    result.results.empty() ? " (nothing was run)" : "", "\n");
  }
  for (const std::string& w : result.warnings) absl::StrAppend(&out, "[clada] WARNING: ", core::EscapeForTerminal(w), "\n");
  if (result.git.ai_commit) {
    absl::StrAppend(&out, "[clada] git: changes committed as ", result.git.ai_commit->substr(0, 7), "\n");
  }
  const int total = all.total();
  absl::StrAppend(&out, "\n", total, total == 1 ? " operation: " : " operations: ", all.succeeded, " succeeded, ",
                  all.failed, " failed, ", all.skipped, " skipped",
                  result.dry_run ? " (dry run: nothing was changed)" : "", "\n");

  // The outputs, in the order the operations ran: of those shown, as many
  // as fit; the others named.
  std::vector<const Line*> by_result(result.results.size(), nullptr);
  for (const Line& l : lines) {
    if (!l.parse_error) by_result[l.result] = &l;
  }
  if (what == ReportOutputs::kLeftOut) return parts;
  parts.AppendOutputs(
      by_result.size(), [&by_result](size_t i) { return by_result[i]; }, gap, budget_bytes, "operation");
  return parts;
}

// The report within `budget_bytes` (0: no cap).
Parts Build(const ExecutionResult& result, int64_t budget_bytes, ReportOutputs what) {
  const LeftOutResults& gap = result.left_out;
  const bool has_gap = gap.count > 0;
  std::vector<Line> lines = MakeLines(result);
  const size_t n = lines.size();
  if (budget_bytes <= 0) return Render(result, lines, 0, what);
  int64_t outputs_total = 0;
  std::vector<int64_t> sizes(n, 0);
  size_t before = 0, after = 0;
  for (size_t i = 0; i < n; ++i) {
    const Line& l = lines[i];
    if (l.place == Line::kBefore) ++before;
    if (l.place == Line::kAfter) ++after;
    if (l.place == Line::kAmong) continue;
    sizes[i] = static_cast<int64_t>(l.text.size()) + 1;
    outputs_total += static_cast<int64_t>(l.output.size());
  }
  return FitDialectReport(
      sizes, outputs_total, has_gap, has_gap ? before : n, has_gap ? after : n, budget_bytes, what,
      [&](int64_t budget) { return Render(result, lines, budget, what); },
      [&](size_t i, bool on) { lines[i].shown = on && lines[i].place != Line::kAmong; });
}

}  // namespace

bool UsesCslReport(const ExecutionResult& result) { return UsesDialectReport(result, "csl"); }

std::string FormatCslResults(const ExecutionResult& result, int64_t budget_bytes) {
  return Build(result, budget_bytes, ReportOutputs::kLeftOut).results;
}

std::string FormatCslReport(const ExecutionResult& result, int64_t budget_bytes, ReportOutputs what) {
  Parts parts = Build(result, budget_bytes, what);
  std::string out = absl::StrCat(kResultsMarker, "\n", parts.results);
  if (!parts.outputs.empty()) absl::StrAppend(&out, kOutputsMarker, "\n", parts.outputs);
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

}  // namespace clada
