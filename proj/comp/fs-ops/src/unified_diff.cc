#include "proj/comp/fs-ops/src/unified_diff.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace clada::fs_ops::internal {
namespace {

// The lines of `text`, each with its "\n" (the last one may lack it).
std::vector<absl::string_view> SplitLines(absl::string_view text) {
  std::vector<absl::string_view> lines;
  lines.reserve(static_cast<size_t>(CountTextLines(text)));
  const char* data = text.data();
  size_t begin = 0;
  while (begin < text.size()) {
    const void* nl = std::memchr(data + begin, '\n', text.size() - begin);
    const size_t end = nl == nullptr ? text.size() : static_cast<size_t>(static_cast<const char*>(nl) - data) + 1;
    lines.emplace_back(data + begin, end - begin);
    begin = end;
  }
  return lines;
}

// Aligns a[] with b[] (line ids), marking the lines of a minimal edit
// script: removed[i] for a's lines not kept, added[j] for b's new lines.
// Myers' bisection (the middle of an optimal path is found from both ends
// at once, then each half is solved alone), with an explicit stack and two
// V arrays reused by every step: memory is linear in the input.
class Aligner {
 public:
  Aligner(const std::vector<int>& a, const std::vector<int>& b, int64_t max_work)
      : a_(a), b_(b), max_work_(max_work), removed_(a.size(), 0), added_(b.size(), 0) {}

  using Range = std::pair<std::pair<int, int>, std::pair<int, int>>;  // [a0, a1) x [b0, b1)

  // False when the work bound ran out. `parts`: the ranges to align, each
  // alone (the lines between them are kept); default the whole of a and b.
  bool Align(std::vector<Range> parts = {}) {
    std::vector<Range> stack = std::move(parts);
    if (stack.empty()) stack.push_back({{0, static_cast<int>(a_.size())}, {0, static_cast<int>(b_.size())}});
    std::reverse(stack.begin(), stack.end());
    while (!stack.empty()) {
      auto [ra, rb] = stack.back();
      stack.pop_back();
      int a0 = ra.first, a1 = ra.second, b0 = rb.first, b1 = rb.second;
      while (a0 < a1 && b0 < b1 && a_[a0] == b_[b0]) ++a0, ++b0;
      while (a0 < a1 && b0 < b1 && a_[a1 - 1] == b_[b1 - 1]) --a1, --b1;
      if (a0 == a1 || b0 == b1) {
        for (int i = a0; i < a1; ++i) removed_[i] = 1;
        for (int j = b0; j < b1; ++j) added_[j] = 1;
        continue;
      }
      int x = 0, y = 0;
      int found = Bisect(a0, a1, b0, b1, &x, &y);
      if (found < 0) return false;
      // A split that leaves the whole range on one side would not shrink
      // the problem: taken as nothing in common (never seen; a guard).
      if (found == 0 || (x == 0 && y == 0) || (x == a1 - a0 && y == b1 - b0)) {
        for (int i = a0; i < a1; ++i) removed_[i] = 1;
        for (int j = b0; j < b1; ++j) added_[j] = 1;
        continue;
      }
      stack.push_back({{a0 + x, a1}, {b0 + y, b1}});
      stack.push_back({{a0, a0 + x}, {b0, b0 + y}});
    }
    return true;
  }

  const std::vector<char>& removed() const { return removed_; }
  int64_t work() const { return work_; }
  const std::vector<char>& added() const { return added_; }

 private:
  // Finds a point (x, y) (relative to a0, b0) on an optimal path through
  // a[a0, a1) and b[b0, b1): 1 found, 0 the two share nothing, -1 out of
  // work. Neither range is empty, and their first and last lines differ.
  int Bisect(int a0, int a1, int b0, int b1, int* out_x, int* out_y) {
    const int n = a1 - a0, m = b1 - b0;
    const int max_d = (n + m + 1) / 2;
    const int offset = max_d;
    const int length = 2 * max_d + 2;
    if (static_cast<int>(v1_.size()) < length) {
      v1_.resize(length);
      v2_.resize(length);
    }
    std::fill(v1_.begin(), v1_.begin() + length, -1);
    std::fill(v2_.begin(), v2_.begin() + length, -1);
    if (!Spend(length)) return -1;
    v1_[offset + 1] = 0;
    v2_[offset + 1] = 0;
    const int delta = n - m;
    const bool front = (delta % 2) != 0;  // the forward path meets the reverse one
    int k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    for (int d = 0; d < max_d; ++d) {
      for (int k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const int k1o = offset + k1;
        int x1 = (k1 == -d || (k1 != d && v1_[k1o - 1] < v1_[k1o + 1])) ? v1_[k1o + 1] : v1_[k1o - 1] + 1;
        int y1 = x1 - k1;
        const int x_start = x1;
        while (x1 < n && y1 < m && a_[a0 + x1] == b_[b0 + y1]) ++x1, ++y1;
        if (!Spend(1 + x1 - x_start)) return -1;
        v1_[k1o] = x1;
        if (x1 > n) {
          k1end += 2;
        } else if (y1 > m) {
          k1start += 2;
        } else if (front) {
          const int k2o = offset + delta - k1;
          if (k2o >= 0 && k2o < length && v2_[k2o] != -1 && x1 >= n - v2_[k2o]) {
            *out_x = x1;
            *out_y = y1;
            return 1;
          }
        }
      }
      for (int k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const int k2o = offset + k2;
        int x2 = (k2 == -d || (k2 != d && v2_[k2o - 1] < v2_[k2o + 1])) ? v2_[k2o + 1] : v2_[k2o - 1] + 1;
        int y2 = x2 - k2;
        const int x_start = x2;
        while (x2 < n && y2 < m && a_[a1 - x2 - 1] == b_[b1 - y2 - 1]) ++x2, ++y2;
        if (!Spend(1 + x2 - x_start)) return -1;
        v2_[k2o] = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const int k1o = offset + delta - k2;
          if (k1o >= 0 && k1o < length && v1_[k1o] != -1) {
            const int x1 = v1_[k1o];
            const int y1 = offset + x1 - k1o;
            if (x1 >= n - x2) {
              *out_x = x1;
              *out_y = y1;
              return 1;
            }
          }
        }
      }
    }
    return 0;
  }

  bool Spend(int64_t n) {
    work_ += n;
    return max_work_ <= 0 || work_ <= max_work_;
  }

  const std::vector<int>& a_;
  const std::vector<int>& b_;
  const int64_t max_work_;
  int64_t work_ = 0;
  std::vector<char> removed_;
  std::vector<char> added_;
  std::vector<int> v1_, v2_;
};

// "l,s" of a hunk header: an empty range names the line before it.
std::string Range(int64_t first, int64_t count) {
  if (count == 0) return absl::StrCat(first, ",0");
  if (count == 1) return absl::StrCat(first + 1);
  return absl::StrCat(first + 1, ",", count);
}

void AppendLine(std::string& out, char mark, absl::string_view line) {
  out += mark;
  if (!line.empty() && line.back() == '\n') {
    absl::StrAppend(&out, line);
  } else {
    absl::StrAppend(&out, line, "\n\\ No newline at end of file\n");
  }
}

// A run of changed lines between two kept ones.
struct Change {
  int64_t i0, i1;  // a[i0, i1) removed
  int64_t j0, j1;  // b[j0, j1) added
};

// Above this many lines to align, the alignment is cut at anchors first.
constexpr size_t kAnchorLines = 4096;

// The ranges left between anchors: lines that occur exactly once in `a` and
// once in `b`, the longest run of them in the same order in both (patience
// diff's anchors). Each range is then aligned alone, so a large file with
// changes spread all over costs about the sum of small alignments instead
// of one whose work grows with the file times the changes. The result may
// be a little longer than a minimal edit script, never wrong.
std::vector<Aligner::Range> AnchoredRanges(const std::vector<int>& a, const std::vector<int>& b, int ids) {
  std::vector<int> count_a(ids, 0), count_b(ids, 0), where_b(ids, -1);
  for (int id : a) ++count_a[id];
  for (size_t j = 0; j < b.size(); ++j) {
    ++count_b[b[j]];
    where_b[b[j]] = static_cast<int>(j);
  }
  std::vector<std::pair<int, int>> pairs;  // (i, j), increasing i
  for (size_t i = 0; i < a.size(); ++i) {
    if (count_a[a[i]] == 1 && count_b[a[i]] == 1) pairs.push_back({static_cast<int>(i), where_b[a[i]]});
  }
  // Longest increasing run of j (patience sorting, with predecessors).
  std::vector<int> tops, prev(pairs.size(), -1);
  for (size_t k = 0; k < pairs.size(); ++k) {
    auto at = std::lower_bound(tops.begin(), tops.end(), pairs[k].second,
                               [&pairs](int t, int j) { return pairs[t].second < j; });
    if (at != tops.begin()) prev[k] = *(at - 1);
    if (at == tops.end()) {
      tops.push_back(static_cast<int>(k));
    } else {
      *at = static_cast<int>(k);
    }
  }
  std::vector<std::pair<int, int>> anchors;
  for (int k = tops.empty() ? -1 : tops.back(); k >= 0; k = prev[k]) anchors.push_back(pairs[k]);
  std::reverse(anchors.begin(), anchors.end());
  std::vector<Aligner::Range> ranges;
  int ai = 0, bj = 0;
  for (const auto& [i, j] : anchors) {
    if (ai < i || bj < j) ranges.push_back({{ai, i}, {bj, j}});
    ai = i + 1;
    bj = j + 1;
  }
  if (ai < static_cast<int>(a.size()) || bj < static_cast<int>(b.size())) {
    ranges.push_back({{ai, static_cast<int>(a.size())}, {bj, static_cast<int>(b.size())}});
  }
  if (ranges.empty()) ranges.push_back({{0, 0}, {0, 0}});  // nothing to align (Align's default is everything)
  return ranges;
}

// Lines that must agree after a difference for the two texts to be taken
// as back in step, and how far ahead in each text that point is looked for.
constexpr int kSyncLines = 3;
constexpr int kSyncWindow = 64;

// The ranges where old[o0, o1) and new[n0, n1) differ, found without
// hashing a line: the texts are walked in step while their lines are
// equal; at a difference, the nearest point (fewest lines skipped in both)
// within kSyncWindow lines of each where kSyncLines lines (or the rest of
// both texts) agree again ends the range. An edit of a large file touches
// a few places, so this costs about one comparison a line, where ids for
// the anchors hash every line of both texts. False when some difference
// does not end within the window (a rewrite, a moved block): the caller
// then anchors on unique lines. Ranges are relative to o0 and n0.
bool SteppedRanges(const std::vector<absl::string_view>& old_lines, size_t o0, size_t o1,
                   const std::vector<absl::string_view>& new_lines, size_t n0, size_t n1,
                   std::vector<Aligner::Range>* ranges) {
  auto in_step = [&](size_t i, size_t j) {
    for (int k = 0; k < kSyncLines; ++k, ++i, ++j) {
      if (i == o1 || j == n1) return i == o1 && j == n1;
      if (old_lines[i] != new_lines[j]) return false;
    }
    return true;
  };
  size_t i = o0, j = n0;
  while (i < o1 || j < n1) {
    if (i < o1 && j < n1 && old_lines[i] == new_lines[j]) {
      ++i, ++j;
      continue;
    }
    bool found = false;
    size_t si = 0, sj = 0;
    for (int skip = 1; skip <= 2 * kSyncWindow && !found; ++skip) {
      for (int di = std::max(0, skip - kSyncWindow); di <= std::min(skip, kSyncWindow); ++di) {
        si = i + di;
        sj = j + (skip - di);
        if (si > o1 || sj > n1) continue;
        if (in_step(si, sj)) {
          found = true;
          break;
        }
      }
    }
    if (!found) return false;
    ranges->push_back({{static_cast<int>(i - o0), static_cast<int>(si - o0)},
                       {static_cast<int>(j - n0), static_cast<int>(sj - n0)}});
    i = si;
    j = sj;
  }
  return true;
}

// The lines of `text` as SplitLines gives them, into `lines` (reused).
void SplitLinesInto(absl::string_view text, std::vector<absl::string_view>* lines) {
  lines->clear();
  size_t begin = 0;
  while (begin < text.size()) {
    const void* nl = std::memchr(text.data() + begin, '\n', text.size() - begin);
    const size_t end = nl == nullptr ? text.size() : static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
    lines->emplace_back(text.data() + begin, end - begin);
    begin = end;
  }
}

// Each line of `lines` (whole lines) marked with `mark`.
void AppendLines(std::string& out, char mark, absl::string_view lines) {
  size_t begin = 0;
  while (begin < lines.size()) {
    size_t nl = lines.find('\n', begin);
    size_t end = nl == absl::string_view::npos ? lines.size() : nl + 1;
    AppendLine(out, mark, lines.substr(begin, end - begin));
    begin = end;
  }
}

// The hunks of a diff made change by change, in order (DiffSplices): the
// changes DiffTexts would group into one hunk (at most 2 * context lines
// apart) are one, its context and the lines between its changes read from
// the original text.
class HunkWriter {
 public:
  HunkWriter(absl::string_view original, absl::string_view label, int64_t context, int64_t max_text_bytes,
             UnifiedDiff* diff)
      : text_(original), label_(label), ctx_(context), max_bytes_(max_text_bytes), diff_(diff) {}

  // Old lines [i0, i1) (bytes [off0, off1) of the original) became new
  // lines [j0, j1), whose text is `added`. A change that begins where the
  // one before it ends is one change with it (all its removals, then all
  // its additions), as DiffTexts writes a run of changed lines.
  void Change(int64_t i0, int64_t i1, int64_t j0, int64_t j1, size_t off0, size_t off1, absl::string_view added) {
    diff_->removed += i1 - i0;
    diff_->added += j1 - j0;
    if (diff_->too_long) return;
    if (pending_ && i0 == p_.i1 && j0 == p_.j1) {
      p_.i1 = i1;
      p_.j1 = j1;
      p_.off1 = off1;
    } else {
      Emit();
      pending_ = true;
      p_ = {i0, i1, j0, j1, off0, off1};
      added_.clear();
    }
    added_.append(added.data(), added.size());
    CheckSize();
  }

  // Ends the last hunk.
  void Flush() {
    Emit();
    if (!open_ || diff_->too_long) return;
    open_ = false;
    size_t end = last_off1_;
    int64_t k = 0;
    while (k < ctx_ && end < text_.size()) {
      size_t nl = text_.find('\n', end);
      end = nl == absl::string_view::npos ? text_.size() : nl + 1;
      ++k;
    }
    AppendLines(body_, ' ', text_.substr(last_off1_, end - last_off1_));
    if (diff_->text.empty()) absl::StrAppend(&diff_->text, "--- a/", label_, "\n+++ b/", label_, "\n");
    const int64_t old_end = last_i1_ + k, new_end = last_j1_ + k;
    absl::StrAppend(&diff_->text, "@@ -", Range(old_begin_, old_end - old_begin_), " +",
                    Range(new_begin_, new_end - new_begin_), " @@\n", body_);
    body_.clear();
    CheckSize();
  }

 private:
  struct Pending {
    int64_t i0, i1, j0, j1;
    size_t off0, off1;
  };

  // The pending change into the hunk's body.
  void Emit() {
    if (!pending_ || diff_->too_long) return;
    pending_ = false;
    if (open_ && p_.i0 - last_i1_ <= 2 * ctx_) {
      AppendLines(body_, ' ', text_.substr(last_off1_, p_.off0 - last_off1_));
    } else {
      Flush();
      open_ = true;
      size_t start = p_.off0;
      int64_t k = 0;
      while (k < ctx_ && start > 0) {
        size_t nl = start >= 2 ? text_.rfind('\n', start - 2) : absl::string_view::npos;
        start = nl == absl::string_view::npos ? 0 : nl + 1;
        ++k;
      }
      old_begin_ = p_.i0 - k;
      new_begin_ = p_.j0 - k;
      AppendLines(body_, ' ', text_.substr(start, p_.off0 - start));
    }
    AppendLines(body_, '-', text_.substr(p_.off0, p_.off1 - p_.off0));
    AppendLines(body_, '+', added_);
    added_.clear();
    last_i1_ = p_.i1;
    last_j1_ = p_.j1;
    last_off1_ = p_.off1;
  }

  // Past max_bytes (counting what the pending change will add): too long,
  // and nothing more is kept.
  void CheckSize() {
    if (max_bytes_ <= 0 || diff_->too_long) return;
    size_t size = diff_->text.size() + body_.size();
    if (pending_) size += added_.size() + (p_.off1 - p_.off0);
    if (static_cast<int64_t>(size) <= max_bytes_) return;
    diff_->too_long = true;
    diff_->computed = false;
    pending_ = false;
    open_ = false;
    std::string().swap(body_);
    std::string().swap(added_);
    std::string().swap(diff_->text);
  }

  absl::string_view text_;
  absl::string_view label_;
  int64_t ctx_;
  int64_t max_bytes_;
  UnifiedDiff* diff_;
  bool open_ = false;
  int64_t old_begin_ = 0, new_begin_ = 0;
  int64_t last_i1_ = 0, last_j1_ = 0;
  size_t last_off1_ = 0;
  std::string body_;
  bool pending_ = false;
  Pending p_{};
  std::string added_;  // the pending change's new lines
};

}  // namespace

UnifiedDiff DiffSplices(const SplicedText& t, absl::string_view label, const DiffOptions& options,
                        int64_t max_text_bytes) {
  UnifiedDiff diff;
  const absl::string_view text = t.original();
  diff.old_lines = CountTextLines(text);
  int64_t breaks = 0;
  char last = '\n';
  for (size_t p = 0; p < t.PieceCount(); ++p) {
    absl::string_view piece = t.Piece(p);
    if (piece.empty()) continue;
    breaks += CountNewlines(piece);
    last = piece.back();
  }
  diff.new_lines = breaks + (last != '\n' ? 1 : 0);
  HunkWriter hunks(text, label, std::max(options.context, 0), max_text_bytes, &diff);
  std::vector<absl::string_view> old_lines, new_lines;
  absl::flat_hash_map<absl::string_view, int> ids;
  std::vector<int> a, b;
  int64_t work_left = options.max_work;
  bool out_of_work = false;
  ForEachChangedRun(t, [&](const ChangedRun& run) {
    SplitLinesInto(text.substr(run.old_begin, run.old_end - run.old_begin), &old_lines);
    SplitLinesInto(run.new_text, &new_lines);
    const size_t n = old_lines.size(), m = new_lines.size();
    size_t head = 0;
    while (head < n && head < m && old_lines[head] == new_lines[head]) ++head;
    size_t tail = 0;
    while (tail < n - head && tail < m - head && old_lines[n - 1 - tail] == new_lines[m - 1 - tail]) ++tail;
    // The byte offset in the original of the run's old line x, and the
    // new text of its new lines [j0, j1).
    auto old_offset = [&](size_t x) {
      return x < n ? static_cast<size_t>(old_lines[x].data() - text.data()) : run.old_end;
    };
    auto new_part = [&](size_t j0, size_t j1) {
      if (j0 == j1) return absl::string_view();
      return absl::string_view(new_lines[j0].data(),
                               static_cast<size_t>(new_lines[j1 - 1].data() + new_lines[j1 - 1].size() -
                                                   new_lines[j0].data()));
    };
    auto change = [&](size_t i0, size_t i1, size_t j0, size_t j1) {
      hunks.Change(run.old_line - 1 + static_cast<int64_t>(i0), run.old_line - 1 + static_cast<int64_t>(i1),
                   run.new_line - 1 + static_cast<int64_t>(j0), run.new_line - 1 + static_cast<int64_t>(j1),
                   old_offset(i0), old_offset(i1), new_part(j0, j1));
    };
    const size_t i_end = n - tail, j_end = m - tail;
    if (head == i_end && head == j_end) return true;  // the run's lines are unchanged
    if (head == i_end || head == j_end || (i_end - head == 1 && j_end - head == 1)) {
      change(head, i_end, head, j_end);
      return true;
    }
    ids.clear();
    a.clear();
    b.clear();
    for (size_t i = head; i < i_end; ++i) a.push_back(ids.emplace(old_lines[i], static_cast<int>(ids.size())).first->second);
    for (size_t j = head; j < j_end; ++j) b.push_back(ids.emplace(new_lines[j], static_cast<int>(ids.size())).first->second);
    Aligner aligner(a, b, options.max_work > 0 ? std::max<int64_t>(work_left, 1) : 0);
    if (!aligner.Align()) {
      out_of_work = true;
      return false;
    }
    if (options.max_work > 0) work_left -= aligner.work();
    const std::vector<char>& removed = aligner.removed();
    const std::vector<char>& added = aligner.added();
    size_t i = 0, j = 0;
    const size_t ni = a.size(), mj = b.size();
    while (i < ni || j < mj) {
      if (i < ni && j < mj && !removed[i] && !added[j]) {
        ++i, ++j;
        continue;
      }
      const size_t i0 = i, j0 = j;
      while (i < ni && removed[i]) ++i;
      while (j < mj && added[j]) ++j;
      change(head + i0, head + i, head + j0, head + j);
    }
    return true;
  });
  if (out_of_work) {
    diff.computed = false;
    diff.too_long = false;
    diff.text.clear();
    return diff;
  }
  hunks.Flush();
  return diff;
}

int64_t CountTextLines(absl::string_view text) {
  // memchr, not std::count: it skips the bytes between line breaks many at a time.
  int64_t breaks = 0;
  for (size_t at = 0; at < text.size(); ++breaks) {
    const void* nl = std::memchr(text.data() + at, '\n', text.size() - at);
    if (nl == nullptr) break;
    at = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
  }
  return breaks + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

UnifiedDiff DiffTexts(absl::string_view before, absl::string_view after, absl::string_view label,
                      const DiffOptions& options) {
  UnifiedDiff diff;
  const std::vector<absl::string_view> old_lines = SplitLines(before);
  const std::vector<absl::string_view> new_lines = SplitLines(after);
  diff.old_lines = static_cast<int64_t>(old_lines.size());
  diff.new_lines = static_cast<int64_t>(new_lines.size());
  if (before == after) return diff;

  // The common head and tail are set aside before any line is hashed.
  const size_t n = old_lines.size(), m = new_lines.size();
  size_t head = 0;
  while (head < n && head < m && old_lines[head] == new_lines[head]) ++head;
  size_t tail = 0;
  while (tail < n - head && tail < m - head && old_lines[n - 1 - tail] == new_lines[m - 1 - tail]) ++tail;
  absl::flat_hash_map<absl::string_view, int> ids;
  auto id_of = [&](absl::string_view line) {
    return ids.emplace(line, static_cast<int>(ids.size())).first->second;
  };
  std::vector<int> a, b;
  std::vector<Aligner::Range> parts;
  const bool large = (n - head - tail) + (m - head - tail) > kAnchorLines;
  if (large && SteppedRanges(old_lines, head, n - tail, new_lines, head, m - tail, &parts)) {
    // Only the lines of the differing ranges get ids: the aligner reads no other.
    a.assign(n - head - tail, -1);
    b.assign(m - head - tail, -1);
    for (const Aligner::Range& r : parts) {
      for (int i = r.first.first; i < r.first.second; ++i) a[i] = id_of(old_lines[head + i]);
      for (int j = r.second.first; j < r.second.second; ++j) b[j] = id_of(new_lines[head + j]);
    }
    if (parts.empty()) parts.push_back({{0, 0}, {0, 0}});  // nothing to align (Align's default is everything)
  } else {
    parts.clear();
    a.reserve(n - head - tail);
    b.reserve(m - head - tail);
    for (size_t i = head; i < n - tail; ++i) a.push_back(id_of(old_lines[i]));
    for (size_t j = head; j < m - tail; ++j) b.push_back(id_of(new_lines[j]));
    if (large) parts = AnchoredRanges(a, b, static_cast<int>(ids.size()));
  }
  Aligner aligner(a, b, options.max_work);
  if (!aligner.Align(std::move(parts))) {
    diff.computed = false;
    return diff;
  }
  std::vector<char> removed(n, 0), added(m, 0);
  std::copy(aligner.removed().begin(), aligner.removed().end(), removed.begin() + head);
  std::copy(aligner.added().begin(), aligner.added().end(), added.begin() + head);

  // The runs of changes, each all its removals then all its additions.
  std::vector<Change> changes;
  int64_t i = 0, j = 0;
  const int64_t ni = static_cast<int64_t>(n), mj = static_cast<int64_t>(m);
  while (i < ni || j < mj) {
    if (i < ni && j < mj && !removed[i] && !added[j]) {
      ++i, ++j;
      continue;
    }
    Change c{i, i, j, j};
    while (i < ni && removed[i]) ++i;
    while (j < mj && added[j]) ++j;
    c.i1 = i;
    c.j1 = j;
    diff.removed += c.i1 - c.i0;
    diff.added += c.j1 - c.j0;
    changes.push_back(c);
  }

  const int64_t ctx = std::max(options.context, 0);
  absl::StrAppend(&diff.text, "--- a/", label, "\n+++ b/", label, "\n");
  for (size_t first = 0; first < changes.size();) {
    size_t last = first;
    while (last + 1 < changes.size() && changes[last + 1].i0 - changes[last].i1 <= 2 * ctx) ++last;
    const int64_t old_begin = std::max<int64_t>(changes[first].i0 - ctx, 0);
    const int64_t old_end = std::min<int64_t>(changes[last].i1 + ctx, ni);
    const int64_t new_begin = old_begin + (changes[first].j0 - changes[first].i0);
    const int64_t new_end = old_end + (changes[last].j1 - changes[last].i1);
    absl::StrAppend(&diff.text, "@@ -", Range(old_begin, old_end - old_begin), " +",
                    Range(new_begin, new_end - new_begin), " @@\n");
    int64_t at = old_begin;
    for (size_t k = first; k <= last; ++k) {
      const Change& c = changes[k];
      for (; at < c.i0; ++at) AppendLine(diff.text, ' ', old_lines[at]);
      for (int64_t r = c.i0; r < c.i1; ++r) AppendLine(diff.text, '-', old_lines[r]);
      for (int64_t s = c.j0; s < c.j1; ++s) AppendLine(diff.text, '+', new_lines[s]);
      at = c.i1;
    }
    for (; at < old_end; ++at) AppendLine(diff.text, ' ', old_lines[at]);
    first = last + 1;
  }
  if (changes.empty()) diff.text.clear();
  return diff;
}

}  // namespace clada::fs_ops::internal
