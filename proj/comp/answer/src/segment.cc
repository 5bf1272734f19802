#include "proj/comp/answer/src/segment.h"

#include <algorithm>
#include <memory>
#include <optional>
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
