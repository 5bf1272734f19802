// Runs test-data/patch_text.json: each case's text parsed as a unified diff
// (ParseDiffs) or as patch envelopes (ParsePatches), with its origin when it
// has one; the file patches, operations and errors compared; and, when the
// case has files, applied to an in-memory tree with the executor's
// semantics. What the readers add for an answer (a fence of headerless
// hunks, an answer quoted as Markdown) is not this component's: those cases
// read nothing here.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/patch-text/src/diff_format.h"
#include "proj/comp/patch-text/src/envelope_format.h"
#include "proj/comp/patch-text/src/text_origin.h"
#include "proj/comp/patch-text/test/diff_memory_apply.h"
#include "proj/comp/patch-text/test/envelope_memory_apply.h"

namespace clada::patch_text {
namespace {

using nlohmann::json;

std::vector<json> LoadCases() {
  std::ifstream in("proj/comp/patch-text/test-data/patch_text.json");
  EXPECT_TRUE(in.good()) << "cannot open test-data/patch_text.json";
  if (!in.good()) return {};
  return json::parse(in).at("cases").get<std::vector<json>>();
}

TextOrigin OriginOf(const json& c) {
  TextOrigin o;
  if (c.contains("origin")) {
    o.first_line = c["origin"].at("first_line").get<int>();
    o.first_byte = c["origin"].at("first_byte").get<size_t>();
  }
  return o;
}

void ExpectContains(const std::vector<std::string>& got, const json& c, const std::string& key) {
  const std::string all = absl::StrJoin(got, "\n");
  if (!c.contains(key)) {
    EXPECT_TRUE(got.empty()) << key << ":\n" << all;
    return;
  }
  for (const json& part : c[key]) {
    EXPECT_TRUE(absl::StrContains(all, part.get<std::string>())) << key << " lacks '" << part << "':\n" << all;
  }
}

template <typename Error>
void ExpectErrors(const std::vector<Error>& got, const json& expected) {
  ASSERT_EQ(got.size(), expected.size()) << (got.empty() ? "" : got[0].message);
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].code, expected[k].at("code").get<std::string>());
    EXPECT_EQ(got[k].line, expected[k].at("line").get<int>());
    EXPECT_FALSE(got[k].message.empty());
    EXPECT_FALSE(got[k].fix.empty());
  }
}

void RunDiffCase(const json& c) {
  const std::string text = c.at("text").get<std::string>();
  const TextOrigin origin = OriginOf(c);
  std::vector<FilePatch> files;
  const Diffs d = ParseDiffs(text, origin, [&files](FilePatch&& f) { files.push_back(std::move(f)); });
  EXPECT_TRUE(d.files.empty());
  const json expected = c.value("files", json::array());
  ASSERT_EQ(files.size(), expected.size()) << (d.errors.empty() ? "" : d.errors[0].message);
  std::vector<std::string> warnings;
  for (size_t k = 0; k < files.size(); ++k) {
    const json& e = expected[k];
    EXPECT_EQ(FileKindName(files[k].kind), e.value("kind", "update"));
    EXPECT_EQ(files[k].path, e.at("path").get<std::string>());
    EXPECT_EQ(files[k].executable, e.value("executable", false));
    EXPECT_EQ(files[k].hunks.size(), e.value("hunks", 0u));
    if (e.contains("lines")) {
      EXPECT_EQ(files[k].span.first_line, e["lines"][0].get<int>());
      EXPECT_EQ(files[k].span.last_line, e["lines"][1].get<int>());
    }
    warnings.insert(warnings.end(), files[k].warnings.begin(), files[k].warnings.end());
  }
  ExpectErrors(d.errors, c.value("errors", json::array()));
  ExpectContains(warnings, c, "warnings_contain");
  if (origin.first_line == 1 && origin.first_byte == 0) {
    // Without an origin, the kept form reads the same.
    const Diffs kept = ParseDiffs(text);
    EXPECT_EQ(kept.files.size(), files.size());
    EXPECT_EQ(kept.errors.size(), d.errors.size());
  }
  if (!c.contains("files_before")) return;
  testing::FileMap tree = c["files_before"].get<testing::FileMap>();
  std::vector<std::string> apply_warnings;
  std::vector<bool> already;
  for (const FilePatch& f : files) {
    const testing::Outcome o = testing::ApplyToTree(f, &tree);
    if (c.contains("apply_error_contains")) {
      EXPECT_FALSE(o.ok);
      EXPECT_NE(o.error.find(c["apply_error_contains"].get<std::string>()), std::string::npos) << o.error;
    } else {
      EXPECT_TRUE(o.ok) << o.error;
    }
    apply_warnings.insert(apply_warnings.end(), o.warnings.begin(), o.warnings.end());
    already.push_back(o.already_applied);
  }
  // Per file section: whether the tree already held its result.
  EXPECT_EQ(already, c.value("already_applied", std::vector<bool>(files.size(), false)));
  EXPECT_EQ(tree, c.at("files_after").get<testing::FileMap>());
  ExpectContains(apply_warnings, c, "apply_warnings_contain");
}

void RunEnvelopeCase(const json& c) {
  const std::string text = c.at("text").get<std::string>();
  const TextOrigin origin = OriginOf(c);
  const std::vector<Patch> patches = ParsePatches(text, origin);
  const std::vector<Patch> envelopes = ParseEnvelopes(text, origin);
  const json expected = c.at("patches");
  ASSERT_EQ(patches.size(), expected.size());
  ASSERT_EQ(envelopes.size(), patches.size());
  std::vector<std::string> warnings;
  for (size_t k = 0; k < patches.size(); ++k) {
    const Patch& p = patches[k];
    const json& e = expected[k];
    EXPECT_EQ(p.ended, e.at("ended").get<bool>());
    if (e.contains("lines")) {
      EXPECT_EQ(p.span.first_line, e["lines"][0].get<int>());
      EXPECT_EQ(p.span.last_line, e["lines"][1].get<int>());
    }
    ExpectErrors(p.errors, e.value("errors", json::array()));
    const json ops = e.at("ops");
    ASSERT_EQ(p.ops.size(), ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      EXPECT_EQ(OpKindName(p.ops[i].kind), ops[i].at("kind").get<std::string>());
      EXPECT_EQ(p.ops[i].path, ops[i].at("path").get<std::string>());
      EXPECT_EQ(p.ops[i].move_to().value_or(""), ops[i].value("move_to", ""));
      EXPECT_EQ(p.ops[i].hunks().size(), ops[i].value("hunks", 0u));
    }
    // The envelopes are the patches without their operations.
    EXPECT_TRUE(envelopes[k].ops.empty());
    EXPECT_EQ(envelopes[k].ended, p.ended);
    EXPECT_EQ(envelopes[k].warnings, p.warnings);
    EXPECT_EQ(envelopes[k].span.begin, p.span.begin);
    EXPECT_EQ(envelopes[k].span.end, p.span.end);
    warnings.insert(warnings.end(), p.warnings.begin(), p.warnings.end());
  }
  ExpectContains(warnings, c, "warnings_contain");
  if (!c.contains("files_before")) return;
  testing::FileMap tree = c["files_before"].get<testing::FileMap>();
  for (const Patch& p : patches) {
    for (const FileOp& op : p.ops) {
      const testing::OpOutcome o = testing::ApplyFileOp(op, &tree);
      EXPECT_TRUE(o.ok) << o.error;
    }
  }
  EXPECT_EQ(tree, c.at("files_after").get<testing::FileMap>());
}

class FormatCases : public ::testing::TestWithParam<json> {};

TEST_P(FormatCases, Parses) {
  const json& c = GetParam();
  const std::string format = c.at("format").get<std::string>();
  if (format == "diff") {
    RunDiffCase(c);
  } else {
    ASSERT_EQ(format, "envelope");
    RunEnvelopeCase(c);
  }
}

INSTANTIATE_TEST_SUITE_P(TestData, FormatCases, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

TEST(IsFileHeader, GitLineOrMinusLineBeforePlusLine) {
  EXPECT_TRUE(IsFileHeader("diff --git a/x b/x", ""));
  EXPECT_TRUE(IsFileHeader("--- a/x", "+++ b/x"));
  EXPECT_FALSE(IsFileHeader("--- a/x", "@@ -1 +1 @@"));
  EXPECT_FALSE(IsFileHeader("--- a/x", ""));
  EXPECT_FALSE(IsFileHeader("+++ b/x", "--- a/x"));
  EXPECT_FALSE(IsFileHeader("diff -u a b", ""));
}

TEST(IsBeginPatchLine, TheMarkerAndTheSpellingsReadWithAWarning) {
  EXPECT_TRUE(IsBeginPatchLine("*** Begin Patch"));
  EXPECT_TRUE(IsBeginPatchLine("  *** Begin Patch  "));
  EXPECT_TRUE(IsBeginPatchLine("***begin patch***"));
  EXPECT_FALSE(IsBeginPatchLine("> *** Begin Patch"));
  EXPECT_FALSE(IsBeginPatchLine("*** End Patch"));
  EXPECT_FALSE(IsBeginPatchLine("Begin Patch"));
}

// Found by udiff_reader_fuzz: a `diff --git` line whose names are three
// bytes ("  a") made the equal-halves split read past its end (threw
// std::out_of_range).
TEST(ParseDiffs, ShortGitHeaderNamesDoNotThrow) {
  const std::string text = std::string("diff --git   a\n-b\n+B\n\nThat is al\xca" "lf\n");
  Diffs d;
  EXPECT_NO_THROW(d = ParseDiffs(text));
}

// issue 17 #9: a million one-line deletes held 184 bytes an operation
// (its move, content, hunks and warnings, all empty) in a vector that
// doubled; a delete is now 72 bytes, in a deque.
TEST(FileOp, IsSmallAndCopiesItsDetails) {
  EXPECT_LE(sizeof(FileOp), 72u);
  const std::vector<Patch> patches = ParsePatches(
      "*** Begin Patch\n*** Delete File: a\n*** Update File: b\n*** Move to: c\n@@\n-x\n+y\n*** End Patch\n");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].ops.size(), 2u);
  const FileOp& del = patches[0].ops[0];
  EXPECT_TRUE(!del.move_to().has_value() && del.content().empty() && del.hunks().empty() && del.warnings().empty());
  FileOp copy = patches[0].ops[1];
  EXPECT_EQ(copy.move_to().value_or(""), "c");
  ASSERT_EQ(copy.hunks().size(), 1u);
  copy.details().hunks.clear();
  EXPECT_EQ(patches[0].ops[1].hunks().size(), 1u);
  FileOp assigned;
  assigned = del;
  EXPECT_EQ(assigned.path, "a");
  EXPECT_FALSE(assigned.move_to().has_value());
}

}  // namespace
}  // namespace clada::patch_text
