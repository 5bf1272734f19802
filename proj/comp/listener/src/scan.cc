// The pure text functions: block scanning, keys, new-block detection, the
// run text and the summary section.
#include "proj/comp/listener/src/internal/scan.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "proj/comp/answer/src/reader.h"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/core/src/line_starts.h"
#include "proj/comp/core/src/newlines.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/readers/src/adapters.h"
#include "proj/comp/readers/src/all_readers.h"

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

// The number of lines of `text` (a final line without '\n' counts).
size_t CountLines(absl::string_view text) {
  return core::CountNewlines(text) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

// A text the listener reads is at most 50 MB; a block's offsets are 32-bit.
bool TooLargeToScan(absl::string_view text) { return text.size() > UINT32_MAX; }

// A reader that yields no blocks (clada's report pasted back), shown to the
// segmenter as one that does: its spans are weighed exactly as before (the
// segmenter asks yields_blocks only to decide what it hands on), and come
// through so that the scan knows the text no block starts in.
class Shown : public answer::Reader {
 public:
  explicit Shown(const answer::Reader& reader) : reader_(reader) {}
  absl::string_view dialect() const override { return reader_.dialect(); }
  std::unique_ptr<answer::SpanStream> Spans(absl::string_view text) const override { return reader_.Spans(text); }
  std::unique_ptr<answer::SpanReader> Reading(absl::string_view text) const override {
    return reader_.Reading(text);
  }
  std::string Instructions() const override { return reader_.Instructions(); }

 private:
  const answer::Reader& reader_;
};

// The registry's readers, each reader that yields no blocks Shown, in
// registry order, and which of them yield blocks.
class ScanReaders {
 public:
  explicit ScanReaders(const readers::ReaderOptions& options) : registry_(options) {
    for (const answer::Reader* r : registry_.readers()) {
      yields_.push_back(r->yields_blocks());
      if (r->yields_blocks()) {
        list_.push_back(r);
      } else {
        shown_.push_back(std::make_unique<Shown>(*r));
        list_.push_back(shown_.back().get());
      }
    }
  }
  absl::Span<const answer::Reader* const> list() const { return list_; }
  bool yields(size_t reader) const { return yields_[reader]; }

 private:
  readers::Registry registry_;
  std::vector<std::unique_ptr<Shown>> shown_;
  std::vector<const answer::Reader*> list_;
  std::vector<bool> yields_;
};

// The segments of `text` (at most UINT32_MAX bytes), each as whole lines:
// `on_block` for a block, `on_skipped` (first and last line, 1-based) for
// the text of a reader that yields none.
template <typename OnBlock, typename OnSkipped>
void Segments(absl::string_view text, const ScanReaders& readers, OnBlock&& on_block, OnSkipped&& on_skipped) {
  const core::LineStarts lines(text);
  answer::SegmentAnswer(text, readers.list(), [&](const answer::Segment& s) {
    const int count = static_cast<int>(lines.size());
    const int first = std::max(1, s.span.at.first_line);
    const int last = std::min(std::max(first, s.span.at.last_line), count);
    if (first > count) return;
    if (!readers.yields(s.reader)) {
      on_skipped(first, last);
      return;
    }
    BlockSpan b;
    b.begin = static_cast<uint32_t>(lines.Begin(static_cast<size_t>(first - 1)));
    b.end = static_cast<uint32_t>(lines.End(static_cast<size_t>(last - 1)));
    b.start_line = first;
    b.end_line = last;
    b.dialect = static_cast<uint32_t>(s.reader);
    b.closed = s.span.closed && s.span.complete;  // else the rest may still be arriving
    on_block(b);
  });
}

// Every block of `text` (core::WithoutUtf8Bom), keys not set; offsets into `text`.
Scan FindBlocks(absl::string_view text, const readers::ReaderOptions& options) {
  Scan result;
  const ScanReaders readers(options);
  for (const answer::Reader* r : readers.list()) result.dialects.emplace_back(r->dialect());
  if (TooLargeToScan(text)) return result;
  Segments(
      text, readers, [&](const BlockSpan& b) { result.blocks.push_back(b); }, [](int, int) {});
  return result;
}

}  // namespace

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

Scan ScanSpans(absl::string_view text, const readers::ReaderOptions& options) {
  text = core::WithoutUtf8Bom(text);
  Scan scan = FindBlocks(text, options);
  for (BlockSpan& b : scan.blocks) {
    b.key = KeyCode(BlockKey(scan.dialect(b), text.substr(b.begin, b.end - b.begin)));
  }
  return scan;
}

}  // namespace internal

std::vector<ScannedBlock> ScanBlocks(absl::string_view text, const readers::ReaderOptions& options,
                                     bool with_texts) {
  text = core::WithoutUtf8Bom(text);
  const internal::Scan scan = internal::FindBlocks(text, options);
  std::vector<ScannedBlock> out;
  out.reserve(scan.blocks.size());
  for (const internal::BlockSpan& s : scan.blocks) {
    ScannedBlock b;
    b.dialect = std::string(scan.dialect(s));
    const absl::string_view block_text = text.substr(s.begin, s.end - s.begin);
    b.key = BlockKey(b.dialect, block_text);
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
  std::vector<bool> skipped(lines.size(), false);
  const internal::ScanReaders readers{readers::ReaderOptions()};
  internal::Segments(
      text, readers, [](const internal::BlockSpan&) {},
      [&](int first, int last) {
        for (int n = first; n <= last; ++n) skipped[static_cast<size_t>(n - 1)] = true;
      });
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!skipped[i]) absl::StrAppend(&out, lines.Raw(i));
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
                                        const readers::ReaderOptions& options) {
  return internal::FilterNewBlocks(ScanBlocks(text, options), state);
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
  // Each of the first `last` lines: kept as it is (the file's last line
  // without its missing '\n', as `clada run FILE` reads it), or made empty.
  // Walked twice, to size the text exactly first.
  auto each_line = [&](auto&& fn) {
    size_t pos = 0;
    Line line;
    for (size_t i = 0; i < last && NextLine(file_text, &pos, &line); ++i) fn(keep[i], line.full);
  };
  size_t size = 0;
  each_line([&size](bool kept, absl::string_view full) {
    size += kept ? full.size() : 1;
  });
  std::string out;
  out.reserve(size + internal::kNotQuotedLine.size() + 1);
  each_line([&out](bool kept, absl::string_view full) {
    if (kept) {
      out.append(full.data(), full.size());
    } else {
      out += '\n';
    }
  });
  // A run runs the blocks of a text quoted with '>' only when the whole text
  // is quoted. The run text drops FILE's prose, so it says when FILE is not:
  // a quoted block in an unquoted FILE is then reported, not run, as by
  // `clada run FILE`.
  if (!out.empty() && readers::QuotedAsAWhole(out) &&
      !readers::QuotedAsAWhole(StripResultsSections(file_text))) {
    if (out.back() != '\n') out += '\n';
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

absl::string_view BelowTopSection(absl::string_view file_text) {
  size_t pos = 0;
  if (const std::optional<absl::string_view> own = internal::TopSection(file_text)) {
    pos = static_cast<size_t>(own->data() - file_text.data()) + own->size();
  }
  size_t at = pos;
  internal::Line line;
  while (internal::NextLine(file_text, &pos, &line) && internal::Trim(line).empty()) at = pos;
  return file_text.substr(at);
}

AnswerMark MarkAnswer(absl::string_view file_text) {
  const absl::string_view below = BelowTopSection(file_text);
  return AnswerMark{below.size(), internal::Fnv1a64(below)};
}

bool ContinuesAnswer(const AnswerMark& mark, absl::string_view file_text, int first_line) {
  const absl::string_view below = BelowTopSection(file_text);
  if (below.size() < mark.length || internal::Fnv1a64(below.substr(0, mark.length)) != mark.hash) return false;
  // What was added, up to the start of line `first_line`.
  const size_t added_from = static_cast<size_t>(below.data() - file_text.data()) + mark.length;
  size_t pos = 0;
  internal::Line line;
  for (int n = 1; n < first_line && internal::NextLine(file_text, &pos, &line); ++n) {
    const size_t end = pos;
    if (end > added_from && internal::IsMarkerLine(line, kResultsMarker)) return false;
  }
  return true;
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
