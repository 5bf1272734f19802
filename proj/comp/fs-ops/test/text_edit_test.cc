#include "proj/comp/fs-ops/src/text_edit.h"

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/terms.h"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;
using testing::Bytes;

// Runs the case's operation on its content.
absl::StatusOr<EditResult> RunEdit(const json& c) {
  std::string content = Bytes(c, "content");
  std::string op = c.at("op").get<std::string>();
  std::string label = c.value("label", "f.txt");
  if (op == "unique") return ReplaceUnique(content, Bytes(c, "old"), Bytes(c, "new"), label);
  if (op == "every") {
    std::optional<int64_t> count;
    if (c.contains("count")) count = c["count"].get<int64_t>();
    return ReplaceEvery(content, Bytes(c, "old"), Bytes(c, "new"), count, label);
  }
  if (op == "ranges") {
    // "all": true is every range (no count); else count, 1 by default.
    std::optional<int64_t> count;
    if (!c.value("all", false)) count = c.value("count", int64_t{1});
    return ReplaceRanges(content, Bytes(c, "start"), Bytes(c, "end"), Bytes(c, "new"), count, label);
  }
  if (op == "append") return AppendText(content, Bytes(c, "new"));
  ADD_FAILURE() << "unknown op " << op;
  return absl::InternalError("unknown op");
}

class EditCase : public ::testing::TestWithParam<json> {};

// ReplaceEvery and ReplaceRanges with keep_places (what the actions call):
// every case gives the same verdict, and a result the places hold builds
// to the same text, of the size they say, with the same counts.
TEST_P(EditCase, KeepingThePlacesGivesTheSameResult) {
  const json& c = GetParam();
  const std::string op = c.at("op").get<std::string>();
  if (op != "every" && op != "ranges") return;
  const std::string content = Bytes(c, "content");
  const std::string label = c.value("label", "f.txt");
  std::optional<int64_t> count;
  absl::StatusOr<EditResult> kept;
  if (op == "every") {
    if (c.contains("count")) count = c["count"].get<int64_t>();
    kept = ReplaceEvery(content, Bytes(c, "old"), Bytes(c, "new"), count, label, kNoSizeLimit, true);
  } else {
    if (!c.value("all", false)) count = c.value("count", int64_t{1});
    kept = ReplaceRanges(content, Bytes(c, "start"), Bytes(c, "end"), Bytes(c, "new"), count, label, kNoSizeLimit,
                         true);
  }
  const absl::StatusOr<EditResult> built = RunEdit(c);
  ASSERT_EQ(kept.status(), built.status());
  if (!built.ok()) return;
  EXPECT_EQ(kept->replacements, built->replacements);
  EXPECT_EQ(kept->already_applied, built->already_applied);
  EXPECT_EQ(kept->lines, built->lines);
  if (!kept->spliced.has_value()) {
    EXPECT_EQ(kept->content, built->content);
    return;
  }
  EXPECT_TRUE(kept->content.empty());
  EXPECT_EQ(kept->spliced->Build(), built->content);
  EXPECT_EQ(kept->spliced->size(), built->content.size());
}

TEST_P(EditCase, MatchesExpectation) {
  const json& c = GetParam();
  const json& want = c.at("expect");
  absl::StatusOr<EditResult> got = RunEdit(c);
  if (want.contains("code")) {
    ASSERT_FALSE(got.ok()) << "unexpected success: " << json(got->content).dump();
    EXPECT_EQ(absl::StatusCodeToString(got.status().code()), want["code"].get<std::string>()) << got.status();
    // The schema's words in the message as SHAM says them (core::Term).
    const std::string message = core::BareTerms(got.status().message());
    for (const json& s : want.value("error_contains", json::array())) {
      EXPECT_NE(message.find(s.get<std::string>()), std::string::npos) << "error lacks " << s << ": " << message;
    }
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status();
  if (want.contains("content") || want.contains("content_hex")) {
    EXPECT_EQ(json(got->content).dump(), json(Bytes(want, "content")).dump());
  }
  if (want.contains("replacements")) {
    EXPECT_EQ(got->replacements, want["replacements"].get<int64_t>());
  }
  EXPECT_EQ(got->already_applied, want.value("already_applied", false));
  if (want.contains("lines")) {
    EXPECT_EQ(json(got->lines), want["lines"]);
  }
  if (want.contains("warnings")) {
    EXPECT_EQ(json(got->warnings).size(), want["warnings"].get<size_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, EditCase, ::testing::ValuesIn(testing::LoadUnitCases("text_edit.json", "edits")),
                         testing::CaseName);

class CheckUtf8TextCase : public ::testing::TestWithParam<json> {};

TEST_P(CheckUtf8TextCase, MatchesExpectation) {
  const json& c = GetParam();
  absl::Status s = CheckUtf8Text(Bytes(c, "content"), "f.txt");
  if (c.contains("error")) {
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(core::BareTerms(s.message()).find(c["error"].get<std::string>()), std::string::npos) << s.message();
  } else {
    EXPECT_TRUE(s.ok()) << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CheckUtf8TextCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("text_edit.json", "check_utf8_text")),
                         testing::CaseName);

class BreakNormalizedTextCase : public ::testing::TestWithParam<json> {};

// Every match found in the normalised view maps back to original bytes that
// hold the same text once their "\r\n" become "\n".
TEST_P(BreakNormalizedTextCase, MapsMatchesBack) {
  const json& c = GetParam();
  std::string text = Bytes(c, "text");
  BreakNormalizedText t(text);
  EXPECT_EQ(json(std::string(t.norm())).dump(), json(NormalizeBreaks(text)).dump());
  std::string needle = NormalizeBreaks(Bytes(c, "needle"));
  std::vector<std::string> spans;
  for (size_t at : FindAllText(t.norm(), needle)) {
    size_t b = t.ToOriginal(at), e = t.ToOriginal(at + needle.size());
    spans.push_back(text.substr(b, e - b));
    EXPECT_EQ(NormalizeBreaks(spans.back()), needle);
  }
  EXPECT_EQ(json(spans), c.at("spans"));
}

INSTANTIATE_TEST_SUITE_P(Cases, BreakNormalizedTextCase,
                         ::testing::ValuesIn(testing::LoadUnitCases("text_edit.json", "break_normalized")),
                         testing::CaseName);

// A short block that replaces everywhere can multiply a file's size (328
// bytes turned 1 MB into 200 MB at 600 MB of memory): the result's size is
// computed first and refused over the limit, with nothing built.
TEST(ReplaceEvery, RefusesAResultOverTheLimitBeforeBuildingIt) {
  const std::string content(1 << 20, 'x');  // 1 MB, a million matches
  const std::string grown(200, 'y');
  absl::StatusOr<EditResult> r = ReplaceEvery(content, "x", grown, std::nullopt, "big.txt", 10 << 20);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_NE(r.status().message().find("replacing the 1048576 occurrences in 'big.txt' would make it 209715200 bytes, "
                                      "over the limit of 10485760 bytes"),
            std::string::npos)
      << r.status();
  // At the limit exactly it is made.
  r = ReplaceEvery("ab\nab\n", "b", "cc", std::nullopt, "f", 8);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->content, "acc\nacc\n");
  EXPECT_FALSE(ReplaceEvery("ab\nab\n", "b", "cc", std::nullopt, "f", 7).ok());
  absl::StatusOr<EditResult> ranges = ReplaceRanges("[a] [b]", "[", "]", "<long>", std::nullopt, "f", 10);
  EXPECT_EQ(ranges.status().code(), absl::StatusCode::kFailedPrecondition) << ranges.status();
}

// SplicedSize agrees with ApplySplices, line breaks adapted per span.
TEST(SplicedSize, IsTheSizeApplySplicesBuilds) {
  const std::string text = "a\r\nb\r\nc\nd\n";
  for (absl::string_view new_text : {"", "x", "x\ny\n", "x\r\ny"}) {
    const std::vector<Splice> spans = {{0, 3}, {6, 8}, {8, 9}};
    EXPECT_EQ(SplicedSize(text, spans, new_text), ApplySplices(text, spans, new_text).size()) << new_text;
  }
}

TEST(JoinNumbers, ListsAndElides) {
  EXPECT_EQ(JoinNumbers({"1"}), "1");
  EXPECT_EQ(JoinNumbers({"1", "2"}), "1 and 2");
  EXPECT_EQ(JoinNumbers({"1", "2", "3"}), "1, 2 and 3");
  EXPECT_EQ(JoinNumbers({"1", "2", "3", "4"}, 2), "1, 2 and 2 more");
}

}  // namespace
}  // namespace clada::fs_ops::internal
