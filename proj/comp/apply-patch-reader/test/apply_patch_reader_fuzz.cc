// libFuzzer target for ReadPatches, and ApplyHunks on the hunks it reads.
//
//   bazel build --config=fuzz //proj/comp/apply-patch-reader:apply_patch_reader_fuzz
//   tools/fuzz.sh 60 //proj/comp/apply-patch-reader:apply_patch_reader_fuzz
//
// Besides crashes and sanitizer reports it checks what ReadPatches promises:
// spans inside the text, in order, on line boundaries; every operation has a
// path and every update at least one hunk with lines; every error a line, a
// message and a fix; FindPatches agrees. The update hunks are then applied to
// the input text itself (a file full of patch-like lines).
#include <cstdint>
#include <string>

#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"
#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::apply_patch_reader;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<Patch> patches = ReadPatches(text);
  const std::vector<SourceSpan> spans = FindPatches(text);
  Check(spans.size() == patches.size());
  const std::vector<Patch> envelopes = ReadEnvelopes(text);
  Check(envelopes.size() == patches.size());
  for (size_t i = 0; i < patches.size(); ++i) {
    Check(envelopes[i].ops.empty() && envelopes[i].ended == patches[i].ended);
    Check(envelopes[i].errors.size() == patches[i].errors.size() && envelopes[i].warnings == patches[i].warnings);
  }
  size_t previous_end = 0;
  for (size_t i = 0; i < patches.size(); ++i) {
    const Patch& p = patches[i];
    Check(spans[i].begin == p.span.begin && spans[i].end == p.span.end);
    Check(previous_end <= p.span.begin && p.span.begin <= p.span.end && p.span.end <= size);
    Check(p.span.begin == 0 || text[p.span.begin - 1] == '\n');
    Check(p.span.first_line >= 1 && p.span.first_line <= p.span.last_line);
    previous_end = p.span.end;
    Check(!p.ops.empty() || !p.errors.empty());
    for (const ParseError& e : p.errors) {
      Check(e.line >= 1 && !e.code.empty() && !e.message.empty() && !e.fix.empty());
    }
    for (const FileOp& op : p.ops) {
      Check(!op.path.empty());
      Check(op.span.first_line >= p.span.first_line && op.span.last_line <= p.span.last_line);
      if (op.kind == OpKind::kUpdate) {
        Check(!op.hunks().empty());
        for (const auto& h : op.hunks()) Check(!h.lines.empty());
        clada::hunk_apply::ApplyError why;
        auto r = clada::hunk_apply::ApplyHunks(text, op.hunks(), &why);
        if (!r.ok()) Check(!why.message.empty());
      }
      if (op.move_to()) Check(*op.move_to() != op.path);
    }
  }
  return 0;
}
