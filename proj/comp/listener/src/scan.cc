// The pure text functions: block scanning, keys, new-block detection, the
// run text and the summary section.
#include "proj/comp/listener/src/internal/scan.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "proj/comp/aider-reader/src/aider_reader.h"
#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"
#include "proj/comp/cml-parser/src/cml_parser.h"
#include "proj/comp/csl-parser/src/csl_parser.h"
#include "proj/comp/core/src/line_starts.h"
#include "proj/comp/core/src/newlines.h"
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/readers/src/adapters.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace clada::listener {
namespace internal {
namespace {

// The run text's last line when FILE is not quoted as a whole but every
// block passed is (see BuildRunText).
constexpr absl::string_view kNotQuotedLine =
    "(clada listen: the listened file is not quoted as a whole)";


absl::string_view Trim(const Line& line) { return absl::StripAsciiWhitespace(line.content); }

// The markers a body line of a summary must not look like, once trimmed.
constexpr absl::string_view kSectionMarkers[] = {kResultsMarker, kOutputsMarker, kEndMarker};

// True when `piece`, trimmed, is a section marker or starts like a block's
// header or end marker (`#!`): a reader that trims (the grammar parser, the
// scanner's block markers, clada before section markers had to start the
// line) could take it for one.
bool LooksLikeMarker(absl::string_view piece) {
  absl::string_view t = absl::StripAsciiWhitespace(piece);
  if (absl::StartsWith(t, "#!")) return true;
  for (absl::string_view marker : kSectionMarkers) {
    if (t == marker) return true;
  }
  return false;
}

}  // namespace

bool IsMarkerLine(const Line& line, absl::string_view marker) { return line.content == marker; }

absl::string_view SummaryBody(absl::string_view summary) {
  std::vector<Line> lines = SplitLines(summary);
  size_t begin = 0;
  size_t end = lines.size();
  while (begin < end && Trim(lines[begin]).empty()) ++begin;
  if (begin < end && Trim(lines[begin]) == kResultsMarker) ++begin;
  while (end > begin && Trim(lines[end - 1]).empty()) --end;
  if (end > begin && Trim(lines[end - 1]) == kEndMarker) --end;
  if (begin == end) return absl::string_view();
  const char* first = lines[begin].full.data();
  const char* last = lines[end - 1].full.data() + lines[end - 1].full.size();
  return absl::string_view(first, static_cast<size_t>(last - first));
}

std::string EscapeSummaryLine(absl::string_view line) {
  std::string out;
  size_t start = 0;
  while (true) {
    size_t cr = line.find('\r', start);
    absl::string_view piece = line.substr(start, cr == absl::string_view::npos ? absl::string_view::npos : cr - start);
    if (LooksLikeMarker(piece)) {
      size_t blanks = piece.size() - absl::StripLeadingAsciiWhitespace(piece).size();
      absl::StrAppend(&out, piece.substr(0, blanks), "\\", piece.substr(blanks));
    } else {
      absl::StrAppend(&out, piece);
    }
    if (cr == absl::string_view::npos) return out;
    out += '\r';
    start = cr + 1;
  }
}


namespace {

// Appends `id` to `ids`; where it starts and its length. (The text is at
// most 4 GiB, so an id is under 2 GiB.)
using Extent = readers::ShamExtent;

std::pair<uint32_t, uint32_t> AddId(std::string& ids, absl::string_view id) {
  const uint32_t at = static_cast<uint32_t>(ids.size());
  ids.append(id.data(), id.size());
  return {at, static_cast<uint32_t>(id.size())};
}

// The number of lines of `text` (a final line without '\n' counts).
size_t CountLines(absl::string_view text) {
  return core::CountNewlines(text) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

// Line intervals [first, last] (1-based), asked whether they hold a line:
// a binary search a question, where a loop over every interval made a file
// of many blocks of two dialects quadratic to scan.
class Intervals {
 public:
  void Add(int first, int last) { items_.emplace_back(first, last); }
  // After the last Add, before the first question.
  void Build() {
    std::sort(items_.begin(), items_.end());
    firsts_.reserve(items_.size());
    reach_.reserve(items_.size());
    int reach = INT_MIN;
    for (const auto& [first, last] : items_) {
      reach = std::max(reach, last);
      firsts_.push_back(first);
      reach_.push_back(reach);
    }
    std::vector<std::pair<int, int>>().swap(items_);
  }
  bool empty() const { return firsts_.empty(); }
  // Some interval has first <= line <= last.
  bool Covers(int line) const { return ReachOfFirstsBelow(line + 1) >= line; }
  // Some interval has first < line <= last: `line` is inside a block
  // that starts before it.
  bool Inside(int line) const { return ReachOfFirstsBelow(line) >= line; }

 private:
  // The largest `last` of the intervals whose first is below `bound`.
  int ReachOfFirstsBelow(int bound) const {
    const size_t n = static_cast<size_t>(std::lower_bound(firsts_.begin(), firsts_.end(), bound) - firsts_.begin());
    return n == 0 ? INT_MIN : reach_[n - 1];
  }

  std::vector<std::pair<int, int>> items_;
  std::vector<int> firsts_;  // sorted
  std::vector<int> reach_;   // reach_[i]: the largest last of the first i + 1 intervals
};

}  // namespace

ScanResult ScanLines(absl::string_view text, const core::LineStarts& lines, std::string& ids) {
  ScanResult result;
  result.in_results.assign(lines.size(), false);

  std::vector<uint32_t> end_lines;  // indices of `=== END ===` lines, ascending
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines.Content(i) == kEndMarker) end_lines.push_back(static_cast<uint32_t>(i));
  }

  // Results sections: a results marker outside every block, through the
  // next END marker.
  const size_t ids_before = ids.size();
  std::vector<Extent> extents = readers::ShamExtents(text, ids);
  bool any_section = false;
  size_t k = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    while (k < extents.size() && extents[k].last < i) ++k;
    if (k < extents.size() && extents[k].first <= i) {
      i = extents[k].last;
      continue;
    }
    if (lines.Content(i) != kResultsMarker) continue;
    auto end = std::upper_bound(end_lines.begin(), end_lines.end(), static_cast<uint32_t>(i));
    if (end == end_lines.end()) continue;
    for (size_t j = i; j <= *end; ++j) result.in_results[j] = true;
    any_section = true;
    i = *end;
  }
  // What a results section holds (clada's own report, a file it read) is
  // not the answer: the blocks are those of the text without the sections.
  if (any_section) {
    std::vector<Extent>().swap(extents);
    ids.resize(ids_before);
    std::string without;
    without.reserve(text.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!result.in_results[i]) {
        absl::string_view full = lines.Raw(i);
        without.append(full.data(), full.size());
      } else if (absl::EndsWith(lines.Raw(i), "\n")) {
        without.push_back('\n');
      }
    }
    extents = readers::ShamExtents(without, ids);
  }

  result.blocks.reserve(extents.size());
  for (const Extent& e : extents) {
    if (e.first >= lines.size() || result.in_results[e.first]) continue;
    const size_t last = std::min<size_t>(e.last, lines.size() - 1);
    BlockSpan b;
    b.begin = static_cast<uint32_t>(lines.Begin(e.first));
    b.end = static_cast<uint32_t>(lines.End(last));
    b.start_line = static_cast<int>(e.first) + 1;
    b.end_line = static_cast<int>(last) + 1;
    b.id = e.id;
    b.id_len = e.id_len;
    b.closed = e.closed;
    result.blocks.push_back(b);
  }
  return result;
}

std::vector<const BlockSpan*> NewBlocksOf(const std::vector<BlockSpan>& all, const ListenState& state) {
  std::vector<const BlockSpan*> fresh;
  absl::flat_hash_set<uint64_t> seen;
  for (const BlockSpan& b : all) {
    if (state.HasRun(b.key) || !seen.insert(b.key).second) continue;
    fresh.push_back(&b);
  }
  return fresh;
}

std::vector<ScannedBlock> FilterNewBlocks(const std::vector<ScannedBlock>& all, const ListenState& state) {
  std::vector<ScannedBlock> fresh;
  absl::flat_hash_set<absl::string_view> seen;
  for (const ScannedBlock& b : all) {
    if (state.HasRun(b.key) || !seen.insert(b.key).second) continue;
    fresh.push_back(b);
  }
  return fresh;
}

namespace {

// The readers' view of the text: its results sections blanked, line for
// line (a reader sees what a run reads, at the same line numbers). The
// text itself when it has none; else a copy kept in `storage`.
absl::string_view ReadersView(absl::string_view text, const core::LineStarts& lines, const ScanResult& scan,
                              std::string& storage) {
  if (std::find(scan.in_results.begin(), scan.in_results.end(), true) == scan.in_results.end()) return text;
  storage.reserve(text.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    if (scan.in_results[i]) {
      if (absl::EndsWith(lines.Raw(i), "\n")) storage.push_back('\n');
    } else {
      absl::string_view full = lines.Raw(i);
      storage.append(full.data(), full.size());
    }
  }
  return storage;
}

// The block of lines first..last (1-based, clamped to the text) named by
// the id at `id` (in the scan's ids), added to `out`.
void AddBlock(std::pair<uint32_t, uint32_t> id, const core::LineStarts& lines, int first, int last, bool closed,
              std::vector<BlockSpan>& out) {
  if (first < 1 || static_cast<size_t>(first) > lines.size()) return;
  last = std::min<int>(std::max(first, last), static_cast<int>(lines.size()));
  BlockSpan b;
  b.begin = static_cast<uint32_t>(lines.Begin(static_cast<size_t>(first - 1)));
  b.end = static_cast<uint32_t>(lines.End(static_cast<size_t>(last - 1)));
  b.start_line = first;
  b.end_line = last;
  b.id = id.first;
  b.id_len = id.second;
  b.closed = closed;
  out.push_back(b);
}

bool ByStartLine(const BlockSpan& a, const BlockSpan& b) { return a.start_line < b.start_line; }

void SortByStartLine(std::vector<BlockSpan>& blocks) {
  if (!std::is_sorted(blocks.begin(), blocks.end(), ByStartLine)) {
    std::stable_sort(blocks.begin(), blocks.end(), ByStartLine);
  }
}

Intervals IntervalsOf(const std::vector<BlockSpan>& blocks) {
  Intervals iv;
  for (const BlockSpan& b : blocks) iv.Add(b.start_line, b.end_line);
  iv.Build();
  return iv;
}

// Aider's SEARCH/REPLACE blocks, as a run reads them (aider_reader): not
// in results sections, not starting on a SHAM block's lines nor inside a
// CML block (`other`). A block's lines run from the line naming its path
// (so the run text keeps it) to `>>>>>>> REPLACE`; a block that reuses the
// path of the block before starts at its `<<<<<<< SEARCH`. A block the
// reader refuses is a block too, so that its error is reported; one whose
// end is missing is not closed (it may still be arriving).
std::vector<BlockSpan> SearchReplaceBlocks(absl::string_view read, const core::LineStarts& lines, const Intervals& other,
                                           std::pair<uint32_t, uint32_t> id) {
  std::vector<BlockSpan> out;
  if (read.find("<<<<<<<") == absl::string_view::npos) return out;
  auto add = [&](int first, int last, bool closed) { AddBlock(id, lines, first, last, closed, out); };
  // Each edit is dropped once its span is taken.
  const aider_reader::Blocks blocks = aider_reader::ReadBlocks(read, [&](aider_reader::Edit&& e) {
    if (!other.Covers(e.span.first_line)) add(e.path_line > 0 ? e.path_line : e.span.first_line, e.span.last_line, true);
  });
  for (const aider_reader::ParseError& e : blocks.errors) {
    if (other.Covers(e.line)) continue;
    add(e.line, e.span.last_line, e.code != "missing_divider" && e.code != "missing_replace_marker");
  }
  return out;
}

// The seeds' replacer blocks, as a run reads them (replacer_reader): not in
// results sections, not starting on a SHAM block's lines nor inside a CML
// block. A block runs from its first marker (EXPLANATION or FILE) to its
// `<<<END>>>`; a block the reader refuses is a block too, so that its error
// is reported; one never closed is not closed (it may still be arriving).
std::vector<BlockSpan> ReplacerBlocks(absl::string_view read, const core::LineStarts& lines, const Intervals& other,
                                      std::pair<uint32_t, uint32_t> id) {
  std::vector<BlockSpan> out;
  if (read.find("<<<") == absl::string_view::npos) return out;
  auto add = [&](int first, int last, bool closed) { AddBlock(id, lines, first, last, closed, out); };
  // Each edit is dropped once its span is taken.
  const replacer_reader::Blocks blocks = replacer_reader::ReadBlocks(read, [&](replacer_reader::Edit&& e) {
    if (!other.Covers(e.span.first_line)) add(e.span.first_line, e.span.last_line, true);
  });
  for (const replacer_reader::ParseError& e : blocks.errors) {
    if (!other.Covers(e.line)) add(e.line, e.span.last_line, e.code != "unclosed_block");
  }
  SortByStartLine(out);
  return out;
}

// Codex apply_patch envelopes, as a run reads them (apply_patch_reader):
// not in results sections, not starting on the lines of another dialect's
// block (`taken`: SHAM, CML, CSL, Aider, replacer). A block is the whole
// envelope, from its first line (the heredoc opener when there is one) to
// `*** End Patch` (or the heredoc's end): a run reads the envelope, not its
// operations one by one. A stray operation header (no `*** Begin Patch`)
// is a block too, so that its error is reported. One without its `*** End
// Patch` is not closed (the rest may still be arriving).
std::vector<BlockSpan> PatchBlocks(absl::string_view read, const core::LineStarts& lines, const Intervals& taken,
                                   std::pair<uint32_t, uint32_t> id) {
  std::vector<BlockSpan> out;
  if (read.find("***") == absl::string_view::npos) return out;
  for (const apply_patch_reader::Patch& p : apply_patch_reader::ReadEnvelopes(read)) {
    if (taken.Covers(p.span.first_line)) continue;
    AddBlock(id, lines, p.span.first_line, p.span.last_line, p.ended, out);
  }
  return out;
}

// Whether a file's diff has every line its last hunk's header counts (a
// hunk without counts, `@@ ... @@`, cannot say: it is taken as whole).
bool DiffComplete(const udiff_reader::FilePatch& f) {
  if (f.hunks.empty()) return true;
  const udiff_reader::DiffHunk& h = f.hunks.back();
  if (h.old_count < 0 || h.new_count < 0) return true;
  int old_lines = 0, new_lines = 0;
  for (const udiff_reader::DiffLine& l : h.lines) {
    if (l.kind != '+') ++old_lines;
    if (l.kind != '-') ++new_lines;
  }
  return old_lines >= h.old_count && new_lines >= h.new_count;
}

// Unified diffs, as a run reads them (udiff_reader): one block per file,
// from its header (`diff --git`, or `--- `) to its last hunk line; not in
// results sections, not starting on the lines of another dialect's block
// (`taken`: SHAM, CML, CSL, Aider, apply_patch, replacer). A file section
// the reader refuses (binary, no hunk, no path) is a block too, so that its
// error is reported. A diff has no end marker: a file whose last hunk has
// fewer lines than its header counts, or that has no hunk yet, is not
// closed (the rest may still be arriving).
std::vector<BlockSpan> DiffBlocks(absl::string_view read, const core::LineStarts& lines, const Intervals& taken,
                                  std::pair<uint32_t, uint32_t> id) {
  std::vector<BlockSpan> out;
  // No header and no hunk (`@@`: a ```diff fence of hunks without a header
  // is a block, its missing_file_header error is reported): no diff.
  if (read.find("--- ") == absl::string_view::npos && read.find("diff --git ") == absl::string_view::npos &&
      read.find("@@") == absl::string_view::npos) {
    return out;
  }
  // Each file's patch is dropped once its span is taken: a diff of 300,000
  // files is never held whole.
  const udiff_reader::Diffs diffs = udiff_reader::ReadDiffs(read, [&](udiff_reader::FilePatch&& f) {
    if (!taken.Covers(f.span.first_line)) AddBlock(id, lines, f.span.first_line, f.span.last_line, DiffComplete(f), out);
  });
  for (const udiff_reader::ParseError& e : diffs.errors) {
    // A file with no hunk yet, or one the answer ends inside (truncated), may
    // still be arriving.
    if (!taken.Covers(e.line)) {
      AddBlock(id, lines, e.span.first_line, e.span.last_line, e.code != "missing_hunks" && e.code != "truncated", out);
    }
  }
  SortByStartLine(out);
  return out;
}

// A text the listener reads is at most 50 MB; a block's offsets are 32-bit.
bool TooLargeToScan(absl::string_view text) { return text.size() > UINT32_MAX; }

// `text` without a byte order mark at its start (some editors save one): it
// would hide a header on line 1.
absl::string_view WithoutBom(absl::string_view text) {
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
  return text;
}

// Every block of `text` (WithoutBom), keys not set; offsets into `text`.
Scan FindBlocks(absl::string_view text, const csl_parser::Delimiters& csl) {
  Scan result;
  if (TooLargeToScan(text)) return result;
  const core::LineStarts lines(text);
  ScanResult scan = ScanLines(text, lines, result.ids);
  // CML blocks (cml_parser::FindCml), outside SHAM blocks and results
  // sections, as a run reads them; a SHAM block that starts inside one (in
  // its CDATA) is its content.
  std::vector<cml_parser::LineRange> skip;
  for (const BlockSpan& b : scan.blocks) skip.push_back({b.start_line, b.end_line});
  for (size_t i = 0; i < scan.in_results.size(); ++i) {
    if (!scan.in_results[i]) continue;
    const int line = static_cast<int>(i) + 1;
    if (!skip.empty() && skip.back().last == line - 1 && skip.back().first > 0) {
      skip.back().last = line;
    } else {
      skip.push_back({line, line});
    }
  }
  std::sort(skip.begin(), skip.end(),
            [](const cml_parser::LineRange& a, const cml_parser::LineRange& b) { return a.first < b.first; });
  std::vector<cml_parser::SourceSpan> spans = cml_parser::FindCml(text, skip);
  // CSL, as a run reads it: not on SHAM blocks' lines, in results sections
  // or inside CML blocks; a CML block inside a CSL block is its content.
  std::vector<csl_parser::SourceSpan> csl_spans;
  {
    std::vector<csl_parser::LineRange> csl_skip;
    for (const cml_parser::LineRange& r : skip) csl_skip.push_back({r.first, r.last});
    const std::vector<csl_parser::SourceSpan> found = csl_parser::FindCsl(text, csl, csl_skip);
    if (!found.empty()) {
      // As a run reads them: a CML block hides the CSL markers in it unless
      // it starts inside a CSL operation (then it is that operation's text).
      Intervals operations;
      for (const csl_parser::SourceSpan& o : found) operations.Add(o.first_line, o.last_line);
      operations.Build();
      for (const cml_parser::SourceSpan& sp : spans) {
        if (!operations.Inside(sp.first_line)) csl_skip.push_back({sp.first_line, sp.last_line});
      }
      csl_spans = csl_parser::FindCsl(text, csl, csl_skip);
    }
  }
  Intervals csl_iv;
  for (const csl_parser::SourceSpan& sp : csl_spans) csl_iv.Add(sp.first_line, sp.last_line);
  csl_iv.Build();
  if (!csl_iv.empty()) {
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [&](const cml_parser::SourceSpan& sp) { return csl_iv.Inside(sp.first_line); }),
                spans.end());
  }
  // The other readers' blocks. The intervals that place them are freed
  // before the blocks are gathered (1,982,807 CML blocks: 16 MB each).
  std::vector<BlockSpan> sr, rep, patches, diffs;
  Intervals sr_iv, rep_iv;
  {
    // The lines of SHAM blocks, results sections, CML and CSL blocks: the
    // other readers' blocks do not start on them.
    Intervals other;
    for (const cml_parser::LineRange& r : skip) other.Add(r.first, r.last);
    for (const cml_parser::SourceSpan& sp : spans) other.Add(sp.first_line, sp.last_line);
    for (const csl_parser::SourceSpan& sp : csl_spans) other.Add(sp.first_line, sp.last_line);
    Intervals taken = other;  // and the Aider and replacer blocks a run reads (below)
    other.Build();
    std::string blanked;
    const absl::string_view read = ReadersView(text, lines, scan, blanked);
    sr = SearchReplaceBlocks(read, lines, other, AddId(result.ids, "sr"));
    rep = ReplacerBlocks(read, lines, other, AddId(result.ids, "rep"));
    other = Intervals();
    // Inside a replacer block (an example in an OVERWRITE), any other block is
    // its content; a replacer block inside a SEARCH/REPLACE block is its text.
    sr_iv = IntervalsOf(sr);
    rep.erase(
        std::remove_if(rep.begin(), rep.end(), [&sr_iv](const BlockSpan& r) { return sr_iv.Inside(r.start_line); }),
        rep.end());
    rep_iv = IntervalsOf(rep);
    // apply_patch envelopes and unified diffs come after every other dialect:
    // inside any other block (a SHAM heredoc, a REPLACE, an OVERWRITE) they
    // are its content, and a diff inside an envelope is the envelope's.
    for (const BlockSpan& b : sr) {
      if (!rep_iv.Covers(b.start_line)) taken.Add(b.start_line, b.end_line);  // the Aider blocks a run reads
    }
    for (const BlockSpan& b : rep) taken.Add(b.start_line, b.end_line);
    Intervals taken_with_patches = taken;
    taken.Build();
    patches = PatchBlocks(read, lines, taken, AddId(result.ids, "patch"));
    taken = Intervals();
    for (const BlockSpan& b : patches) taken_with_patches.Add(b.start_line, b.end_line);
    taken_with_patches.Build();
    diffs = DiffBlocks(read, lines, taken_with_patches, AddId(result.ids, "diff"));
  }
  if (spans.empty() && sr.empty() && csl_spans.empty() && rep.empty() && patches.empty() && diffs.empty()) {
    result.blocks = std::move(scan.blocks);
    return result;
  }
  Intervals cml_iv;
  for (const cml_parser::SourceSpan& sp : spans) cml_iv.Add(sp.first_line, sp.last_line);
  cml_iv.Build();
  std::vector<BlockSpan>& out = result.blocks;
  out.reserve(scan.blocks.size() + sr.size() + rep.size() + patches.size() + diffs.size() + csl_spans.size() +
              spans.size());
  for (const BlockSpan& b : scan.blocks) {
    const int at = b.start_line;
    if (!csl_iv.Inside(at) && !rep_iv.Inside(at) && !cml_iv.Inside(at) && !sr_iv.Inside(at)) out.push_back(b);
  }
  std::vector<BlockSpan>().swap(scan.blocks);
  for (const BlockSpan& b : sr) {
    if (!rep_iv.Inside(b.start_line)) out.push_back(b);
  }
  out.insert(out.end(), rep.begin(), rep.end());
  out.insert(out.end(), patches.begin(), patches.end());
  out.insert(out.end(), diffs.begin(), diffs.end());
  const std::string csl_end = absl::StrCat(csl.start, "END", csl.end);
  const std::pair<uint32_t, uint32_t> csl_id = AddId(result.ids, "csl");
  for (const csl_parser::SourceSpan& sp : csl_spans) {
    if (rep_iv.Inside(sp.first_line)) continue;
    BlockSpan b;
    b.id = csl_id.first;
    b.id_len = csl_id.second;
    b.begin = static_cast<uint32_t>(sp.begin);
    b.end = static_cast<uint32_t>(sp.end);
    b.start_line = sp.first_line;
    b.end_line = sp.last_line;
    // Closed by its END (an operation cut at the next one, or at the end of
    // FILE, may still be arriving).
    absl::string_view last = text.substr(sp.begin, sp.end - sp.begin);
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r' || last.back() == ' ' || last.back() == '\t')) {
      last.remove_suffix(1);
    }
    const size_t nl = last.rfind('\n');
    b.closed = (nl == absl::string_view::npos ? last : last.substr(nl + 1)) == csl_end;
    out.push_back(b);
  }
  const std::pair<uint32_t, uint32_t> cml_id = AddId(result.ids, "cml");
  for (const cml_parser::SourceSpan& sp : spans) {
    if (rep_iv.Inside(sp.first_line)) continue;
    BlockSpan b;
    b.id = cml_id.first;
    b.id_len = cml_id.second;
    // Whole lines, as for a SHAM block (prose beside an element included).
    const size_t nl = sp.begin == 0 ? absl::string_view::npos : text.rfind('\n', sp.begin - 1);
    const size_t eol = sp.end == 0 ? absl::string_view::npos : text.find('\n', sp.end - 1);
    b.begin = static_cast<uint32_t>(nl == absl::string_view::npos ? 0 : nl + 1);
    b.end = static_cast<uint32_t>(eol == absl::string_view::npos ? text.size() : eol + 1);
    b.start_line = sp.first_line;
    b.end_line = sp.last_line;
    b.closed = true;
    out.push_back(b);
  }
  // Usually in order already: a stable sort would take a buffer of half
  // the blocks.
  SortByStartLine(out);
  return result;
}

}  // namespace

Scan ScanSpans(absl::string_view text, const csl_parser::Delimiters& csl) {
  text = WithoutBom(text);
  Scan scan = FindBlocks(text, csl);
  for (BlockSpan& b : scan.blocks) b.key = KeyCode(BlockKey(scan.id(b), text.substr(b.begin, b.end - b.begin)));
  return scan;
}

}  // namespace internal

std::vector<ScannedBlock> ScanBlocks(absl::string_view text, const csl_parser::Delimiters& csl, bool with_texts) {
  text = internal::WithoutBom(text);
  const internal::Scan scan = internal::FindBlocks(text, csl);
  std::vector<ScannedBlock> out;
  out.reserve(scan.blocks.size());
  for (const internal::BlockSpan& s : scan.blocks) {
    ScannedBlock b;
    b.id = std::string(scan.id(s));
    const absl::string_view block_text = text.substr(s.begin, s.end - s.begin);
    b.key = BlockKey(b.id, block_text);
    if (with_texts) b.text = std::string(block_text);
    b.start_line = s.start_line;
    b.end_line = s.end_line;
    b.closed = s.closed;
    out.push_back(std::move(b));
  }
  return out;
}

std::string StripResultsSections(absl::string_view text) {
  if (internal::TooLargeToScan(text)) return std::string(text);
  const core::LineStarts lines(text);
  std::string ids;
  const internal::ScanResult scan = internal::ScanLines(text, lines, ids);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!scan.in_results[i]) absl::StrAppend(&out, lines.Raw(i));
  }
  return out;
}

std::string BlockKey(absl::string_view id, absl::string_view block_text) {
  uint64_t h = internal::Fnv1a64("");
  size_t pos = 0;
  internal::Line line;
  while (internal::NextLine(block_text, &pos, &line)) {
    absl::string_view content = line.content;
    while (!content.empty() && (content.back() == ' ' || content.back() == '\t' || content.back() == '\r')) {
      content.remove_suffix(1);
    }
    h = internal::Fnv1a64(content, h);
    h = internal::Fnv1a64("\n", h);
  }
  std::string printable(id);
  for (char& c : printable) {
    if (c < 0x21 || c > 0x7e) c = '_';
  }
  return absl::StrFormat("%s:%016x", printable, h);
}

uint64_t KeyCode(absl::string_view key) { return internal::Fnv1a64(key); }

std::vector<ScannedBlock> FindNewBlocks(absl::string_view text, const ListenState& state,
                                        const csl_parser::Delimiters& csl) {
  return internal::FilterNewBlocks(ScanBlocks(text, csl), state);
}

std::string BuildRunText(absl::string_view file_text, const std::vector<ScannedBlock>& blocks) {
  std::vector<internal::LineSpan> spans;
  spans.reserve(blocks.size());
  for (const ScannedBlock& b : blocks) spans.push_back({b.start_line, b.end_line});
  return internal::BuildRunText(file_text, spans);
}

std::string internal::BuildRunText(absl::string_view file_text, const std::vector<LineSpan>& blocks) {
  const size_t line_count = CountLines(file_text);
  std::vector<bool> keep(line_count, false);
  size_t last = 0;
  for (const LineSpan& b : blocks) {
    for (int n = std::max(b.first, 1); n <= b.last && n <= static_cast<int>(line_count); ++n) keep[n - 1] = true;
    if (b.first >= 1) last = std::max(last, static_cast<size_t>(std::min<int>(b.last, static_cast<int>(line_count))));
  }
  // Each of the first `last` lines: kept (with a '\n' when it has none), or
  // made empty. Walked twice, to size the text exactly first.
  auto each_line = [&](auto&& fn) {
    size_t pos = 0;
    Line line;
    for (size_t i = 0; i < last && NextLine(file_text, &pos, &line); ++i) fn(keep[i], line.full);
  };
  size_t size = 0;
  each_line([&size](bool kept, absl::string_view full) {
    size += kept ? full.size() + (absl::EndsWith(full, "\n") ? 0 : 1) : 1;
  });
  std::string out;
  out.reserve(size + internal::kNotQuotedLine.size() + 1);
  each_line([&out](bool kept, absl::string_view full) {
    if (kept) {
      out.append(full.data(), full.size());
      if (!absl::EndsWith(full, "\n")) out += '\n';
    } else {
      out += '\n';
    }
  });
  // A run runs the blocks of a text quoted with '>' only when the whole text
  // is quoted. The run text drops FILE's prose, so it says when FILE is not:
  // a quoted block in an unquoted FILE is then reported, not run, as by
  // `clada run FILE`.
  if (!out.empty() && sham_action_parser::QuotedAsAWhole(out) &&
      !sham_action_parser::QuotedAsAWhole(StripResultsSections(file_text))) {
    absl::StrAppend(&out, internal::kNotQuotedLine, "\n");
  }
  return out;
}

std::string FormatSummarySection(absl::string_view first_line, absl::string_view summary) {
  std::string head(first_line);
  std::replace(head.begin(), head.end(), '\n', ' ');
  std::replace(head.begin(), head.end(), '\r', ' ');
  // No body line may end the section or open a block, whatever the run printed.
  std::string out = absl::StrCat(kResultsMarker, "\n", internal::EscapeSummaryLine(head), "\n");
  for (const internal::Line& line : internal::SplitLines(internal::SummaryBody(summary))) {
    absl::StrAppend(&out, internal::EscapeSummaryLine(line.content), "\n");
  }
  absl::StrAppend(&out, kEndMarker, "\n");
  return out;
}

std::optional<absl::string_view> internal::TopSection(absl::string_view text) {
  size_t pos = 0;
  Line line;
  bool more = NextLine(text, &pos, &line);
  while (more && Trim(line).empty()) more = NextLine(text, &pos, &line);
  Line second;
  if (!more || !IsMarkerLine(line, kResultsMarker) || !NextLine(text, &pos, &second) ||
      !absl::StartsWith(second.content, kSummaryPrefix)) {
    return std::nullopt;
  }
  const size_t begin = static_cast<size_t>(line.full.data() - text.data());
  while (NextLine(text, &pos, &line)) {
    if (IsMarkerLine(line, kEndMarker)) return text.substr(begin, pos - begin);
  }
  return std::nullopt;
}

std::string InsertSummary(absl::string_view file_text, absl::string_view section) {
  // Below the listener's section at the top, if any, and the blank lines after it.
  absl::string_view rest = file_text;
  if (const std::optional<absl::string_view> own = internal::TopSection(file_text)) {
    size_t pos = static_cast<size_t>(own->data() - file_text.data()) + own->size();
    size_t at = pos;
    internal::Line line;
    while (internal::NextLine(file_text, &pos, &line) && internal::Trim(line).empty()) at = pos;
    rest = file_text.substr(at);
  }
  std::string out(section);
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (!rest.empty()) absl::StrAppend(&out, "\n", rest);
  return out;
}

}  // namespace clada::listener
