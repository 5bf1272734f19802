// libFuzzer target for ApplyHunks.
//
//   bazel build --config=fuzz //proj/comp/hunk-apply:hunk_apply_fuzz
//   tools/fuzz.sh 60 //proj/comp/hunk-apply:hunk_apply_fuzz
//
// Besides crashes and sanitizer reports it checks what ApplyHunks promises:
// no hunks give the text back byte for byte; a hunk of context lines only,
// taken from the file, either leaves the text unchanged or is refused as
// ambiguous; a success places every hunk (already applied: every hunk, the
// text unchanged); a failure fills the error.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

namespace {

using clada::hunk_apply::ApplyError;
using clada::hunk_apply::ApplyHunks;
using clada::hunk_apply::Hunk;
using clada::hunk_apply::PatchLine;
using clada::hunk_apply::Placement;

std::vector<std::string> SplitOnNewline(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const int mode = in.ConsumeIntegralInRange<int>(0, 2);
  std::vector<Hunk> hunks;
  const int count = in.ConsumeIntegralInRange<int>(0, 4);
  for (int k = 0; k < count; ++k) {
    Hunk h;
    const int anchors = in.ConsumeIntegralInRange<int>(0, 2);
    for (int a = 0; a < anchors; ++a) h.anchors.push_back(in.ConsumeRandomLengthString(24));
    const int lines = in.ConsumeIntegralInRange<int>(0, 6);
    for (int l = 0; l < lines; ++l) {
      PatchLine line;
      line.kind = static_cast<PatchLine::Kind>(in.ConsumeIntegralInRange<int>(0, 2));
      line.text = in.ConsumeRandomLengthString(24);
      h.lines.push_back(line);
    }
    h.is_end_of_file = in.ConsumeBool();
    hunks.push_back(h);
  }
  const size_t first = in.ConsumeIntegralInRange<size_t>(0, 64);
  const size_t span = in.ConsumeIntegralInRange<size_t>(1, 4);
  const std::string content = in.ConsumeRemainingBytesAsString();

  if (mode == 0) {
    auto same = ApplyHunks(content, {});
    Check(same.ok() && same->content == content);
  }
  if (mode == 1) {
    // Context-only hunk from the file's own lines (LF files without CR; a
    // byte order mark is not part of the first line).
    if (content.find('\r') == std::string::npos) {
      const bool bom = content.compare(0, 3, "\xEF\xBB\xBF") == 0;
      std::vector<std::string> lines = SplitOnNewline(bom ? content.substr(3) : content);
      if (first < lines.size()) {
        Hunk h;
        for (size_t i = first; i < lines.size() && i < first + span; ++i) {
          h.lines.push_back({PatchLine::kContext, lines[i]});
        }
        ApplyError why;
        auto r = ApplyHunks(content, {h}, &why);
        if (r.ok()) {
          Check(r->content == content);
        } else {
          Check(why.code == ApplyError::Code::kAmbiguous);
          Check(why.candidates.size() >= 2);
        }
      }
    }
  }
  ApplyError why;
  auto r = ApplyHunks(content, hunks, &why);
  if (r.ok()) {
    Check(r->placements.size() == hunks.size());
    // Already applied: every hunk was, and the text is as given.
    for (const Placement& p : r->placements) Check(p.already_applied == r->already_applied);
    if (r->already_applied) Check(r->content == content);
  } else {
    Check(why.code != ApplyError::Code::kOk);
    Check(!why.message.empty());
    Check(why.message == r.status().message());
  }
  return 0;
}
