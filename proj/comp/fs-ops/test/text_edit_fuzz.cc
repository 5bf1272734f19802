// libFuzzer target for the pure text edits behind fs-ops: exact replace,
// replace-all with a count, range replace, line ranges, numbering, the
// miss diagnosis and a SEARCH/REPLACE block's tolerant replace.
//
//   bazel build --config=fuzz //proj/comp/fs-ops:text_edit_fuzz
//   tools/fuzz.sh 60 //proj/comp/fs-ops:text_edit_fuzz
//
// Besides crashes and sanitizer reports it checks what the edits promise on
// text without carriage returns (where no line-ending adaptation applies):
// a unique replace splices exactly one occurrence, and a failed edit never
// comes with changed content; the tolerant replace agrees with the exact
// one wherever the exact one decides, and edits one place when it succeeds.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "proj/comp/fs-ops/src/line_range.h"
#include "proj/comp/fs-ops/src/miss_diagnosis.h"
#include "proj/comp/fs-ops/src/search_replace.h"
#include "proj/comp/fs-ops/src/text_edit.h"

namespace {

using namespace clada::fs_ops::internal;

void Check(bool ok) {
  if (!ok) std::abort();
}

bool HasCr(const std::string& s) { return s.find('\r') != std::string::npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const int op = in.ConsumeIntegralInRange<int>(0, 6);
  const std::string old_text = in.ConsumeRandomLengthString(64);
  const std::string new_text = in.ConsumeRandomLengthString(64);
  const std::string spec = in.ConsumeRandomLengthString(16);
  const std::string content = in.ConsumeRemainingBytesAsString();

  switch (op) {
    case 0: {
      auto r = ReplaceUnique(content, old_text, new_text, "f");
      if (r.ok() && !r->already_applied && !HasCr(content) && !HasCr(old_text) && !HasCr(new_text)) {
        size_t at = content.find(old_text);
        Check(at != std::string::npos);
        Check(r->content == content.substr(0, at) + new_text + content.substr(at + old_text.size()));
        Check(r->replacements == 1);
      }
      if (r.ok() && r->already_applied) Check(r->content == content);
      break;
    }
    case 1: {
      std::optional<int64_t> count;
      if (!spec.empty()) count = static_cast<unsigned char>(spec[0]) % 8;
      auto r = ReplaceEvery(content, old_text, new_text, count, "f");
      if (r.ok() && count && !r->already_applied) Check(r->replacements == *count);
      break;
    }
    case 2: {
      // A fifth of the specs ask for every range (no count).
      std::optional<int64_t> count = 1;
      if (!spec.empty()) {
        const int k = static_cast<unsigned char>(spec[0]) % 5;
        count = k == 4 ? std::nullopt : std::optional<int64_t>(1 + k);
      }
      auto r = ReplaceRanges(content, old_text, new_text, spec, count, "f");
      if (r.ok() && !r->already_applied) Check(count ? r->replacements == *count : r->replacements >= 1);
      break;
    }
    case 3: {
      auto range = ParseLineRange(spec);
      if (range.ok()) {
        Check(range->first >= 1 && range->last >= range->first);
        auto numbered = NumberLines(content, *range, ": ", "f");
        if (numbered.ok()) Check(numbered->total_lines == IndexLines(content).size());
        (void)ReplaceLines(content, *range, new_text, "f");
      }
      break;
    }
    case 4: {
      (void)DiagnoseMiss(content, old_text, "old_text");
      break;
    }
    case 5: {
      auto exact = ReplaceUnique(content, old_text, new_text, "f");
      auto r = ReplaceSearchBlock(content, old_text, new_text, "f");
      if (exact.ok()) {
        Check(r.ok() && r->content == exact->content);
      } else if (exact.status().code() != absl::StatusCode::kNotFound) {
        Check(!r.ok() && r.status() == exact.status());
      }
      if (r.ok() && !r->already_applied) Check(r->replacements == 1);
      break;
    }
    default: {
      EditResult r = AppendText(content, new_text);
      Check(r.content.size() >= content.size());
      (void)CheckUtf8Text(content, "f");
      break;
    }
  }
  return 0;
}
