#include "proj/comp/patch-text/src/diff_format.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "proj/comp/core/src/line_starts.h"

namespace clada::patch_text {

bool IsFileHeader(absl::string_view line, absl::string_view next) {
  if (absl::StartsWith(line, "diff --git ")) return true;
  return absl::StartsWith(line, "--- ") && absl::StartsWith(next, "+++ ");
}

namespace {

struct Line {
  size_t begin = 0, end = 0;
  absl::string_view text;  // without the `\n`
  absl::string_view head;  // text without a trailing `\r`, for headers
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
    l.text = starts_.Raw(i);
    absl::ConsumeSuffix(&l.text, "\n");
    l.head = l.text;
    absl::ConsumeSuffix(&l.head, "\r");
    return l;
  }

 private:
  core::LineStarts starts_;
};

Lines SplitLines(absl::string_view text) { return Lines(text); }

// The answer's number of line `index` (0-based) of the text read.
int LineNumber(const TextOrigin& o, size_t index) { return o.first_line + static_cast<int>(index); }

core::SourceSpan Span(const Lines& lines, size_t first, size_t last, const TextOrigin& o) {
  core::SourceSpan s;
  s.begin = o.first_byte + lines[first].begin;
  s.end = o.first_byte + lines[last].end;
  s.first_line = LineNumber(o, first);
  s.last_line = LineNumber(o, last);
  return s;
}

// IsFileHeader of line i, the next line made only when line i is a `--- `.
bool IsFileStart(const Lines& lines, size_t i) {
  const absl::string_view head = lines[i].head;
  if (!absl::StartsWith(head, "--- ")) return IsFileHeader(head, absl::string_view());
  return i + 1 < lines.size() && IsFileHeader(head, lines[i + 1].head);
}

// A C-quoted git path ("a/x y\tz") unquoted; others as they are.
std::string Unquote(absl::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::string(s);
  std::string out;
  for (size_t k = 1; k + 1 < s.size(); ++k) {
    char c = s[k];
    if (c != '\\' || k + 2 >= s.size()) {
      out += c;
      continue;
    }
    char e = s[++k];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default:
        if (e >= '0' && e <= '7' && k + 2 < s.size()) {
          out += static_cast<char>(std::strtol(std::string(s.substr(k, 3)).c_str(), nullptr, 8));
          k += 2;
        } else {
          out += e;
        }
    }
  }
  return out;
}

// The path of a `--- `/`+++ ` line: a tab and what follows (a timestamp) left out.
std::string HeaderPath(absl::string_view rest) {
  rest = absl::StripAsciiWhitespace(rest);
  if (!rest.empty() && rest.front() != '"') {
    size_t tab = rest.find('\t');
    if (tab != absl::string_view::npos) rest = rest.substr(0, tab);
    rest = absl::StripTrailingAsciiWhitespace(rest);
  }
  return Unquote(rest);
}

std::string StripPrefix(const std::string& p, absl::string_view prefix) {
  return absl::StartsWith(p, prefix) ? p.substr(prefix.size()) : p;
}

// `@@ -a,b +c,d @@ section`: false when the numbers are not there.
bool ParseRange(absl::string_view head, DiffHunk* h) {
  absl::string_view s = head;
  if (!absl::ConsumePrefix(&s, "@@ -")) return false;
  size_t end = s.find(" @@");
  if (end == absl::string_view::npos) return false;
  absl::string_view nums = s.substr(0, end);
  absl::string_view section = s.substr(end + 3);
  size_t plus = nums.find(" +");
  if (plus == absl::string_view::npos) return false;
  auto parse = [](absl::string_view r, int* start, int* count) {
    size_t comma = r.find(',');
    if (!absl::SimpleAtoi(r.substr(0, comma), start) || *start < 0) return false;
    if (comma == absl::string_view::npos) {
      *count = 1;
      return true;
    }
    return absl::SimpleAtoi(r.substr(comma + 1), count) && *count >= 0;
  };
  if (!parse(nums.substr(0, plus), &h->old_start, &h->old_count)) return false;
  if (!parse(nums.substr(plus + 2), &h->new_start, &h->new_count)) return false;
  h->section = std::string(absl::StripLeadingAsciiWhitespace(section));
  return true;
}

// Reads one hunk from its `@@` line; returns the index after it.
// `*cut` is set when the answer ends before the lines its header counts:
// the answer was cut off inside the hunk.
size_t ReadHunk(const Lines& lines, size_t at, DiffHunk* h, std::vector<std::string>* warnings, bool* cut,
                const TextOrigin& o) {
  const size_t n = lines.size();
  h->source_line = LineNumber(o, at);
  const bool counted = ParseRange(lines[at].head, h);
  if (!counted) {
    h->old_start = h->old_count = h->new_start = h->new_count = -1;
  }
  int old_left = h->old_count, new_left = h->new_count;
  size_t k = at + 1;
  int trailing_blank = 0;  // empty lines read at the end (not context when the counts do not say so)
  for (; k < n; ++k) {
    const absl::string_view raw = lines[k].text;
    if (!raw.empty() && raw[0] == '\\') {
      if (!h->lines.empty()) h->lines.back().newline = false;
      continue;
    }
    if (counted && old_left <= 0 && new_left <= 0) break;
    if (IsFileStart(lines, k) && (!absl::StartsWith(lines[k].head, "--- ") || !counted ||
                                  (k + 2 < n && absl::StartsWith(lines[k + 2].head, "@@")))) {
      break;
    }
    const char c = raw.empty() ? ' ' : raw[0];
    if (c != ' ' && c != '-' && c != '+') break;
    if (raw.empty() || (lines[k].head.empty() && c == ' ')) {
      ++trailing_blank;
    } else {
      trailing_blank = 0;
    }
    DiffLine l;
    l.kind = c;
    l.text = std::string(raw.empty() ? raw : raw.substr(1));
    if (c != '+') --old_left;
    if (c != '-') --new_left;
    h->lines.push_back(std::move(l));
  }
  if (counted && k >= n && (old_left > 0 || new_left > 0)) {
    *cut = true;
    return k;
  }
  if (counted && (old_left != 0 || new_left != 0)) {
    warnings->push_back(absl::StrCat("hunk at line ", LineNumber(o, at), ": its header counts ", h->old_count, " old and ",
                                     h->new_count, " new lines, its lines say ", h->old_count - old_left, " and ",
                                     h->new_count - new_left));
  }
  if (!counted || old_left != 0 || new_left != 0) {
    // Blank lines after the last hunk line separate it from what follows.
    for (; trailing_blank > 0 && !h->lines.empty() && h->lines.back().kind == ' ' &&
           absl::StripTrailingAsciiWhitespace(h->lines.back().text).empty();
         --trailing_blank) {
      h->lines.pop_back();
    }
  }
  return k;
}

std::string FileText(const std::vector<DiffLine>& lines, char skip) {
  std::string out;
  for (const DiffLine& l : lines) {
    if (l.kind == skip) continue;
    out += l.text;
    if (l.newline) out += '\n';
  }
  return out;
}

}  // namespace

absl::string_view FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kUpdate: return "update";
    case FileKind::kAdd: return "add";
    case FileKind::kDelete: return "delete";
  }
  return "update";
}

Diffs ParseDiffs(absl::string_view text) {
  std::deque<FilePatch> files;
  Diffs out = ParseDiffs(text, TextOrigin(), [&files](FilePatch&& f) { files.push_back(std::move(f)); });
  out.files = std::move(files);
  return out;
}

Diffs ParseDiffs(absl::string_view text, const TextOrigin& o, absl::FunctionRef<void(FilePatch&&)> on_file) {
  Diffs out;
  auto ln = [&o](size_t index) { return LineNumber(o, index); };
  // A diff starts at a line beginning `diff --git ` or `--- `: a text
  // without one has none, and its lines are not tabled (a million-block
  // answer's table would take 48 bytes a line).
  if (!absl::StartsWith(text, "diff --git ") && !absl::StartsWith(text, "--- ") &&
      !absl::StrContains(text, "\ndiff --git ") && !absl::StrContains(text, "\n--- ")) {
    return out;
  }
  const Lines lines = SplitLines(text);
  const size_t n = lines.size();
  size_t i = 0;
  while (i < n) {
    if (!IsFileStart(lines, i)) {
      ++i;
      continue;
    }
    const size_t start = i;
    FilePatch f;
    std::string git_old, git_new, old_name, new_name, rename_from, rename_to, copy_from, copy_to;
    bool git = false, new_file = false, deleted_file = false, binary = false;
    if (absl::StartsWith(lines[i].head, "diff --git ")) {
      git = true;
      absl::string_view rest = lines[i].head.substr(11);
      // `a/x b/x`: names with blanks are split where both halves are equal.
      const size_t mid = rest.size() / 2;
      if (rest.size() >= 5 && rest.size() % 2 == 1 && rest[mid] == ' ' &&
          rest.substr(2, mid - 2) == rest.substr(mid + 3)) {
        git_old = std::string(rest.substr(0, mid));
        git_new = std::string(rest.substr(mid + 1));
      } else if (size_t b = rest.rfind(" b/"); b != absl::string_view::npos) {
        git_old = std::string(rest.substr(0, b));
        git_new = std::string(rest.substr(b + 1));
      } else if (size_t sp = rest.find(' '); sp != absl::string_view::npos) {
        git_old = Unquote(rest.substr(0, sp));
        git_new = Unquote(rest.substr(sp + 1));
      }
      git_old = StripPrefix(Unquote(git_old), "a/");
      git_new = StripPrefix(Unquote(git_new), "b/");
      ++i;
      for (; i < n; ++i) {
        absl::string_view h = lines[i].head;
        if (absl::StartsWith(h, "new file mode")) {
          new_file = true;
          f.executable = absl::StripAsciiWhitespace(h.substr(13)) == "100755";
        } else if (absl::StartsWith(h, "deleted file mode")) {
          deleted_file = true;
        } else if (absl::ConsumePrefix(&h, "rename from ")) {
          rename_from = Unquote(h);
        } else if (absl::ConsumePrefix(&h, "rename to ")) {
          rename_to = Unquote(h);
        } else if (absl::ConsumePrefix(&h, "copy from ")) {
          copy_from = Unquote(h);
        } else if (absl::ConsumePrefix(&h, "copy to ")) {
          copy_to = Unquote(h);
        } else if (absl::StartsWith(h, "Binary files ") || absl::StartsWith(h, "GIT binary patch")) {
          binary = true;
        } else if (absl::StartsWith(h, "old mode") || absl::StartsWith(h, "new mode") ||
                   absl::StartsWith(h, "similarity index") || absl::StartsWith(h, "dissimilarity index") ||
                   absl::StartsWith(h, "index ")) {
          if (absl::StartsWith(h, "old mode") || absl::StartsWith(h, "new mode")) {
            f.warnings.push_back(absl::StrCat("line ", ln(i), ": '", h, "' is not applied (clada does not change modes)"));
          }
        } else {
          break;
        }
      }
    }
    if (i < n && absl::StartsWith(lines[i].head, "--- ") && i + 1 < n && absl::StartsWith(lines[i + 1].head, "+++ ")) {
      old_name = HeaderPath(lines[i].head.substr(4));
      new_name = HeaderPath(lines[i + 1].head.substr(4));
      i += 2;
    }
    if (binary) {
      size_t last = i > start ? i - 1 : start;
      while (last + 1 < n && !IsFileStart(lines, last + 1) && !lines[last + 1].head.empty()) ++last;
      DiffError e{"binary_patch", ln(start), absl::StrCat("the diff at line ", ln(start), " is a binary patch"),
                   "send binary files another way; a diff can only change text", Span(lines, start, last, o)};
      out.errors.push_back(std::move(e));
      i = last + 1;
      continue;
    }
    bool cut = false;
    while (i < n && absl::StartsWith(lines[i].head, "@@")) {
      DiffHunk h;
      i = ReadHunk(lines, i, &h, &f.warnings, &cut, o);
      if (cut) {
        const int counted_old = h.old_count, counted_new = h.new_count;
        int old_read = 0, new_read = 0;
        for (const DiffLine& l : h.lines) {
          old_read += l.kind != '+';
          new_read += l.kind != '-';
        }
        out.errors.push_back(DiffError{
            "truncated", ln(start),
            absl::StrCat(o.cut ? "the diff stops at line " : "the answer ends at line ", ln(n - 1),
                         o.cut ? ", before the rest of the answer," : "", " inside the hunk at line ", h.source_line,
                         ", which holds ", old_read, " of its ", counted_old, " old and ", new_read, " of its ",
                         counted_new, " new lines: it was cut off, so none of this file's diff was applied"),
            absl::StrCat("send the rest of the diff (this file's diff from line ", ln(start),
                         " again, whole), each hunk with as many lines as its @@ header counts"),
            Span(lines, start, n - 1, o)});
        break;
      }
      if (h.lines.empty()) {
        f.warnings.push_back(absl::StrCat("hunk at line ", h.source_line, " has no lines and was left out"));
        continue;
      }
      f.hunks.push_back(std::move(h));
    }
    if (cut) {
      i = n;
      continue;
    }
    const size_t last = i > start ? i - 1 : start;
    // Paths: git's a/ b/ prefixes; /dev/null for a new or deleted file
    // (beside which the other name keeps its prefix, as git apply reads it).
    const bool old_prefixed = absl::StartsWith(old_name, "a/") || old_name == "/dev/null";
    const bool new_prefixed = absl::StartsWith(new_name, "b/") || new_name == "/dev/null";
    const bool prefixed = git || (old_prefixed && new_prefixed && old_name != new_name);
    if (prefixed) {
      old_name = StripPrefix(old_name, "a/");
      new_name = StripPrefix(new_name, "b/");
    }
    if (old_name.empty() && new_name.empty()) {
      old_name = git_old;
      new_name = git_new;
      if (new_file) old_name = "/dev/null";
      if (deleted_file) new_name = "/dev/null";
    }
    if (!rename_from.empty() && !rename_to.empty()) {
      old_name = rename_from;
      new_name = rename_to;
    }
    const bool old_null = old_name == "/dev/null" || new_file;
    const bool new_null = new_name == "/dev/null" || deleted_file;
    bool all_added = true, all_removed = true;
    for (const DiffHunk& h : f.hunks) {
      for (const DiffLine& l : h.lines) {
        if (l.kind != '+') all_added = false;
        if (l.kind != '-') all_removed = false;
      }
    }
    if (old_null && !new_null && all_added) {
      f.kind = FileKind::kAdd;
      f.path = new_name;
    } else if (new_null && !old_null && all_removed) {
      f.kind = FileKind::kDelete;
      f.path = old_name;
    } else {
      f.kind = FileKind::kUpdate;
      f.path = new_null || (old_null && !new_null) ? (new_null ? old_name : new_name) : old_name;
      if (old_null && !new_null) {
        f.warnings.push_back(absl::StrCat("line ", ln(start), ": the diff says ", new_name,
                                          " is new but its hunks have old lines; it is read as an edit"));
      }
      if (!old_null && !new_null && old_name != new_name) {
        if (git) {
          f.move_to = new_name;
        } else {
          f.path = new_name;
          f.warnings.push_back(absl::StrCat("line ", ln(start), ": the diff names ", old_name, " and ", new_name,
                                            "; it edits ", new_name));
        }
      }
    }
    // `copy from/to`: as git apply, the copy is written from its source's
    // bytes with the hunks applied, and the source is kept.
    if (!copy_from.empty() || !copy_to.empty()) {
      f.kind = FileKind::kUpdate;
      f.copy_from = copy_from.empty() ? git_old : copy_from;
      f.path = copy_to.empty() ? git_new : copy_to;
      f.move_to.reset();
    }
    f.span = Span(lines, start, last, o);
    if (f.path.empty() || f.path == "/dev/null") {
      out.errors.push_back(DiffError{"missing_path", ln(start),
                                      absl::StrCat("the diff at line ", ln(start), " names no file"),
                                      "start each file's diff with --- a/PATH and +++ b/PATH lines",
                                      Span(lines, start, last, o)});
    } else if (f.hunks.empty() && f.kind == FileKind::kUpdate && !f.move_to && !f.copy_from) {
      out.errors.push_back(DiffError{"missing_hunks", ln(start),
                                      absl::StrCat("the diff of ", f.path, " at line ", ln(start), " has no hunk"),
                                      "follow the --- and +++ lines with hunks: @@ -LINE,COUNT +LINE,COUNT @@ and "
                                      "the lines, each starting with ' ', '-' or '+'",
                                      Span(lines, start, last, o)});
    } else {
      on_file(std::move(f));
    }
    i = std::max(i, start + 1);
  }
  return out;
}

std::vector<hunk_apply::Hunk> ToHunks(const FilePatch& patch) {
  std::vector<hunk_apply::Hunk> hunks;
  for (const DiffHunk& h : patch.hunks) {
    hunk_apply::Hunk out;
    out.source_line = h.source_line;
    for (const DiffLine& l : h.lines) {
      hunk_apply::PatchLine p;
      p.kind = l.kind == '-' ? hunk_apply::PatchLine::kDelete
                             : l.kind == '+' ? hunk_apply::PatchLine::kAdd : hunk_apply::PatchLine::kContext;
      absl::string_view t = l.text;
      absl::ConsumeSuffix(&t, "\r");
      p.text = std::string(t);
      out.lines.push_back(std::move(p));
      // `\ No newline at end of file`: the hunk ends the file.
      if (!l.newline) out.is_end_of_file = true;
    }
    hunks.push_back(std::move(out));
  }
  return hunks;
}

namespace {

// Whether a hunk that only adds lines (hunk-apply's recognisable insertion)
// finds its new lines, byte for byte, where its header says its old lines
// are: the file may hold its result already (a re-sent diff), which
// hunk-apply tells from an insertion still to make.
bool InsertionLooksApplied(absl::string_view content, const FilePatch& patch) {
  std::vector<absl::string_view> file;  // lines without their `\n`
  bool split = false;
  for (const DiffHunk& h : patch.hunks) {
    // Most hunks delete a line: those are passed over before any copy.
    if (h.old_start < 1 ||
        std::any_of(h.lines.begin(), h.lines.end(), [](const DiffLine& l) { return l.kind == '-'; })) {
      continue;
    }
    hunk_apply::Hunk one;
    int lead = 0;
    bool seen_context = false;
    for (const DiffLine& l : h.lines) {
      one.lines.push_back({l.kind == '+' ? hunk_apply::PatchLine::kAdd : hunk_apply::PatchLine::kContext, l.text});
      if (l.kind == ' ') seen_context = true;
      if (!seen_context) ++lead;
    }
    if (!hunk_apply::IsRecognisableInsertion(one)) continue;
    if (!split) {
      for (size_t pos = 0; pos < content.size();) {
        size_t nl = content.find('\n', pos);
        size_t end = nl == absl::string_view::npos ? content.size() : nl;
        file.push_back(content.substr(pos, end - pos));
        pos = end + 1;
      }
      split = true;
    }
    const long start = static_cast<long>(h.old_start) - 1 - lead;
    if (start < 0 || start + static_cast<long>(h.lines.size()) > static_cast<long>(file.size())) continue;
    bool all = true;
    for (size_t k = 0; k < h.lines.size() && all; ++k) all = file[start + k] == h.lines[k].text;
    if (all) return true;
  }
  return false;
}

// Every hunk at its header's line, byte for byte (git apply without offset).
std::optional<std::string> ApplyAtLines(absl::string_view content, const FilePatch& patch) {
  std::vector<absl::string_view> file;  // lines with their `\n`
  for (size_t pos = 0; pos < content.size();) {
    size_t nl = content.find('\n', pos);
    size_t end = nl == absl::string_view::npos ? content.size() : nl + 1;
    file.push_back(content.substr(pos, end - pos));
    pos = end;
  }
  std::string out;
  out.reserve(content.size());
  size_t next = 0;  // first file line not yet copied
  for (const DiffHunk& h : patch.hunks) {
    if (h.old_start < 0) return std::nullopt;
    int old_lines = 0;
    for (const DiffLine& l : h.lines) old_lines += l.kind != '+';
    size_t at = old_lines == 0 ? static_cast<size_t>(h.old_start) : static_cast<size_t>(h.old_start) - 1;
    if (h.old_start == 0 && old_lines > 0) return std::nullopt;
    if (at < next || at + old_lines > file.size()) return std::nullopt;
    size_t k = at;
    for (const DiffLine& l : h.lines) {
      if (l.kind == '+') continue;
      absl::string_view f = file[k++];
      absl::string_view want = l.text;
      if (l.newline) {
        if (f.size() != want.size() + 1 || f.back() != '\n' || f.substr(0, want.size()) != want) return std::nullopt;
      } else if (f != want) {
        return std::nullopt;
      }
    }
    for (size_t c = next; c < at; ++c) out.append(file[c].data(), file[c].size());
    k = at;
    for (const DiffLine& l : h.lines) {
      if (l.kind == ' ') {
        out.append(file[k].data(), file[k].size());
        ++k;
      } else if (l.kind == '-') {
        ++k;
      } else {
        out += l.text;
        if (l.newline) out += '\n';
      }
    }
    next = k;
  }
  for (size_t c = next; c < file.size(); ++c) out.append(file[c].data(), file[c].size());
  return out;
}

}  // namespace

absl::StatusOr<Applied> ApplyFilePatch(absl::string_view content, const FilePatch& patch,
                                       hunk_apply::ApplyError* error) {
  Applied out;
  if (patch.kind == FileKind::kAdd) {
    for (const DiffHunk& h : patch.hunks) out.content += FileText(h.lines, '-');
    if (!content.empty()) {
      // The file is there: made by this diff before (a re-sent answer) when
      // it holds exactly the new text.
      if (content != out.content) {
        return absl::FailedPreconditionError(absl::StrCat("the diff creates ", patch.path,
                                                          " but it exists and holds other text; nothing was written"));
      }
      out.already_applied = true;
    }
    return out;
  }
  if (patch.kind == FileKind::kDelete) {
    std::string removed;
    for (const DiffHunk& h : patch.hunks) removed += FileText(h.lines, '+');
    if (!patch.hunks.empty() && removed != content) {
      return absl::FailedPreconditionError(
          absl::StrCat("the diff deletes ", patch.path, " but the lines it removes are not the file's (",
                       std::count(content.begin(), content.end(), '\n'), " lines now); nothing was deleted"));
    }
    return out;
  }
  std::optional<std::string> exact = ApplyAtLines(content, patch);
  if (exact.has_value() && !InsertionLooksApplied(content, patch)) {
    out.content = *std::move(exact);
    return out;
  }
  std::vector<hunk_apply::Hunk> hunks = ToHunks(patch);
  hunk_apply::ApplyError why;
  absl::StatusOr<hunk_apply::Applied> placed = hunk_apply::ApplyHunks(content, hunks, &why);
  if (!placed.ok() && why.code == hunk_apply::ApplyError::Code::kAmbiguous) {
    // The header's section line (git's function context) narrows the place.
    std::vector<hunk_apply::Hunk> anchored = hunks;
    bool any = false;
    for (size_t k = 0; k < anchored.size(); ++k) {
      if (!patch.hunks[k].section.empty()) {
        anchored[k].anchors.push_back(patch.hunks[k].section);
        any = true;
      }
    }
    hunk_apply::ApplyError why2;
    if (any) {
      absl::StatusOr<hunk_apply::Applied> again = hunk_apply::ApplyHunks(content, anchored, &why2);
      if (again.ok()) placed = std::move(again);
    }
  }
  if (exact.has_value() && !(placed.ok() && placed->already_applied) &&
      !(!placed.ok() && why.code == hunk_apply::ApplyError::Code::kPartlyApplied)) {
    // An insertion beside lines equal to its own that hunk-apply does not
    // take as applied (its context not unique, say): git apply's result.
    out.content = *std::move(exact);
    return out;
  }
  if (placed.ok() && placed->already_applied) {
    out.content = std::string(content);
    out.already_applied = true;
    out.warnings = std::move(placed->warnings);
    return out;
  }
  if (!placed.ok()) {
    if (error != nullptr) *error = why;
    return placed.status();
  }
  out.content = std::move(placed->content);
  out.warnings = std::move(placed->warnings);
  // hunk-apply keeps the file's final line break as it was; the diff's
  // `\ No newline at end of file` says how it ends now.
  bool old_no_eol = false, new_no_eol = false;
  std::string last_added;
  bool last_kept_cr = false;  // the new last line's text ends in `\r`
  for (const DiffHunk& h : patch.hunks) {
    for (const DiffLine& l : h.lines) {
      if (!l.newline && l.kind != '-') last_kept_cr = absl::EndsWith(l.text, "\r");
      if (!l.newline && l.kind != '+') old_no_eol = true;
      if (!l.newline && l.kind != '-') new_no_eol = true;
      if (l.kind == '+') last_added = l.text;
    }
  }
  if (new_no_eol && !old_no_eol) {
    // The last line has no line break; a `\r` that ends its text stays.
    if (absl::EndsWith(out.content, "\r\n")) {
      out.content.resize(out.content.size() - 2);
    } else if (absl::EndsWith(out.content, "\n") || absl::EndsWith(out.content, "\r")) {
      out.content.pop_back();
    }
    if (last_kept_cr) out.content += '\r';
  } else if (old_no_eol && !new_no_eol && !out.content.empty() && out.content.back() != '\n') {
    out.content += absl::EndsWith(last_added, "\r") ? "\r\n" : "\n";
  }
  for (const hunk_apply::Placement& p : placed->placements) {
    const DiffHunk& h = patch.hunks[p.hunk - 1];
    if (h.old_start < 0) continue;  // `@@ ... @@`: no line to differ from
    const int stated = h.old_count == 0 ? h.old_start + 1 : h.old_start;
    if (p.line != stated) {
      out.warnings.push_back(absl::StrCat("hunk ", p.hunk, " (@@ -", h.old_start, ",", h.old_count,
                                          "): not at line ", h.old_start, " of ", patch.path,
                                          "; placed by its context at line ", p.line));
    }
  }
  const bool numbered = std::any_of(patch.hunks.begin(), patch.hunks.end(),
                                    [](const DiffHunk& h) { return h.old_start >= 0; });
  if (out.warnings.empty() && numbered) {
    out.warnings.push_back(absl::StrCat("the hunks of ", patch.path,
                                        " did not match at their lines byte for byte; placed by their context"));
  }
  return out;
}

}  // namespace clada::patch_text
