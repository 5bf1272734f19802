#include "proj/comp/hunk-apply/src/internal/line_index.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace clada::hunk_apply::internal {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

absl::string_view StripRight(absl::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

absl::string_view Strip(absl::string_view s) {
  s = StripRight(s);
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return s;
}

// Decodes one UTF-8 sequence at s[i] (2-3 bytes are enough for every folded
// character); returns its length, or 0 when it is not one we fold.
char FoldAt(absl::string_view s, size_t i, size_t* len) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  if (b(0) == 0xC2 && i + 1 < s.size() && b(1) == 0xA0) {  // U+00A0
    *len = 2;
    return ' ';
  }
  if (i + 2 >= s.size()) return 0;
  uint32_t cp = 0;
  if ((b(0) & 0xF0) == 0xE0 && (b(1) & 0xC0) == 0x80 && (b(2) & 0xC0) == 0x80) {
    cp = ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  } else {
    return 0;
  }
  *len = 3;
  if ((cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212) return '-';
  if (cp >= 0x2018 && cp <= 0x201B) return '\'';
  if (cp >= 0x201C && cp <= 0x201F) return '"';
  if ((cp >= 0x2002 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000) return ' ';
  return 0;
}

}  // namespace

SplitText SplitLines(absl::string_view content) {
  SplitText out;
  if (content.size() >= 3 && content.substr(0, 3) == "\xEF\xBB\xBF") {
    out.bom = true;
    content.remove_prefix(3);
  }
  // Counts and first positions of LF, CRLF, CR.
  size_t count[3] = {0, 0, 0};
  size_t first[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
  size_t start = 0;
  const size_t n = content.size();
  // Counted with memchr: std::count looks at every byte one at a time, and
  // was most of the cost of splitting a large file.
  size_t breaks = 0;
  for (size_t at = 0; at < n; ++breaks) {
    const void* nl = std::memchr(content.data() + at, '\n', n - at);
    if (nl == nullptr) break;
    at = static_cast<size_t>(static_cast<const char*>(nl) - content.data()) + 1;
  }
  out.lines.reserve(breaks + 1);
  // Most files have no '\r': their lines are found with memchr, a few
  // times faster than looking at every byte.
  const bool has_cr = std::memchr(content.data(), '\r', n) != nullptr;
  while (!has_cr && start < n) {
    const void* nl = std::memchr(content.data() + start, '\n', n - start);
    if (nl == nullptr) break;
    const size_t i = static_cast<size_t>(static_cast<const char*>(nl) - content.data());
    if (count[0]++ == 0) first[0] = out.lines.size();
    out.lines.push_back({content.substr(start, i - start), content.substr(i, 1)});
    start = i + 1;
  }
  for (size_t i = has_cr ? 0 : n; i < n; ++i) {
    const char c = content[i];
    if (c != '\n' && c != '\r') continue;
    int kind;
    size_t len = 1;
    if (c == '\n') {
      kind = 0;
    } else if (i + 1 < n && content[i + 1] == '\n') {
      kind = 1;
      len = 2;
    } else {
      kind = 2;
    }
    if (count[kind]++ == 0) first[kind] = out.lines.size();
    out.lines.push_back({content.substr(start, i - start), content.substr(i, len)});
    i += len - 1;
    start = i + 1;
  }
  if (start < n) {
    out.lines.push_back({content.substr(start), absl::string_view()});
    out.final_break = false;
  }
  static constexpr absl::string_view kEndings[3] = {"\n", "\r\n", "\r"};
  int best = 0;
  for (int k = 1; k < 3; ++k) {
    if (count[k] > count[best] || (count[k] == count[best] && first[k] < first[best])) best = k;
  }
  out.dominant_ending = kEndings[best];
  return out;
}

absl::string_view KeyFor(absl::string_view line, Tier tier, std::string* storage) {
  switch (tier) {
    case Tier::kExact:
      return line;
    case Tier::kTrailingWhitespace:
      return StripRight(line);
    case Tier::kSurroundingWhitespace:
      return Strip(line);
    case Tier::kUnicodeFolded:
      break;
  }
  bool ascii = true;
  for (char c : line) {
    if (static_cast<uint8_t>(c) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return Strip(line);
  storage->clear();
  for (size_t i = 0; i < line.size();) {
    size_t len = 1;
    char folded = static_cast<uint8_t>(line[i]) >= 0xC2 ? FoldAt(line, i, &len) : 0;
    if (folded) {
      storage->push_back(folded);
      i += len;
    } else {
      storage->push_back(line[i]);
      ++i;
    }
  }
  return Strip(*storage);
}

TierIndex::TierIndex(const std::vector<FileLine>& lines, Tier tier, const absl::flat_hash_set<std::string>* only)
    : complete_(only == nullptr) {
  keys_.reserve(lines.size());
  if (tier == Tier::kUnicodeFolded) owned_.resize(lines.size());
  std::string scratch;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view key = KeyFor(lines[i].text, tier, &scratch);
    if (tier == Tier::kUnicodeFolded && key.data() >= scratch.data() && key.data() <= scratch.data() + scratch.size()) {
      owned_[i] = std::string(key);
      key = owned_[i];
    }
    keys_.push_back(key);
  }
  // Group ids by first appearance, then a counting sort into one array.
  std::vector<int> group_of(keys_.size(), -1);
  group_.reserve(only == nullptr ? keys_.size() : only->size());
  std::vector<int> counts;
  size_t posted = 0;
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (only != nullptr && !only->contains(keys_[i])) continue;
    auto [it, inserted] = group_.try_emplace(keys_[i], static_cast<int>(counts.size()));
    if (inserted) counts.push_back(0);
    group_of[i] = it->second;
    ++counts[it->second];
    ++posted;
  }
  starts_.assign(counts.size() + 1, 0);
  for (size_t g = 0; g < counts.size(); ++g) starts_[g + 1] = starts_[g] + counts[g];
  positions_.resize(posted);
  std::vector<int> fill(starts_.begin(), starts_.end() - 1);
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (group_of[i] >= 0) positions_[fill[group_of[i]]++] = static_cast<int>(i);
  }
}

absl::Span<const int> TierIndex::Postings(absl::string_view key) const {
  auto it = group_.find(key);
  if (it == group_.end()) return {};
  const int g = it->second;
  return absl::Span<const int>(positions_.data() + starts_[g], starts_[g + 1] - starts_[g]);
}

void Matcher::Expect(const std::vector<std::string>& lines) {
  expected_.insert(expected_.end(), lines.begin(), lines.end());
  for (auto& keys : expected_keys_) keys.reset();  // recomputed with the new lines
  for (auto& slot : index_) {
    if (slot && !slot->complete()) slot.reset();  // its posting lists lack the new keys
  }
}

const TierIndex& Matcher::Index(Tier tier, absl::Span<const absl::string_view> keys) {
  const int t = static_cast<int>(tier);
  auto& slot = index_[t];
  if (slot && slot->complete()) return *slot;
  if (!expected_.empty()) {
    auto& wanted = expected_keys_[t];
    if (!wanted) {
      wanted = std::make_unique<absl::flat_hash_set<std::string>>();
      std::string storage;
      for (const std::string& line : expected_) wanted->insert(std::string(KeyFor(line, tier, &storage)));
    }
    const bool covered =
        std::all_of(keys.begin(), keys.end(), [&](absl::string_view k) { return wanted->contains(k); });
    if (covered) {
      if (!slot) slot = std::make_unique<TierIndex>(lines_, tier, wanted.get());
      return *slot;
    }
  }
  slot = std::make_unique<TierIndex>(lines_, tier);
  return *slot;
}

const TierIndex& Matcher::Index(Tier tier) {
  auto& slot = index_[static_cast<int>(tier)];
  if (!slot || !slot->complete()) slot = std::make_unique<TierIndex>(lines_, tier);
  return *slot;
}

bool Matcher::MatchesAt(const std::vector<std::string>& pattern, Tier tier, int s) {
  if (s < 0 || s + static_cast<int>(pattern.size()) > size()) return false;
  const TierIndex& index = Index(tier, {});  // keys only, no posting list
  std::string scratch;
  for (size_t j = 0; j < pattern.size(); ++j) {
    if (index.key(s + j) != KeyFor(pattern[j], tier, &scratch)) return false;
  }
  return true;
}

std::vector<int> Matcher::FindAll(const std::vector<std::string>& pattern, Tier tier, int lo, int hi, size_t limit) {
  std::vector<int> found;
  const int m = static_cast<int>(pattern.size());
  if (m == 0 || limit == 0 || hi - lo < m) return found;
  std::vector<std::string> storage(m);
  std::vector<absl::string_view> keys(m);
  for (int j = 0; j < m; ++j) keys[j] = KeyFor(pattern[j], tier, &storage[j]);
  const TierIndex& index = Index(tier, keys);
  // The pattern line with the fewest occurrences drives the search.
  int pivot = -1;
  absl::Span<const int> pivot_postings;
  for (int j = 0; j < m; ++j) {
    const absl::Span<const int> p = index.Postings(keys[j]);
    if (p.empty()) return found;
    if (pivot < 0 || p.size() < pivot_postings.size()) {
      pivot = j;
      pivot_postings = p;
    }
  }
  auto it = std::lower_bound(pivot_postings.begin(), pivot_postings.end(), lo + pivot);
  for (; it != pivot_postings.end(); ++it) {
    const int s = *it - pivot;
    if (s + m > hi) break;
    bool ok = true;
    for (int j = 0; j < m && ok; ++j) ok = index.key(s + j) == keys[j];
    if (ok) {
      found.push_back(s);
      if (found.size() >= limit) break;
    }
  }
  return found;
}

}  // namespace clada::hunk_apply::internal
