// Internal: a file's text split into lines (with their endings) and, per
// matching tier, each line's comparison key with a posting list per key.
#ifndef CLADA_PROJ_COMP_HUNK_APPLY_SRC_INTERNAL_LINE_INDEX_H_
#define CLADA_PROJ_COMP_HUNK_APPLY_SRC_INTERNAL_LINE_INDEX_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

namespace clada::hunk_apply::internal {

inline constexpr int kTierCount = 4;

struct FileLine {
  absl::string_view text;
  absl::string_view ending;  // "\n", "\r\n", "\r" or "" (the last line, unterminated)
};

struct SplitText {
  bool bom = false;
  std::vector<FileLine> lines;
  absl::string_view dominant_ending = "\n";  // most frequent; ties to the first seen
  bool final_break = true;                   // false: the last line has no ending
};

// Splits at "\r\n", "\n" and a lone "\r"; drops a leading UTF-8 BOM (bom = true).
SplitText SplitLines(absl::string_view content);

// The comparison key of `line` at `tier`. Tiers 0-2 return a view into
// `line`; tier 3 may need `storage` (then the view points into it).
absl::string_view KeyFor(absl::string_view line, Tier tier, std::string* storage);

// Keys of every file line at one tier, and posting lists: of every key, or
// (`only` given) of those keys alone.
class TierIndex {
 public:
  TierIndex(const std::vector<FileLine>& lines, Tier tier, const absl::flat_hash_set<std::string>* only = nullptr);
  absl::string_view key(int i) const { return keys_[i]; }
  // Sorted positions of the lines whose key is `key`; empty when none. A
  // partial index knows only the keys it was given (Matcher checks).
  absl::Span<const int> Postings(absl::string_view key) const;
  bool complete() const { return complete_; }

 private:
  bool complete_ = true;
  std::vector<std::string> owned_;
  std::vector<absl::string_view> keys_;
  // Postings of key group g: positions_[starts_[g] .. starts_[g + 1]).
  absl::flat_hash_map<absl::string_view, int> group_;
  std::vector<int> starts_;
  std::vector<int> positions_;
};

// Finds sequences of lines in a file, building each tier's index on first use.
class Matcher {
 public:
  explicit Matcher(const std::vector<FileLine>& lines) : lines_(lines) {}
  int size() const { return static_cast<int>(lines_.size()); }
  // Declares lines that will be searched for (the hunks' old and anchor
  // lines). An index then keeps posting lists for their keys only: in a
  // large file most lines are named by no hunk, and tabling every line's
  // key was most of the cost of applying a many-hunk patch. A search for a
  // key not declared builds the whole index, so the results never depend
  // on what was declared.
  void Expect(const std::vector<std::string>& lines);
  // The index at `tier`, with posting lists for at least `keys`.
  const TierIndex& Index(Tier tier, absl::Span<const absl::string_view> keys);
  // The whole index at `tier`.
  const TierIndex& Index(Tier tier);

  // Start positions s, ascending, with lo <= s and s + pattern.size() <= hi
  // where every pattern line has the file line's key at `tier`; at most
  // `limit` of them.
  std::vector<int> FindAll(const std::vector<std::string>& pattern, Tier tier, int lo, int hi, size_t limit);
  bool MatchesAt(const std::vector<std::string>& pattern, Tier tier, int s);

 private:
  const std::vector<FileLine>& lines_;
  std::array<std::unique_ptr<TierIndex>, kTierCount> index_;
  std::vector<std::string> expected_;
  // Per tier, the keys of expected_ (computed when that tier is first indexed).
  std::array<std::unique_ptr<absl::flat_hash_set<std::string>>, kTierCount> expected_keys_;
};

}  // namespace clada::hunk_apply::internal

#endif  // CLADA_PROJ_COMP_HUNK_APPLY_SRC_INTERNAL_LINE_INDEX_H_
