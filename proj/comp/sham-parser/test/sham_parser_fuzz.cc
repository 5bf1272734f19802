// libFuzzer target for ParseBlocks.
//
//   bazel build --config=fuzz //proj/comp/sham-parser:sham_parser_fuzz
//   bazel-bin/proj/comp/sham-parser/sham_parser_fuzz -max_total_time=60
//   -max_len=4096 CORPUS_DIR
//
// Besides crashes and sanitizer reports it checks that every result is
// internally consistent and serialises as strict UTF-8 JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "nlohmann/json.hpp"
#include "proj/comp/sham-parser/src/sham_parser.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

int CountLines(absl::string_view s) {
  int lines = 1;
  for (const char c : s) lines += c == '\n';
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const clada::sham_parser::ParseResult r =
      clada::sham_parser::ParseBlocks(input);
  const int lines = CountLines(input);
  int previous_start = 0;
  for (const auto& b : r.blocks) {
    Check(b.start_line > previous_start && b.start_line <= lines);
    Check(!b.end_line || (*b.end_line > b.start_line && *b.end_line <= lines));
    Check(b.id.size() >= 2 && b.id.size() <= 8);
    previous_start = b.start_line;
  }
  Check(r.errors.size() <= clada::sham_parser::kMaxReportedErrors + 1);
  for (const auto& e : r.errors) {
    Check(e.line >= 1 && e.line <= lines + 1);
    Check(e.column >= 1 && e.length >= 0);
    Check(e.content.find('\n') == std::string::npos);
    Check(!e.code.empty() && !e.message.empty());
  }
  // Throws (and so crashes the fuzzer) on any invalid UTF-8 in the result.
  const std::string json = clada::sham_parser::ParseResultToJson(r).dump();
  Check(!json.empty());
  return 0;
}
