#include "proj/src/report.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/src/cml_report.h"
#include "proj/src/csl_report.h"

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

// A file between its START and END lines; the END line is always there.
void AppendFile(std::string& out, const std::string& path, const std::string& body) {
  absl::StrAppend(&out, "=== START FILE: ", path, " ===\n");
  absl::StrAppend(&out, body);
  if (!body.empty() && body.back() != '\n') out += '\n';
  absl::StrAppend(&out, "=== END FILE: ", path, " ===\n");
}

std::string Str(const core::Json& data, const char* key) {
  auto it = data.find(key);
  return it == data.end() ? "" : JsonText(*it);
}

// The line that stands for the elements of d[key] an OutputBudget left
// out, when it left some out after `printed` elements; else "".
std::string LeftOutLine(const core::Json& d, const char* key, size_t printed) {
  auto it = d.find(absl::StrCat(key, "_left_out"));
  if (it == d.end() || !it->is_object() || it->value("after", size_t{0}) != printed) return "";
  const int64_t count = it->value("count", int64_t{0});
  return absl::StrCat("[output truncated: ", count, count == 1 ? " line" : " lines",
                      " left out here; narrow the path or pattern to see them]\n");
}

// Actions whose output is what they changed in a file.
bool IsWriteAction(absl::string_view action) {
  static const auto* const kNames = new std::set<std::string, std::less<>>{
      "file_write",         "file_append",          "file_replace_text",      "file_replace_all_text",
      "file_replace_lines", "file_replace_text_range", "files_replace_all_text", "file_apply_patch",
      "file_apply_diff"};
  return kNames->count(action) > 0;
}

// What one write changed: its diff; a rewrite too different to diff, both
// line counts; a new file, its line count and first lines.
void AppendChange(std::string& body, const core::Json& d) {
  if (d.contains("diff") && d["diff"].is_string()) {
    absl::StrAppend(&body, d["diff"].get_ref<const std::string&>());
    if (!body.empty() && body.back() != '\n') body += '\n';
  } else if (d.contains("diff_skipped") && d["diff_skipped"].is_string()) {
    absl::StrAppend(&body, Str(d, "path"), ": ", d["diff_skipped"].get_ref<const std::string&>(), "\n");
  } else if (d.contains("first_lines") && d["first_lines"].is_string()) {
    const std::string& first = d["first_lines"].get_ref<const std::string&>();
    const int64_t lines = d.value("lines", int64_t{0});
    const int64_t shown = static_cast<int64_t>(std::count(first.begin(), first.end(), '\n')) +
                          (!first.empty() && first.back() != '\n' ? 1 : 0);
    if (lines == 0) {
      absl::StrAppend(&body, "new file ", Str(d, "path"), ", empty\n");
      return;
    }
    absl::StrAppend(&body, "new file ", Str(d, "path"), ", ", lines, lines == 1 ? " line" : " lines",
                    shown < lines ? absl::StrCat("; the first ", shown) : std::string(), ":\n", first);
    if (!first.empty() && first.back() != '\n') body += '\n';
    if (shown < lines) {
      absl::StrAppend(&body, "[", lines - shown, " more ", lines - shown == 1 ? "line" : "lines",
                      ": file_read_numbered with path = \"", Str(d, "path"), "\" and lines = \"", shown + 1,
                      shown + 1 == lines ? "" : absl::StrCat("-", lines), "\" shows them]\n");
    }
  }
}

// The outputs of one action, shaped by what its data holds; "" if none.
// They come already cut to the action's share by an OutputBudget (exec's
// streams, before that, to --max-output), with what was left out named, so
// they are shown whole.
std::string FormatOutput(const ActionResult& r) {
  const core::Json& d = r.data;
  std::string body;
  if (d.contains("stdout") || d.contains("stderr")) {  // exec
    std::string out = Str(d, "stdout"), err = Str(d, "stderr");
    absl::StrAppend(&body, "exit code: ", Str(d, "exit_code"));
    if (d.value("timed_out", false)) absl::StrAppend(&body, " (timed out)");
    if (d.contains("duration_ms")) absl::StrAppend(&body, ", ", Str(d, "duration_ms"), " ms");
    body += "\n";
    if (d.contains("containment")) absl::StrAppend(&body, "contained by: ", Str(d, "containment"), "\n");
    if (!out.empty()) {
      absl::StrAppend(&body, "--- stdout ---\n", out);
      if (body.back() != '\n') body += '\n';
    }
    if (!err.empty()) {
      absl::StrAppend(&body, "--- stderr ---\n", err);
      if (body.back() != '\n') body += '\n';
    }
  } else if (IsWriteAction(r.action)) {  // what a write changed
    if (r.action == "files_replace_all_text" && d.contains("results") && d["results"].is_array()) {
      for (const core::Json& item : d["results"]) AppendChange(body, item);
    } else {
      AppendChange(body, d);
    }
    if (body.empty()) return "";
  } else if (d.contains("files") && d["files"].is_array()) {  // files_read
    for (const core::Json& f : d["files"]) AppendFile(body, Str(f, "path"), Str(f, "content"));
  } else if (d.contains("content") && d["content"].is_string()) {  // file_read, file_read_numbered
    if (d.value("total_lines", int64_t{-1}) == 0) {
      body = "(empty file, 0 lines)\n";
    } else {
      AppendFile(body, Str(d, "path"), d["content"].get<std::string>());
    }
  } else if (d.contains("entries") && d["entries"].is_array()) {  // ls, context_list
    size_t printed = 0;
    for (const core::Json& e : d["entries"]) {
      absl::StrAppend(&body, LeftOutLine(d, "entries", printed++));
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
    absl::StrAppend(&body, LeftOutLine(d, "entries", printed));
    if (d["entries"].empty() && printed == 0 && !d.contains("entries_left_out")) body += "(empty)\n";
    if (d.contains("totals") && d["totals"].is_object()) {
      const core::Json& t = d["totals"];
      absl::StrAppend(&body, "total: ", Str(t, "entries"), " entries, ", Str(t, "files"), " files, ",
                      Str(t, "bytes"), " bytes\n");
    }
  } else if (d.contains("removed") && d["removed"].is_array()) {  // context_remove, _prune, _clear
    size_t printed = 0;
    for (const core::Json& p : d["removed"]) {
      absl::StrAppend(&body, LeftOutLine(d, "removed", printed++), "removed ", JsonText(p), "\n");
    }
    absl::StrAppend(&body, LeftOutLine(d, "removed", printed));
    if (d["removed"].empty()) body += "(nothing removed)\n";
  } else if (d.contains("matches") && d["matches"].is_array()) {  // grep, glob
    size_t printed = 0;
    for (const core::Json& m : d["matches"]) {
      absl::StrAppend(&body, LeftOutLine(d, "matches", printed++));
      if (m.is_object()) {
        absl::StrAppend(&body, Str(m, "file"), ":", Str(m, "line_number"), ":", Str(m, "line"), "\n");
      } else {
        absl::StrAppend(&body, JsonText(m), "\n");
      }
    }
    absl::StrAppend(&body, LeftOutLine(d, "matches", printed));
    if (d["matches"].empty() && !d.contains("matches_left_out")) body += "(no matches)\n";
  } else {
    return "";
  }
  std::string primary = PrimaryValue(r);
  return absl::StrCat("--- ", r.block_id, " ", r.action, primary.empty() ? "" : " ", primary, " ---\n", body);
}


bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

int64_t CountLines(absl::string_view text) {
  return static_cast<int64_t>(std::count(text.begin(), text.end(), '\n'));
}

// The part of `text` kept in the first `head` and last `tail` bytes, cut
// at line ends where a line end is near (else at a character boundary).
struct Cut {
  size_t head_end = 0;    // text[0, head_end) kept
  size_t tail_begin = 0;  // text[tail_begin, size) kept
};

Cut CutAt(absl::string_view text, size_t head, size_t tail) {
  Cut c;
  c.head_end = std::min(head, text.size());
  size_t nl = text.rfind('\n', c.head_end == 0 ? 0 : c.head_end - 1);
  if (c.head_end > 0 && nl != absl::string_view::npos && nl + 1 >= c.head_end / 2) {
    c.head_end = nl + 1;
  } else {
    while (c.head_end > 0 && c.head_end < text.size() && IsContinuation(text[c.head_end])) --c.head_end;
  }
  c.tail_begin = text.size() - std::min(tail, text.size() - c.head_end);
  if (c.tail_begin > c.head_end && text[c.tail_begin - 1] != '\n') {
    size_t next = text.find('\n', c.tail_begin);
    if (next != absl::string_view::npos && next + 1 - c.tail_begin <= tail / 2 + 1) {
      c.tail_begin = next + 1;
    } else {
      while (c.tail_begin < text.size() && IsContinuation(text[c.tail_begin])) ++c.tail_begin;
    }
  }
  if (c.tail_begin < c.head_end) c.tail_begin = c.head_end;
  return c;
}

// How the marker of a cut output names what shows the rest.
struct OutputKind {
  enum { kFile, kStream, kResults, kDiff } kind = kFile;
  std::string path;         // kFile, kDiff
  int64_t first_line = 1;   // kFile: the file line of the text's first line
  std::string stream;       // kStream: "stdout" or "stderr"
  std::string summary;      // kResults: the counts of the whole batch
  // kResults: lines and bytes already left out of the middle of the text
  // before it reached FitText (ResultsSink), counted into the marker.
  int64_t earlier_lines = 0;
  int64_t earlier_bytes = 0;
};

std::string Plural(int64_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// In a unified diff cut after `head`, the first and last line numbers of
// the new file that the left-out `middle` spans (last < first: it holds
// removed lines only).
std::pair<int64_t, int64_t> NewLinesLeftOut(absl::string_view head, absl::string_view middle) {
  int64_t next = 1;  // the new file's line the next ' ' or '+' line is
  bool in_hunk = false;
  auto walk = [&](absl::string_view text) {
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (line.empty()) continue;
      if (absl::StartsWith(line, "@@ -")) {
        size_t plus = line.find(" +");
        int64_t start = 0, count = 1;
        if (plus != absl::string_view::npos) {
          absl::string_view range = line.substr(plus + 2);
          range = range.substr(0, range.find(' '));
          size_t comma = range.find(',');
          if (absl::SimpleAtoi(range.substr(0, comma), &start) && comma != absl::string_view::npos) {
            if (!absl::SimpleAtoi(range.substr(comma + 1), &count)) count = 1;
          }
        }
        next = count == 0 ? start + 1 : start;
        in_hunk = true;
      } else if (in_hunk && (line[0] == ' ' || line[0] == '+')) {
        ++next;
      }
    }
  };
  walk(head);
  // A head cut inside a line: that line is counted, the middle begins it.
  int64_t first = next;
  if (!head.empty() && head.back() != '\n' && in_hunk) {
    size_t start = head.rfind('\n');
    absl::string_view part = head.substr(start == absl::string_view::npos ? 0 : start + 1);
    if (!part.empty() && (part[0] == ' ' || part[0] == '+')) first = --next;
  }
  walk(middle);
  return {first, next - 1};
}

// `text` cut to `share` bytes (head and tail kept), the cut marked on a
// line of its own that says what was left out and what shows it.
std::string FitText(std::string text, int64_t share, const OutputKind& kind) {
  // Never replaced by a marker longer than itself.
  if (static_cast<int64_t>(text.size()) <= std::max<int64_t>(share, 200)) return text;
  // Room for the marker itself (about 200 bytes), within a small share too.
  const int64_t room = std::max<int64_t>(share - std::min<int64_t>(240, share / 3), 0);
  Cut c = CutAt(text, static_cast<size_t>(room / 2), static_cast<size_t>(room - room / 2));
  absl::string_view all(text);
  absl::string_view head = all.substr(0, c.head_end);
  absl::string_view middle = all.substr(c.head_end, c.tail_begin - c.head_end);
  absl::string_view tail = all.substr(c.tail_begin);
  const int64_t bytes = static_cast<int64_t>(middle.size());
  // Whole lines left out when the cut fell on line ends.
  const bool whole_lines = (head.empty() || head.back() == '\n') && (middle.empty() || middle.back() == '\n');
  const int64_t lines = CountLines(middle) + (whole_lines ? 0 : 1);
  std::string marker;
  if (kind.kind == OutputKind::kFile) {
    const int64_t first = kind.first_line + CountLines(head);
    const int64_t last = first + std::max<int64_t>(lines, 1) - 1;
    const std::string range = first == last ? absl::StrCat(first) : absl::StrCat(first, "-", last);
    marker = absl::StrCat("[output truncated: ", whole_lines ? "" : "parts of ", "line", first == last ? " " : "s ",
                          range, " (", bytes, " bytes) left out here; file_read_numbered with path = \"",
                          kind.path, "\" and lines = \"", range, "\" shows them]");
  } else if (kind.kind == OutputKind::kDiff) {
    // The lines of the file as it is now that the left-out hunks span.
    auto [first, last] = NewLinesLeftOut(head, middle);
    marker = absl::StrCat("[diff truncated: ", Plural(lines, "line", "lines"), " (", bytes,
                          " bytes) of the diff left out here");
    if (last >= first) {
      const std::string range = first == last ? absl::StrCat(first) : absl::StrCat(first, "-", last);
      absl::StrAppend(&marker, "; file_read_numbered with path = \"", kind.path, "\" and lines = \"", range,
                      "\" shows that part of the file as it is now]");
    } else {
      absl::StrAppend(&marker, "; they are removed lines only]");
    }
  } else if (kind.kind == OutputKind::kStream) {
    // exec's own cut (at --max-output, "[output truncated: N bytes of
    // stdout left out]") may be in what is left out here: counted in.
    int64_t earlier = 0, earlier_lines = 0;
    const std::string prefix = "[output truncated: ";
    for (size_t at = middle.find(prefix); at != absl::string_view::npos; at = middle.find(prefix, at + 1)) {
      const size_t end = middle.find('\n', at);
      absl::string_view line = middle.substr(at, end == absl::string_view::npos ? end : end - at);
      const std::string suffix = absl::StrCat(" bytes of ", kind.stream, " left out]");
      int64_t n = 0;
      if (absl::EndsWith(line, suffix) &&
          absl::SimpleAtoi(line.substr(prefix.size(), line.size() - prefix.size() - suffix.size()), &n)) {
        // The marker's line and the line break exec put before it.
        earlier += n - static_cast<int64_t>(line.size()) - 1 - (at > 0 && middle[at - 1] == '\n' ? 1 : 0);
        ++earlier_lines;
      }
    }
    const std::string counted =
        earlier_lines == 0
            ? absl::StrCat(Plural(lines, "line", "lines"), " (", bytes, " bytes)")
            : absl::StrCat(bytes + earlier, " bytes (more than ", Plural(lines - earlier_lines, "line", "lines"), ")");
    marker = absl::StrCat("[output truncated: ", counted, " of ", kind.stream,
                          " left out here; to see them, run the code again with its output redirected to a "
                          "file and read the part you need with file_read_numbered]");
  } else {
    marker = absl::StrCat("[results truncated: ", Plural(lines + kind.earlier_lines, "line", "lines"), " (",
                          bytes + kind.earlier_bytes,
                          " bytes) left out here to keep the report within its budget; ", kind.summary,
                          "; send fewer actions per answer]");
  }
  std::string out;
  out.reserve(head.size() + marker.size() + tail.size() + 2);
  absl::StrAppend(&out, head, head.empty() || head.back() == '\n' ? "" : "\n", marker, "\n", tail);
  return out;
}

// Keeps the head and tail elements of `array` within `share` bytes (as the
// report prints them, roughly their JSON size); the left-out count and
// where they were go into data[key + "_left_out"].
int64_t FitArray(core::Json& data, const char* key, int64_t share) {
  core::Json& array = data[key];
  std::vector<int64_t> sizes;
  sizes.reserve(array.size());
  int64_t total = 0;
  for (const core::Json& e : array) {
    sizes.push_back(static_cast<int64_t>(e.is_string() ? e.get_ref<const std::string&>().size()
                                                        : e.dump(-1, ' ', false, core::Json::error_handler_t::replace).size()) +
                    8);
    total += sizes.back();
  }
  if (total <= share) return total;
  const int64_t room = std::max<int64_t>(share - 120, 0);
  size_t head = 0, tail = 0;
  int64_t used = 0;
  while (head < sizes.size() && used + sizes[head] <= room / 2) used += sizes[head++];
  while (tail < sizes.size() - head && used + sizes[sizes.size() - 1 - tail] <= room) {
    used += sizes[sizes.size() - 1 - tail++];
  }
  const size_t left_out = sizes.size() - head - tail;
  core::Json kept = core::Json::array();
  for (size_t i = 0; i < head; ++i) kept.push_back(std::move(array[i]));
  for (size_t i = sizes.size() - tail; i < sizes.size(); ++i) kept.push_back(std::move(array[i]));
  array = std::move(kept);
  data[absl::StrCat(key, "_left_out")] = core::Json{{"count", left_out}, {"after", head}};
  return used + 120;
}


struct SkippedBlock {
  std::string block_id;
  int start_line = 0;
  std::string action;
  std::vector<const sham_action_parser::ActionParseError*> errors;
  size_t first_error = 0;  // the index of errors[0] in its list
};

// Parse errors grouped per block (by position, since ids may repeat).
std::vector<SkippedBlock> GroupSkipped(const std::vector<sham_action_parser::ActionParseError>& errors) {
  std::vector<SkippedBlock> blocks;
  for (size_t i = 0; i < errors.size(); ++i) {
    const auto& e = errors[i];
    if (blocks.empty() || blocks.back().block_id != e.block_id || blocks.back().start_line != e.block_start_line) {
      blocks.push_back(SkippedBlock{e.block_id, e.block_start_line, e.action.value_or(""), {}, i});
    }
    blocks.back().errors.push_back(&e);
  }
  return blocks;
}

std::vector<SkippedBlock> GroupSkipped(const ExecutionResult& result) { return GroupSkipped(result.parse_errors); }

std::string ShortId(const std::optional<std::string>& id) { return id ? id->substr(0, 7) : ""; }

}  // namespace

bool ProducesOutput(absl::string_view action_name) {
  static const auto* const kNames = new std::set<std::string, std::less<>>{
      "file_read", "file_read_numbered", "files_read", "ls", "grep", "glob", "exec",
      "context_list", "context_remove", "context_prune", "context_clear"};
  return kNames->count(action_name) > 0 || IsWriteAction(action_name);
}

bool ShowsChange(absl::string_view action_name) { return IsWriteAction(action_name); }

OutputBudget::OutputBudget(int64_t total_bytes, int64_t per_output_bytes, int outputs, int writes)
    : left_(std::max<int64_t>(total_bytes, 0)),
      per_output_(per_output_bytes > 0 ? per_output_bytes : total_bytes),
      outputs_left_(std::max(outputs, 0)),
      writes_left_(std::max(writes, 0)) {}

int64_t OutputBudget::Reserved() const {
  return std::min<int64_t>(writes_left_ * kWriteReserveBytes, left_ / 2);
}

void OutputBudget::Fit(ActionResult& r) {
  core::Json& d = r.data;
  if (!d.is_object()) return;
  // Each action's share: what is left (less the reserve of the writes to
  // come), spread over the outputs still to come, this one included. A
  // small output leaves the rest to later ones; an action without output
  // takes none.
  int64_t share = 0;
  if (ShowsChange(r.action)) {
    if (writes_left_ > 0) --writes_left_;
    share = std::min(per_output_, (left_ - Reserved()) / (outputs_left_ + 1));
  } else if (ProducesOutput(r.action)) {
    share = std::min(per_output_, (left_ - Reserved()) / std::max(outputs_left_, 1));
    if (outputs_left_ > 0) --outputs_left_;
  } else {
    return;
  }
  // The header lines the report prints around it.
  const std::string primary = PrimaryParamValue(r.action, r.params);
  int64_t used = static_cast<int64_t>(std::min<size_t>(primary.size(), 200)) + 40;
  auto piece_share = [&](int pieces_left) {
    return std::max<int64_t>(share - used, 0) / std::max(pieces_left, 1);
  };
  auto fit_string = [&](core::Json& holder, const char* key, const OutputKind& kind, int pieces_left) {
    auto it = holder.find(key);
    if (it == holder.end() || !it->is_string()) return;
    std::string& text = it->get_ref<std::string&>();
    text = FitText(std::move(text), piece_share(pieces_left), kind);
    used += static_cast<int64_t>(text.size());
  };
  if (d.contains("stdout") || d.contains("stderr")) {  // exec
    OutputKind kind;
    kind.kind = OutputKind::kStream;
    kind.stream = "stdout";
    const bool has_stderr =
        d.contains("stderr") && d["stderr"].is_string() && !d["stderr"].get_ref<const std::string&>().empty();
    fit_string(d, "stdout", kind, has_stderr ? 2 : 1);
    kind.stream = "stderr";
    fit_string(d, "stderr", kind, 1);
  } else if (IsWriteAction(r.action)) {  // diffs
    OutputKind kind;
    kind.kind = OutputKind::kDiff;
    if (d.contains("results") && d["results"].is_array()) {  // files_replace_all_text
      core::Json& items = d["results"];
      for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_object()) continue;
        kind.path = items[i].value("path", "");
        fit_string(items[i], "diff", kind, static_cast<int>(items.size() - i));
      }
    } else {
      kind.path = d.value("path", "");
      fit_string(d, "diff", kind, 1);
      OutputKind lines;  // a new file's first lines: lines of the file
      lines.path = kind.path;
      fit_string(d, "first_lines", lines, 1);
    }
  } else if (d.contains("files") && d["files"].is_array()) {  // files_read
    core::Json& files = d["files"];
    std::string content;
    for (size_t i = 0; i < files.size(); ++i) {
      core::Json& f = files[i];
      OutputKind kind;
      kind.path = f.value("path", "");
      used += 2 * static_cast<int64_t>(std::min<size_t>(kind.path.size(), 200)) + 40;
      fit_string(f, "content", kind, static_cast<int>(files.size() - i));
      const std::string body = f.value("content", "");
      absl::StrAppend(&content, "=== START FILE: ", kind.path, " ===\n", body,
                      body.empty() || body.back() == '\n' ? "" : "\n", "=== END FILE: ", kind.path, " ===\n");
    }
    // The joined form JSON readers see, rebuilt from what was kept.
    if (d.contains("content")) d["content"] = std::move(content);
  } else if (d.contains("content") && d["content"].is_string()) {  // file_read, file_read_numbered
    OutputKind kind;
    kind.path = d.value("path", "");
    if (d.contains("lines") && d["lines"].is_string()) {
      int64_t first = 0;
      const std::string lines = d["lines"].get<std::string>();
      if (absl::SimpleAtoi(lines.substr(0, lines.find('-')), &first) && first > 0) kind.first_line = first;
    }
    used += 2 * static_cast<int64_t>(std::min<size_t>(kind.path.size(), 200)) + 40;
    fit_string(d, "content", kind, 1);
  } else {
    for (const char* key : {"entries", "matches", "removed"}) {
      if (d.contains(key) && d[key].is_array()) used += FitArray(d, key, std::max<int64_t>(share - used, 0));
    }
  }
  left_ -= std::min(used, left_);
}

int CountSkippedBlocks(const ExecutionResult& result) {
  return static_cast<int>(GroupSkipped(result).size()) + result.left_out_skipped.blocks;
}

namespace {

// The results section as it is built, entry by entry (an entry: an
// action's lines, escaped, ending in '\n'). With `keep` > 0 it holds at most
// about `keep` bytes of head and `keep` bytes of tail: the entries between
// are counted, not kept, so a batch of a million blocks never holds its
// whole section in memory. FitText then cuts what is kept to its share
// (well inside head and tail) and counts the dropped middle in.
class ResultsSink {
 public:
  explicit ResultsSink(int64_t keep) : keep_(keep) {}

  void Add(const std::string& raw) {
    std::string entry = core::EscapeForTerminal(raw);
    if (keep_ <= 0 || static_cast<int64_t>(head_.size()) < keep_) {
      head_ += entry;
      return;
    }
    tail_bytes_ += static_cast<int64_t>(entry.size());
    tail_.push_back(std::move(entry));
    while (tail_bytes_ > keep_ && tail_.size() > 1) {
      const std::string& first = tail_.front();
      dropped_bytes_ += static_cast<int64_t>(first.size());
      dropped_lines_ += std::count(first.begin(), first.end(), '\n');
      tail_bytes_ -= static_cast<int64_t>(first.size());
      tail_.pop_front();
    }
  }

  // Entries a ResultKeeper counted instead of keeping: in the middle of a
  // capped section (its head already full), so dropped as Add would.
  void Skip(int64_t lines, int64_t bytes) {
    if (keep_ <= 0) {
      head_ += absl::StrCat("[results left out: ", lines, lines == 1 ? " line" : " lines", " (", bytes,
                            " bytes) of results were counted, not kept]\n");
      return;
    }
    dropped_lines_ += lines;
    dropped_bytes_ += bytes;
  }

  std::string Text() && {
    std::string out = std::move(head_);
    for (const std::string& e : tail_) out += e;
    return out;
  }
  int64_t dropped_lines() const { return dropped_lines_; }
  int64_t dropped_bytes() const { return dropped_bytes_; }

 private:
  int64_t keep_;
  std::string head_;
  std::deque<std::string> tail_;
  int64_t tail_bytes_ = 0;
  int64_t dropped_lines_ = 0;
  int64_t dropped_bytes_ = 0;
};

std::string Multiline(absl::string_view head, absl::string_view text) {
  std::string out;
  AppendMultiline(out, head, text);
  return out;
}

// error_detail: debug shows each failed action's parameters up to this
// size, and up to this many lines of a skipped block.
constexpr size_t kDebugParamsBytes = 2000;
constexpr int kDebugBlockLines = 20;

// `error` as the error_detail setting shows it: "minimal" keeps its first
// line (the error type and what went wrong), without the fix and diagnosis.
std::string ErrorAsDetailed(absl::string_view error, absl::string_view detail) {
  if (detail != "minimal") return std::string(error);
  return std::string(error.substr(0, error.find('\n')));
}

// One action's lines in the results section, before escaping; `detail` is
// the error_detail setting.
std::string ResultEntry(const ActionResult& r, absl::string_view detail = "full") {
  std::string out;
  std::string head = absl::StrCat(r.block_id, r.success ? " ✅ " : " ❌ ", r.action);
  std::string primary = PrimaryValue(r);
  if (!primary.empty()) absl::StrAppend(&head, " ", primary);
  if (r.success) {
    if (r.data.value("already_applied", false)) absl::StrAppend(&head, " (already applied)");
    // How much a write changed ("wrote 12 lines (was 80)"), so an overwrite
    // that cut a file short is seen in the report, not only in --json.
    auto summary = r.data.find("summary");
    if (summary != r.data.end() && summary->is_string()) {
      absl::StrAppend(&head, ", ", summary->get_ref<const std::string&>());
    }
    // What the diff counts, also when the budget leaves the diff out.
    if (r.data.contains("lines_added") && r.data.contains("lines_removed")) {
      absl::StrAppend(&head, ", +", JsonText(r.data["lines_added"]), " -", JsonText(r.data["lines_removed"]),
                      " lines");
    }
    absl::StrAppend(&out, head, "\n");
  } else {
    AppendMultiline(out, absl::StrCat(head, " - "), ErrorAsDetailed(r.error, detail));
  }
  if (detail == "debug" && !r.success) {
    std::string params = r.params.dump(-1, ' ', false, core::Json::error_handler_t::replace);
    if (params.size() > kDebugParamsBytes) {
      size_t cut = kDebugParamsBytes;
      while (cut > 0 && (static_cast<unsigned char>(params[cut]) & 0xC0) == 0x80) --cut;  // whole characters
      params = absl::StrCat(params.substr(0, cut), "...");
    }
    absl::StrAppend(&out, "    debug: ", r.dialect, " lines ", r.start_line, "-", r.end_line, ", group ", r.group,
                    " (", r.group_policy, "), params ", params, "\n");
  }
  // The answer's own reason for the action (a replacer EXPLANATION).
  if (!r.explanation.empty()) AppendMultiline(out, "    why: ", r.explanation);
  for (const std::string& w : r.warnings) absl::StrAppend(&out, "    warning: ", w, "\n");
  return out;
}

// What the outputs section prints for one action (escaped), or "" when it
// prints nothing for it. A failed action shows what it did produce:
// exec's streams, and the files files_read could read (its error names the
// ones it could not); files_replace_all_text, the diffs of the files it did
// change.
std::string ShownOutput(const ActionResult& r) {
  if (!r.success && !r.data.contains("stdout") && !r.data.contains("files") && !r.data.contains("results")) {
    return "";
  }
  return core::EscapeForTerminal(FormatOutput(r));
}

// How many bytes of head and of tail a capped results section keeps while
// it is built: twice the results' share each, so FitText's cut falls well
// inside what is kept. 0: no cap.
int64_t ResultsKeepBytes(int64_t budget_bytes) {
  return budget_bytes > 0 ? std::max<int64_t>(budget_bytes / 2, 64 * 1024) : 0;
}

// A refused block's entry in the results section (not yet escaped).
std::string SkippedEntry(const SkippedBlock& b, const std::string& error_detail) {
  std::string out;
  std::string head = absl::StrCat(b.block_id.empty() ? "?" : b.block_id, " ❌ ", b.action.empty() ? "block" : b.action,
                                  " (skipped, block at line ", b.start_line, ") - ");
  for (size_t i = 0; i < b.errors.size(); ++i) {
    std::string msg = absl::StrCat(b.errors[i]->error_type, " error: ", b.errors[i]->message);
    if (!b.errors[i]->fix.empty()) absl::StrAppend(&msg, "\nfix: ", b.errors[i]->fix);
    msg = ErrorAsDetailed(msg, error_detail);
    if (error_detail == "debug" && !b.errors[i]->block_content.empty()) {
      absl::StrAppend(&msg, "\ndebug: the block as read:");
      int shown = 0;
      for (absl::string_view line : absl::StrSplit(b.errors[i]->block_content, '\n')) {
        if (++shown > kDebugBlockLines) {
          absl::StrAppend(&msg, "\n| ...");
          break;
        }
        absl::StrAppend(&msg, "\n| ", line);
      }
    }
    if (i == 0) {
      AppendMultiline(out, head, msg);
    } else {
      AppendMultiline(out, "    ", msg);
    }
  }
  return out;
}

void BuildResultsSection(const ExecutionResult& result, ResultsSink& sink) {
  sink.Add(absl::StrCat(kResultsMarker, "\n"));
  if (result.fatal_error) sink.Add(Multiline("FATAL: ", *result.fatal_error));
  if (result.dry_run) sink.Add("(dry run: nothing was executed)\n");
  const LeftOutResults& left_out = result.left_out;
  for (size_t i = 0; i <= result.results.size(); ++i) {
    if (i == left_out.after && left_out.count > 0) sink.Skip(left_out.section_lines, left_out.section_bytes);
    if (i < result.results.size()) sink.Add(ResultEntry(result.results[i], result.error_detail));
  }
  const LeftOutSkipped& skipped_out = result.left_out_skipped;
  bool skipped_out_done = skipped_out.blocks == 0;
  for (const SkippedBlock& b : GroupSkipped(result)) {
    if (!skipped_out_done && b.first_error >= skipped_out.after) {
      sink.Skip(skipped_out.section_lines, skipped_out.section_bytes);
      skipped_out_done = true;
    }
    sink.Add(SkippedEntry(b, result.error_detail));
  }
  if (!skipped_out_done) sink.Skip(skipped_out.section_lines, skipped_out.section_bytes);
  if (result.results.empty() && result.parse_errors.empty() && skipped_out.blocks == 0 && !result.fatal_error) {
    sink.Add("No action blocks found.\n");
  }
  for (const std::string& w : result.warnings) sink.Add(absl::StrCat("warning: ", w, "\n"));
  const GitSummary& git = result.git;
  for (const std::string& note : git.notes) sink.Add(absl::StrCat("git: ", note, "\n"));
  if (git.snapshot_commit) {
    sink.Add(absl::StrCat("git: your uncommitted changes were saved first as ", ShortId(git.snapshot_commit),
                          " [clada:pre]\n"));
  }
  if (git.ai_commit) sink.Add(absl::StrCat("git: changes committed as ", ShortId(git.ai_commit), "\n"));
  if (!git.foreign_changes.empty()) {
    sink.Add(absl::StrCat("git: changed during the run by something else, left uncommitted: ",
                          absl::StrJoin(git.foreign_changes, ", "), "\n"));
  }
}

// The results section, within `share_bytes` (0: whole): a batch of
// thousands of actions shows its first and last, the others counted.
// `keep_bytes`: what ResultsSink keeps of the head and of the tail.
std::string CappedResultsSection(const ExecutionResult& result, int64_t share_bytes, int64_t keep_bytes) {
  ResultsSink sink(keep_bytes);
  BuildResultsSection(result, sink);
  const int64_t dropped_lines = sink.dropped_lines(), dropped_bytes = sink.dropped_bytes();
  std::string out = std::move(sink).Text();
  if (share_bytes > 0 && static_cast<int64_t>(out.size()) > share_bytes) {
    int ok = result.left_out.succeeded, failed = result.left_out.count - result.left_out.succeeded;
    for (const ActionResult& r : result.results) (r.success ? ok : failed)++;
    OutputKind kind;
    kind.kind = OutputKind::kResults;
    kind.earlier_lines = dropped_lines;
    kind.earlier_bytes = dropped_bytes;
    kind.summary = absl::StrCat(ok, " succeeded, ", failed, " failed, ", CountSkippedBlocks(result),
                                " skipped in all");
    out = FitText(std::move(out), share_bytes, kind);
  }
  return out;
}

}  // namespace

std::string FormatResultsSection(const ExecutionResult& result, int64_t budget_bytes) {
  return CappedResultsSection(result, budget_bytes, ResultsKeepBytes(budget_bytes));
}

std::string FormatReport(const ExecutionResult& result, int64_t budget_bytes, ReportOutputs what) {
  const bool capped = budget_bytes > 0 && what == ReportOutputs::kWithinBudget;
  // The results get up to a quarter of the budget when the outputs need
  // the rest (all of it when the budget is theirs alone).
  std::string out = CappedResultsSection(result, what == ReportOutputs::kWithinBudget ? budget_bytes / 4 : budget_bytes,
                                         ResultsKeepBytes(budget_bytes));
  if (what == ReportOutputs::kLeftOut) {
    absl::StrAppend(&out, kEndMarker, "\n");
    return out;
  }
  const int64_t room = budget_bytes - static_cast<int64_t>(out.size()) - 200;
  std::string outputs;
  int left_out = 0;
  std::vector<std::string> left_out_ids;
  for (size_t i = 0; i <= result.results.size(); ++i) {
    if (i == result.left_out.after) {  // counted, not kept: named, never shown
      left_out += result.left_out.outputs;
      for (const std::string& id : result.left_out.output_ids) {
        if (left_out_ids.size() < 10) left_out_ids.push_back(id);
      }
    }
    if (i == result.results.size()) break;
    const ActionResult& r = result.results[i];
    std::string o = ShownOutput(r);
    if (o.empty()) continue;
    if (capped && static_cast<int64_t>(outputs.size() + o.size()) > room) {
      ++left_out;
      if (left_out_ids.size() < 10) left_out_ids.push_back(r.block_id);
      continue;
    }
    absl::StrAppend(&outputs, o);
  }
  if (left_out > 0) {
    absl::StrAppend(&outputs, "[output truncated: the outputs of ", left_out, left_out == 1 ? " action" : " actions",
                    " (", absl::StrJoin(left_out_ids, ", "), left_out > 10 ? ", ..." : "",
                    ") left out: the report budget is spent; read them in a later answer]\n");
  }
  if (!outputs.empty()) absl::StrAppend(&out, kOutputsMarker, "\n", outputs);
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

core::Json ActionResultToJson(const ActionResult& r) {
  core::Json a;
  a["seq"] = r.seq;
  a["blockId"] = r.block_id;
  a["dialect"] = r.dialect;
  a["label"] = r.block_id;
  a["group"] = r.group;
  a["groupPolicy"] = r.group_policy;
  a["action"] = r.action;
  a["params"] = r.params;
  a["success"] = r.success;
  if (!r.success) a["error"] = r.error;
  if (!r.success && !r.code.empty()) a["code"] = r.code;
  if (!r.error_type.empty()) a["errorType"] = r.error_type;
  if (!r.data.empty()) a["data"] = r.data;
  if (!r.warnings.empty()) a["warnings"] = r.warnings;
  if (!r.explanation.empty()) a["explanation"] = r.explanation;
  return a;
}

namespace {
core::Json ResultJson(const ExecutionResult& result, const std::string* results_mark, const std::string* errors_mark);
}  // namespace

std::string DocumentArrayElement(const core::Json& element) {
  return absl::StrReplaceAll(
      absl::StrCat("    ", element.dump(2, ' ', false, core::Json::error_handler_t::replace)), {{"\n", "\n    "}});
}

namespace {

// Bytes [offset, offset + size) of `file` to `out` (all of it from
// `offset` when size is negative).
void CopyFileBytes(std::FILE* file, int64_t offset, int64_t size, std::ostream& out) {
  std::fflush(file);
  if (std::fseek(file, static_cast<long>(offset), SEEK_SET) != 0) return;
  char buffer[1 << 16];
  while (size != 0) {
    const size_t want = size < 0 ? sizeof buffer : static_cast<size_t>(std::min<int64_t>(size, sizeof buffer));
    const size_t n = std::fread(buffer, 1, want, file);
    if (n == 0) break;
    out.write(buffer, static_cast<std::streamsize>(n));
    if (size > 0) size -= static_cast<int64_t>(n);
  }
}

}  // namespace

core::Json ParseErrorToJson(const sham_action_parser::ActionParseError& error, absl::string_view dialect) {
  core::Json e = sham_action_parser::ActionParseErrorToJson(error);
  e["dialect"] = dialect;
  e["label"] = error.block_id;
  return e;
}

void WriteExecutionResultJson(const ExecutionResult& result, std::ostream& out) {
  const bool results_out = result.spilled.file != nullptr;
  const bool errors_out = result.left_out_skipped.file != nullptr;
  if (!results_out && !errors_out) {
    out << ExecutionResultToJson(result).dump(2);
    return;
  }
  // The document with placeholders for the arrays written out, which are
  // then copied from their files. Only fixed keys and numbers come before
  // "results", and a key cannot appear inside a string (its quotes would be
  // escaped), so the first occurrence of each placeholder is the one.
  const std::string results_mark = "\x01clada: the spilled results\x01";
  const std::string errors_mark = "\x01clada: the spilled parse errors\x01";
  core::Json doc = ResultJson(result, results_out ? &results_mark : nullptr, errors_out ? &errors_mark : nullptr);
  core::MakeJsonValidUtf8(&doc);
  const std::string text = doc.dump(2);
  size_t from = 0;
  auto print_until = [&](absl::string_view key, const std::string& mark) {
    const std::string needle = absl::StrCat("\"", key, "\": ", core::Json(mark).dump());
    const size_t at = text.find(needle, from);
    out << text.substr(from, at - from) << "\"" << key << "\": ";
    from = at + needle.size();
  };
  // Elements with their separators, then the array's end.
  bool first = true;
  auto element = [&](absl::string_view indented) {
    out << (first ? "[\n" : ",\n") << indented;
    first = false;
  };
  auto close = [&] {
    out << (first ? "[]" : "\n  ]");
    first = true;
  };
  if (results_out) {
    print_until("results", results_mark);
    if (result.spilled.count > 0) {
      out << "[\n";
      first = false;
      CopyFileBytes(result.spilled.file.get(), 0, -1, out);
    }
    // Those kept in memory when the file was full.
    for (const ActionResult& r : result.results) element(DocumentArrayElement(ActionResultToJson(r)));
    close();
  }
  if (errors_out) {
    print_until("parseErrors", errors_mark);
    const LeftOutSkipped& skipped = result.left_out_skipped;
    auto kept_error = [&](size_t i) {
      element(DocumentArrayElement(ParseErrorToJson(
          result.parse_errors[i], i < result.parse_error_dialects.size() ? result.parse_error_dialects[i] : "sham")));
    };
    for (size_t i = 0; i < std::min(skipped.after, result.parse_errors.size()); ++i) kept_error(i);
    for (const auto& [offset, size] : skipped.spans) {
      if (size <= 0) continue;
      out << (first ? "[\n" : ",\n");
      first = false;
      CopyFileBytes(skipped.file.get(), offset, size, out);
    }
    for (size_t i = skipped.after; i < result.parse_errors.size(); ++i) kept_error(i);
    close();
  }
  out << text.substr(from);
}

// Every string made valid UTF-8 first: a block ID, a path or a file's bytes
// from an answer may hold any bytes, and dump() throws on them.
core::Json ExecutionResultToJson(const ExecutionResult& result) {
  core::Json doc = ResultJson(result, nullptr, nullptr);
  core::MakeJsonValidUtf8(&doc);
  return doc;
}

namespace {

// ExecutionResultToJson, with `results_mark` and `errors_mark` (when given)
// in place of the "results" and "parseErrors" arrays, which are then not
// built (WriteExecutionResultJson prints them).
core::Json ResultJson(const ExecutionResult& result, const std::string* results_mark, const std::string* errors_mark) {
  core::Json j;
  j["success"] = result.success;
  j["totalBlocks"] = result.total_blocks;
  j["executedActions"] = result.executed_actions;
  if (result.dry_run) j["dryRun"] = true;
  if (results_mark != nullptr) {
    j["results"] = *results_mark;
  } else {
    core::Json results = core::Json::array();
    for (const ActionResult& r : result.results) results.push_back(ActionResultToJson(r));
    j["results"] = std::move(results);
  }
  if (result.left_out.count > 0) {
    j["leftOutResults"] = {{"after", result.left_out.after},
                           {"count", result.left_out.count},
                           {"succeeded", result.left_out.succeeded}};
  }
  if (result.left_out_skipped.blocks > 0 && result.left_out_skipped.file == nullptr) {
    j["leftOutSkippedBlocks"] = {{"after", result.left_out_skipped.after}, {"count", result.left_out_skipped.blocks}};
  }

  if (errors_mark != nullptr) {
    j["parseErrors"] = *errors_mark;
  } else {
    core::Json errors = core::Json::array();
    for (size_t i = 0; i < result.parse_errors.size(); ++i) {
      errors.push_back(ParseErrorToJson(
          result.parse_errors[i], i < result.parse_error_dialects.size() ? result.parse_error_dialects[i] : "sham"));
    }
    j["parseErrors"] = std::move(errors);
  }
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

}  // namespace

std::string FormatSummaryLine(const ExecutionResult& result) {
  int ok = result.left_out.succeeded + result.spilled.succeeded,
      failed = result.left_out.count - result.left_out.succeeded + result.spilled.count - result.spilled.succeeded;
  for (const ActionResult& r : result.results) (r.success ? ok : failed)++;
  std::string line = absl::StrFormat("%d succeeded, %d failed, %d skipped (%.0f ms)", ok, failed,
                                     CountSkippedBlocks(result), result.elapsed_ms);
  if (result.dry_run) line = absl::StrCat("dry run: ", ok, " would run, ", CountSkippedBlocks(result), " skipped");
  if (result.fatal_error) absl::StrAppend(&line, "; fatal: ", *result.fatal_error);
  return line;
}

size_t SkippedBlocksKept(int64_t budget_bytes) {
  // Every refused block's entry is longer than this ("? ❌ block (skipped,
  // block at line N) - syntax error: ..."), so this many fill the head and
  // the tail a capped results section keeps.
  constexpr int64_t kShortestEntryBytes = 32;
  const int64_t keep = ResultsKeepBytes(budget_bytes);
  return keep > 0 ? static_cast<size_t>(keep / kShortestEntryBytes + 1) : 0;
}

std::pair<int64_t, int64_t> SkippedEntrySize(const std::vector<sham_action_parser::ActionParseError>& errors,
                                             const std::string& error_detail) {
  int64_t lines = 0, bytes = 0;
  for (const SkippedBlock& b : GroupSkipped(errors)) {
    const std::string entry = core::EscapeForTerminal(SkippedEntry(b, error_detail));
    lines += std::count(entry.begin(), entry.end(), '\n');
    bytes += static_cast<int64_t>(entry.size());
  }
  return {lines, bytes};
}

// How much more than the results section's head ResultKeeper's head may
// hold while outputs still fit the budget.
constexpr int64_t kHeadEntriesFactor = 8;

ResultKeeper::ResultKeeper(int64_t budget_bytes)
    : budget_(std::max<int64_t>(budget_bytes, 0)), keep_(ResultsKeepBytes(budget_bytes)) {}

void ResultKeeper::SpillTo(std::shared_ptr<std::FILE> file) { spilled_.file = std::move(file); }

void ResultKeeper::Add(ActionResult r) {
  if (spilled_.file != nullptr && !spill_failed_) {
    // As the document's dump(2) indents an element of "results": four
    // spaces more on every line.
    std::string element = DocumentArrayElement(ActionResultToJson(r));
    if (spilled_.count > 0) element.insert(0, ",\n");
    std::FILE* file = spilled_.file.get();
    const long before = std::ftell(file);
    if (std::fwrite(element.data(), 1, element.size(), file) == element.size()) {
      ++spilled_.count;
      if (r.success) ++spilled_.succeeded;
      return;
    }
    // The file is full: it keeps its whole elements, and this result and
    // the later ones are kept in memory (printed after them).
    std::fseek(file, before, SEEK_SET);
    if (ftruncate(fileno(file), before) != 0) {
      // Nothing more to do: the copy stops at what fread returns.
    }
    spill_failed_ = true;
  }
  if (budget_ == 0) {
    head_.push_back(std::move(r));
    return;
  }
  const std::string entry = core::EscapeForTerminal(ResultEntry(r));
  const int64_t output_bytes = static_cast<int64_t>(ShownOutput(r).size());
  // The head: what the section's head and the outputs section can show.
  // Past the section's head, only for the outputs, and only while it holds
  // a few times what the section shows: a batch whose results have no
  // output would otherwise keep every one.
  if (tail_.empty() &&
      (head_entry_bytes_ < keep_ || (head_output_bytes_ <= budget_ && head_entry_bytes_ < kHeadEntriesFactor * keep_))) {
    head_entry_bytes_ += static_cast<int64_t>(entry.size());
    head_output_bytes_ += output_bytes;
    head_.push_back(std::move(r));
    return;
  }
  tail_entry_bytes_ += static_cast<int64_t>(entry.size());
  tail_.push_back(Kept{std::move(r), static_cast<int64_t>(entry.size()), std::count(entry.begin(), entry.end(), '\n'),
                       output_bytes > 0});
  // The tail: the last entries, at least what the section's tail keeps.
  while (tail_.size() > 1 && tail_entry_bytes_ - tail_.front().entry_bytes >= keep_) {
    Kept& first = tail_.front();
    if (left_out_.count == 0) left_out_.after = head_.size();
    CountLeftOut(first);
    tail_entry_bytes_ -= first.entry_bytes;
    tail_.pop_front();
  }
}

void ResultKeeper::NoteParseErrorGroups(std::vector<int> groups) {
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  parse_error_groups_ = std::move(groups);
}

void ResultKeeper::CountLeftOut(const Kept& k) {
  const ActionResult& r = k.result;
  LeftOutResults& out = left_out_;
  const bool not_run = !r.success && r.data.is_object() && r.data.value("not_run", false);
  if (out.count == 0) out.first_line = r.start_line;
  out.last_line = r.start_line;
  // Results run in document order and a group's are together: a new group
  // starts when the group changes.
  if (out.count == 0 || r.group != out.last_group.group) {
    ++out.groups;
    out.last_group = LeftOutResults::GroupShare{r.group};
    group_failed_ = std::binary_search(parse_error_groups_.begin(), parse_error_groups_.end(), r.group);
    if (group_failed_) {
      ++out.groups_with_parse_errors;
      ++out.failed_groups;
    }
  }
  ++out.count;
  ++out.last_group.count;
  if (r.success) {
    ++out.succeeded;
    ++out.last_group.succeeded;
  } else {
    if (not_run) {
      ++out.not_run;
      ++out.last_group.not_run;
    }
    if (!group_failed_) {
      group_failed_ = true;
      ++out.failed_groups;
    }
  }
  if (out.groups == 1) out.first_group = out.last_group;
  out.section_lines += k.entry_lines;
  out.section_bytes += k.entry_bytes;
  if (k.has_output) {
    ++out.outputs;
    if (out.output_ids.size() < 10) out.output_ids.push_back(r.block_id);
  }
  if (r.data.is_object()) {
    bool streams = false;
    for (const char* key : {"stdout", "stderr", "content"}) {
      auto it = r.data.find(key);
      streams = streams || (it != r.data.end() && it->is_string() && !it->get_ref<const std::string&>().empty());
    }
    if (streams) {
      ++out.stream_outputs;
      if (out.stream_output_ids.size() < 10) out.stream_output_ids.push_back(r.block_id);
    }
  }
  if (std::find(out.dialects.begin(), out.dialects.end(), r.dialect) == out.dialects.end()) {
    out.dialects.push_back(r.dialect);
  }
}

void ResultKeeper::MoveInto(ExecutionResult& result) && {
  result.results = std::move(head_);
  for (Kept& k : tail_) result.results.push_back(std::move(k.result));
  tail_.clear();
  if (left_out_.count > 0) result.left_out = std::move(left_out_);
  if (spilled_.file != nullptr) {
    std::fflush(spilled_.file.get());
    result.spilled = std::move(spilled_);
  }
}

ShownEnds ChooseShownEnds(const std::vector<int64_t>& sizes, size_t head_max, size_t tail_max, int64_t share) {
  const size_t n = sizes.size();
  head_max = std::min(head_max, n);
  tail_max = std::min(tail_max, n);
  ShownEnds ends;
  int64_t used = 0;
  auto grow_head = [&](int64_t limit) {
    while (ends.head < head_max && ends.head + ends.tail < n && used + sizes[ends.head] <= limit) {
      used += sizes[ends.head++];
    }
  };
  grow_head(share / 2);
  while (ends.tail < tail_max && ends.head + ends.tail < n && used + sizes[n - 1 - ends.tail] <= share) {
    used += sizes[n - 1 - ends.tail++];
  }
  grow_head(share);
  return ends;
}

bool UsesDialectReport(const ExecutionResult& result, absl::string_view form) {
  if (result.report_form == form) return true;
  if (result.report_form != "auto") return false;
  // Refused blocks are left out only of SHAM (sham_action_parser::ErrorKeeping).
  if (result.left_out_skipped.blocks > 0) return false;
  bool any = false;
  for (const std::string& dialect : result.left_out.dialects) {
    if (dialect != form) return false;
    any = true;
  }
  for (const ActionResult& r : result.results) {
    if (r.dialect != form) return false;
    any = true;
  }
  for (size_t i = 0; i < result.parse_errors.size(); ++i) {
    if (i >= result.parse_error_dialects.size() || result.parse_error_dialects[i] != form) return false;
    any = true;
  }
  return any;
}

std::string FormatTextReport(const ExecutionResult& result, int64_t budget_bytes, ReportOutputs what) {
  if (UsesCslReport(result)) return FormatCslReport(result, budget_bytes, what);
  if (UsesCmlReport(result)) return FormatCmlReport(result, budget_bytes, what);
  return FormatReport(result, budget_bytes, what);
}

std::string FormatTextResults(const ExecutionResult& result, int64_t budget_bytes) {
  if (UsesCslReport(result)) return FormatCslResults(result, budget_bytes);
  if (UsesCmlReport(result)) return FormatCmlResults(result, budget_bytes);
  return FormatResultsSection(result, budget_bytes);
}

}  // namespace clada
