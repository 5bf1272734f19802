#include "proj/comp/answer/src/segment.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

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

// SegmentAnswer of a text read as it is (no quote marks taken off).
void SegmentText(absl::string_view text, absl::Span<const Reader* const> readers,
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
  size_t swallowed_end = 0;  // the end of the last block named in current's swallowed
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
      // and this is the opener of a block of any dialect, its own too (and
      // not at its very start): a block the answer did not finish stops
      // where the next block starts.
      if (current->span.closed || next.span.at.begin <= current->span.at.begin) {
        // A block inside an unfinished one (not inside a block it holds
        // already named) is named by it.
        if (!current->span.complete && next.reader != current->reader && readers[next.reader]->yields_blocks() &&
            next.span.at.begin > current->span.at.begin && next.span.at.begin >= swallowed_end &&
            current->swallowed.size() < kMaxSwallowed) {
          current->swallowed.push_back({next.reader, next.span.at.first_line});
          swallowed_end = next.span.at.end;
        }
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

// Where the quote mark of a line is: the byte after the blanks that lead
// it, when a '>' is there; npos when the line is not quoted.
size_t QuoteMark(absl::string_view line) {
  const size_t at = line.find_first_not_of(" \t");
  return at != absl::string_view::npos && line[at] == '>' ? at : absl::string_view::npos;
}

bool Blank(absl::string_view line) { return line.find_first_not_of(" \t\r\n") == absl::string_view::npos; }

// Calls fn(begin, end) for each line of `text` (end past its line break).
template <typename Fn>
void EachLine(absl::string_view text, Fn&& fn) {
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
    fn(pos, end);
    pos = end;
  }
}

// Unquote(text) repeated while the result is quoted as a whole; `removed`
// (when given) gets the bytes taken off each line.
std::string UnquoteWhole(absl::string_view text, std::vector<uint32_t>* removed) {
  std::string out(text);
  if (removed != nullptr) removed->clear();
  do {
    std::string next = Unquote(out);
    if (removed != nullptr) {
      size_t i = 0;
      size_t next_pos = 0;
      EachLine(out, [&](size_t begin, size_t end) {
        const size_t next_nl = next.find('\n', next_pos);
        const size_t next_end = next_nl == std::string::npos ? next.size() : next_nl + 1;
        if (removed->size() <= i) removed->push_back(0);
        (*removed)[i++] += static_cast<uint32_t>((end - begin) - (next_end - next_pos));
        next_pos = next_end;
      });
    }
    out = std::move(next);
  } while (QuotedAsAWhole(out));
  return out;
}

// Lines first..last (1-based) of a text, at bytes [begin, end).
struct LineRange {
  int first = 0;
  int last = 0;
  size_t begin = 0;
  size_t end = 0;
};

// The quoted passages of `text`: runs of lines quoted with '>' (blank lines
// between two quoted lines belong to the run), in order.
std::vector<LineRange> QuotedPassages(absl::string_view text) {
  std::vector<LineRange> out;
  if (text.find('>') == absl::string_view::npos) return out;
  std::optional<LineRange> open;
  int line = 0;
  EachLine(text, [&](size_t begin, size_t end) {
    ++line;
    const absl::string_view content = text.substr(begin, end - begin);
    if (QuoteMark(content) != absl::string_view::npos) {
      if (!open.has_value()) open = LineRange{line, line, begin, end};
      open->last = line;
      open->end = end;
    } else if (!Blank(content) && open.has_value()) {
      out.push_back(*open);
      open.reset();
    }
  });
  if (open.has_value()) out.push_back(*open);
  return out;
}

}  // namespace

void NameSwallowed(const Segment& segment, absl::Span<const Reader* const> readers, ReadResult* read) {
  if (segment.swallowed.empty()) return;
  std::string held;
  for (const Segment::Swallowed& w : segment.swallowed) {
    absl::StrAppend(&held, held.empty() ? "" : ", ", "the ", readers[w.reader]->dialect(), " block at line ",
                    w.first_line);
  }
  const std::string note = absl::StrCat(" (unfinished, it holds what follows it, so ", held,
                                        " did not run: finish it, and what follows it runs)");
  if (!read->diagnostics.empty()) {
    read->diagnostics.front().message += note;
  } else {
    read->warnings.push_back(absl::StrCat("the ", readers[segment.reader]->dialect(), " block at line ",
                                          segment.span.at.first_line, " is not finished", note));
  }
}

bool QuotedAsAWhole(absl::string_view text) {
  bool any = false;
  // Stops at the first line that holds text and is not quoted (most
  // answers: their first line).
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == absl::string_view::npos ? text.size() : nl + 1;
    const absl::string_view line = text.substr(pos, end - pos);
    pos = end;
    if (Blank(line)) continue;
    if (QuoteMark(line) == absl::string_view::npos) return false;
    any = true;
  }
  return any;
}

std::string Unquote(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  EachLine(text, [&](size_t begin, size_t end) {
    absl::string_view line = text.substr(begin, end - begin);
    const size_t mark = QuoteMark(line);
    if (mark != absl::string_view::npos) {
      line.remove_prefix(mark + 1);
      if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
    }
    out.append(line.data(), line.size());
  });
  return out;
}

void SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers,
                   absl::FunctionRef<void(const Segment&)> sink) {
  if (!QuotedAsAWhole(text)) {
    SegmentText(text, readers, sink);
    return;
  }
  // The blocks of the text without its quote marks, their bytes mapped back
  // to the quoted text's (lines are the same).
  std::vector<uint32_t> removed;
  const std::string unquoted = UnquoteWhole(text, &removed);
  std::vector<size_t> quoted_starts, unquoted_starts;
  EachLine(text, [&](size_t begin, size_t) { quoted_starts.push_back(begin); });
  EachLine(unquoted, [&](size_t begin, size_t) { unquoted_starts.push_back(begin); });
  const size_t lines = std::min({quoted_starts.size(), unquoted_starts.size(), removed.size()});
  auto map = [&](size_t at) -> size_t {
    if (at >= unquoted.size() || lines == 0) return text.size();
    const size_t i = static_cast<size_t>(std::upper_bound(unquoted_starts.begin(), unquoted_starts.begin() + lines, at) -
                                         unquoted_starts.begin()) - 1;
    const size_t column = at - unquoted_starts[i];
    return column == 0 ? quoted_starts[i] : quoted_starts[i] + removed[i] + column;
  };
  SegmentText(unquoted, readers, [&](const Segment& s) {
    Segment mapped = s;
    mapped.span.at.begin = map(s.span.at.begin);
    mapped.span.at.end = map(s.span.at.end);
    sink(mapped);
  });
}

void SegmentCheckedAnswer(absl::string_view text, absl::Span<const Reader* const> readers, CheckedAnswer* out,
                          absl::FunctionRef<void(const Segment&)> sink) {
  out->text = text;
  if (QuotedAsAWhole(text)) {
    out->unquoted = UnquoteWhole(text, nullptr);
    out->text = out->unquoted;
    bool any = false;
    // Quoted again inside, a block is quoted among the answer's prose.
    CheckedAnswer inner;
    SegmentCheckedAnswer(out->text, readers, &inner, [&](const Segment& s) {
      any = any || readers[s.reader]->yields_blocks();
      sink(s);
    });
    if (any) {
      out->warnings.push_back(
          "the answer is quoted with '>' as a whole (a Markdown quote); its blocks were read without the quote "
          "marks: write blocks unquoted");
    }
    for (std::string& w : inner.warnings) out->warnings.push_back(std::move(w));
    return;
  }
  const std::vector<LineRange> passages = QuotedPassages(text);
  if (passages.empty()) {
    SegmentText(text, readers, sink);
    return;
  }
  // Each passage: whether a block handed on overlaps it (then it is that
  // block's content), and the first block found wholly in it (not handed on).
  std::vector<bool> covered(passages.size(), false);
  std::vector<std::optional<Segment>> dropped(passages.size());
  size_t settled = 0;
  auto settle = [&](size_t p) {
    if (covered[p]) return;
    const LineRange& q = passages[p];
    const std::string unquoted = Unquote(text.substr(q.begin, q.end - q.begin));
    bool named = false;
    SegmentText(unquoted, readers, [&](const Segment& s) {
      if (!readers[s.reader]->yields_blocks()) return;
      named = true;
      out->warnings.push_back(absl::StrCat(
          "lines ", q.first + s.span.at.first_line - 1, "-", q.first + s.span.at.last_line - 1, ": a ",
          readers[s.reader]->dialect(),
          " block quoted with '>' among prose, so it was not run: a block in a quotation is taken for an "
          "example; write it without the quote marks to run it"));
    });
    if (!named && dropped[p].has_value()) {
      const Segment& s = *dropped[p];
      out->warnings.push_back(absl::StrCat(
          "lines ", s.span.at.first_line, "-", s.span.at.last_line, ": a ", readers[s.reader]->dialect(),
          " block quoted with '>' among prose, so it was not run: a block in a quotation is taken for an "
          "example; write it without the quote marks to run it"));
    }
  };
  SegmentText(text, readers, [&](const Segment& s) {
    while (settled < passages.size() && passages[settled].end <= s.span.at.begin) settle(settled++);
    if (settled < passages.size() && readers[s.reader]->yields_blocks() &&
        s.span.at.begin >= passages[settled].begin && s.span.at.end <= passages[settled].end) {
      if (!dropped[settled].has_value()) dropped[settled] = s;
      return;
    }
    for (size_t p = settled; p < passages.size() && passages[p].begin < s.span.at.end; ++p) {
      if (s.span.at.begin < passages[p].end) covered[p] = true;
    }
    sink(s);
  });
  while (settled < passages.size()) settle(settled++);
}

std::vector<Segment> SegmentAnswer(absl::string_view text, absl::Span<const Reader* const> readers) {
  std::vector<Segment> out;
  SegmentAnswer(text, readers, [&out](const Segment& s) { out.push_back(s); });
  return out;
}

}  // namespace clada::answer
