// The pure text functions: block scanning, keys, new-block detection, the
// run text and the summary section.
#include "proj/comp/listener/src/internal/scan.h"

#include <algorithm>
#include <string>
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
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-parser/src/sham_parser.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

namespace clada::listener {
namespace internal {
namespace {

// The run text's last line when FILE is not quoted as a whole but every
// block passed is (see BuildRunText).
constexpr absl::string_view kNotQuotedLine =
    "(clada listen: the listened file is not quoted as a whole)";

// End-marker prefixes of the three dialects.
constexpr absl::string_view kEndPrefixes[] = {"#!END_SHAM_", "#!END_NESL_",
                                              "#!end_"};

bool IsEndMarkerLike(absl::string_view trimmed) {
  for (absl::string_view prefix : kEndPrefixes) {
    if (absl::StartsWith(trimmed, prefix)) return true;
  }
  return false;
}

// `#!SHAM ...` -> the ID the header tried to give ("" when none): the text
// between the last ':' and the ']' after it, trimmed.
std::string RefusedHeaderId(absl::string_view trimmed) {
  const size_t colon = trimmed.rfind(':');
  const size_t close = trimmed.rfind(']');
  if (colon == absl::string_view::npos || close == absl::string_view::npos ||
      close < colon)
    return "";
  return std::string(
      absl::StripAsciiWhitespace(trimmed.substr(colon + 1, close - colon - 1)));
}

// A block's lines, 0-based and inclusive.
struct Extent {
  std::string id;
  size_t first = 0;
  size_t last = 0;
  bool closed = false;
};

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

// The blocks of `text` as a run finds them: the grammar parser reading the
// text through the run's tolerance of chat noise (one truth: a block's
// lines, and so its key, are what clada will parse). A block quoted with '>'
// is a block whether or not the text is quoted as a whole: the run it is
// passed to runs it or reports it. A header the parser refuses (no
// readable ID) is a block too, so that its error is reported: from the
// header to the next end marker, or unclosed up to the next `#!` line.
std::vector<Extent> ParsedExtents(absl::string_view text) {
  std::vector<Extent> extents;
  if (text.empty()) return extents;
  // Line for line: the tolerant reading keeps every line where it is.
  const std::string read = sham_action_parser::TolerantReading(text, /*read_quoted_blocks=*/true);
  const std::vector<Line> lines = SplitLines(read);
  if (lines.empty()) return extents;
  const size_t last_index = lines.size() - 1;
  // Only where each block is: its properties are dropped as it closes.
  const sham_parser::ParseResult parsed = sham_parser::ParseBlocks(
      read, std::max(sham_parser::kMaxInputBytes, read.size()), [&](sham_parser::Block&& b) {
        Extent e;
        e.id = std::move(b.id);
        e.first = static_cast<size_t>(b.start_line - 1);
        e.last = std::min<size_t>(static_cast<size_t>(b.last_line - 1), last_index);
        e.closed = b.end_line.has_value();
        if (e.first <= last_index) extents.push_back(std::move(e));
      });
  for (const sham_parser::ParseError& error : parsed.errors) {
    if (!error.block_id.empty() || error.line < 1 ||
        (error.code != "MALFORMED_HEADER" && error.code != "INVALID_BLOCK_ID"))
      continue;
    const size_t first = static_cast<size_t>(error.line - 1);
    if (first > last_index) continue;
    Extent e;
    e.id = RefusedHeaderId(Trim(lines[first]));
    e.first = first;
    e.last = last_index;
    for (size_t j = first + 1; j <= last_index; ++j) {
      absl::string_view t = Trim(lines[j]);
      if (IsEndMarkerLike(t)) {
        e.last = j;
        e.closed = true;
        break;
      }
      if (absl::StartsWith(t, "#!")) {
        e.last = j - 1;
        break;
      }
    }
    extents.push_back(std::move(e));
  }
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.first < b.first; });
  // A refused header's lines never run into the next block.
  for (size_t k = 0; k + 1 < extents.size(); ++k) {
    if (extents[k].last >= extents[k + 1].first) {
      extents[k].last = extents[k + 1].first - 1;
      extents[k].closed = false;
    }
  }
  return extents;
}

}  // namespace

ScanResult ScanLines(absl::string_view text, const std::vector<Line>& lines, bool with_texts) {
  ScanResult result;
  result.in_results.assign(lines.size(), false);

  std::vector<size_t> end_lines;  // indices of `=== END ===` lines, ascending
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsMarkerLine(lines[i], kEndMarker)) end_lines.push_back(i);
  }

  // Results sections: a results marker outside every block, through the
  // next END marker.
  std::vector<Extent> extents = ParsedExtents(text);
  bool any_section = false;
  size_t k = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    while (k < extents.size() && extents[k].last < i) ++k;
    if (k < extents.size() && extents[k].first <= i) {
      i = extents[k].last;
      continue;
    }
    if (!IsMarkerLine(lines[i], kResultsMarker)) continue;
    auto end = std::upper_bound(end_lines.begin(), end_lines.end(), i);
    if (end == end_lines.end()) continue;
    for (size_t j = i; j <= *end; ++j) result.in_results[j] = true;
    any_section = true;
    i = *end;
  }
  // What a results section holds (clada's own report, a file it read) is
  // not the answer: the blocks are those of the text without the sections.
  if (any_section) {
    std::string without;
    without.reserve(text.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!result.in_results[i]) {
        without.append(lines[i].full.data(), lines[i].full.size());
      } else if (absl::EndsWith(lines[i].full, "\n")) {
        without.push_back('\n');
      }
    }
    extents = ParsedExtents(without);
  }

  result.blocks.reserve(extents.size());
  for (const Extent& e : extents) {
    if (result.in_results[e.first]) continue;
    ScannedBlock b;
    b.id = e.id;
    // The lines are consecutive views of `text`.
    const absl::string_view block_text(lines[e.first].full.data(),
                                       static_cast<size_t>(lines[e.last].full.data() + lines[e.last].full.size() -
                                                           lines[e.first].full.data()));
    b.key = BlockKey(b.id, block_text);
    if (with_texts) b.text = std::string(block_text);
    b.start_line = static_cast<int>(e.first) + 1;
    b.end_line = static_cast<int>(e.last) + 1;
    b.closed = e.closed;
    result.blocks.push_back(std::move(b));
  }
  return result;
}

std::vector<const ScannedBlock*> NewBlocksOf(const std::vector<ScannedBlock>& all, const ListenState& state) {
  std::vector<const ScannedBlock*> fresh;
  absl::flat_hash_set<absl::string_view> seen;
  for (const ScannedBlock& b : all) {
    if (state.HasRun(b.key) || !seen.insert(b.key).second) continue;
    fresh.push_back(&b);
  }
  return fresh;
}

std::vector<ScannedBlock> FilterNewBlocks(const std::vector<ScannedBlock>& all, const ListenState& state) {
  std::vector<ScannedBlock> fresh;
  for (const ScannedBlock* b : NewBlocksOf(all, state)) fresh.push_back(*b);
  return fresh;
}

namespace {

// `text` with its results sections blanked, line for line (a reader sees
// what a run reads, at the same line numbers).
std::string BlankResults(const std::vector<Line>& lines, const ScanResult& scan, size_t size) {
  std::string read;
  read.reserve(size);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i < scan.in_results.size() && scan.in_results[i]) {
      if (absl::EndsWith(lines[i].full, "\n")) read.push_back('\n');
    } else {
      read.append(lines[i].full.data(), lines[i].full.size());
    }
  }
  return read;
}

// Whether `line` is on a SHAM block's lines or a CML (or CSL) block's.
bool OnOtherBlock(int line, const std::vector<cml_parser::LineRange>& sham,
                  const std::vector<cml_parser::SourceSpan>& cml) {
  for (const cml_parser::LineRange& r : sham) {
    if (line >= r.first && line <= r.last) return true;
  }
  for (const cml_parser::SourceSpan& sp : cml) {
    if (line >= sp.first_line && line <= sp.last_line) return true;
  }
  return false;
}

// Appends the block of lines first..last (1-based, clamped to the text)
// named `id`, keyed by its text.
void AddBlock(absl::string_view id, const std::vector<Line>& lines, int first, int last, bool closed,
              std::vector<ScannedBlock>& out) {
  if (first < 1 || static_cast<size_t>(first) > lines.size()) return;
  last = std::min<int>(std::max(first, last), static_cast<int>(lines.size()));
  ScannedBlock b;
  b.id = std::string(id);
  for (int j = first; j <= last; ++j) absl::StrAppend(&b.text, lines[j - 1].full);
  b.key = BlockKey(b.id, b.text);
  b.start_line = first;
  b.end_line = last;
  b.closed = closed;
  out.push_back(std::move(b));
}

// Aider's SEARCH/REPLACE blocks, as a run reads them (aider_reader): not
// in results sections, not starting on a SHAM block's lines (`sham`) nor
// inside a CML block. A block's lines run from the line naming its path
// (so the run text keeps it) to `>>>>>>> REPLACE`; a block that reuses the
// path of the block before starts at its `<<<<<<< SEARCH`. A block the
// reader refuses is a block too, so that its error is reported; one whose
// end is missing is not closed (it may still be arriving).
std::vector<ScannedBlock> SearchReplaceBlocks(absl::string_view text, const ScanResult& scan,
                                              const std::vector<cml_parser::LineRange>& sham,
                                              const std::vector<cml_parser::SourceSpan>& cml) {
  std::vector<ScannedBlock> out;
  if (text.find("<<<<<<<") == absl::string_view::npos) return out;
  const std::vector<Line> lines = SplitLines(text);
  const std::string read = BlankResults(lines, scan, text.size());
  auto on_other_block = [&](int line) { return OnOtherBlock(line, sham, cml); };
  auto add = [&](int first, int last, bool closed) { AddBlock("sr", lines, first, last, closed, out); };
  const aider_reader::Blocks blocks = aider_reader::ReadBlocks(read);
  for (const aider_reader::Edit& e : blocks.edits) {
    if (on_other_block(e.span.first_line)) continue;
    add(e.path_line > 0 ? e.path_line : e.span.first_line, e.span.last_line, true);
  }
  for (const aider_reader::ParseError& e : blocks.errors) {
    if (on_other_block(e.line)) continue;
    add(e.line, e.span.last_line, e.code != "missing_divider" && e.code != "missing_replace_marker");
  }
  return out;
}

// The seeds' replacer blocks, as a run reads them (replacer_reader): not in
// results sections, not starting on a SHAM block's lines nor inside a CML
// block. A block runs from its first marker (EXPLANATION or FILE) to its
// `<<<END>>>`; a block the reader refuses is a block too, so that its error
// is reported; one never closed is not closed (it may still be arriving).
std::vector<ScannedBlock> ReplacerBlocks(absl::string_view text, const ScanResult& scan,
                                         const std::vector<cml_parser::LineRange>& sham,
                                         const std::vector<cml_parser::SourceSpan>& cml) {
  std::vector<ScannedBlock> out;
  if (text.find("<<<") == absl::string_view::npos) return out;
  const std::vector<Line> lines = SplitLines(text);
  const std::string read = BlankResults(lines, scan, text.size());
  auto add = [&](int first, int last, bool closed) { AddBlock("rep", lines, first, last, closed, out); };
  const replacer_reader::Blocks blocks = replacer_reader::ReadBlocks(read);
  for (const replacer_reader::Edit& e : blocks.edits) {
    if (!OnOtherBlock(e.span.first_line, sham, cml)) add(e.span.first_line, e.span.last_line, true);
  }
  for (const replacer_reader::ParseError& e : blocks.errors) {
    if (!OnOtherBlock(e.line, sham, cml)) add(e.line, e.span.last_line, e.code != "unclosed_block");
  }
  std::sort(out.begin(), out.end(),
            [](const ScannedBlock& a, const ScannedBlock& b) { return a.start_line < b.start_line; });
  return out;
}

// Whether `line` is on one of `blocks`' lines (its first line included).
bool OnBlock(int line, const std::vector<ScannedBlock>& blocks) {
  for (const ScannedBlock& b : blocks) {
    if (line >= b.start_line && line <= b.end_line) return true;
  }
  return false;
}

// Codex apply_patch envelopes, as a run reads them (apply_patch_reader):
// not in results sections, not starting on a SHAM, CML or CSL block's
// lines (`sham`, `cml`), an Aider block's (`sr`) or a replacer block's
// (`rep`). A block is the whole envelope, from its first line (the heredoc
// opener when there is one) to `*** End Patch` (or the heredoc's end): a
// run reads the envelope, not its operations one by one. A stray operation
// header (no `*** Begin Patch`) is a block too, so that its error is
// reported. One without its `*** End Patch` is not closed (the rest may
// still be arriving).
std::vector<ScannedBlock> PatchBlocks(absl::string_view text, const ScanResult& scan,
                                      const std::vector<cml_parser::LineRange>& sham,
                                      const std::vector<cml_parser::SourceSpan>& cml,
                                      const std::vector<ScannedBlock>& sr, const std::vector<ScannedBlock>& rep) {
  std::vector<ScannedBlock> out;
  if (text.find("***") == absl::string_view::npos) return out;
  const std::vector<Line> lines = SplitLines(text);
  const std::string read = BlankResults(lines, scan, text.size());
  for (const apply_patch_reader::Patch& p : apply_patch_reader::ReadPatches(read)) {
    const int first = p.span.first_line;
    if (OnOtherBlock(first, sham, cml) || OnBlock(first, sr) || OnBlock(first, rep)) continue;
    AddBlock("patch", lines, first, p.span.last_line, p.ended, out);
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
// results sections, not starting on a SHAM, CML or CSL block's lines, an
// Aider block's, an apply_patch envelope's (`patches`) or a replacer
// block's. A file section the reader refuses (binary, no hunk, no path) is
// a block too, so that its error is reported. A diff has no end marker: a
// file whose last hunk has fewer lines than its header counts, or that has
// no hunk yet, is not closed (the rest may still be arriving).
std::vector<ScannedBlock> DiffBlocks(absl::string_view text, const ScanResult& scan,
                                     const std::vector<cml_parser::LineRange>& sham,
                                     const std::vector<cml_parser::SourceSpan>& cml,
                                     const std::vector<ScannedBlock>& sr, const std::vector<ScannedBlock>& rep,
                                     const std::vector<ScannedBlock>& patches) {
  std::vector<ScannedBlock> out;
  if (text.find("--- ") == absl::string_view::npos && text.find("diff --git ") == absl::string_view::npos) return out;
  const std::vector<Line> lines = SplitLines(text);
  const std::string read = BlankResults(lines, scan, text.size());
  auto content_of_other = [&](int line) {
    return OnOtherBlock(line, sham, cml) || OnBlock(line, sr) || OnBlock(line, patches) || OnBlock(line, rep);
  };
  const udiff_reader::Diffs diffs = udiff_reader::ReadDiffs(read);
  for (const udiff_reader::FilePatch& f : diffs.files) {
    if (!content_of_other(f.span.first_line)) {
      AddBlock("diff", lines, f.span.first_line, f.span.last_line, DiffComplete(f), out);
    }
  }
  for (const udiff_reader::ParseError& e : diffs.errors) {
    if (!content_of_other(e.line)) {
      AddBlock("diff", lines, e.span.first_line, e.span.last_line, e.code != "missing_hunks", out);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ScannedBlock& a, const ScannedBlock& b) { return a.start_line < b.start_line; });
  return out;
}

}  // namespace

}  // namespace internal

std::vector<ScannedBlock> ScanBlocks(absl::string_view text, const csl_parser::Delimiters& csl, bool with_texts) {
  // A byte order mark (some editors save one) would hide a header on line 1.
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
  internal::ScanResult scan = internal::ScanLines(text, internal::SplitLines(text), with_texts);
  // CML blocks (cml_parser::FindCml), outside SHAM blocks and results
  // sections, as a run reads them; a SHAM block that starts inside one (in
  // its CDATA) is its content.
  std::vector<cml_parser::LineRange> skip;
  for (const ScannedBlock& b : scan.blocks) skip.push_back({b.start_line, b.end_line});
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
      for (const cml_parser::SourceSpan& sp : spans) {
        const bool in_operation = std::any_of(found.begin(), found.end(), [&](const csl_parser::SourceSpan& o) {
          return sp.first_line > o.first_line && sp.first_line <= o.last_line;
        });
        if (!in_operation) csl_skip.push_back({sp.first_line, sp.last_line});
      }
      csl_spans = csl_parser::FindCsl(text, csl, csl_skip);
    }
  }
  auto inside_csl = [&csl_spans](int line) {
    for (const csl_parser::SourceSpan& sp : csl_spans) {
      if (line > sp.first_line && line <= sp.last_line) return true;
    }
    return false;
  };
  if (!csl_spans.empty()) {
    spans.erase(std::remove_if(spans.begin(), spans.end(),
                               [&](const cml_parser::SourceSpan& sp) { return inside_csl(sp.first_line); }),
                spans.end());
  }
  std::vector<cml_parser::SourceSpan> cml_and_csl = spans;
  cml_and_csl.insert(cml_and_csl.end(), csl_spans.begin(), csl_spans.end());
  std::vector<ScannedBlock> sr = internal::SearchReplaceBlocks(text, scan, skip, cml_and_csl);
  std::vector<ScannedBlock> rep = internal::ReplacerBlocks(text, scan, skip, cml_and_csl);
  // Inside a replacer block (an example in an OVERWRITE), any other block is
  // its content; a replacer block inside a SEARCH/REPLACE block is its text.
  rep.erase(std::remove_if(rep.begin(), rep.end(),
                           [&sr](const ScannedBlock& r) {
                             for (const ScannedBlock& e : sr) {
                               if (r.start_line > e.start_line && r.start_line <= e.end_line) return true;
                             }
                             return false;
                           }),
            rep.end());
  // apply_patch envelopes and unified diffs come after every other dialect:
  // inside any other block (a SHAM heredoc, a REPLACE, an OVERWRITE) they
  // are its content, and a diff inside an envelope is the envelope's.
  std::vector<ScannedBlock> sr_run;  // the Aider blocks a run reads (not inside a replacer block)
  for (const ScannedBlock& b : sr) {
    if (!internal::OnBlock(b.start_line, rep)) sr_run.push_back(b);
  }
  std::vector<ScannedBlock> patches = internal::PatchBlocks(text, scan, skip, cml_and_csl, sr_run, rep);
  std::vector<ScannedBlock> diffs = internal::DiffBlocks(text, scan, skip, cml_and_csl, sr_run, rep, patches);
  if (spans.empty() && sr.empty() && csl_spans.empty() && rep.empty() && patches.empty() && diffs.empty()) {
    return std::move(scan.blocks);
  }
  auto inside_rep = [&rep](int line) {
    for (const ScannedBlock& r : rep) {
      if (line > r.start_line && line <= r.end_line) return true;
    }
    return false;
  };
  std::vector<ScannedBlock> out;
  out.reserve(scan.blocks.size() + sr.size() + rep.size() + patches.size() + diffs.size() + csl_spans.size() +
              spans.size());
  for (ScannedBlock& b : scan.blocks) {
    bool inside = inside_csl(b.start_line) || inside_rep(b.start_line);
    for (const cml_parser::SourceSpan& sp : spans) {
      if (b.start_line > sp.first_line && b.start_line <= sp.last_line) inside = true;
    }
    for (const ScannedBlock& e : sr) {
      if (b.start_line > e.start_line && b.start_line <= e.end_line) inside = true;
    }
    if (!inside) out.push_back(std::move(b));
  }
  for (ScannedBlock& b : sr) {
    if (!inside_rep(b.start_line)) out.push_back(std::move(b));
  }
  for (ScannedBlock& b : rep) out.push_back(std::move(b));
  for (ScannedBlock& b : patches) out.push_back(std::move(b));
  for (ScannedBlock& b : diffs) out.push_back(std::move(b));
  const std::string csl_end = absl::StrCat(csl.start, "END", csl.end);
  for (const csl_parser::SourceSpan& sp : csl_spans) {
    if (inside_rep(sp.first_line)) continue;
    ScannedBlock b;
    b.id = "csl";
    b.text = std::string(text.substr(sp.begin, sp.end - sp.begin));
    b.key = BlockKey(b.id, b.text);
    b.start_line = sp.first_line;
    b.end_line = sp.last_line;
    // Closed by its END (an operation cut at the next one, or at the end of
    // FILE, may still be arriving).
    absl::string_view last = b.text;
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r' || last.back() == ' ' || last.back() == '\t')) {
      last.remove_suffix(1);
    }
    const size_t nl = last.rfind('\n');
    b.closed = (nl == absl::string_view::npos ? last : last.substr(nl + 1)) == csl_end;
    out.push_back(std::move(b));
  }
  for (const cml_parser::SourceSpan& sp : spans) {
    if (inside_rep(sp.first_line)) continue;
    ScannedBlock b;
    b.id = "cml";
    // Whole lines, as for a SHAM block (prose beside an element included).
    const size_t nl = sp.begin == 0 ? absl::string_view::npos : text.rfind('\n', sp.begin - 1);
    const size_t first = nl == absl::string_view::npos ? 0 : nl + 1;
    const size_t eol = sp.end == 0 ? absl::string_view::npos : text.find('\n', sp.end - 1);
    const size_t last = eol == absl::string_view::npos ? text.size() : eol + 1;
    b.text = std::string(text.substr(first, last - first));
    b.key = BlockKey(b.id, b.text);
    b.start_line = sp.first_line;
    b.end_line = sp.last_line;
    b.closed = true;
    out.push_back(std::move(b));
  }
  if (!with_texts) {
    for (ScannedBlock& b : out) std::string().swap(b.text);
  }
  // Usually in order already: a stable sort would take a buffer of half
  // the blocks.
  auto by_line = [](const ScannedBlock& a, const ScannedBlock& b) { return a.start_line < b.start_line; };
  if (!std::is_sorted(out.begin(), out.end(), by_line)) std::stable_sort(out.begin(), out.end(), by_line);
  return out;
}

std::string StripResultsSections(absl::string_view text) {
  std::vector<internal::Line> lines = internal::SplitLines(text);
  internal::ScanResult scan = internal::ScanLines(text, lines, /*with_texts=*/false);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!scan.in_results[i]) absl::StrAppend(&out, lines[i].full);
  }
  return out;
}

std::string BlockKey(absl::string_view id, absl::string_view block_text) {
  uint64_t h = internal::Fnv1a64("");
  for (const internal::Line& line : internal::SplitLines(block_text)) {
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

std::vector<ScannedBlock> FindNewBlocks(absl::string_view text, const ListenState& state,
                                        const csl_parser::Delimiters& csl) {
  return internal::FilterNewBlocks(ScanBlocks(text, csl), state);
}

std::string BuildRunText(absl::string_view file_text, const std::vector<ScannedBlock>& blocks) {
  std::vector<const ScannedBlock*> refs;
  refs.reserve(blocks.size());
  for (const ScannedBlock& b : blocks) refs.push_back(&b);
  return internal::BuildRunText(file_text, refs);
}

std::string internal::BuildRunText(absl::string_view file_text, const std::vector<const ScannedBlock*>& blocks) {
  std::vector<internal::Line> lines = internal::SplitLines(file_text);
  std::vector<bool> keep(lines.size(), false);
  size_t last = 0;
  for (const ScannedBlock* b : blocks) {
    for (int n = b->start_line; n <= b->end_line && n <= static_cast<int>(lines.size()); ++n) keep[n - 1] = true;
    last = std::max(last, static_cast<size_t>(std::min<int>(b->end_line, lines.size())));
  }
  std::string out;
  for (size_t i = 0; i < last; ++i) {
    if (keep[i]) {
      absl::StrAppend(&out, lines[i].full);
      if (!absl::EndsWith(lines[i].full, "\n")) out += '\n';
    } else {
      out += '\n';
    }
  }
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

std::string InsertSummary(absl::string_view file_text, absl::string_view section) {
  std::vector<internal::Line> lines = internal::SplitLines(file_text);
  size_t i = 0;
  while (i < lines.size() && internal::Trim(lines[i]).empty()) ++i;
  absl::string_view rest = file_text;
  if (i + 1 < lines.size() && internal::IsMarkerLine(lines[i], kResultsMarker) &&
      absl::StartsWith(lines[i + 1].content, kSummaryPrefix)) {
    size_t j = i + 1;
    while (j < lines.size() && !internal::IsMarkerLine(lines[j], kEndMarker)) ++j;
    if (j < lines.size()) {
      ++j;
      while (j < lines.size() && internal::Trim(lines[j]).empty()) ++j;
      rest = j < lines.size() ? file_text.substr(lines[j].full.data() - file_text.data()) : absl::string_view();
    }
  }
  std::string out(section);
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (!rest.empty()) absl::StrAppend(&out, "\n", rest);
  return out;
}

}  // namespace clada::listener
