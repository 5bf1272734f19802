// The SHAM blocks of an answer as a run finds them (moved from the
// listener's scan, which uses it too).
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "proj/comp/core/src/line_starts.h"
#include "proj/comp/core/src/newlines.h"
#include "proj/comp/readers/src/adapters.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace clada::readers {
namespace {

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

// The number of lines of `text` (a final line without '\n' counts).
size_t CountLines(absl::string_view text) {
  return core::CountNewlines(text) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

// `extents` in line order, a refused header's lines never running into the
// next block.
std::vector<ShamExtent> SortedWithoutOverlaps(std::vector<ShamExtent> extents) {
  auto by_first = [](const ShamExtent& a, const ShamExtent& b) { return a.first < b.first; };
  if (!std::is_sorted(extents.begin(), extents.end(), by_first)) std::sort(extents.begin(), extents.end(), by_first);
  for (size_t k = 0; k + 1 < extents.size(); ++k) {
    if (extents[k].last >= extents[k + 1].first) {
      extents[k].last = extents[k + 1].first - 1;
      extents[k].closed = false;
    }
  }
  return extents;
}

}  // namespace

std::pair<uint32_t, uint32_t> AppendId(std::string& ids, absl::string_view id) {
  const uint32_t at = static_cast<uint32_t>(ids.size());
  ids.append(id.data(), id.size());
  return {at, static_cast<uint32_t>(id.size())};
}

std::vector<ShamExtent> ShamExtents(absl::string_view text, std::string& ids) {
  std::vector<ShamExtent> extents;
  if (text.empty()) return extents;
  // Line for line: the tolerant reading keeps every line where it is. A
  // text it leaves as it is is read in place, not copied.
  const std::optional<std::string> tolerant =
      sham_action_parser::TolerantReadingIfChanged(text, /*read_quoted_blocks=*/true);
  const absl::string_view read = tolerant ? absl::string_view(*tolerant) : text;
  const size_t line_count = CountLines(read);
  if (line_count == 0) return extents;
  const size_t last_index = line_count - 1;
  // Only where each block is: its properties are dropped as it closes.
  const sham_parser::ParseResult parsed = sham_parser::ParseBlocks(
      read, std::max(sham_parser::kMaxInputBytes, read.size()), [&](sham_parser::Block&& b) {
        const size_t first = static_cast<size_t>(b.start_line - 1);
        if (first > last_index) return;
        ShamExtent e;
        e.first = static_cast<uint32_t>(first);
        e.last = static_cast<uint32_t>(std::min<size_t>(static_cast<size_t>(b.last_line - 1), last_index));
        e.closed = b.end_line.has_value();
        std::tie(e.id, e.id_len) = AppendId(ids, b.id);
        extents.push_back(e);
      });
  // The first lines of the refused headers (no readable ID).
  std::vector<uint32_t> refused;
  for (const sham_parser::ParseError& error : parsed.errors) {
    if (!error.block_id.empty() || error.line < 1 ||
        (error.code != "MALFORMED_HEADER" && error.code != "INVALID_BLOCK_ID"))
      continue;
    const size_t first = static_cast<size_t>(error.line - 1);
    if (first <= last_index) refused.push_back(static_cast<uint32_t>(first));
  }
  if (refused.empty()) return SortedWithoutOverlaps(std::move(extents));
  // Where every block starts: a refused header's block is cut at the next
  // one (below), so its end is looked for up to there only, never on
  // through the rest of the file for each refused header.
  std::vector<uint32_t> starts = refused;
  for (const ShamExtent& e : extents) starts.push_back(e.first);
  std::sort(starts.begin(), starts.end());
  const core::LineStarts lines(read);
  for (const uint32_t first : refused) {
    auto next = std::upper_bound(starts.begin(), starts.end(), first);
    const size_t limit = next == starts.end() ? last_index : *next;
    ShamExtent e;
    std::tie(e.id, e.id_len) = AppendId(ids, RefusedHeaderId(absl::StripAsciiWhitespace(lines.Content(first))));
    e.first = first;
    e.last = static_cast<uint32_t>(last_index);
    for (size_t j = first + 1; j <= limit; ++j) {
      absl::string_view t = absl::StripAsciiWhitespace(lines.Content(j));
      if (IsEndMarkerLike(t)) {
        e.last = static_cast<uint32_t>(j);
        e.closed = true;
        break;
      }
      if (absl::StartsWith(t, "#!")) {
        e.last = static_cast<uint32_t>(j - 1);
        break;
      }
    }
    extents.push_back(e);
  }
  return SortedWithoutOverlaps(std::move(extents));
}

bool QuotedAsAWhole(absl::string_view text) { return sham_action_parser::QuotedAsAWhole(text); }

}  // namespace clada::readers
