#include "proj/src/csl_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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
    absl::StrAppend(&out, first ? "" : "\n    ", EscapeControlCharacters(line));
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
    return EscapeControlCharacters(what);
  } else {
    what = primary.empty() ? r.action : absl::StrCat(r.action, " ", primary);
  }
  return EscapeControlCharacters(dry_run ? absl::StrCat("dry run: ", what) : what);
}

// Output lines of an operation, each prefixed `[label:kind] `.
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

// The operation a parse error stopped: the first word of its marker line.
std::string OperationOfBlock(absl::string_view content) {
  size_t i = 0;
  while (i < content.size() && content[i] != '\n' && !absl::ascii_isalpha(static_cast<unsigned char>(content[i]))) ++i;
  size_t end = i;
  while (end < content.size() && absl::ascii_isalnum(static_cast<unsigned char>(content[end]))) ++end;
  return end > i ? std::string(content.substr(i, end - i)) : "BLOCK";
}

struct Line {
  int group = 0;
  int line = 0;
  std::string text;
};

void Build(const ExecutionResult& result, std::string* results, std::string* outputs) {
  std::vector<Line> lines;
  int succeeded = 0, failed = 0, skipped = 0;
  for (const ActionResult& r : result.results) {
    const std::string label = r.block_id.empty() ? "?" : r.block_id;
    const std::string op = csl_parser::OperationOf(r.action);
    std::string text;
    if (r.success) {
      ++succeeded;
      text = absl::StrCat("[", label, "] SUCCESS: ", op, " - ", What(r, result.dry_run));
    } else if (r.data.is_object() && r.data.value("not_run", false)) {
      ++skipped;
      text = absl::StrCat("[", label, "] SKIP: ", op, " - ", EscapeControlCharacters(r.error));
    } else {
      ++failed;
      // exec's primary parameter is its language: a RUN is named by its command.
      const std::string primary = r.action == "exec" ? "" : PrimaryParamValue(r.action, r.params);
      // The type once, then the message without the codes it repeats
      // ("path_escape: exec: path_escape: ...").
      absl::string_view error = r.error;
      absl::ConsumePrefix(&error, absl::StrCat(r.error_type, ": "));
      absl::ConsumePrefix(&error, absl::StrCat(r.action, ": "));
      absl::ConsumePrefix(&error, absl::StrCat(r.error_type, ": "));
      text = absl::StrCat("[", label, "] ERROR: ", op, " - ", primary.empty() ? "" : absl::StrCat(primary, ": "),
                          r.error_type.empty() ? "" : absl::StrCat(r.error_type, ": "), Indented(error));
    }
    for (const std::string& w : r.warnings) absl::StrAppend(&text, "\n    warning: ", Indented(w));
    lines.push_back({r.group, r.start_line, std::move(text)});
    if (r.data.is_object()) {
      for (const char* stream : {"stdout", "stderr"}) {
        if (r.data.contains(stream) && r.data[stream].is_string()) {
          AppendOutput(outputs, label, "exec", r.data[stream].get_ref<const std::string&>());
        }
      }
      if (r.data.contains("content") && r.data["content"].is_string()) {
        AppendOutput(outputs, label, "read", r.data["content"].get_ref<const std::string&>());
      }
    }
  }
  for (size_t i = 0; i < result.parse_errors.size(); ++i) {
    const auto& pe = result.parse_errors[i];
    ++failed;
    const int group = i < result.parse_error_groups.size() ? result.parse_error_groups[i] : 0;
    const bool typed = absl::StartsWith(pe.message, absl::StrCat(pe.error_type, ": "));
    std::string text = absl::StrCat("[", pe.block_id.empty() ? "?" : pe.block_id, "] ERROR: ",
                                    OperationOfBlock(pe.block_content), " - line ", pe.block_start_line, ": ",
                                    typed ? "" : absl::StrCat(pe.error_type, ": "), Indented(pe.message));
    if (!pe.fix.empty()) absl::StrAppend(&text, "\n    fix: ", Indented(pe.fix));
    lines.push_back({group, pe.block_start_line, std::move(text)});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return a.group != b.group ? a.group < b.group : a.line < b.line;
  });
  std::string& out = *results;
  for (const Line& l : lines) absl::StrAppend(&out, l.text, "\n");
  if (result.fatal_error) {
    absl::StrAppend(&out, "[clada] FATAL: ", EscapeControlCharacters(*result.fatal_error),
                    result.results.empty() ? " (nothing was run)" : "", "\n");
  }
  for (const std::string& w : result.warnings) absl::StrAppend(&out, "[clada] WARNING: ", EscapeControlCharacters(w), "\n");
  if (result.git.ai_commit) {
    absl::StrAppend(&out, "[clada] git: changes committed as ", result.git.ai_commit->substr(0, 7), "\n");
  }
  const int total = succeeded + failed + skipped;
  absl::StrAppend(&out, "\n", total, total == 1 ? " operation: " : " operations: ", succeeded, " succeeded, ", failed,
                  " failed, ", skipped, " skipped", result.dry_run ? " (dry run: nothing was changed)" : "", "\n");
}

}  // namespace

bool UsesCslReport(const ExecutionResult& result) { return UsesDialectReport(result, "csl"); }

std::string FormatCslResults(const ExecutionResult& result) {
  std::string results, outputs;
  Build(result, &results, &outputs);
  return results;
}

std::string FormatCslReport(const ExecutionResult& result) {
  std::string results, outputs;
  Build(result, &results, &outputs);
  std::string out = absl::StrCat(kResultsMarker, "\n", results);
  if (!outputs.empty()) absl::StrAppend(&out, kOutputsMarker, "\n", outputs);
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

}  // namespace clada
