#include "proj/comp/fs-ops/src/line_range.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proj/comp/core/src/terms.h"

namespace clada::fs_ops::internal {
namespace {

constexpr int64_t kMaxLine = 1'000'000'000;

std::string RangeText(LineRange r) {
  return r.first == r.last ? absl::StrCat("line ", r.first) : absl::StrCat("lines ", r.first, "-", r.last);
}

std::string LinesOf(absl::string_view label, int64_t total) {
  if (total == 0) return absl::StrCat("'", label, "' is empty (0 lines)");
  return absl::StrCat("'", label, "' has ", total, total == 1 ? " line" : " lines");
}

absl::Status BadSpec(absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("lines = \"", spec, "\" ", why,
                                                 "; use \"N\" or \"N-M\" with 1-based line numbers, e.g. \"12\" "
                                                 "or \"12-20\""));
}

absl::StatusOr<int64_t> ParseNumber(absl::string_view spec, absl::string_view part) {
  part = absl::StripAsciiWhitespace(part);
  if (part.empty()) return BadSpec(spec, "is not a line number or range");
  if (part[0] == '-') return BadSpec(spec, "has a negative number (line numbers start at 1)");
  if (part[0] == '+') part.remove_prefix(1);
  for (char c : part) {
    if (c < '0' || c > '9') return BadSpec(spec, "is not a line number or range");
  }
  int64_t n = 0;
  if (part.size() > 10 || !absl::SimpleAtoi(part, &n) || n > kMaxLine) {
    return BadSpec(spec, "has a number too large to be a line number");
  }
  if (n == 0) return BadSpec(spec, "has line 0 (line numbers start at 1)");
  return n;
}

}  // namespace

absl::StatusOr<LineRange> ParseLineRange(absl::string_view spec) {
  absl::string_view s = absl::StripAsciiWhitespace(spec);
  if (s.empty()) return BadSpec(spec, "is empty");
  if (s[0] == '-') return BadSpec(spec, "has a negative number (line numbers start at 1)");
  size_t dash = s.find('-');
  LineRange r;
  if (dash == absl::string_view::npos) {
    absl::StatusOr<int64_t> n = ParseNumber(spec, s);
    if (!n.ok()) return n.status();
    r.first = r.last = *n;
    return r;
  }
  absl::StatusOr<int64_t> a = ParseNumber(spec, s.substr(0, dash));
  if (!a.ok()) return a.status();
  absl::StatusOr<int64_t> b = ParseNumber(spec, s.substr(dash + 1));
  if (!b.ok()) return b.status();
  if (*b < *a) {
    return BadSpec(spec, absl::StrCat("ends before it starts (write the smaller number first: \"", *b, "-", *a, "\")"));
  }
  r.first = *a;
  r.last = *b;
  return r;
}

LineTable IndexLines(absl::string_view text) {
  LineTable t;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    t.begin.push_back(pos);
    if (nl == absl::string_view::npos) {
      t.content_end.push_back(text.size());
      t.end.push_back(text.size());
      break;
    }
    t.content_end.push_back(nl > pos && text[nl - 1] == '\r' ? nl - 1 : nl);
    t.end.push_back(nl + 1);
    pos = nl + 1;
  }
  return t;
}

absl::StatusOr<NumberedText> NumberLines(absl::string_view text, std::optional<LineRange> range,
                                         absl::string_view delimiter, absl::string_view label) {
  LineTable t = IndexLines(text);
  NumberedText out;
  out.total_lines = t.size();
  // An empty file reads as empty whatever range was asked for (the answer
  // that it has no lines is what was wanted), with a warning for a range.
  if (t.size() == 0) {
    if (range.has_value()) {
      out.warnings.push_back(absl::StrCat("asked for ", RangeText(*range), " but ", LinesOf(label, 0)));
    }
    return out;
  }
  if (!range.has_value()) range = LineRange{1, t.size()};
  if (range->first > t.size()) {
    return absl::FailedPreconditionError(absl::StrCat(RangeText(*range), range->first == range->last ? " is" : " are",
                                                      " out of range: ", LinesOf(label, t.size()), "."));
  }
  if (range->last > t.size()) {
    out.warnings.push_back(absl::StrCat("asked for ", RangeText(*range), " but ", LinesOf(label, t.size()),
                                        "; showing lines ", range->first, "-", t.size()));
    range->last = t.size();
  }
  out.first = range->first;
  out.last = range->last;
  int width = static_cast<int>(absl::StrCat(range->last).size());
  for (int64_t n = range->first; n <= range->last; ++n) {
    size_t i = static_cast<size_t>(n - 1);
    if (n > range->first) out.content.push_back('\n');
    absl::StrAppend(&out.content, absl::StrFormat("%*d", width, n), delimiter,
                    text.substr(t.begin[i], t.content_end[i] - t.begin[i]));
  }
  return out;
}

absl::StatusOr<EditResult> ReplaceLines(absl::string_view text, LineRange range, absl::string_view new_content,
                                        absl::string_view label) {
  LineTable t = IndexLines(text);
  if (range.first > t.size() || range.last > t.size()) {
    std::string hint =
        t.size() == 0
            ? absl::StrCat(" Use ", core::Term("file_write"), " or ", core::Term("file_append"),
                           " to give it content.")
            : absl::StrCat(" Read it with ", core::Term("file_read_numbered"), " to see the current line numbers.");
    return absl::FailedPreconditionError(absl::StrCat(RangeText(range), range.first == range.last ? " is" : " are",
                                                      " out of range: ", LinesOf(label, t.size()),
                                                      "; nothing was changed.", hint));
  }
  size_t first = static_cast<size_t>(range.first - 1);
  size_t last = static_cast<size_t>(range.last - 1);
  size_t span_begin = t.begin[first];
  size_t span_end = t.end[last];
  absl::string_view terminator = text.substr(t.content_end[last], t.end[last] - t.content_end[last]);

  std::string replacement;
  if (new_content.empty()) {
    // Deleting the last lines of a file without a final newline: the line
    // before them becomes the last and loses its break, so none is added.
    if (terminator.empty() && first > 0) span_begin = t.content_end[first - 1];
  } else {
    absl::string_view body = new_content;
    if (absl::EndsWith(body, "\r\n")) {
      body.remove_suffix(2);
    } else if (absl::EndsWith(body, "\n")) {
      body.remove_suffix(1);
    }
    LineEndings in_span = CountLineEndings(text.substr(span_begin, span_end - span_begin));
    absl::string_view eol = DominantBreak(in_span);
    if (eol.empty() || (in_span.crlf > 0 && in_span.lf > 0)) eol = DominantBreak(CountLineEndings(text));
    replacement = eol.empty() ? std::string(body) : ConvertLineBreaks(body, eol);
    replacement.append(terminator.data(), terminator.size());
  }
  EditResult r;
  r.content.reserve(text.size() + replacement.size());
  r.content.append(text.data(), span_begin);
  r.content.append(replacement);
  r.content.append(text.data() + span_end, text.size() - span_end);
  r.replacements = range.last - range.first + 1;
  r.lines.push_back(range.first);
  return r;
}

}  // namespace clada::fs_ops::internal
