#include "proj/comp/aider-reader/src/aider_reader.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/line_starts.h"

namespace clada::aider_reader {
namespace {

// One line of the answer: its bytes with the break, and its text trimmed.
struct Line {
  size_t begin = 0, end = 0;
  absl::string_view raw;      // with its line break
  absl::string_view trimmed;  // without surrounding whitespace
};

// The lines of a text (core::LineStarts), each made into a Line when asked for.
class Lines {
 public:
  explicit Lines(absl::string_view text) : starts_(text) {}
  size_t size() const { return starts_.size(); }
  Line operator[](size_t i) const {
    Line l;
    l.begin = starts_.Begin(i);
    l.end = starts_.End(i);
    l.raw = starts_.Raw(i);
    l.trimmed = absl::StripAsciiWhitespace(l.raw);
    return l;
  }

 private:
  core::LineStarts starts_;
};

Lines SplitLines(absl::string_view text) { return Lines(text); }

// `c` repeated 5 to 9 times at the start of `s`; returns the count (0: not).
size_t MarkerRun(absl::string_view s, char c) {
  size_t n = 0;
  while (n < s.size() && s[n] == c) ++n;
  return n >= 5 && n <= 9 ? n : 0;
}

// `<<<<<<< SEARCH` (5-9 `<`, Aider also takes `SEARCH>`), on a trimmed line.
bool IsHead(absl::string_view t) {
  size_t n = MarkerRun(t, '<');
  if (n == 0) return false;
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(t.substr(n));
  if (!absl::ConsumePrefix(&rest, "SEARCH")) return false;
  absl::ConsumePrefix(&rest, ">");
  return rest.empty();
}

bool IsDivider(absl::string_view t) { return MarkerRun(t, '=') == t.size() && !t.empty(); }

// Exactly `=======`: the divider wherever the SEARCH has one. A run of
// another length (an RST title's underline, `=========`) is then text.
bool IsExactDivider(absl::string_view t) { return t == "======="; }

// What the error of a block the answer ends inside says: where it stops,
// and that the rest is wanted.
std::string CutOff(int last_line, bool cut) {
  if (cut) {
    return absl::StrCat(" (it stops at line ", last_line, ", where the next block starts (line ", last_line + 1,
                        "): it was cut off, so the block was not applied)");
  }
  return absl::StrCat(" (the answer ends at line ", last_line,
                      " inside it: it was cut off, so the block was not applied)");
}

bool IsUpdated(absl::string_view t) {
  size_t n = MarkerRun(t, '>');
  if (n == 0) return false;
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(t.substr(n));
  return rest == "REPLACE";
}

// Aider's shell fences: their content is a command to suggest, not an edit.
bool IsShellFence(absl::string_view t) {
  static const char* const kStarts[] = {"```bash", "```sh",   "```shell", "```cmd", "```batch", "```powershell",
                                        "```ps1",  "```zsh",  "```fish",  "```ksh", "```csh",   "```tcsh"};
  for (const char* s : kStarts) {
    if (absl::StartsWith(t, s)) return true;
  }
  return false;
}

// A Markdown fence line (``` or ~~~) or Aider's XML-like fence (`<source>`).
bool IsFenceLine(absl::string_view t) {
  return absl::StartsWith(t, "```") || absl::StartsWith(t, "~~~") || absl::StartsWith(t, "<source") ||
         absl::StartsWith(t, "</source");
}

bool HasPathMark(absl::string_view s) {
  return s.find('.') != absl::string_view::npos || s.find('/') != absl::string_view::npos;
}

// Aider's strip_filename: the path a line names, cleaned of `#`, `*`,
// backticks and a trailing colon (repeated until stable, so `**`a.py`**:`
// is `a.py`); a fence line names one only as its info string with a `.` or
// `/` (```` ```src/a.py ````). Prose (blanks and neither `.` nor `/`) names none.
std::optional<std::string> StripFilename(absl::string_view line) {
  absl::string_view s = absl::StripAsciiWhitespace(line);
  if (s == "...") return std::nullopt;
  if (absl::StartsWith(s, "```") || absl::StartsWith(s, "~~~") || absl::StartsWith(s, "<source>")) {
    if (absl::StartsWith(s, "<source>")) {
      s.remove_prefix(8);
    } else {
      char c = s[0];
      while (!s.empty() && s[0] == c) s.remove_prefix(1);
    }
    s = absl::StripAsciiWhitespace(s);
    if (!s.empty() && HasPathMark(s)) return std::string(s);
    return std::nullopt;
  }
  for (;;) {
    absl::string_view before = s;
    while (!s.empty() && s.back() == ':') s.remove_suffix(1);
    while (!s.empty() && s.front() == '#') s.remove_prefix(1);
    s = absl::StripAsciiWhitespace(s);
    while (!s.empty() && s.front() == '`') s.remove_prefix(1);
    while (!s.empty() && s.back() == '`') s.remove_suffix(1);
    while (!s.empty() && s.front() == '*') s.remove_prefix(1);
    while (!s.empty() && s.back() == '*') s.remove_suffix(1);
    if (s == before) break;
  }
  if (s.empty()) return std::nullopt;
  bool blank = std::any_of(s.begin(), s.end(), [](char c) { return absl::ascii_isspace(c); });
  if (blank && !HasPathMark(s)) return std::nullopt;
  return std::string(s);
}

absl::string_view BaseName(absl::string_view p) {
  size_t slash = p.find_last_of("/\\");
  return slash == absl::string_view::npos ? p : p.substr(slash + 1);
}

// The answer's line number of line `index` (0-based) of the text read.
int LineNumber(const ReadOptions& o, size_t index) { return o.first_line + static_cast<int>(index); }

SourceSpan Span(const Lines& lines, size_t first, size_t last, const ReadOptions& o) {
  SourceSpan s;
  s.begin = o.first_byte + lines[first].begin;
  s.end = o.first_byte + lines[last].end;
  s.first_line = LineNumber(o, first);
  s.last_line = LineNumber(o, last);
  return s;
}

std::string Join(const Lines& lines, size_t from, size_t to) {
  std::string out;
  for (size_t k = from; k < to; ++k) out.append(lines[k].raw.data(), lines[k].raw.size());
  return out;
}

// A SEARCH that starts with a blank line, as a text to find, also matches
// the end of any line before the lines meant, and the edit would join two
// lines. Its leading blank lines are left out (and the REPLACE's when it
// starts with one too), with a warning. Aider retries without one such line
// when the text is not found.
// Returns the warning, or "" when nothing was left out.
std::string DropLeadingBlankLines(Edit* e) {
  size_t cut = 0;
  for (;;) {
    size_t nl = e->search.find('\n', cut);
    if (nl == std::string::npos || !absl::StripAsciiWhitespace(absl::string_view(e->search).substr(cut, nl - cut)).empty()) break;
    cut = nl + 1;
  }
  if (cut == 0 || cut >= e->search.size()) return "";  // none, or a blank-only SEARCH (an append)
  const int dropped = static_cast<int>(std::count(e->search.begin(), e->search.begin() + cut, '\n'));
  e->search.erase(0, cut);
  size_t rcut = 0;
  for (int k = 0; k < dropped; ++k) {
    size_t nl = e->replace.find('\n', rcut);
    if (nl == std::string::npos || !absl::StripAsciiWhitespace(absl::string_view(e->replace).substr(rcut, nl - rcut)).empty()) break;
    rcut = nl + 1;
  }
  e->replace.erase(0, rcut);
  return absl::StrCat("the SEARCH of the block at line ", e->span.first_line, " starts with ", dropped,
                      dropped == 1 ? " blank line" : " blank lines",
                      ", left out (a blank line would also match the end of the line before)");
}

}  // namespace

std::optional<std::string> FindFilename(const std::vector<std::string>& lines_before,
                                        const std::vector<std::string>& known_paths, std::string* warning) {
  std::vector<std::string> names;
  int read = 0;
  for (auto it = lines_before.rbegin(); it != lines_before.rend() && read < 3; ++it, ++read) {
    if (std::optional<std::string> name = StripFilename(*it)) names.push_back(*name);
    if (!IsFenceLine(absl::StripAsciiWhitespace(*it))) break;
  }
  if (names.empty()) return std::nullopt;
  for (const std::string& n : names) {
    if (std::find(known_paths.begin(), known_paths.end(), n) != known_paths.end()) return n;
  }
  for (const std::string& n : names) {
    const std::string* only = nullptr;
    int count = 0;
    for (const std::string& k : known_paths) {
      if (BaseName(k) == n) {
        only = &k;
        ++count;
      }
    }
    if (count == 1) {
      if (warning != nullptr) *warning = absl::StrCat("the path '", n, "' was read as ", *only, ", the one file of that name");
      return *only;
    }
  }
  for (const std::string& n : names) {
    if (n.find('.') != std::string::npos) return n;
  }
  return names.front();
}

namespace {

// ReadBlocks: each edit kept, or handed to `on_edit` when it is given.
Blocks ReadText(absl::string_view text, const ReadOptions& o, const absl::FunctionRef<void(Edit&&)>* on_edit) {
  Blocks out;
  // A block starts with `<<<<<` and a shell block with a ``` fence: an
  // answer with neither has none, and its lines are not tabled (48 bytes a
  // line).
  if (!absl::StrContains(text, "<<<<<") && !absl::StrContains(text, "```")) return out;
  const Lines lines = SplitLines(text);
  const size_t n = lines.size();
  std::string current_path = o.carried_path;
  int number = 0;
  auto line = [&o](size_t index) { return LineNumber(o, index); };
  size_t i = 0;
  auto error = [&](std::string code, size_t head, size_t last, std::string message, std::string fix) {
    ParseError e;
    e.number = number;
    e.code = std::move(code);
    e.line = line(head);
    e.message = std::move(message);
    e.fix = std::move(fix);
    e.span = Span(lines, head, last, o);
    out.errors.push_back(std::move(e));
  };
  while (i < n) {
    const absl::string_view t = lines[i].trimmed;
    if (IsShellFence(t)) {
      bool next_is_block = (i + 1 < n && IsHead(lines[i + 1].trimmed)) || (i + 2 < n && IsHead(lines[i + 2].trimmed));
      if (!next_is_block) {
        size_t start = i++;
        while (i < n && !absl::StartsWith(lines[i].trimmed, "```")) ++i;
        ShellBlock sb;
        sb.text = Join(lines, start + 1, i);
        sb.span = Span(lines, start, i < n ? i : n - 1, o);
        out.shell.push_back(std::move(sb));
        if (i < n) ++i;
        continue;
      }
    }
    if (!IsHead(t)) {
      ++i;
      continue;
    }
    const size_t head = i;
    ++number;
    std::vector<std::string> before;
    for (size_t k = head >= 3 ? head - 3 : 0; k < head; ++k) before.emplace_back(lines[k].raw);
    std::optional<std::string> path = FindFilename(before);
    int path_line = 0;
    if (path) {
      for (size_t k = head; k-- > (head >= 3 ? head - 3 : 0);) {
        if (StripFilename(lines[k].raw) == path) {
          path_line = line(k);
          break;
        }
      }
    }
    // SEARCH: up to `=======` (exactly; else the first run of 5 to 9 `=`,
    // as Aider); a new block's opener or a REPLACE marker first is an error.
    size_t k = head + 1;
    size_t first_run = n;  // the first 5-9 `=` line, when there is no exact divider
    while (k < n && !IsExactDivider(lines[k].trimmed) && !IsHead(lines[k].trimmed) && !IsUpdated(lines[k].trimmed)) {
      if (first_run == n && IsDivider(lines[k].trimmed)) first_run = k;
      ++k;
    }
    const bool exact = k < n && IsExactDivider(lines[k].trimmed);
    if (!exact && first_run < n) k = first_run;
    auto is_divider = [exact](absl::string_view t) { return exact ? IsExactDivider(t) : IsDivider(t); };
    if (k >= n || !IsDivider(lines[k].trimmed)) {
      const bool at_end = k >= n;
      const bool at_updated = !at_end && IsUpdated(lines[k].trimmed);
      error("missing_divider", head, at_end ? n - 1 : (at_updated ? k : k - 1),
            absl::StrCat("the SEARCH/REPLACE block at line ", line(head), " has no ======= before ",
                         at_end ? (o.cut ? absl::StrCat("the next block", CutOff(line(n - 1), true)) : absl::StrCat("the end of the answer", CutOff(line(n - 1), false))) : absl::StrCat("line ", line(k))),
            at_end ? absl::StrCat("send the rest of the block, from line ", line(head),
                                  " on: the SEARCH lines, ======= on a line of its own, the REPLACE lines and "
                                  ">>>>>>> REPLACE")
                   : "write ======= on a line of its own between the SEARCH lines and the REPLACE lines, and end "
                     "the block with >>>>>>> REPLACE");
      i = at_updated ? k + 1 : k;
      continue;
    }
    const size_t divider = k;
    k = divider + 1;
    while (k < n && !IsUpdated(lines[k].trimmed) && !is_divider(lines[k].trimmed) && !IsHead(lines[k].trimmed)) ++k;
    if (k >= n || IsHead(lines[k].trimmed)) {
      const bool at_end = k >= n;
      error("missing_replace_marker", head, at_end ? n - 1 : k - 1,
            absl::StrCat("the SEARCH/REPLACE block at line ", line(head), " has no >>>>>>> REPLACE before ",
                         at_end ? (o.cut ? absl::StrCat("the next block", CutOff(line(n - 1), true)) : absl::StrCat("the end of the answer", CutOff(line(n - 1), false))) : absl::StrCat("line ", line(k))),
            at_end ? absl::StrCat("send the rest of the block, from line ", line(head),
                                  " on: its REPLACE lines whole and >>>>>>> REPLACE on a line of its own")
                   : "end the block with >>>>>>> REPLACE on a line of its own after the REPLACE lines");
      i = k;
      continue;
    }
    std::vector<std::string> warnings;
    size_t replace_end = k;  // the REPLACE lines are [divider + 1, replace_end)
    if (is_divider(lines[k].trimmed)) {
      // A second `=======`: right before `>>>>>>> REPLACE` (blank lines
      // between) it is a slip, read as Aider reads it; else what the block
      // replaces with is unclear.
      size_t next = k + 1;
      while (next < n && lines[next].trimmed.empty()) ++next;
      if (next < n && IsUpdated(lines[next].trimmed)) {
        warnings.push_back(absl::StrCat("line ", line(k), ": a second ======= right before >>>>>>> REPLACE was ignored"));
        k = next;
      } else {
        size_t end = k + 1;
        while (end < n && !IsUpdated(lines[end].trimmed) && !IsHead(lines[end].trimmed)) ++end;
        const size_t last = end < n && IsUpdated(lines[end].trimmed) ? end : end - 1;
        error("extra_divider", head, last,
              absl::StrCat("the SEARCH/REPLACE block at line ", line(head), " has a second ======= at line ", line(k)),
              "a block has one =======: SEARCH lines, =======, REPLACE lines, >>>>>>> REPLACE; split it into two "
              "blocks");
        i = last + 1;
        continue;
      }
    }
    const size_t updated = k;
    if (!path) {
      if (current_path.empty()) {
        error("missing_path", head, updated,
              absl::StrCat("the SEARCH/REPLACE block at line ", line(head), " names no file"),
              "write the file's path alone on the line before the block (or before its opening ```)");
        i = updated + 1;
        continue;
      }
      path = current_path;
    }
    current_path = *path;
    Edit e;
    e.number = number;
    e.path = *path;
    e.search = Join(lines, head + 1, divider);
    e.replace = Join(lines, divider + 1, replace_end);
    e.warnings = std::move(warnings);
    e.span = Span(lines, head, updated, o);
    e.path_line = path_line;
    if (on_edit != nullptr) {
      (*on_edit)(std::move(e));
    } else {
      out.edits.push_back(std::move(e));
    }
    i = updated + 1;
  }
  return out;
}

// A line quoted as Markdown (`> `, or `>` alone), without the quote mark:
// nullopt when it is not quoted.
std::optional<absl::string_view> Unquoted(absl::string_view raw) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(raw);
  if (!absl::ConsumePrefix(&s, ">")) return std::nullopt;
  absl::ConsumePrefix(&s, " ");
  return s;
}

// Whether the answer's blocks are all quoted (`> <<<<<<< SEARCH`): no
// opener stands unquoted, and one stands quoted.
bool QuotedBlocksOnly(const Lines& lines) {
  bool quoted = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line l = lines[i];
    if (IsHead(l.trimmed)) return false;
    if (!quoted && l.trimmed.size() > 1 && l.trimmed[0] == '>') {
      std::optional<absl::string_view> u = Unquoted(l.raw);
      quoted = u.has_value() && IsHead(absl::StripAsciiWhitespace(*u));
    }
  }
  return quoted;
}

// An answer quoted whole as Markdown (`> ` before every line, as a model
// quoting its earlier answer or a chat client's reply) holds its blocks
// behind the quote marks: they are read without them, each with a warning,
// and their spans are the quoted lines of `text`.
Blocks Read(absl::string_view text, const ReadOptions& o, const absl::FunctionRef<void(Edit&&)>* on_edit) {
  // Only an answer with a quoted opener is looked at line by line first.
  if (!absl::StrContains(text, "> <<<<<") && !absl::StrContains(text, "><<<<<")) return ReadText(text, o, on_edit);
  if (!QuotedBlocksOnly(SplitLines(text))) return ReadText(text, o, on_edit);
  const Lines lines = SplitLines(text);
  std::string plain;
  plain.reserve(text.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line l = lines[i];
    const absl::string_view u = Unquoted(l.raw).value_or(l.raw);
    plain.append(u.data(), u.size());
  }
  auto restore = [&lines, &o](SourceSpan& s) {
    s.begin = o.first_byte + lines[static_cast<size_t>(s.first_line - o.first_line)].begin;
    s.end = o.first_byte + lines[static_cast<size_t>(s.last_line - o.first_line)].end;
  };
  const std::string warning =
      "the SEARCH/REPLACE blocks are quoted with '> ' (a Markdown quote) and were read without the quote marks; "
      "write blocks unquoted";
  auto fix = [&](Edit& e) {
    restore(e.span);
    e.warnings.push_back(warning);
  };
  Blocks out;
  if (on_edit != nullptr) {
    auto hand_on = [&](Edit&& e) {
      fix(e);
      (*on_edit)(std::move(e));
    };
    const absl::FunctionRef<void(Edit&&)> ref(hand_on);
    out = ReadText(plain, o, &ref);
  } else {
    out = ReadText(plain, o, nullptr);
    for (Edit& e : out.edits) fix(e);
  }
  for (ParseError& e : out.errors) restore(e.span);
  for (ShellBlock& b : out.shell) restore(b.span);
  return out;
}

}  // namespace

Blocks ReadBlocks(absl::string_view text) { return Read(text, ReadOptions(), nullptr); }

Blocks ReadBlocks(absl::string_view text, absl::FunctionRef<void(Edit&&)> on_edit) {
  return Read(text, ReadOptions(), &on_edit);
}

Blocks ReadBlocks(absl::string_view text, const ReadOptions& options, absl::FunctionRef<void(Edit&&)> on_edit) {
  return Read(text, options, &on_edit);
}

std::vector<SourceSpan> FindBlocks(absl::string_view text) {
  Blocks b = ReadBlocks(text);
  std::vector<SourceSpan> spans;
  for (const Edit& e : b.edits) spans.push_back(e.span);
  for (const ParseError& e : b.errors) spans.push_back(e.span);
  std::sort(spans.begin(), spans.end(), [](const SourceSpan& a, const SourceSpan& b) { return a.begin < b.begin; });
  return spans;
}

core::Action ToAction(const Edit& written) {
  core::Action a;
  Edit edit = written;
  const std::string dropped = DropLeadingBlankLines(&edit);
  const bool empty_search = absl::StripAsciiWhitespace(edit.search).empty();
  if (empty_search) {
    a.name = "file_append";
    a.params["path"] = edit.path;
    a.params["content"] = edit.replace;
    a.line_params.push_back("content");
    // fs-ops then finds a file that holds exactly this text already made
    // (a re-sent answer), and appends nothing.
    a.edit_options.append_once = true;
  } else {
    a.name = "file_replace_text";
    a.params["path"] = edit.path;
    a.params["old_text"] = edit.search;
    a.params["new_text"] = edit.replace;
    // fs-ops then matches with Aider's tolerances after an exact miss and
    // finds a file by its unique name when the path does not exist.
    a.edit_options.tolerant_match = true;
    a.edit_options.find_file_by_name = true;
  }
  a.metadata.block_id = absl::StrCat("sr-", edit.number);
  a.metadata.start_line = edit.span.first_line;
  a.metadata.end_line = edit.span.last_line;
  a.warnings = edit.warnings;
  if (!dropped.empty()) a.warnings.push_back(dropped);
  return a;
}

std::vector<core::Action> ToActions(const Blocks& blocks) {
  std::vector<core::Action> actions;
  actions.reserve(blocks.edits.size());
  for (const Edit& e : blocks.edits) actions.push_back(ToAction(e));
  return actions;
}

}  // namespace clada::aider_reader
