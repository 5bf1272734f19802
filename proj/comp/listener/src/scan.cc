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
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener {
namespace internal {
namespace {

struct Dialect {
  absl::string_view header_prefix;
  absl::string_view end_prefix;
};

constexpr Dialect kDialects[] = {
    {"#!SHAM ", "#!END_SHAM_"},
    {"#!NESL ", "#!END_NESL_"},
    {"#!nesl ", "#!end_"},
};

const Dialect* HeaderDialect(absl::string_view trimmed) {
  for (const Dialect& d : kDialects) {
    if (absl::StartsWith(trimmed, d.header_prefix)) return &d;
  }
  return nullptr;
}

// `#!SHAM [@three-char-SHA-256: abc]` -> "abc"; "" when the shape differs.
std::string HeaderId(absl::string_view trimmed, const Dialect& dialect) {
  absl::string_view rest = absl::StripAsciiWhitespace(trimmed.substr(dialect.header_prefix.size()));
  if (!absl::StartsWith(rest, "[@")) return "";
  size_t colon = rest.find(':');
  size_t close = rest.find(']');
  if (colon == absl::string_view::npos || close == absl::string_view::npos || close < colon) return "";
  return std::string(absl::StripAsciiWhitespace(rest.substr(colon + 1, close - colon - 1)));
}

// `key = <<'EOT_SHAM_abc'` -> "EOT_SHAM_abc"; "" when the line opens no heredoc.
std::string HeredocDelimiter(absl::string_view trimmed) {
  size_t eq = trimmed.find('=');
  if (eq == absl::string_view::npos) return "";
  absl::string_view value = absl::StripAsciiWhitespace(trimmed.substr(eq + 1));
  if (!absl::StartsWith(value, "<<")) return "";
  absl::string_view delim = absl::StripAsciiWhitespace(value.substr(2));
  if (delim.size() >= 2 && (delim.front() == '\'' || delim.front() == '"') && delim.back() == delim.front()) {
    delim = delim.substr(1, delim.size() - 2);
  }
  return std::string(delim);
}

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

ScanResult ScanLines(const std::vector<Line>& lines) {
  ScanResult result;
  result.in_results.assign(lines.size(), false);

  std::vector<size_t> end_lines;  // indices of `=== END ===` lines, ascending
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsMarkerLine(lines[i], kEndMarker)) end_lines.push_back(i);
  }

  const Dialect* dialect = nullptr;  // non-null inside a block
  size_t block_start = 0;
  std::string block_id;
  std::string heredoc;  // non-empty inside a heredoc body

  auto finish_block = [&](size_t last, bool closed) {
    ScannedBlock b;
    b.id = block_id;
    for (size_t j = block_start; j <= last; ++j) absl::StrAppend(&b.text, lines[j].full);
    b.key = BlockKey(b.id, b.text);
    b.start_line = static_cast<int>(block_start) + 1;
    b.end_line = static_cast<int>(last) + 1;
    b.closed = closed;
    result.blocks.push_back(std::move(b));
    dialect = nullptr;
    heredoc.clear();
  };
  auto open_block = [&](size_t i, const Dialect* d, absl::string_view trimmed) {
    dialect = d;
    block_start = i;
    block_id = HeaderId(trimmed, *d);
  };

  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view trimmed = Trim(lines[i]);
    if (dialect == nullptr) {
      if (IsMarkerLine(lines[i], kResultsMarker)) {
        auto end = std::upper_bound(end_lines.begin(), end_lines.end(), i);
        if (end != end_lines.end()) {
          for (size_t j = i; j <= *end; ++j) result.in_results[j] = true;
          i = *end;
          continue;
        }
      }
      if (const Dialect* d = HeaderDialect(trimmed)) open_block(i, d, trimmed);
      continue;
    }
    if (!heredoc.empty()) {
      if (trimmed == heredoc) heredoc.clear();
      continue;
    }
    if (absl::StartsWith(trimmed, dialect->end_prefix)) {
      finish_block(i, /*closed=*/true);
      continue;
    }
    if (const Dialect* d = HeaderDialect(trimmed)) {
      finish_block(i - 1, /*closed=*/false);
      open_block(i, d, trimmed);
      continue;
    }
    heredoc = HeredocDelimiter(trimmed);
  }
  if (dialect != nullptr) finish_block(lines.size() - 1, /*closed=*/false);
  return result;
}

std::vector<ScannedBlock> FilterNewBlocks(const std::vector<ScannedBlock>& all, const ListenState& state) {
  std::vector<ScannedBlock> fresh;
  absl::flat_hash_set<std::string> seen;
  for (const ScannedBlock& b : all) {
    if (state.HasRun(b.key) || !seen.insert(b.key).second) continue;
    fresh.push_back(b);
  }
  return fresh;
}

}  // namespace internal

std::vector<ScannedBlock> ScanBlocks(absl::string_view text) {
  // A byte order mark (some editors save one) would hide a header on line 1.
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
  return internal::ScanLines(internal::SplitLines(text)).blocks;
}

std::string StripResultsSections(absl::string_view text) {
  std::vector<internal::Line> lines = internal::SplitLines(text);
  internal::ScanResult scan = internal::ScanLines(lines);
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

std::vector<ScannedBlock> FindNewBlocks(absl::string_view text, const ListenState& state) {
  return internal::FilterNewBlocks(ScanBlocks(text), state);
}

std::string BuildRunText(absl::string_view file_text, const std::vector<ScannedBlock>& blocks) {
  std::vector<internal::Line> lines = internal::SplitLines(file_text);
  std::vector<bool> keep(lines.size(), false);
  size_t last = 0;
  for (const ScannedBlock& b : blocks) {
    for (int n = b.start_line; n <= b.end_line && n <= static_cast<int>(lines.size()); ++n) keep[n - 1] = true;
    last = std::max(last, static_cast<size_t>(std::min<int>(b.end_line, lines.size())));
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
