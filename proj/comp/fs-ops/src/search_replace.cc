#include "proj/comp/fs-ops/src/search_replace.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/fs-ops/src/miss_diagnosis.h"

namespace clada::fs_ops::internal {
namespace {

constexpr size_t kNpos = absl::string_view::npos;

// The action's deadline, read from the clock (`now`) once per kEvery units
// of work (a file line keyed, a line compared), so that checking costs
// nothing a benchmark sees. Once passed, it stays passed.
class WorkClock {
 public:
  explicit WorkClock(absl::Time deadline, absl::FunctionRef<absl::Time()> now = absl::Now)
      : deadline_(deadline), now_(now) {}
  // Counts `units` of work; true once the deadline has passed.
  bool Spend(size_t units) {
    if (passed_) return true;
    if (deadline_ == absl::InfiniteFuture()) return false;
    spent_ += units;
    if (spent_ < kEvery) return false;
    return Passed();
  }
  // Reads the clock now.
  bool Passed() {
    if (!passed_ && deadline_ != absl::InfiniteFuture()) {
      spent_ = 0;
      passed_ = now_() >= deadline_;
    }
    return passed_;
  }
  bool passed() const { return passed_; }

 private:
  static constexpr size_t kEvery = size_t{1} << 16;
  absl::Time deadline_;
  absl::FunctionRef<absl::Time()> now_;
  size_t spent_ = 0;
  bool passed_ = false;
};

// The error of a tier stopped at the deadline (code `timeout`).
absl::Status TimedOut(absl::string_view label, absl::string_view tier) {
  return absl::DeadlineExceededError(absl::StrCat(
      "the SEARCH is not in '", label, "' as written, and the action's time ran out while its ", tier,
      " was tried (the deadline: the timeout, or what was left of the total timeout); nothing was changed. Copy the "
      "SEARCH from the file's lines exactly, or allow more time (--timeout, --total-timeout)"));
}

// A line of the break-normalised file: [begin, end) without its "\n";
// `has_break` when a "\n" follows.
struct FileLine {
  size_t begin = 0;
  size_t end = 0;
  bool has_break = false;
};

std::vector<FileLine> SplitFileLines(absl::string_view norm) {
  std::vector<FileLine> lines;
  size_t pos = 0;
  while (pos < norm.size()) {
    size_t nl = norm.find('\n', pos);
    if (nl == kNpos) {
      lines.push_back({pos, norm.size(), false});
      break;
    }
    lines.push_back({pos, nl, true});
    pos = nl + 1;
  }
  return lines;
}

// The lines of a SEARCH or REPLACE text without their "\n"; a final line
// break ends the last line (no empty line after it).
std::vector<std::string> TextLines(absl::string_view text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == kNpos) {
      lines.emplace_back(text.substr(pos));
      break;
    }
    lines.emplace_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

bool IsBlank(absl::string_view s) { return absl::StripAsciiWhitespace(s).empty(); }

size_t IndentOf(absl::string_view s) {
  size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

std::string LineList(const std::vector<int64_t>& lines) {
  std::vector<std::string> items;
  items.reserve(lines.size());
  for (int64_t l : lines) items.push_back(absl::StrCat(l));
  return JoinNumbers(items);
}

std::string LineSpan(int64_t first, int64_t last) {
  return first == last ? absl::StrCat("line ", first) : absl::StrCat("lines ", first, "-", last);
}

// "4 spaces", "1 tab", or the blanks quoted with escapes.
std::string DescribeBlanks(absl::string_view blanks) {
  const size_t spaces = static_cast<size_t>(std::count(blanks.begin(), blanks.end(), ' '));
  if (spaces == blanks.size()) return absl::StrCat(spaces, spaces == 1 ? " space" : " spaces");
  const size_t tabs = static_cast<size_t>(std::count(blanks.begin(), blanks.end(), '\t'));
  if (tabs == blanks.size()) return absl::StrCat(tabs, tabs == 1 ? " tab" : " tabs");
  return absl::StrCat("'", VisibleLine(blanks), "'");
}

// ------------------------------------------------------------ indentation

struct IndentedMatch {
  size_t first = 0;    // index of the file's first matched line
  std::string prefix;  // the blanks the file has before each non-blank SEARCH line
  bool trailing = false;  // a line matched only with the blanks at its end left out
};

absl::string_view WithoutTrailingBlanks(absl::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A line's key for the index: its text without its indentation and the
// blanks at its end (blank lines all alike). Under one change of indentation a file line can match a
// SEARCH line only where the keys agree.
size_t StrippedKey(absl::string_view line) {
  static const size_t kBlank = std::hash<std::string_view>{}("\n blank line \n");
  if (IsBlank(line)) return kBlank;
  absl::string_view text = WithoutTrailingBlanks(line);
  text.remove_prefix(IndentOf(text));
  return std::hash<std::string_view>{}(std::string_view(text.data(), text.size()));
}

// Where the (outdented) SEARCH lines match `count` consecutive file lines
// but for one prefix of blanks on every non-blank line; blank lines match
// blank lines. At most `limit` matches.
// The file's lines are keyed (StrippedKey) and the SEARCH's keys found in
// them as a sequence (Knuth-Morris-Pratt): O(file + SEARCH) lines, where
// trying the SEARCH at every line was O(file x SEARCH) (a 76 KB SEARCH
// against 400,000 lines ran for minutes). Only the windows whose keys agree
// are checked line by line.
// Stops early when `clock` says the deadline has passed.
std::vector<IndentedMatch> FindIndented(absl::string_view norm, const std::vector<FileLine>& lines,
                                        const std::vector<std::string>& search, size_t limit, WorkClock* clock) {
  std::vector<IndentedMatch> found;
  const size_t k = search.size();
  if (k == 0 || lines.size() < k) return found;
  if (std::all_of(search.begin(), search.end(), [](const std::string& l) { return IsBlank(l); })) return found;
  auto file_line = [&](size_t i) { return norm.substr(lines[i].begin, lines[i].end - lines[i].begin); };
  std::vector<size_t> want(k);
  for (size_t j = 0; j < k; ++j) want[j] = StrippedKey(search[j]);
  // fail[j]: the length of the longest proper prefix of want[0..j] that is
  // also its suffix.
  std::vector<size_t> fail(k, 0);
  for (size_t j = 1, m = 0; j < k; ++j) {
    while (m > 0 && want[j] != want[m]) m = fail[m - 1];
    if (want[j] == want[m]) ++m;
    fail[j] = m;
  }
  auto matches_at = [&](size_t i) {
    std::optional<absl::string_view> prefix;
    bool trailing = false;
    for (size_t j = 0; j < k; ++j) {
      // Blanks at the ends of lines do not count (a diff's tiers ignore them too).
      const absl::string_view text = file_line(i + j);
      const absl::string_view have = WithoutTrailingBlanks(text);
      const absl::string_view w = WithoutTrailingBlanks(search[j]);
      if (have.size() != text.size() || w.size() != search[j].size()) trailing = true;
      if (IsBlank(w)) {
        if (!IsBlank(have)) return;
        continue;
      }
      if (have.size() < w.size() || !absl::EndsWith(have, w)) return;
      absl::string_view p = have.substr(0, have.size() - w.size());
      if (IndentOf(p) != p.size()) return;
      if (!prefix.has_value()) {
        prefix = p;
      } else if (*prefix != p) {
        return;
      }
    }
    found.push_back({i, std::string(prefix.value_or("")), trailing});
  };
  for (size_t i = 0, m = 0; i < lines.size() && found.size() < limit; ++i) {
    if (clock->Spend(1)) break;
    const size_t key = StrippedKey(file_line(i));
    while (m > 0 && key != want[m]) m = fail[m - 1];
    if (key == want[m]) ++m;
    if (m == k) {
      // Windows whose keys all agree can still differ in their blanks, each
      // compared line by line: O(file x SEARCH) on a file of alike lines.
      clock->Spend(k);
      matches_at(i + 1 - k);
      m = fail[k - 1];
    }
  }
  return found;
}

// Tier 1. nullopt: no match (the next tier is tried).
std::optional<absl::StatusOr<EditResult>> TryIndentation(const BreakNormalizedText& t, absl::string_view search,
                                                         absl::string_view replace, absl::string_view label,
                                                         WorkClock* clock) {
  std::vector<std::string> s_lines = TextLines(search);
  std::vector<std::string> r_lines = TextLines(replace);
  // The indentation SEARCH and REPLACE share is taken off both (Aider's
  // outdent), so a SEARCH indented deeper than the file matches too.
  size_t common = kNpos;
  for (const std::vector<std::string>* v : {&s_lines, &r_lines}) {
    for (const std::string& l : *v) {
      if (!IsBlank(l)) common = std::min(common, IndentOf(l));
    }
  }
  if (common == kNpos) return std::nullopt;
  for (std::vector<std::string>* v : {&s_lines, &r_lines}) {
    for (std::string& l : *v) {
      if (!IsBlank(l)) l.erase(0, common);
    }
  }
  const std::vector<FileLine> lines = SplitFileLines(t.norm());
  constexpr size_t kMaxListed = 20;
  std::vector<IndentedMatch> found = FindIndented(t.norm(), lines, s_lines, kMaxListed + 1, clock);
  if (clock->passed()) return absl::StatusOr<EditResult>(TimedOut(label, "indentation tolerance"));
  if (found.empty()) return std::nullopt;
  if (found.size() > 1) {
    std::vector<int64_t> at;
    for (const IndentedMatch& m : found) at.push_back(static_cast<int64_t>(m.first) + 1);
    std::string more = found.size() > kMaxListed ? "more than 20 places" : absl::StrCat(found.size(), " places");
    if (found.size() > kMaxListed) at.resize(kMaxListed);
    return absl::StatusOr<EditResult>(core::WithCode(absl::FailedPreconditionError(absl::StrCat(
        "the SEARCH is not in '", label, "' as written, and with its indentation changed it matches ", more,
        " (at lines ", LineList(at),
        "); it must match one place only, so nothing was changed. Add lines around it, as they are in the file, so "
        "that it matches one place only")), "match_count_mismatch"));
  }
  const IndentedMatch& m = found[0];
  const FileLine& last = lines[m.first + s_lines.size() - 1];
  const bool search_breaks = !search.empty() && search.back() == '\n';
  std::string text;
  for (size_t j = 0; j < r_lines.size(); ++j) {
    if (!IsBlank(r_lines[j])) text += m.prefix;
    text += r_lines[j];
    if (j + 1 < r_lines.size() || (!replace.empty() && replace.back() == '\n')) text += '\n';
  }
  size_t end = last.end;
  if (search_breaks && last.has_break) {
    end = last.end + 1;
  } else if (!text.empty() && text.back() == '\n') {
    text.pop_back();  // the matched lines ended without a break: so does their replacement
  }
  EditResult r;
  r.content = ApplySplices(t.original(), {{t.ToOriginal(lines[m.first].begin), t.ToOriginal(end)}}, text);
  r.replacements = 1;
  r.lines = {static_cast<int64_t>(m.first) + 1};
  std::string how;
  if (common == 0 && m.prefix.empty()) {
    r.warnings.push_back(absl::StrCat(
        "tolerated match (trailing blanks): the SEARCH is not in '", label, "' as written; it matched ",
        LineSpan(static_cast<int64_t>(m.first) + 1, static_cast<int64_t>(m.first + s_lines.size())),
        " with the blanks at the ends of its lines ignored"));
    return absl::StatusOr<EditResult>(std::move(r));
  }
  if (common == 0) {
    how = absl::StrCat("each line indented by ", DescribeBlanks(m.prefix), " more");
  } else if (m.prefix.empty()) {
    how = absl::StrCat("each line indented by ", common, common == 1 ? " character" : " characters", " less");
  } else {
    how = absl::StrCat("the first ", common, common == 1 ? " character" : " characters",
                       " of each line's indentation written as ", DescribeBlanks(m.prefix));
  }
  r.warnings.push_back(absl::StrCat(
      "tolerated match (indentation): the SEARCH is not in '", label, "' as written; it matched ",
      LineSpan(static_cast<int64_t>(m.first) + 1, static_cast<int64_t>(m.first + s_lines.size())),
      " with its indentation changed (", how, "), and the REPLACE was re-indented the same way",
      m.trailing ? "; the blanks at the ends of its lines were ignored" : ""));
  return absl::StatusOr<EditResult>(std::move(r));
}

// ------------------------------------------------------------------- `...`

bool IsDots(absl::string_view line) { return absl::StripAsciiWhitespace(line) == "..."; }

// The text between `...` lines, with the SEARCH line it starts on.
struct Piece {
  std::string text;
  int64_t first_line = 0;  // 1-based, in its SEARCH or REPLACE
  int64_t last_line = 0;
};

// `text` cut at its `...` lines (n lines give n + 1 pieces, some empty).
std::vector<Piece> SplitAtDots(absl::string_view text) {
  std::vector<Piece> pieces(1);
  pieces.back().first_line = 1;
  int64_t line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == kNpos ? text.size() : nl + 1;
    absl::string_view l = text.substr(pos, end - pos);
    ++line;
    if (IsDots(l)) {
      pieces.push_back({});
      pieces.back().first_line = line + 1;
    } else {
      pieces.back().text.append(l.data(), l.size());
      pieces.back().last_line = line;
    }
    pos = end;
  }
  return pieces;
}

// Tier 2. nullopt: the SEARCH has no `...` line.
std::optional<absl::StatusOr<EditResult>> TryDots(const BreakNormalizedText& t, absl::string_view search,
                                                  absl::string_view replace, absl::string_view label,
                                                  WorkClock* clock) {
  std::vector<Piece> s = SplitAtDots(search);
  if (s.size() == 1) return std::nullopt;
  std::vector<Piece> r = SplitAtDots(replace);
  auto fail = [](absl::Status st) { return std::optional<absl::StatusOr<EditResult>>(std::move(st)); };
  const size_t s_dots = s.size() - 1, r_dots = r.size() - 1;
  if (s_dots != r_dots) {
    return fail(absl::FailedPreconditionError(absl::StrCat(
        "the SEARCH is not in '", label, "' as written, and its `...` lines do not pair up: the SEARCH has ", s_dots,
        s_dots == 1 ? " line that is" : " lines that are", " only `...`, the REPLACE ", r_dots,
        "; nothing was changed. A `...` stands for unchanged lines in both texts: write one in the REPLACE for "
        "each in the SEARCH, at the same place, or write the lines out")));
  }
  absl::string_view norm = t.norm();
  struct Hit {
    size_t begin, end;
    size_t piece;
  };
  std::vector<Hit> hits;
  size_t prev_end = 0;
  int64_t prev_line = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    // Each part is a search of the whole file.
    if (clock->Passed()) return fail(TimedOut(label, "`...` tolerance"));
    if (s[j].text.empty()) {
      if (!r[j].text.empty()) {
        return fail(absl::FailedPreconditionError(absl::StrCat(
            "the REPLACE has lines at its `...` number ", j == 0 ? 1 : j, " (REPLACE ",
            LineSpan(r[j].first_line, r[j].last_line),
            ") where the SEARCH has none, so nothing tells where they go; nothing was changed. Put a SEARCH line "
            "next to them, as it is in the file, and the same line in the REPLACE")));
      }
      continue;
    }
    std::vector<size_t> at;
    for (size_t o : FindAllText(norm, s[j].text)) {
      // After a `...` a part starts a line.
      if (j == 0 || o == 0 || norm[o - 1] == '\n') at.push_back(o);
    }
    const std::string where = absl::StrCat("its part at SEARCH ", LineSpan(s[j].first_line, s[j].last_line));
    if (at.empty()) {
      MissDiagnosis d = DiagnoseMiss(t.original(), s[j].text, "that part");
      return fail(core::WithCode(absl::NotFoundError(absl::StrCat(
                                     "the SEARCH is not in '", label,
                                     "' as written, nor with its `...` lines standing for unchanged code: ", where,
                                     " is not in the file; nothing was changed. ", d.message)),
                                 "search_not_found"));
    }
    std::vector<int64_t> lines = LineNumbersOf(norm, at);
    if (at.size() > 1) {
      return fail(core::WithCode(
          absl::FailedPreconditionError(absl::StrCat(
              "the SEARCH is not in '", label, "' as written; with its `...` lines standing for unchanged code, ",
              where, " occurs ", at.size(), " times (at lines ", LineList(lines),
              "); each part between `...` lines must occur once, so nothing was changed. Add lines to that part, as "
              "they are in the file, so that it matches one place only")),
          "match_count_mismatch"));
    }
    if (at[0] < prev_end) {
      return fail(absl::FailedPreconditionError(absl::StrCat(
          "the SEARCH is not in '", label, "' as written; with its `...` lines standing for unchanged code, ", where,
          " is at line ", lines[0], " of the file, not after the part before it (line ", prev_line,
          "); nothing was changed. Give the parts in the order they have in the file")));
    }
    hits.push_back({at[0], at[0] + s[j].text.size(), j});
    prev_end = at[0] + s[j].text.size();
    prev_line = lines[0];
  }
  if (hits.empty()) return std::nullopt;  // only `...` lines: nothing to find
  // What the `...` lines stood for: the file's lines between the parts.
  std::vector<std::string> kept;
  for (size_t h = 0; h + 1 < hits.size(); ++h) {
    if (hits[h + 1].begin <= hits[h].end) continue;
    std::vector<int64_t> l = LineNumbersOf(norm, {hits[h].end, hits[h + 1].begin - 1});
    kept.push_back(LineSpan(l[0], l[1]));
  }
  EditResult out;
  out.content = std::string(t.original());
  for (size_t h = hits.size(); h-- > 0;) {
    if (clock->Passed()) return fail(TimedOut(label, "`...` tolerance"));
    out.content = ApplySplices(out.content, {{t.ToOriginal(hits[h].begin), t.ToOriginal(hits[h].end)}},
                               r[hits[h].piece].text);
  }
  out.replacements = 1;
  out.lines = LineNumbersOf(norm, {hits[0].begin});
  out.warnings.push_back(absl::StrCat(
      "tolerated match (`...`): the SEARCH is not in '", label, "' as written; it matched with its ", s_dots,
      s_dots == 1 ? " `...` line" : " `...` lines", " standing for unchanged code",
      kept.empty() ? std::string(" (no line between the parts)")
                   : absl::StrCat(" (", JoinNumbers(kept), " of the file, kept as ",
                                  kept.size() == 1 && absl::StartsWith(kept[0], "line ") ? "it is)" : "they are)"),
      ", and each part was replaced by the REPLACE's part at the same place"));
  return absl::StatusOr<EditResult>(std::move(out));
}

}  // namespace

absl::StatusOr<EditResult> ReplaceSearchBlock(absl::string_view content, absl::string_view search,
                                              absl::string_view replace, absl::string_view label,
                                              absl::Time deadline, absl::FunctionRef<absl::Time()> now) {
  // ReplaceUnique decides an empty or unchanged edit, a SEARCH found as
  // written (once, or several times: an error), and an edit already applied
  // (the SEARCH absent, the REPLACE there once), as for every edit. Tested
  // here first so that a tolerated match does not pay for the exact miss's
  // diagnosis.
  if (search.empty() || !RequireChange(search, replace).ok()) return ReplaceUnique(content, search, replace, label);
  BreakNormalizedText t(content);
  const std::string search_n = NormalizeBreaks(search);
  const std::string replace_n = NormalizeBreaks(replace);
  if (!FindAllText(t.norm(), search_n).empty() ||
      (!replace_n.empty() && FindAllText(t.norm(), replace_n).size() == 1)) {
    return ReplaceUnique(content, search, replace, label);
  }
  WorkClock clock(deadline, now);
  if (clock.Passed()) return TimedOut(label, "indentation tolerance");
  if (std::optional<absl::StatusOr<EditResult>> r = TryIndentation(t, search_n, replace_n, label, &clock)) return *r;
  if (std::optional<absl::StatusOr<EditResult>> r = TryDots(t, search_n, replace_n, label, &clock)) return *r;
  if (clock.Passed()) return TimedOut(label, "miss diagnosis");
  return ReplaceUnique(content, search, replace, label);  // not found: its miss diagnosis
}

}  // namespace clada::fs_ops::internal
