#include "proj/comp/answer/src/segment.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clada::answer {

VectorSpanStream::VectorSpanStream(std::vector<Span> spans) : spans_(std::move(spans)) {
  std::stable_sort(spans_.begin(), spans_.end(),
                   [](const Span& a, const Span& b) { return a.at.begin < b.at.begin; });
}

bool VectorSpanStream::Next(Span* out) {
  if (next_ >= spans_.size()) return false;
  *out = spans_[next_++];
  return true;
}

Span ThroughNextTextLine(absl::string_view text, const Span& span) {
  Span wide = span;
  size_t at = std::min(span.at.end, text.size());
  int line = span.at.last_line;
  // span.at.end is the start of the line after the span, or inside the
  // span's last line when it has no line break.
  if (at > 0 && text[at - 1] != '\n') {
    const size_t nl = text.find('\n', at);
    if (nl == absl::string_view::npos) return wide;
    at = nl + 1;
  }
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    const size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
    ++line;
    const absl::string_view content = text.substr(at, end - at);
    wide.at.end = end;
    wide.at.last_line = line;
    if (content.find_first_not_of(" \t\r\n") != absl::string_view::npos) break;
    at = end;
  }
  return wide;
}

std::string BlockContent(absl::string_view text, const core::SourceSpan& at) {
  constexpr size_t kMaxContent = 4096;
  if (at.begin >= text.size() || at.end <= at.begin) return "";
  return std::string(text.substr(at.begin, std::min(at.end - at.begin, kMaxContent)));
}

namespace {

// The last line of `span` cut at byte `at` (inside it): the line before
// `at` when `at` starts a line, else the line holding `at`.
int LastLineBefore(absl::string_view text, const core::SourceSpan& span, size_t at) {
  int line = span.first_line;
  for (size_t i = span.begin; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  const bool line_start = at == 0 || (at <= text.size() && text[at - 1] == '\n');
  return std::max(span.first_line, line_start ? line - 1 : line);
}

}  // namespace

void SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers,
                   absl::FunctionRef<void(const Segment&)> sink) {
  std::vector<std::unique_ptr<SpanStream>> streams;
  std::vector<std::optional<Span>> pending(readers.size());
  streams.reserve(readers.size());
  for (size_t i = 0; i < readers.size(); ++i) {
    streams.push_back(readers[i]->Spans(text));
    Span s;
    if (streams[i]->Next(&s)) pending[i] = s;
  }
  std::optional<Segment> current;
  while (true) {
    // The earliest pending span; at the same start, the reader listed first.
    size_t best = readers.size();
    for (size_t i = 0; i < readers.size(); ++i) {
      if (pending[i].has_value() && (best == readers.size() || pending[i]->at.begin < pending[best]->at.begin)) {
        best = i;
      }
    }
    if (best == readers.size()) break;
    Segment next{best, *pending[best]};
    Span s;
    if (streams[best]->Next(&s)) {
      pending[best] = s;
    } else {
      pending[best].reset();
    }
    if (current.has_value() && next.span.at.begin < current->span.at.end) {
      // Inside the accepted span: its content, unless that span is unclosed
      // and this is another dialect's opener (and not at its very start).
      if (current->span.closed || next.reader == current->reader || next.span.at.begin <= current->span.at.begin) {
        continue;
      }
      current->span.at.last_line = LastLineBefore(text, current->span.at, next.span.at.begin);
      current->span.at.end = next.span.at.begin;
    }
    if (current.has_value() && readers[current->reader]->yields_blocks()) sink(*current);
    current = next;
  }
  if (current.has_value() && readers[current->reader]->yields_blocks()) sink(*current);
}

std::vector<Segment> SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers) {
  std::vector<Segment> out;
  SegmentAnswer(text, readers, [&out](const Segment& s) { out.push_back(s); });
  return out;
}

}  // namespace clada::answer
