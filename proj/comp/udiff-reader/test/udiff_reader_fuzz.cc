// libFuzzer target for ReadDiffs, FindDiffs and ApplyFilePatch.
//
//   bazel build --config=fuzz //proj/comp/udiff-reader:udiff_reader_fuzz
//   tools/fuzz.sh 30 //proj/comp/udiff-reader:udiff_reader_fuzz
//
// Besides crashes and sanitizer reports it checks what ReadDiffs promises:
// spans inside the text, on line boundaries, in order; every file patch has
// a path; every error a code, a line, a message and a fix. Each patch is
// then applied to the input text itself.
#include <cstdint>
#include <string>

#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::udiff_reader;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Diffs d = ReadDiffs(text);
  const std::vector<SourceSpan> spans = FindDiffs(text);
  Check(spans.size() == d.files.size() + d.errors.size());
  size_t previous_end = 0;
  for (const SourceSpan& s : spans) {
    Check(previous_end <= s.begin && s.begin < s.end && s.end <= size);
    Check(s.begin == 0 || text[s.begin - 1] == '\n');
    Check(s.first_line >= 1 && s.first_line <= s.last_line);
    previous_end = s.end;
  }
  for (const ParseError& e : d.errors) Check(!e.code.empty() && e.line >= 1 && !e.message.empty() && !e.fix.empty());
  for (const FilePatch& f : d.files) {
    Check(!f.path.empty());
    for (const DiffHunk& h : f.hunks) Check(!h.lines.empty());
    clada::hunk_apply::ApplyError why;
    absl::StatusOr<Applied> r = ApplyFilePatch(text, f, &why);
    (void)r;
  }
  return 0;
}
