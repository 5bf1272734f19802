// libFuzzer target for the answer layer over every dialect: the registry's
// readers, the segmenter and each accepted span read.
//
//   bazel build --config=fuzz //proj/comp/readers:readers_fuzz
//   tools/fuzz.sh 30 //proj/comp/readers:readers_fuzz
//
// Besides crashes and sanitizer reports it checks what the layer promises:
// blocks in order of start, inside the text, not overlapping; each read
// gives refused blocks with a code, and groups, in order, that hold every
// action exactly once.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proj/comp/answer/src/reader.h"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/readers/src/all_readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada;
  static const readers::Registry* registry = new readers::Registry();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<answer::Segment> segments = answer::SegmentAnswer(text, registry->readers());
  std::vector<std::unique_ptr<answer::SpanReader>> reading(registry->readers().size());
  size_t previous_end = 0;
  for (const answer::Segment& s : segments) {
    Check(s.reader < registry->readers().size());
    Check(previous_end <= s.span.at.begin && s.span.at.begin <= s.span.at.end && s.span.at.end <= size);
    Check(s.span.at.first_line >= 1 && s.span.at.first_line <= s.span.at.last_line);
    previous_end = s.span.at.end;
    if (reading[s.reader] == nullptr) reading[s.reader] = registry->readers()[s.reader]->Reading(text);
    const answer::ReadResult r = reading[s.reader]->Read(s.span);
    // A refused block has a code; its label may be empty (a SHAM header
    // with no readable ID).
    for (const answer::Diagnostic& d : r.diagnostics) Check(!d.code.empty());
    size_t next = 0;
    for (const answer::Group& g : r.groups) {
      Check(g.first == next);  // a group whose actions were all refused is empty
      next = g.first + g.count;
    }
    Check(next == r.actions.size());
  }
  return 0;
}
