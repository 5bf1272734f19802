#include "proj/comp/udiff-reader/src/udiff_reader.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/core/src/line_starts.h"

namespace clada::udiff_reader {
namespace {

// The answer's number of line `index` (0-based) of the text read.
int LineNumber(const ReadOptions& o, size_t index) { return o.first_line + static_cast<int>(index); }

// A ```diff (or ```patch) fence that holds `@@` hunks and no file header
// names no file: one `missing_file_header` error for the fence, where the
// hunks would otherwise be read as nothing at all. So is a plain ``` fence
// (no language) whose first hunk line is a range header (`@@ -N`). Every
// fence is skipped whole, so a fence's closing ``` never opens one.
void HeaderlessFences(absl::string_view text, std::vector<ParseError>* errors, const ReadOptions& o) {
  const core::LineStarts lines(text);
  const size_t n = lines.size();
  auto is_file_start = [&lines, n](size_t k) {
    const absl::string_view line = lines.Content(k);
    if (!absl::StartsWith(line, "--- ")) return patch_text::IsFileHeader(line, absl::string_view());
    return k + 1 < n && patch_text::IsFileHeader(line, lines.Content(k + 1));
  };
  for (size_t i = 0; i < n; ++i) {
    const absl::string_view open = absl::StripAsciiWhitespace(lines.Content(i));
    if (!absl::StartsWith(open, "```")) continue;
    const bool diff = absl::StartsWith(open, "```diff") || absl::StartsWith(open, "```patch");
    const bool plain = open == "```";
    size_t close = i + 1;
    size_t first_hunk = 0;
    bool header = false;
    for (; close < n && !absl::StartsWith(absl::StripLeadingAsciiWhitespace(lines.Content(close)), "```"); ++close) {
      if (is_file_start(close)) header = true;
      if (first_hunk == 0 && absl::StartsWith(lines.Content(close), "@@")) first_hunk = close;
    }
    const bool hunk_header = first_hunk != 0 && absl::StartsWith(lines.Content(first_hunk), "@@ -") &&
                             lines.Content(first_hunk).size() > 4 &&
                             absl::ascii_isdigit(static_cast<unsigned char>(lines.Content(first_hunk)[4]));
    if (!header && first_hunk != 0 && (diff || (plain && hunk_header))) {
      const size_t last = close < n ? close : n - 1;
      SourceSpan span;
      span.begin = o.first_byte + lines.Begin(i);
      span.end = o.first_byte + lines.End(last);
      span.first_line = LineNumber(o, i);
      span.last_line = LineNumber(o, last);
      errors->push_back(ParseError{
          "missing_file_header", LineNumber(o, i),
          absl::StrCat("the diff in the fence at line ", LineNumber(o, i), " has hunks (the first at line ",
                       LineNumber(o, first_hunk),
                       ") but no --- and +++ lines, so it names no file and none of it was applied"),
          "start the diff with the file's header lines before its first @@: --- a/PATH and +++ b/PATH", span});
    }
    i = close;
  }
}

}  // namespace

Diffs ReadDiffs(absl::string_view text) {
  std::deque<FilePatch> files;
  Diffs out = ReadDiffs(text, [&files](FilePatch&& f) { files.push_back(std::move(f)); });
  out.files = std::move(files);
  return out;
}

Diffs ReadDiffs(absl::string_view text, absl::FunctionRef<void(FilePatch&&)> on_file) {
  return ReadDiffs(text, ReadOptions(), on_file);
}

Diffs ReadDiffs(absl::string_view text, const ReadOptions& o, absl::FunctionRef<void(FilePatch&&)> on_file) {
  std::vector<ParseError> fences;
  if (absl::StrContains(text, "```") && absl::StrContains(text, "@@")) HeaderlessFences(text, &fences, o);
  Diffs out = patch_text::ParseDiffs(text, o, on_file);
  if (!fences.empty()) {
    // The fences' errors first, as they were found before the files.
    fences.insert(fences.end(), std::make_move_iterator(out.errors.begin()),
                  std::make_move_iterator(out.errors.end()));
    out.errors = std::move(fences);
  }
  return out;
}

std::vector<SourceSpan> FindDiffs(absl::string_view text) {
  Diffs d = ReadDiffs(text);
  std::vector<SourceSpan> spans;
  for (const FilePatch& f : d.files) spans.push_back(f.span);
  for (const ParseError& e : d.errors) spans.push_back(e.span);
  std::sort(spans.begin(), spans.end(), [](const SourceSpan& a, const SourceSpan& b) { return a.begin < b.begin; });
  return spans;
}

}  // namespace clada::udiff_reader
