// Cases from test-data/output_capture.json: the head+tail cap, UTF-8 repair
// and the line echo, each case by name.
#include "proj/comp/exec/src/output_capture.h"

#include "proj/comp/core/src/utf8.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::exec::internal {
namespace {

using Json = nlohmann::ordered_json;

const Json& Data() {
  static const Json* const kData = [] {
    std::ifstream in("proj/comp/exec/test-data/output_capture.json");
    return new Json(Json::parse(in));
  }();
  return *kData;
}

std::vector<Json> Section(const char* name) {
  std::vector<Json> cases;
  for (const Json& c : Data()[name]) cases.push_back(c);
  return cases;
}

// A string, or {repeat, count}, or an array of those, concatenated.
std::string Expand(const Json& spec) {
  if (spec.is_string()) return spec.get<std::string>();
  if (spec.is_array()) {
    std::string out;
    for (const Json& s : spec) out += Expand(s);
    return out;
  }
  std::string out;
  for (int i = 0; i < spec["count"].get<int>(); ++i) out += spec["repeat"].get<std::string>();
  return out;
}

// The case's input: "chunks" (strings or repeats) or "chunks_hex" (bytes
// JSON strings cannot hold, e.g. invalid UTF-8).
std::vector<std::string> Chunks(const Json& c) {
  std::vector<std::string> chunks;
  for (const Json& chunk : c.value("chunks", Json::array())) chunks.push_back(Expand(chunk));
  for (const Json& hex : c.value("chunks_hex", Json::array())) {
    chunks.push_back(absl::HexStringToBytes(hex.get<std::string>()));
  }
  return chunks;
}

std::string CaseName(const ::testing::TestParamInfo<Json>& info) { return info.param["name"].get<std::string>(); }

class HeadTailTest : public ::testing::TestWithParam<Json> {};

TEST_P(HeadTailTest, KeepsHeadAndTail) {
  const Json& c = GetParam();
  HeadTailBuffer buffer(c["cap"].get<int64_t>());
  int64_t total = 0;
  for (const std::string& bytes : Chunks(c)) {
    total += static_cast<int64_t>(bytes.size());
    buffer.Append(bytes);
  }
  EXPECT_EQ(buffer.total_bytes(), total);
  EXPECT_EQ(buffer.truncated(), c["truncated"].get<bool>());
  const std::string got = buffer.Finish("stdout");
  const std::string want = Expand(c["expected"]);
  EXPECT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want) << "got: " << got.substr(0, 200) << "\nwant: " << want.substr(0, 200);
}

INSTANTIATE_TEST_SUITE_P(Cases, HeadTailTest, ::testing::ValuesIn(Section("head_tail")), CaseName);

class SanitizeUtf8Test : public ::testing::TestWithParam<Json> {};

TEST_P(SanitizeUtf8Test, ReplacesInvalidBytes) {
  const Json& c = GetParam();
  const std::string input = absl::HexStringToBytes(c["input_hex"].get<std::string>());
  const std::string got = core::ToValidUtf8(input);
  EXPECT_EQ(absl::BytesToHexString(got), absl::BytesToHexString(c["expected"].get<std::string>()));
  EXPECT_NO_THROW(Json(got).dump());
}

INSTANTIATE_TEST_SUITE_P(Cases, SanitizeUtf8Test, ::testing::ValuesIn(Section("sanitize_utf8")), CaseName);

class LineEchoTest : public ::testing::TestWithParam<Json> {};

TEST_P(LineEchoTest, EchoesPrefixedLines) {
  const Json& c = GetParam();
  std::vector<std::string> emitted;
  LineEcho echo(
      "[k7m:exec] ", [&](absl::string_view s) { emitted.emplace_back(s); }, c.value("cap", int64_t{-1}), "stdout");
  for (const std::string& chunk : Chunks(c)) echo.Append(chunk);
  echo.Flush();
  echo.Flush();  // a second flush has nothing left to say
  std::vector<std::string> want;
  for (const Json& line : c["expected"]) want.push_back(Expand(line));
  EXPECT_EQ(emitted, want);
}

INSTANTIATE_TEST_SUITE_P(Cases, LineEchoTest, ::testing::ValuesIn(Section("line_echo")), CaseName);

}  // namespace
}  // namespace clada::exec::internal
