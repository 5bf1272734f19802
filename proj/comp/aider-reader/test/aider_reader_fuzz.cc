// libFuzzer target for ReadBlocks, FindBlocks and ToActions.
//
//   bazel build --config=fuzz //proj/comp/aider-reader:aider_reader_fuzz
//   tools/fuzz.sh 30 //proj/comp/aider-reader:aider_reader_fuzz
//
// Besides crashes and sanitizer reports it checks what ReadBlocks promises:
// spans inside the text, on line boundaries, not overlapping; every edit has
// a path and texts taken from its span; every error a code, a line, a
// message and a fix; one action per edit.
#include <algorithm>
#include <cstdint>
#include <string>

#include "proj/comp/aider-reader/src/aider_reader.h"
#include "proj/comp/core/test/fuzz_check.h"

namespace {

// `text` without the Markdown quote mark (`> `, or `>` alone, after leading
// blanks) of each line: what ReadBlocks reads an answer quoted whole as.
std::string WithoutQuoteMarks(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find('\n', i);
    end = end == std::string::npos ? text.size() : end + 1;
    size_t j = i;
    while (j < end && (text[j] == ' ' || text[j] == '\t')) ++j;
    if (j < end && text[j] == '>') {
      ++j;
      if (j < end && text[j] == ' ') ++j;
      out.append(text, j, end - j);
    } else {
      out.append(text, i, end - i);
    }
    i = end;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::aider_reader;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Blocks b = ReadBlocks(text);
  const std::vector<SourceSpan> spans = FindBlocks(text);
  Check(spans.size() == b.edits.size() + b.errors.size());
  size_t previous_end = 0;
  for (const SourceSpan& s : spans) {
    Check(previous_end <= s.begin && s.begin < s.end && s.end <= size);
    Check(s.begin == 0 || text[s.begin - 1] == '\n');
    Check(s.end == size || text[s.end - 1] == '\n');
    Check(s.first_line >= 1 && s.first_line <= s.last_line);
    previous_end = s.end;
  }
  int previous_number = 0;
  for (const Edit& e : b.edits) {
    Check(!e.path.empty());
    Check(e.number > previous_number);
    previous_number = e.number;
    // An answer quoted whole is read without its quote marks: its texts are
    // taken from the span as it reads.
    const std::string spanned = text.substr(e.span.begin, e.span.end - e.span.begin);
    const std::string unquoted = WithoutQuoteMarks(spanned);
    Check(spanned.find(e.search) != std::string::npos || unquoted.find(e.search) != std::string::npos);
    Check(spanned.find(e.replace) != std::string::npos || unquoted.find(e.replace) != std::string::npos);
  }
  for (const ParseError& e : b.errors) {
    Check(!e.code.empty() && e.line >= 1 && !e.message.empty() && !e.fix.empty());
    Check(e.line == e.span.first_line);
  }
  Check(ToActions(b).size() == b.edits.size());
  return 0;
}
