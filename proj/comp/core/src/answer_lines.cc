#include "proj/comp/core/src/answer_lines.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "proj/comp/core/src/newlines.h"

namespace clada::core {
namespace {

int64_t CountBreaks(absl::string_view s) { return static_cast<int64_t>(CountNewlines(s)); }

// How many bytes `a` and `b` share at their start (a block of memcmp at a
// time, then byte by byte in the block that differs), of at most `n`.
size_t CommonHead(const char* a, const char* b, size_t n) {
  constexpr size_t kBlock = 4096;
  size_t p = 0;
  while (p + kBlock <= n && std::memcmp(a + p, b + p, kBlock) == 0) p += kBlock;
  while (p < n && a[p] == b[p]) ++p;
  return p;
}

// How many bytes `a` (of `na`) and `b` (of `nb`) share at their end, of at
// most `n`.
size_t CommonTail(const char* a, size_t na, const char* b, size_t nb, size_t n) {
  constexpr size_t kBlock = 4096;
  size_t s = 0;
  while (s + kBlock <= n && std::memcmp(a + na - s - kBlock, b + nb - s - kBlock, kBlock) == 0) s += kBlock;
  while (s < n && a[na - 1 - s] == b[nb - 1 - s]) ++s;
  return s;
}

int64_t CountLinesOf(absl::string_view s) { return CountBreaks(s) + (!s.empty() && s.back() != '\n' ? 1 : 0); }

}  // namespace

std::optional<LineChange> ChangedLines(absl::string_view before, absl::string_view after) {
  if (before == after) return std::nullopt;
  const size_t common = std::min(before.size(), after.size());
  size_t p = CommonHead(before.data(), after.data(), common);
  // Lines ending (with their break) before p are the same in both; the
  // tail is looked for after them only, not in the line p is in.
  while (p > 0 && before[p - 1] != '\n') --p;
  const int64_t head = CountBreaks(before.substr(0, p));
  const size_t s = CommonTail(before.data(), before.size(), after.data(), after.size(), common - p);
  // Lines starting inside the common tail are the same in both; the one
  // starting where it begins only when both texts start a line there.
  int64_t tail = 0;
  if (s > 0) {
    const size_t b = before.size() - s, a = after.size() - s;
    tail = CountBreaks(before.substr(b, s - 1));
    if ((b == 0 || before[b - 1] == '\n') && (a == 0 || after[a - 1] == '\n')) ++tail;
  }
  LineChange c;
  c.first = head + 1;
  c.old_count = std::max<int64_t>(0, CountLinesOf(before) - head - tail);
  c.new_count = std::max<int64_t>(0, CountLinesOf(after) - head - tail);
  return c;
}

std::optional<LineChange> ChangedLines(absl::string_view before, const PiecedText& after) {
  size_t after_size = 0;
  int64_t after_breaks = 0;
  char after_last = '\n';
  for (size_t i = 0; i < after.count; ++i) {
    const absl::string_view piece = after.piece(i);
    if (piece.empty()) continue;
    after_size += piece.size();
    after_breaks += CountBreaks(piece);
    after_last = piece.back();
  }
  const size_t common = std::min(before.size(), after_size);
  // The common head, piece by piece.
  size_t p = 0;
  bool differ = false;
  for (size_t i = 0; i < after.count && p < common; ++i) {
    const absl::string_view piece = after.piece(i);
    if (piece.empty()) continue;
    const size_t n = std::min(piece.size(), common - p);
    const size_t same = piece.data() == before.data() + p ? n : CommonHead(before.data() + p, piece.data(), n);
    p += same;
    if (same < piece.size()) {
      differ = same < n;
      break;
    }
  }
  if (!differ && p == before.size() && p == after_size) return std::nullopt;  // equal
  while (p > 0 && before[p - 1] != '\n') --p;
  const int64_t head = CountBreaks(before.substr(0, p));
  // The common tail, piece by piece from the last.
  const size_t cap = common - p;
  size_t s = 0;
  char after_before_tail = '\n';  // after's byte before its common tail
  for (size_t i = after.count; i-- > 0;) {
    const absl::string_view piece = after.piece(i);
    if (piece.empty()) continue;
    const size_t n = std::min(piece.size(), cap - s);
    const size_t same = piece.data() + piece.size() == before.data() + before.size() - s
                            ? n
                            : CommonTail(before.data(), before.size() - s, piece.data(), piece.size(), n);
    s += same;
    if (same < piece.size()) {
      after_before_tail = piece[piece.size() - same - 1];
      break;
    }
  }
  // The loop ends on a whole piece only when after's tail is all of it.
  int64_t tail = 0;
  if (s > 0) {
    const size_t b = before.size() - s, a = after_size - s;
    tail = CountBreaks(before.substr(b, s - 1));
    if ((b == 0 || before[b - 1] == '\n') && (a == 0 || after_before_tail == '\n')) ++tail;
  }
  const int64_t after_lines = after_breaks + (after_size > 0 && after_last != '\n' ? 1 : 0);
  LineChange c;
  c.first = head + 1;
  c.old_count = std::max<int64_t>(0, CountLinesOf(before) - head - tail);
  c.new_count = std::max<int64_t>(0, after_lines - head - tail);
  return c;
}

void AnswerLines::Record(const std::string& path, absl::string_view before, const PiecedText& after,
                         absl::string_view label) {
  if (!Kept(path)) return;
  if (std::optional<LineChange> c = ChangedLines(before, after)) Note(path, *c, label);
}

void AnswerLines::Record(const std::string& path, absl::string_view before, absl::string_view after,
                         absl::string_view label) {
  if (!Kept(path)) return;
  if (std::optional<LineChange> c = ChangedLines(before, after)) Note(path, *c, label);
}

void AnswerLines::Note(const std::string& path, const LineChange& c, absl::string_view label) {
  File& f = files_[path];
  f.last_by = std::string(label);
  if (!f.created_by.empty()) return;  // none of its lines are the model's anyway
  Apply(f, c, label);
}

void AnswerLines::Watch(const std::string& path) {
  limited_ = true;
  watched_.insert(path);
}

void AnswerLines::Created(const std::string& path, absl::string_view label) {
  if (!Kept(path)) return;
  File& f = files_[path];
  f.runs.clear();
  f.created_by = label.empty() ? "an earlier action" : std::string(label);
  f.last_by = f.created_by;
}

std::string AnswerLines::LastChangeBy(const std::string& path) const {
  auto it = files_.find(path);
  return it == files_.end() ? "" : it->second.last_by;
}

void AnswerLines::Forget(const std::string& path) {
  for (auto it = files_.lower_bound(path); it != files_.end();) {
    if (it->first != path && !absl::StartsWith(it->first, path + "/")) break;
    it = files_.erase(it);
  }
}

void AnswerLines::Move(const std::string& from, const std::string& to) {
  if (from == to) return;
  std::vector<std::pair<std::string, File>> moved;
  for (auto it = files_.lower_bound(from); it != files_.end();) {
    if (it->first != from && !absl::StartsWith(it->first, from + "/")) break;
    moved.emplace_back(to + it->first.substr(from.size()), std::move(it->second));
    it = files_.erase(it);
  }
  Forget(to);
  for (auto& [path, file] : moved) files_[path] = std::move(file);
}

void AnswerLines::Apply(File& f, const LineChange& c, absl::string_view label) {
  std::vector<Run>& runs = f.runs;
  const int64_t a = c.first, a_end = c.first + c.old_count;  // now, half-open
  // Runs wholly before the change (not touching it) keep their place.
  size_t i = 0;
  int64_t delta = 0;  // now - before, for unchanged lines after run i - 1
  while (i < runs.size() && runs[i].orig_first + delta + runs[i].now_count < a) {
    delta += runs[i].now_count - runs[i].orig_count;
    ++i;
  }
  // Runs the change touches merge with it.
  size_t j = i;
  int64_t delta_after = delta;
  int64_t now_lo = a, now_hi = a_end;
  while (j < runs.size()) {
    const int64_t now_first = runs[j].orig_first + delta_after;
    if (now_first > a_end) break;
    now_lo = std::min(now_lo, now_first);
    now_hi = std::max(now_hi, now_first + runs[j].now_count);
    delta_after += runs[j].now_count - runs[j].orig_count;
    ++j;
  }
  Run merged;
  merged.orig_first = a - delta;
  int64_t orig_end = a_end - delta_after;
  if (j > i) {
    merged.orig_first = std::min(merged.orig_first, runs[i].orig_first);
    orig_end = std::max(orig_end, runs[j - 1].orig_first + runs[j - 1].orig_count);
  }
  merged.orig_count = orig_end - merged.orig_first;
  merged.now_count = (now_hi - now_lo) - c.old_count + c.new_count;
  merged.by = std::string(label);
  runs.erase(runs.begin() + static_cast<ptrdiff_t>(i), runs.begin() + static_cast<ptrdiff_t>(j));
  if (merged.orig_count != 0 || merged.now_count != 0) {
    runs.insert(runs.begin() + static_cast<ptrdiff_t>(i), std::move(merged));
  }
}

AnswerLines::Mapped AnswerLines::Map(const std::string& path, int64_t first, int64_t last) const {
  Mapped m;
  auto it = files_.find(path);
  if (it == files_.end()) {
    m.ok = true;
    m.first = first;
    m.last = last;
    return m;
  }
  const File& f = it->second;
  if (!f.created_by.empty()) {
    m.by = f.created_by;
    m.created = true;
    return m;
  }
  int64_t delta = 0;
  for (const Run& r : f.runs) {
    const int64_t r_last = r.orig_first + r.orig_count - 1;
    const bool before = r.orig_count > 0 ? r_last < first : r.orig_first <= first;
    if (before) {
      delta += r.now_count - r.orig_count;
      continue;
    }
    if (r.orig_first > last) break;
    m.by = r.by;
    m.changed_first = r.orig_first;
    m.changed_last = r_last;
    return m;
  }
  m.ok = true;
  m.first = first + delta;
  m.last = last + delta;
  return m;
}

}  // namespace clada::core
