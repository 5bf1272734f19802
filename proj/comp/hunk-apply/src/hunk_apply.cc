#include "proj/comp/hunk-apply/src/hunk_apply.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "proj/comp/hunk-apply/src/internal/line_index.h"

namespace clada::hunk_apply {
namespace {

using internal::FileLine;
using internal::Matcher;

constexpr Tier kTiers[] = {Tier::kExact, Tier::kTrailingWhitespace, Tier::kSurroundingWhitespace, Tier::kUnicodeFolded};

// Work budget (line comparisons) for the nearest-candidate search on failure.
constexpr size_t kNearestBudget = 4'000'000;

struct Found {
  int pos = 0;  // old lines' start, or the insertion point of a pure addition
  Tier tier = Tier::kExact;
};

// The result of resolving one hunk in [lo, n).
struct Resolution {
  std::vector<Found> found;  // every complete placement (one is success)
  int deepest_missing = -1;  // the deepest anchor level that was not found, -1 none
  int pattern_lo = -1;       // where the old lines were first searched below the anchors
  Tier ambiguous_tier = Tier::kExact;
  bool ambiguous_anchor_free = false;  // an unanchored hunk matched more than once
};

std::string Quote(absl::string_view s) {
  constexpr size_t kMax = 120;
  if (s.size() <= kMax) return absl::StrCat("`", s, "`");
  return absl::StrCat("`", s.substr(0, kMax), "…`");
}

std::string LineList(const std::vector<int>& lines) {
  std::vector<std::string> parts;
  for (int l : lines) parts.push_back(absl::StrCat(l));
  return absl::StrJoin(parts, ", ");
}

class HunkPlacer {
 public:
  HunkPlacer(const std::vector<FileLine>& lines) : matcher_(lines), n_(matcher_.size()) {}

  Matcher& matcher() { return matcher_; }

  // Anchors narrow [lo, hi) level by level; the old lines are the first match
  // in the last anchor's scope, or the only match in [lo, n) without anchors.
  Resolution Resolve(const Hunk& h, const std::vector<std::string>& old, int lo) {
    Resolution r;
    if (h.anchors.empty()) {
      if (old.empty()) {
        r.found.push_back({n_, Tier::kExact});
        return r;
      }
      for (Tier t : kTiers) {
        std::vector<int> all = FindOld(old, t, lo, n_, h.is_end_of_file, kMaxCandidates + 1);
        if (all.empty()) continue;
        for (int p : all) r.found.push_back({p, t});
        if (all.size() > 1) {
          r.ambiguous_tier = t;
          r.ambiguous_anchor_free = true;
        }
        return r;
      }
      return r;
    }
    ResolveLevel(h, old, 0, lo, n_, &r);
    return r;
  }

 private:
  std::vector<int> FindOld(const std::vector<std::string>& old, Tier t, int lo, int hi, bool eof, size_t limit) {
    if (!eof) return matcher_.FindAll(old, t, lo, hi, limit);
    const int s = n_ - static_cast<int>(old.size());
    if (hi != n_ || s < lo || !matcher_.MatchesAt(old, t, s)) return {};
    return {s};
  }

  void ResolveLevel(const Hunk& h, const std::vector<std::string>& old, size_t level, int lo, int hi, Resolution* r) {
    if (r->found.size() > kMaxCandidates) return;
    if (level == h.anchors.size()) {
      if (r->pattern_lo < 0) r->pattern_lo = lo;
      if (old.empty()) {
        r->found.push_back({lo, Tier::kExact});
        return;
      }
      for (Tier t : kTiers) {
        std::vector<int> first = FindOld(old, t, lo, hi, h.is_end_of_file, 1);
        if (!first.empty()) {
          r->found.push_back({first[0], t});
          return;
        }
      }
      return;
    }
    const std::vector<std::string> anchor = {h.anchors[level]};
    std::vector<int> occurrences;
    for (Tier t : kTiers) {
      occurrences = matcher_.FindAll(anchor, t, lo, hi, SIZE_MAX);
      if (!occurrences.empty()) break;
    }
    if (occurrences.empty()) {
      r->deepest_missing = std::max(r->deepest_missing, static_cast<int>(level));
      return;
    }
    for (size_t i = 0; i < occurrences.size(); ++i) {
      const int scope_end = i + 1 < occurrences.size() ? occurrences[i + 1] : hi;
      ResolveLevel(h, old, level + 1, occurrences[i] + 1, scope_end, r);
    }
  }

  Matcher matcher_;
  int n_;
};

// The place in [lo, n) where the most lines of `old` match (loosest tier)
// and the first line that does not match there.
void DiagnoseMiss(Matcher& m, const std::vector<std::string>& old, int lo, ApplyError* e) {
  const int n = m.size();
  const int len = static_cast<int>(old.size());
  const auto& index = m.Index(Tier::kUnicodeFolded);
  std::vector<std::string> storage(old.size());
  std::vector<absl::string_view> keys(old.size());
  for (int j = 0; j < len; ++j) keys[j] = internal::KeyFor(old[j], Tier::kUnicodeFolded, &storage[j]);
  int best = -1, best_score = 0;
  size_t work = 0;
  for (int j = 0; j < len && work < kNearestBudget; ++j) {
    const absl::Span<const int> postings = index.Postings(keys[j]);
    for (auto it = std::lower_bound(postings.begin(), postings.end(), lo);
         it != postings.end() && work < kNearestBudget; ++it) {
      const int s = *it - j;
      if (s < lo) continue;
      int score = 0;
      for (int k = 0; k < len && s + k < n; ++k, ++work) score += index.key(s + k) == keys[k];
      if (score > best_score || (score == best_score && best >= 0 && s < best)) {
        best = s;
        best_score = score;
      }
    }
  }
  if (best < 0) {
    e->nearest_line = 0;
    e->mismatch_index = len > 0 ? 0 : -1;
    e->mismatch_text = len > 0 ? old[0] : "";
    return;
  }
  e->nearest_line = best + 1;
  for (int k = 0; k < len; ++k) {
    if (best + k >= n || index.key(best + k) != keys[k]) {
      e->mismatch_index = k;
      e->mismatch_text = old[k];
      return;
    }
  }
}

std::string HunkName(const Hunk& h, int index) {
  if (h.source_line > 0) return absl::StrCat("hunk ", index, " (patch line ", h.source_line, ")");
  return absl::StrCat("hunk ", index);
}

// Drops the last old line when it is an empty line (Codex: it stands for the
// file's final line break). Returns false when there is none to drop.
bool DropTrailingEmptyOldLine(std::vector<PatchLine>* lines) {
  for (int i = static_cast<int>(lines->size()) - 1; i >= 0; --i) {
    if ((*lines)[i].kind == PatchLine::kAdd) continue;
    if (!(*lines)[i].text.empty()) return false;
    lines->erase(lines->begin() + i);
    return true;
  }
  return false;
}

struct Edit {
  int pos;
  int old_count;
  int order;
  const std::vector<PatchLine>* lines;
};

bool HasContext(const std::vector<PatchLine>& lines) {
  return std::any_of(lines.begin(), lines.end(), [](const PatchLine& l) { return l.kind == PatchLine::kContext; });
}

bool RecognisableInsertion(const std::vector<PatchLine>& lines) {
  bool context = false, text_added = false;
  for (const PatchLine& l : lines) {
    if (l.kind == PatchLine::kDelete) return false;
    if (l.kind == PatchLine::kContext) context = true;
    if (l.kind == PatchLine::kAdd && !absl::StripAsciiWhitespace(l.text).empty()) text_added = true;
  }
  return context && text_added;
}

std::vector<std::string> NewSide(const std::vector<PatchLine>& lines) {
  std::vector<std::string> out;
  for (const PatchLine& l : lines) {
    if (l.kind != PatchLine::kDelete) out.push_back(l.text);
  }
  return out;
}

// Where a pure insertion found with its context at `pos` would have its new
// lines: before the context by the lines added above the first context line.
int InsertionStart(const std::vector<PatchLine>& lines, int pos) {
  int lead = 0;
  for (const PatchLine& l : lines) {
    if (l.kind == PatchLine::kContext) break;
    ++lead;
  }
  return pos - lead;
}

std::string HunkList(const std::vector<const Hunk*>& hunks, const std::vector<int>& numbers) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < numbers.size(); ++k) parts.push_back(HunkName(*hunks[k], numbers[k]));
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::vector<std::string> Hunk::OldLines() const {
  std::vector<std::string> out;
  for (const PatchLine& l : lines) {
    if (l.kind != PatchLine::kAdd) out.push_back(l.text);
  }
  return out;
}

std::vector<std::string> Hunk::NewLines() const {
  std::vector<std::string> out;
  for (const PatchLine& l : lines) {
    if (l.kind != PatchLine::kDelete) out.push_back(l.text);
  }
  return out;
}

bool IsRecognisableInsertion(const Hunk& h) { return RecognisableInsertion(h.lines); }

absl::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kExact:
      return "exact";
    case Tier::kTrailingWhitespace:
      return "ignoring trailing whitespace";
    case Tier::kSurroundingWhitespace:
      return "ignoring leading and trailing whitespace";
    case Tier::kUnicodeFolded:
      return "with Unicode dashes, quotes and spaces read as ASCII";
  }
  return "";
}

absl::string_view ErrorCodeName(ApplyError::Code code) {
  switch (code) {
    case ApplyError::Code::kOk:
      return "ok";
    case ApplyError::Code::kAnchorNotFound:
      return "anchor_not_found";
    case ApplyError::Code::kNotFound:
      return "hunk_not_found";
    case ApplyError::Code::kAmbiguous:
      return "hunk_ambiguous";
    case ApplyError::Code::kPartlyApplied:
      return "hunks_partly_applied";
  }
  return "";
}

absl::StatusOr<Applied> ApplyHunks(absl::string_view content, const std::vector<Hunk>& hunks, ApplyError* error) {
  internal::SplitText split = internal::SplitLines(content);
  const std::vector<FileLine>& file = split.lines;
  const int n = static_cast<int>(file.size());
  HunkPlacer placer(file);
  {
    // Every line a hunk will be searched by: the index tables those alone.
    std::vector<std::string> expected;
    for (const Hunk& h : hunks) {
      for (const PatchLine& l : h.lines) {
        if (l.kind != PatchLine::kAdd) expected.push_back(l.text);
      }
      expected.insert(expected.end(), h.anchors.begin(), h.anchors.end());
    }
    placer.matcher().Expect(expected);
  }
  Applied applied;
  // Hunk lines after any trailing-empty-line drop; stable addresses.
  std::vector<std::vector<PatchLine>> used(hunks.size());
  std::vector<Edit> edits;
  int lo = 0;
  // Hunks whose result is already in the file, and the others (numbers).
  std::vector<int> already, changed;
  std::vector<const Hunk*> already_hunks, changed_hunks;

  for (size_t hi = 0; hi < hunks.size(); ++hi) {
    const Hunk& h = hunks[hi];
    const int number = static_cast<int>(hi) + 1;
    used[hi] = h.lines;
    std::vector<std::string> old = h.OldLines();
    Resolution r = placer.Resolve(h, old, lo);
    if (r.found.empty() && !old.empty() && old.back().empty()) {
      std::vector<PatchLine> trimmed = h.lines;
      if (DropTrailingEmptyOldLine(&trimmed)) {
        Hunk retry = h;
        retry.lines = trimmed;
        std::vector<std::string> retry_old = retry.OldLines();
        Resolution r2 = placer.Resolve(retry, retry_old, lo);
        if (!r2.found.empty()) {
          r = std::move(r2);
          used[hi] = std::move(trimmed);
          old = std::move(retry_old);
          applied.warnings.push_back(absl::StrCat(HunkName(h, number),
                                                  ": its last old line is an empty line the file does not have "
                                                  "there; it was matched without it"));
        }
      }
    }

    ApplyError e;
    e.hunk = number;
    e.source_line = h.source_line;
    if (r.found.size() > 1) {
      e.code = ApplyError::Code::kAmbiguous;
      for (const Found& f : r.found) {
        if (e.candidates.size() < kMaxCandidates) e.candidates.push_back(f.pos + 1);
      }
      const bool more = r.found.size() > kMaxCandidates;
      const std::string where = absl::StrCat("lines ", LineList(e.candidates), more ? " and more" : "");
      if (r.ambiguous_anchor_free) {
        e.message = absl::StrCat(HunkName(h, number), ": its old lines match at ", more ? "more than " : "",
                                 e.candidates.size(), " places (", where, ", ", TierName(r.ambiguous_tier),
                                 "); only a unique match is edited. Add context lines that occur only around the "
                                 "intended place, or an anchor line (`@@ <line>`: a line above the change, such as "
                                 "the enclosing function's signature) that occurs once.");
      } else if (old.empty()) {
        e.message = absl::StrCat(HunkName(h, number), ": its anchor lines lead to ", e.candidates.size(),
                                 more ? " or more" : "", " places (insertion before ", where,
                                 "); only a unique place is edited. Use an anchor line that occurs once, or add "
                                 "context lines around the insertion.");
      } else {
        e.message = absl::StrCat(HunkName(h, number), ": its anchor lines lead to ", e.candidates.size(),
                                 more ? " or more" : "", " places where the old lines follow (", where,
                                 "); only a unique match is edited. Use an anchor line that occurs once, or stack "
                                 "a second `@@` line that narrows it.");
      }
      if (error) *error = e;
      return absl::FailedPreconditionError(e.message);
    }
    // Its old lines are not there: its new lines, once, mean it was applied.
    int new_side_at = -1;
    if (r.found.empty() && !(r.pattern_lo < 0 && !h.anchors.empty())) {
      const int from = h.anchors.empty() ? lo : std::max(lo, r.pattern_lo);
      std::vector<std::string> now = NewSide(used[hi]);
      if (!now.empty() && now != old) {
        for (Tier t : kTiers) {
          std::vector<int> there = placer.matcher().FindAll(now, t, from, n, 2);
          if (there.size() == 1) new_side_at = there[0];
          if (!there.empty()) break;
        }
      }
      if (new_side_at >= 0 && HasContext(used[hi])) {
        applied.placements.push_back({number, new_side_at + 1, 0, Tier::kExact, true});
        already.push_back(number);
        already_hunks.push_back(&h);
        lo = new_side_at + static_cast<int>(now.size());
        continue;
      }
    }
    if (r.found.empty()) {
      const std::string after = lo > 0 ? absl::StrCat(" after line ", lo) : "";
      if (r.pattern_lo < 0 && !h.anchors.empty()) {
        const int k = std::max(r.deepest_missing, 0);
        e.code = ApplyError::Code::kAnchorNotFound;
        e.mismatch_index = k;
        e.mismatch_text = h.anchors[k];
        e.nearest_line = 0;
        e.message = absl::StrCat(HunkName(h, number), ": its anchor line ", Quote(h.anchors[k]), " is not in the file",
                                 k > 0 ? " below the anchors above it" : after,
                                 ". Anchor lines (`@@ <line>`) must be copied from the file.");
      } else {
        e.code = ApplyError::Code::kNotFound;
        const int from = h.anchors.empty() ? lo : std::max(lo, r.pattern_lo);
        DiagnoseMiss(placer.matcher(), old, from, &e);
        std::string detail;
        if (h.is_end_of_file) {
          detail = " at the end of the file (`*** End of File`)";
        } else if (!h.anchors.empty()) {
          detail = absl::StrCat(" below its anchor line ", Quote(h.anchors.back()));
        } else {
          detail = after;
        }
        e.message = absl::StrCat(HunkName(h, number), ": its ", old.size(),
                                 old.size() == 1 ? " old line is" : " old lines are", " not in the file", detail, ".");
        if (e.nearest_line > 0 && e.mismatch_index < 0) {
          absl::StrAppend(&e.message, " They occur at line ", e.nearest_line,
                          h.is_end_of_file ? ", which is not the end of the file."
                                           : ", outside the part of the file the hunk may edit "
                                             "(hunks apply in order, each below the previous one).");
        } else if (e.nearest_line > 0) {
          const int at = e.nearest_line - 1 + e.mismatch_index;
          e.file_text = at < n ? std::string(file[at].text) : "";
          absl::StrAppend(&e.message, " Nearest: line ", e.nearest_line, ", where hunk line ", e.mismatch_index + 1,
                          " ", Quote(e.mismatch_text),
                          at < n ? absl::StrCat(" differs from the file's line ", at + 1, " ", Quote(e.file_text))
                                 : std::string(" runs past the end of the file"),
                          ".");
        } else if (!old.empty()) {
          absl::StrAppend(&e.message, " None of its lines occurs there, not even ", Quote(old[0]), ".");
        }
        // A hunk without context sent again: its new lines are there, but
        // with no line kept around them that is no proof.
        if (new_side_at >= 0) {
          e.already_applied_line = new_side_at + 1;
          absl::StrAppend(&e.message, " Its new lines are already at line ", new_side_at + 1,
                          ": the change looks applied already; read the file before "
                          "sending it again.");
        }
        if (e.already_applied_line == 0) {
          absl::StrAppend(&e.message, " Copy the context and removed lines exactly from the current file.");
        }
      }
      if (error) *error = e;
      return absl::NotFoundError(e.message);
    }

    const Found f = r.found[0];
    const int old_count = static_cast<int>(old.size());
    if (RecognisableInsertion(used[hi])) {
      // Its context is there, and its added lines already beside it.
      const int start = InsertionStart(used[hi], f.pos);
      const std::vector<std::string> now = NewSide(used[hi]);
      bool there = false;
      for (Tier t : kTiers) {
        if (start >= lo && placer.matcher().MatchesAt(now, t, start)) {
          there = true;
          break;
        }
      }
      if (there) {
        applied.placements.push_back({number, start + 1, 0, Tier::kExact, true});
        already.push_back(number);
        already_hunks.push_back(&h);
        lo = start + static_cast<int>(now.size());
        continue;
      }
    }
    changed.push_back(number);
    changed_hunks.push_back(&h);
    edits.push_back({f.pos, old_count, static_cast<int>(hi), &used[hi]});
    applied.placements.push_back({number, f.pos + 1, old_count, f.tier});
    if (f.tier != Tier::kExact) {
      applied.warnings.push_back(absl::StrCat(HunkName(h, number), " matched at line ", f.pos + 1, " ",
                                              TierName(f.tier),
                                              "; the file's own text was kept for its context lines"));
    }
    if (old.empty()) {
      if (!h.anchors.empty()) lo = f.pos;
    } else {
      lo = f.pos + old_count;
    }
  }

  if (!already.empty()) {
    if (changed.empty()) {
      applied.content = std::string(content);
      applied.already_applied = true;
      return applied;
    }
    ApplyError e;
    e.code = ApplyError::Code::kPartlyApplied;
    e.hunk = changed[0];
    e.source_line = changed_hunks[0]->source_line;
    e.applied_hunks = already;
    e.message = absl::StrCat(
        "the file already holds the result of ", HunkList(already_hunks, already), " (", already.size() == 1 ? "its" : "their",
        " new lines are there and ", already.size() == 1 ? "its" : "their", " old lines are not), but not of ",
        HunkList(changed_hunks, changed),
        "; a patch applies whole or not at all, so nothing was changed. Read the file, then send only the hunks it "
        "still needs.");
    if (error) *error = e;
    return absl::FailedPreconditionError(e.message);
  }

  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.pos < b.pos; });
  // Output lines as (text, ending) views into the file and the hunks.
  std::vector<FileLine> out;
  out.reserve(file.size() + 16);
  int i = 0;
  for (const Edit& e : edits) {
    while (i < e.pos) out.push_back(file[i++]);
    for (const PatchLine& l : *e.lines) {
      switch (l.kind) {
        case PatchLine::kContext:
          out.push_back(file[i++]);
          break;
        case PatchLine::kDelete:
          ++i;
          break;
        case PatchLine::kAdd:
          out.push_back({l.text, split.dominant_ending});
          break;
      }
    }
  }
  while (i < n) out.push_back(file[i++]);

  size_t size = split.bom ? 3 : 0;
  for (const FileLine& l : out) size += l.text.size() + split.dominant_ending.size();
  applied.content.reserve(size);
  if (split.bom) applied.content.append("\xEF\xBB\xBF");
  for (size_t k = 0; k < out.size(); ++k) {
    applied.content.append(out[k].text.data(), out[k].text.size());
    const bool last = k + 1 == out.size();
    absl::string_view ending = out[k].ending.empty() ? split.dominant_ending : out[k].ending;
    if (last && !split.final_break) ending = absl::string_view();
    applied.content.append(ending.data(), ending.size());
  }
  return applied;
}

}  // namespace clada::hunk_apply
