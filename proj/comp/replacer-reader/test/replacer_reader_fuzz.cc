// libFuzzer target for ReadBlocks, FindBlocks and ToActions.
//
//   bazel build --config=fuzz //proj/comp/replacer-reader:replacer_reader_fuzz
//   tools/fuzz.sh 30 //proj/comp/replacer-reader:replacer_reader_fuzz
//
// Besides crashes and sanitizer reports it checks what ReadBlocks promises:
// spans inside the text, on line boundaries, in order, not overlapping, their
// line numbers counted; every edit has a path and texts taken from its span;
// every error a code, a line, a message and a fix; one action per edit.
#include <algorithm>
#include <cstdint>
#include <string>

#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::replacer_reader;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Blocks b = ReadBlocks(text);
  const std::vector<SourceSpan> spans = FindBlocks(text);
  Check(spans.size() == b.edits.size() + b.errors.size());
  size_t previous_end = 0;
  long breaks = 0;  // line breaks before previous_end, counted once
  for (const SourceSpan& s : spans) {
    Check(previous_end <= s.begin && s.begin < s.end && s.end <= size);
    Check(s.begin == 0 || text[s.begin - 1] == '\n');
    Check(s.end == size || text[s.end - 1] == '\n');
    Check(s.first_line >= 1 && s.first_line <= s.last_line);
    breaks += std::count(text.begin() + previous_end, text.begin() + s.begin, '\n');
    Check(breaks + 1 == s.first_line);
    Check(breaks + std::count(text.begin() + s.begin, text.begin() + s.end - 1, '\n') + 1 == s.last_line);
    breaks += std::count(text.begin() + s.begin, text.begin() + s.end, '\n');
    previous_end = s.end;
  }
  int previous_number = 0;
  for (const Edit& e : b.edits) {
    Check(!e.path.empty());
    Check(e.number > previous_number);
    previous_number = e.number;
    const std::string spanned = text.substr(e.span.begin, e.span.end - e.span.begin);
    Check(spanned.find(e.search) != std::string::npos);
    Check(spanned.find(e.replace) != std::string::npos);
    Check(spanned.find(e.explanation()) != std::string::npos);
    Check(e.kind == EditKind::kOverwrite || !e.search.empty());
  }
  for (const ParseError& e : b.errors) {
    Check(!e.code.empty() && e.line >= 1 && !e.message.empty() && !e.fix.empty());
    Check(e.line == e.span.first_line);
  }
  Check(ToActions(b).size() == b.edits.size());
  return 0;
}
