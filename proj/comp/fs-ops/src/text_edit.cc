#include "proj/comp/fs-ops/src/text_edit.h"

#include <string.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/terms.h"
#include "proj/comp/fs-ops/src/miss_diagnosis.h"
#include "proj/comp/fs-ops/src/utf8.h"

namespace clada::fs_ops::internal {
namespace {

constexpr size_t kNpos = absl::string_view::npos;

// A span in normalised coordinates (a Splice, so that Replace converts a
// list of them to the original's coordinates in place).
using NormSpan = Splice;

// True when every span lies inside one of the non-overlapping copies of
// `copy` in `norm`: the edit's result is already there.
bool AllInsideCopies(absl::string_view norm, const std::vector<NormSpan>& spans, absl::string_view copy) {
  if (copy.empty() || spans.empty()) return false;
  // A span can lie inside a copy only if the copy is at least as long.
  size_t longest = 0;
  for (const NormSpan& s : spans) longest = std::max(longest, s.end - s.begin);
  if (copy.size() < longest) return false;
  std::vector<size_t> copies = FindAllText(norm, copy);
  size_t j = 0;
  for (const NormSpan& s : spans) {
    while (j < copies.size() && copies[j] + copy.size() < s.end) ++j;
    if (j == copies.size() || copies[j] > s.begin) return false;
  }
  return true;
}

std::string LineList(const std::vector<int64_t>& lines) {
  std::vector<std::string> items;
  items.reserve(lines.size());
  for (int64_t l : lines) items.push_back(absl::StrCat(l));
  return JoinNumbers(items);
}

absl::Status MissError(absl::string_view what, absl::string_view label, absl::string_view text,
                       absl::string_view needle) {
  MissDiagnosis d = DiagnoseMiss(text, needle, what);
  return core::WithCode(
      absl::NotFoundError(absl::StrCat(what, " was not found in '", label, "'; nothing was changed. ", d.message)),
      "search_not_found");
}

// Builds the result of replacing `spans` (normalised coordinates).
// With `max_bytes`, the result's size is computed before it is built: a
// few hundred bytes replaced everywhere can turn 1 MB into 200 MB.
// `spans` is taken and converted in place, so that only one list of
// places is held: 16 bytes a place, where the spans, their original-text
// copy and a list of starts held 40 (a 100 MB file with 2.9 million
// places: 253 MB over the input while the result was built, then 164 MB).
// With `keep_places` the result is not built: r.spliced holds the places.
absl::StatusOr<EditResult> Replace(const BreakNormalizedText& t, std::vector<NormSpan> spans,
                                   absl::string_view new_text, uint64_t max_bytes = kNoSizeLimit,
                                   absl::string_view label = "", absl::string_view what = "",
                                   bool keep_places = false) {
  EditResult r;
  const std::optional<size_t> first_start = spans.empty() ? std::nullopt : std::optional<size_t>(spans[0].begin);
  for (NormSpan& s : spans) s = {t.ToOriginal(s.begin), t.ToOriginal(s.end)};  // in place: one list of places
  std::vector<Splice> splices = std::move(spans);
  if (keep_places) {
    const int64_t replacements = static_cast<int64_t>(splices.size());
    r.spliced.emplace(t.original(), std::move(splices), new_text);
    if (r.spliced->size() > max_bytes) {
      return absl::FailedPreconditionError(absl::StrCat(
          "replacing the ", replacements, " ", what, replacements == 1 ? "" : "s", " in '", label,
          "' would make it ", r.spliced->size(), " bytes, over the limit of ", max_bytes,
          " bytes for files (setting max_file_size); nothing was changed. Replace fewer places (count), or make "
          "the change with a command via exec"));
    }
    r.replacements = replacements;
    if (first_start.has_value()) r.lines = LineNumbersOf(t.norm(), {*first_start});
    return r;
  }
  if (max_bytes != kNoSizeLimit) {
    const uint64_t size = SplicedSize(t.original(), splices, new_text);
    if (size > max_bytes) {
      return absl::FailedPreconditionError(absl::StrCat(
          "replacing the ", splices.size(), " ", what, splices.size() == 1 ? "" : "s", " in '", label,
          "' would make it ",
          size, " bytes, over the limit of ", max_bytes,
          " bytes for files (setting max_file_size); nothing was changed. Replace fewer places (count), or make "
          "the change with a command via exec"));
    }
  }
  r.content = ApplySplices(t.original(), splices, new_text);
  r.replacements = static_cast<int64_t>(splices.size());
  if (first_start.has_value()) r.lines = LineNumbersOf(t.norm(), {*first_start});
  return r;
}

EditResult AlreadyApplied(absl::string_view content) {
  EditResult r;
  r.content = std::string(content);
  r.already_applied = true;
  return r;
}

// The non-overlapping occurrences of a non-empty `needle` in `hay`, as
// spans, left to right (FindAllText's places).
std::vector<NormSpan> SpansOf(absl::string_view hay, absl::string_view needle) {
  // Counted first, so the list is allocated once at its size (grown by
  // doubling it would hold up to twice that, three times while it moves).
  size_t count = 0;
  for (size_t pos = FindText(hay, needle); pos != kNpos; pos = FindText(hay, needle, pos + needle.size())) ++count;
  std::vector<NormSpan> spans;
  spans.reserve(count);
  for (size_t pos = FindText(hay, needle); pos != kNpos; pos = FindText(hay, needle, pos + needle.size())) {
    spans.push_back({pos, pos + needle.size()});
  }
  return spans;
}

std::vector<size_t> StartsOf(const std::vector<NormSpan>& spans) {
  std::vector<size_t> starts;
  starts.reserve(spans.size());
  for (const NormSpan& s : spans) starts.push_back(s.begin);
  return starts;
}

std::vector<NormSpan> SpansOf(const std::vector<size_t>& offsets, size_t length) {
  std::vector<NormSpan> spans;
  spans.reserve(offsets.size());
  for (size_t o : offsets) spans.push_back({o, o + length});
  return spans;
}

}  // namespace

void ReserveLarge(std::string* s, size_t bytes) {
  constexpr uintptr_t kHuge = 2 * 1024 * 1024;
  if (bytes < 2 * kHuge) {
    s->reserve(bytes);
    return;
  }
  // One huge page more, so that the aligned part covers all of `bytes`.
  s->reserve(bytes + kHuge);
  // The 2 MB-aligned part of the fresh allocation (not touched yet).
  uintptr_t begin = (reinterpret_cast<uintptr_t>(s->data()) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(s->data()) + bytes + kHuge - 1) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

LineEndings CountLineEndings(absl::string_view text) {
  LineEndings e;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* p = begin;
  while (p < end) {
    const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (nl == nullptr) break;
    if (nl > begin && nl[-1] == '\r') {
      ++e.crlf;
    } else {
      ++e.lf;
    }
    p = nl + 1;
  }
  return e;
}

absl::string_view DominantBreak(const LineEndings& endings) {
  if (endings.crlf == 0 && endings.lf == 0) return "";
  return endings.crlf > endings.lf ? "\r\n" : "\n";
}

std::string ConvertLineBreaks(absl::string_view text, absl::string_view eol) {
  std::string out;
  out.reserve(text.size() + (eol.size() > 1 ? text.size() / 16 : 0));
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    if (nl == kNpos) {
      absl::StrAppend(&out, text.substr(i));
      break;
    }
    size_t line_end = nl > i && text[nl - 1] == '\r' ? nl - 1 : nl;
    absl::StrAppend(&out, text.substr(i, line_end - i), eol);
    i = nl + 1;
  }
  return out;
}

std::string NormalizeBreaks(absl::string_view text) {
  if (text.find('\r') == kNpos) return std::string(text);
  return ConvertLineBreaks(text, "\n");
}

BreakNormalizedText::BreakNormalizedText(absl::string_view text) : original_(text) {
  if (memchr(text.data(), '\r', text.size()) == nullptr) return;
  has_cr_ = true;
  norm_.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t cr = text.find("\r\n", i);
    if (cr == kNpos) {
      absl::StrAppend(&norm_, text.substr(i));
      break;
    }
    absl::StrAppend(&norm_, text.substr(i, cr - i));
    removed_cr_.push_back(norm_.size());
    norm_.push_back('\n');
    i = cr + 2;
  }
}

size_t BreakNormalizedText::ToOriginal(size_t norm_offset) const {
  if (!has_cr_) return norm_offset;
  size_t before =
      static_cast<size_t>(std::lower_bound(removed_cr_.begin(), removed_cr_.end(), norm_offset) - removed_cr_.begin());
  return norm_offset + before;
}

size_t FindText(absl::string_view hay, absl::string_view needle, size_t from) {
  if (from > hay.size()) return kNpos;
  if (needle.empty()) return from;
  const void* hit = memmem(hay.data() + from, hay.size() - from, needle.data(), needle.size());
  return hit == nullptr ? kNpos : static_cast<size_t>(static_cast<const char*>(hit) - hay.data());
}

std::vector<size_t> FindAllText(absl::string_view hay, absl::string_view needle) {
  std::vector<size_t> out;
  if (needle.empty()) return out;
  size_t pos = 0;
  while (true) {
    size_t hit = FindText(hay, needle, pos);
    if (hit == kNpos) break;
    out.push_back(hit);
    pos = hit + needle.size();
  }
  return out;
}

int64_t CountNewlines(absl::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  int64_t n = 0;
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    uint64_t x = w ^ (kOnes * '\n');  // zero bytes where w has '\n'
    // High bit set exactly in the zero bytes of x; the multiply sums them
    // into the top byte (no popcnt instruction needed).
    uint64_t zero = ~(((x & kLow7) + kLow7) | x | kLow7);
    n += static_cast<int64_t>(((zero >> 7) * kOnes) >> 56);
    p += 8;
  }
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

std::vector<int64_t> LineNumbersOf(absl::string_view text, const std::vector<size_t>& offsets) {
  std::vector<int64_t> lines;
  lines.reserve(offsets.size());
  int64_t line = 1;
  size_t pos = 0;
  for (size_t o : offsets) {
    o = std::min(o, text.size());
    if (o > pos) {
      line += CountNewlines(text.substr(pos, o - pos));
      pos = o;
    }
    lines.push_back(line);
  }
  return lines;
}

std::string JoinNumbers(const std::vector<std::string>& items, size_t max_items) {
  size_t shown = std::min(items.size(), max_items);
  std::string out;
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += (i + 1 == shown && shown == items.size()) ? " and " : ", ";
    out += items[i];
  }
  if (shown < items.size()) absl::StrAppend(&out, " and ", items.size() - shown, " more");
  return out;
}

SpliceText::SpliceText(absl::string_view text, absl::string_view new_text)
    : text_(text), new_text_(new_text), new_has_break_(new_text.find('\n') != kNpos) {
  if (new_has_break_) {
    as_lf_ = ConvertLineBreaks(new_text, "\n");
    as_crlf_ = ConvertLineBreaks(new_text, "\r\n");
    dominant_ = DominantBreak(CountLineEndings(text));
  }
}

absl::string_view SpliceText::For(const Splice& s) const {
  if (!new_has_break_) return new_text_;
  LineEndings in_span = CountLineEndings(text_.substr(s.begin, s.end - s.begin));
  absl::string_view eol = dominant_;
  if (in_span.crlf > 0 && in_span.lf == 0) eol = "\r\n";
  if (in_span.lf > 0 && in_span.crlf == 0) eol = "\n";
  if (eol == "\r\n") return as_crlf_;
  if (eol == "\n") return as_lf_;
  return new_text_;
}

SplicedText::SplicedText(absl::string_view original, std::vector<Splice> spans, absl::string_view new_text)
    : original_(original), spans_(std::move(spans)), put_(original, new_text) {
  size_ = original.size();
  for (const Splice& s : spans_) size_ += put_.For(s).size() - (s.end - s.begin);
}

absl::string_view SplicedText::Piece(size_t i) const {
  const size_t k = i / 2;
  if (i % 2 == 1) return TextFor(k);
  const size_t from = k == 0 ? 0 : spans_[k - 1].end;
  const size_t to = k < spans_.size() ? spans_[k].begin : original_.size();
  return original_.substr(from, to - from);
}

std::string SplicedText::Build() const {
  std::string out;
  ReserveLarge(&out, size_);
  for (size_t i = 0; i < PieceCount(); ++i) {
    absl::string_view piece = Piece(i);
    out.append(piece.data(), piece.size());
  }
  return out;
}

void ForEachChangedRun(const SplicedText& t, const std::function<bool(const ChangedRun&)>& fn) {
  const absl::string_view text = t.original();
  const std::vector<Splice>& spans = t.spans();
  std::string buffer;  // the run's new text
  ChangedRun run;
  size_t counted_to = 0;  // run.old_line counts the breaks before this offset
  int64_t delta = 0;      // result lines less original lines, in the runs so far
  size_t k = 0;
  while (k < spans.size()) {
    size_t begin = spans[k].begin;
    while (begin > 0 && text[begin - 1] != '\n') --begin;
    buffer.assign(text.data() + begin, spans[k].begin - begin);
    size_t end = 0;
    while (true) {
      absl::string_view put = t.TextFor(k);
      buffer.append(put.data(), put.size());
      const size_t after = spans[k].end;
      // The run ends where the span ends when a line starts there in both
      // texts, else at the end of the line the span ends in.
      if (after == text.size() || (text[after - 1] == '\n' && (buffer.empty() || buffer.back() == '\n'))) {
        end = after;
      } else {
        const void* nl = memchr(text.data() + after, '\n', text.size() - after);
        end = nl == nullptr ? text.size() : static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
      }
      ++k;
      if (k == spans.size() || spans[k].begin >= end) break;
      // The next place is on a line of this run: one run.
      buffer.append(text.data() + after, spans[k].begin - after);
    }
    buffer.append(text.data() + spans[k - 1].end, end - spans[k - 1].end);
    run.old_line += CountNewlines(text.substr(counted_to, begin - counted_to));
    counted_to = begin;
    run.old_begin = begin;
    run.old_end = end;
    run.new_line = run.old_line + delta;
    run.new_text = buffer;
    const absl::string_view old_text = text.substr(begin, end - begin);
    delta += (CountNewlines(buffer) + (!buffer.empty() && buffer.back() != '\n' ? 1 : 0)) -
             (CountNewlines(old_text) + (!old_text.empty() && old_text.back() != '\n' ? 1 : 0));
    if (!fn(run)) return;
  }
}

std::string ApplySplices(absl::string_view text, const std::vector<Splice>& spans, absl::string_view new_text) {
  const SpliceText put(text, new_text);
  size_t removed = 0;
  for (const Splice& s : spans) removed += s.end - s.begin;
  std::string out;
  ReserveLarge(&out, text.size() - removed + spans.size() * (new_text.size() + new_text.size() / 8));
  size_t prev = 0;
  for (const Splice& s : spans) {
    out.append(text.data() + prev, s.begin - prev);
    const absl::string_view chosen = put.For(s);
    out.append(chosen.data(), chosen.size());
    prev = s.end;
  }
  out.append(text.data() + prev, text.size() - prev);
  return out;
}

uint64_t SplicedSize(absl::string_view text, const std::vector<Splice>& spans, absl::string_view new_text) {
  const SpliceText put(text, new_text);
  uint64_t size = text.size();
  for (const Splice& s : spans) size += put.For(s).size() - (s.end - s.begin);
  return size;
}

absl::Status RequireChange(absl::string_view old_text, absl::string_view new_text) {
  if (old_text != new_text && NormalizeBreaks(old_text) != NormalizeBreaks(new_text)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      core::Term("old_text"), " and ", core::Term("new_text"),
      " are the same, so the edit would change nothing; nothing was changed. Put the text as it should read after "
      "the edit in ",
      core::Term("new_text")));
}

absl::StatusOr<EditResult> ReplaceUnique(absl::string_view content, absl::string_view old_text,
                                         absl::string_view new_text, absl::string_view label) {
  if (old_text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        core::Term("old_text"), " is empty; give the exact text to replace (to write a whole file, use ",
        core::Term("file_write"), "; to add at the end, use ", core::Term("file_append"), ")"));
  }
  if (absl::Status s = RequireChange(old_text, new_text); !s.ok()) return s;
  BreakNormalizedText t(content);
  std::string old_n = NormalizeBreaks(old_text);
  std::string new_n = NormalizeBreaks(new_text);
  std::vector<size_t> hits = FindAllText(t.norm(), old_n);
  if (hits.empty()) {
    if (!new_n.empty() && new_n != old_n && FindAllText(t.norm(), new_n).size() == 1) return AlreadyApplied(content);
    return MissError(core::Term("old_text"), label, content, old_text);
  }
  std::vector<NormSpan> spans = SpansOf(hits, old_n.size());
  if (hits.size() == 1) {
    if (absl::StrContains(new_n, old_n) && AllInsideCopies(t.norm(), spans, new_n) &&
        FindAllText(t.norm(), new_n).size() == 1) {
      return AlreadyApplied(content);
    }
    return Replace(t, std::move(spans), new_text);
  }
  std::vector<int64_t> lines = LineNumbersOf(t.norm(), hits);
  return core::WithCode(absl::FailedPreconditionError(absl::StrCat(
                            "the text to replace was found ", hits.size(), " times in '", label, "' (at lines ",
                            LineList(lines),
                            "); it must occur exactly once, so nothing was changed. Give more of the lines around "
                            "it so that it matches one place only, or replace all ",
                            hits.size(), " places at once")),
                        "match_count_mismatch");
}

absl::StatusOr<EditResult> ReplaceEvery(absl::string_view content, absl::string_view old_text,
                                        absl::string_view new_text, std::optional<int64_t> count,
                                        absl::string_view label, uint64_t max_bytes, bool keep_places) {
  if (old_text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(core::Term("old_text"),
                                                   " is empty; give the exact text to replace (to write a whole "
                                                   "file, use ",
                                                   core::Term("file_write"), ")"));
  }
  if (absl::Status s = RequireChange(old_text, new_text); !s.ok()) return s;
  if (count.has_value() && *count < 0) {
    return absl::InvalidArgumentError(absl::StrCat(core::Term("count"), " is ", *count, "; it must be 0 or more"));
  }
  BreakNormalizedText t(content);
  std::string old_n = NormalizeBreaks(old_text);
  std::string new_n = NormalizeBreaks(new_text);
  // The places found as spans at once (no list of starts beside them: 8
  // bytes a place more at the peak).
  std::vector<NormSpan> spans = SpansOf(t.norm(), old_n);
  if (spans.empty()) {
    if (count.has_value() && *count == 0) {
      EditResult none;
      none.content = std::string(content);
      return none;
    }
    if (!new_n.empty() && new_n != old_n) {
      size_t copies = FindAllText(t.norm(), new_n).size();
      if (count.has_value() ? copies == static_cast<size_t>(*count) : copies >= 1) return AlreadyApplied(content);
    }
    if (!count.has_value()) return MissError(core::Term("old_text"), label, content, old_text);
    MissDiagnosis d = DiagnoseMiss(content, old_text, core::Term("old_text"));
    return core::WithCode(
        absl::NotFoundError(absl::StrCat(core::Term("old_text"), " was not found in '", label, "' (count mismatch: expected ", *count,
                                         ", found 0); nothing was changed. ", d.message)),
        "search_not_found");
  }
  // Every occurrence lies inside a copy of new_text: the edit is already
  // there. Checked only when new_text contains old_text (else impossible).
  bool inside = absl::StrContains(new_n, old_n) && AllInsideCopies(t.norm(), spans, new_n);
  if (count.has_value() && static_cast<size_t>(*count) != spans.size()) {
    // The count is checked first: a mismatch is an error even when the
    // occurrences lie inside copies of new_text, unless new_text occurs
    // exactly `count` times (new_text holds old_text more than once, and this
    // is the state the same edit left behind).
    if (inside && FindAllText(t.norm(), new_n).size() == static_cast<size_t>(*count)) {
      return AlreadyApplied(content);
    }
    std::vector<int64_t> lines = LineNumbersOf(t.norm(), StartsOf(spans));
    return core::WithCode(
        absl::FailedPreconditionError(absl::StrCat(
            "count mismatch in '", label, "': expected ", *count, ", found ", spans.size(), " occurrence",
            spans.size() == 1 ? "" : "s", " of the text to replace (at line", lines.size() == 1 ? " " : "s ",
            LineList(lines), "); nothing was changed. Ask for ", spans.size(),
            " if every one should change, or give more of the lines around it")),
        "match_count_mismatch");
  }
  if (inside) return AlreadyApplied(content);
  return Replace(t, std::move(spans), new_text, max_bytes, label, "occurrence", keep_places);
}

absl::StatusOr<EditResult> ReplaceRanges(absl::string_view content, absl::string_view start, absl::string_view end,
                                         absl::string_view new_text, std::optional<int64_t> count,
                                         absl::string_view label, uint64_t max_bytes, bool keep_places) {
  if (start.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(core::Term("old_text_start"), " is empty; give the exact text the range begins with"));
  }
  if (end.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(core::Term("old_text_end"), " is empty; give the exact text the range ends with"));
  }
  if (count.has_value() && *count < 1) {
    return absl::InvalidArgumentError(absl::StrCat(core::Term("count"), " is ", *count, "; it must be 1 or more"));
  }
  BreakNormalizedText t(content);
  absl::string_view norm = t.norm();
  std::string start_n = NormalizeBreaks(start);
  std::string end_n = NormalizeBreaks(end);
  std::string new_n = NormalizeBreaks(new_text);

  std::vector<NormSpan> ranges;
  size_t dangling = kNpos;  // a start with no end after it
  size_t pos = 0;
  while (true) {
    size_t s = FindText(norm, start_n, pos);
    if (s == kNpos) break;
    size_t e = FindText(norm, end_n, s + start_n.size());
    if (e == kNpos) {
      dangling = s;
      break;
    }
    ranges.push_back({s, e + end_n.size()});
    pos = e + end_n.size();
  }

  // "Line 3" / "lines 1-3 and 4-6": where the ranges found are.
  auto range_lines = [&]() {
    std::vector<size_t> bounds;
    for (const NormSpan& r : ranges) {
      bounds.push_back(r.begin);
      bounds.push_back(r.end - 1);
    }
    std::vector<int64_t> lines = LineNumbersOf(norm, bounds);
    std::vector<std::string> items;
    for (size_t i = 0; i + 1 < lines.size(); i += 2) {
      items.push_back(lines[i] == lines[i + 1] ? absl::StrCat(lines[i]) : absl::StrCat(lines[i], "-", lines[i + 1]));
    }
    return absl::StrCat("line", items.size() == 1 ? " " : "s ", JoinNumbers(items));
  };

  if (ranges.empty()) {
    if (!new_n.empty()) {
      // Without count (every range) one copy of new_text is enough, as in
      // ReplaceEvery without count.
      const size_t copies = FindAllText(norm, new_n).size();
      if (count.has_value() ? copies == static_cast<size_t>(*count) : copies >= 1) return AlreadyApplied(content);
    }
    if (dangling == kNpos) return MissError(core::Term("old_text_start"), label, content, start);
    int64_t start_line = LineNumbersOf(norm, {dangling})[0];
    size_t end_before = FindText(norm, end_n);
    if (end_before != kNpos && end_before < dangling) {
      return core::WithCode(
          absl::NotFoundError(absl::StrCat(
              core::Term("old_text_end"), " occurs in '", label, "' only before ", core::Term("old_text_start"),
              " (", core::Term("old_text_end"), " at line ", LineNumbersOf(norm, {end_before})[0], ", ",
              core::Term("old_text_start"), " at line ", start_line, "); nothing was changed. The range runs from ",
              core::Term("old_text_start"), " forward to the first ", core::Term("old_text_end"),
              " after it: check that the two are not swapped")),
          "search_not_found");
    }
    MissDiagnosis d = DiagnoseMiss(content, end, core::Term("old_text_end"));
    return core::WithCode(
        absl::NotFoundError(absl::StrCat(core::Term("old_text_start"), " was found at line ", start_line, " of '",
                                         label, "', but ", core::Term("old_text_end"),
                                         " was not found after it; nothing was changed. ", d.message)),
        "search_not_found");
  }
  // As in ReplaceEvery: the count is checked before "already applied".
  bool inside =
      absl::StrContains(new_n, start_n) && absl::StrContains(new_n, end_n) && AllInsideCopies(norm, ranges, new_n);
  if (count.has_value() && ranges.size() != static_cast<size_t>(*count)) {
    if (inside && FindAllText(norm, new_n).size() == static_cast<size_t>(*count)) return AlreadyApplied(content);
    return core::WithCode(absl::FailedPreconditionError(absl::StrCat(
                              "count mismatch in '", label, "': expected ", *count, ", found ", ranges.size(),
                              " range", ranges.size() == 1 ? "" : "s", " from ", core::Term("old_text_start"),
                              " to ", core::Term("old_text_end"), " (", range_lines(), "); nothing was changed. Set ",
                              core::Term("count", absl::StrCat(ranges.size())), " to replace them all, or make ",
                              core::Term("old_text_start"), " more specific")),
                          "match_count_mismatch");
  }
  if (inside) return AlreadyApplied(content);
  if (!count.has_value() && dangling != kNpos) {
    // Every range is asked for, and this start begins none: the ranges are
    // not what the edit assumes, so replacing the others would be a guess.
    return core::WithCode(absl::NotFoundError(absl::StrCat(
        core::Term("old_text_start"), " was found at line ", LineNumbersOf(norm, {dangling})[0], " of '", label,
        "' after ", ranges.size(), ranges.size() == 1 ? " complete range" : " complete ranges", " (", range_lines(),
        "), but ", core::Term("old_text_end"),
        " was not found after it; nothing was changed. Every range is replaced, so wherever ",
        core::Term("old_text_start"), " is found, ", core::Term("old_text_end"), " must follow: give ",
        core::Term("count", absl::StrCat(ranges.size())), " to replace only the complete ones, or make ",
        core::Term("old_text_start"), " more specific")),
        "search_not_found");
  }
  return Replace(t, std::move(ranges), new_text, max_bytes, label, "range", keep_places);
}

EditResult AppendText(absl::string_view content, absl::string_view addition, bool as_lines) {
  EditResult r;
  absl::string_view eol = DominantBreak(CountLineEndings(content));
  std::string adapted = eol.empty() ? std::string(addition) : ConvertLineBreaks(addition, eol);
  if (as_lines) {
    absl::string_view line_break = eol.empty() ? "\n" : eol;
    // Lines start on a line of their own and each ends with a line break.
    if (!adapted.empty() && adapted.back() != '\n') adapted.append(line_break.data(), line_break.size());
    if (!content.empty() && content.back() != '\n' && !adapted.empty()) adapted.insert(0, std::string(line_break));
  }
  if (!content.empty() && content.back() != '\n' && !adapted.empty() && adapted[0] != '\n' && adapted[0] != '\r') {
    r.warnings.push_back(
        "the file did not end with a line break, so the appended text continues its last line (start content "
        "with a blank line to begin a new line)");
  }
  r.content.reserve(content.size() + adapted.size());
  r.content.append(content.data(), content.size());
  r.content.append(adapted);
  r.replacements = 0;
  return r;
}

absl::Status CheckUtf8Text(absl::string_view content, absl::string_view label) {
  auto line_and_column = [&](size_t offset) {
    absl::string_view before = content.substr(0, offset);
    int64_t line = CountNewlines(before) + 1;
    size_t last_nl = before.rfind('\n');
    size_t column = last_nl == kNpos ? offset + 1 : offset - last_nl;
    return absl::StrCat("line ", line, ", byte ", column);
  };
  const void* nul = memchr(content.data(), '\0', content.size());
  if (nul != nullptr) {
    size_t offset = static_cast<size_t>(static_cast<const char*>(nul) - content.data());
    return absl::FailedPreconditionError(absl::StrCat(
        "'", label, "' is a binary file, not UTF-8 text (NUL byte at offset ", offset, ", ", line_and_column(offset),
        "); text edits refuse it so they cannot corrupt it. Replace it whole with ", core::Term("file_write"),
        " if you must change it"));
  }
  size_t bad = 0;
  if (!IsValidUtf8(content, &bad)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "'%s' is not valid UTF-8 text (byte 0x%02X at offset %d, %s); text edits refuse it so they cannot corrupt "
        "its encoding. Convert it to UTF-8 first (e.g. iconv via exec), or replace it whole with %s",
        label, static_cast<unsigned char>(content[bad]), bad, line_and_column(bad), core::Term("file_write")));
  }
  return absl::OkStatus();
}

}  // namespace clada::fs_ops::internal
