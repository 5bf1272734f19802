// Runs test-data/apply_patch_reader.json: each case's text is read, the
// patches compared in full (spans, operations, hunks, errors, warnings), and,
// when the case has files, applied to an in-memory tree.
#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/apply-patch-reader/test/memory_apply.h"
#include "proj/comp/core/test/span_testing.h"

namespace clada::apply_patch_reader {
namespace {

using hunk_apply::PatchLine;
using nlohmann::json;

std::vector<json> LoadCases() {
  std::ifstream in("proj/comp/apply-patch-reader/test-data/apply_patch_reader.json");
  EXPECT_TRUE(in.good()) << "cannot open test-data/apply_patch_reader.json";
  if (!in.good()) return {};
  return json::parse(in).at("cases").get<std::vector<json>>();
}

std::string LineText(const PatchLine& l) {
  if (l.kind == PatchLine::kContext && l.text.empty()) return "";
  const char* prefix = l.kind == PatchLine::kAdd ? "+" : l.kind == PatchLine::kDelete ? "-" : " ";
  return absl::StrCat(prefix, l.text);
}

void ExpectContains(const std::string& haystack, const json& parts, const std::string& what) {
  for (const json& p : parts) {
    EXPECT_NE(haystack.find(p.get<std::string>()), std::string::npos)
        << what << " lacks '" << p.get<std::string>() << "':\n"
        << haystack;
  }
}

void CheckOp(const FileOp& op, const json& e) {
  EXPECT_EQ(OpKindName(op.kind), e.at("kind").get<std::string>());
  EXPECT_EQ(op.path, e.at("path").get<std::string>());
  if (e.contains("move_to")) {
    if (e["move_to"].is_null()) {
      EXPECT_FALSE(op.move_to().has_value());
    } else {
      ASSERT_TRUE(op.move_to().has_value());
      EXPECT_EQ(*op.move_to(), e["move_to"].get<std::string>());
    }
  } else {
    EXPECT_FALSE(op.move_to().has_value());
  }
  EXPECT_EQ(op.content(), e.value("content", ""));
  if (e.contains("lines")) {
    EXPECT_EQ(op.span.first_line, e["lines"][0].get<int>());
    EXPECT_EQ(op.span.last_line, e["lines"][1].get<int>());
  }
  const json hunks = e.value("hunks", json::array());
  ASSERT_EQ(op.hunks().size(), hunks.size());
  for (size_t k = 0; k < hunks.size(); ++k) {
    const hunk_apply::Hunk& h = op.hunks()[k];
    const json& eh = hunks[k];
    std::vector<std::string> lines;
    for (const PatchLine& l : h.lines) lines.push_back(LineText(l));
    EXPECT_EQ(lines, eh.at("lines").get<std::vector<std::string>>()) << "hunk " << k + 1;
    EXPECT_EQ(h.anchors, eh.value("anchors", std::vector<std::string>{})) << "hunk " << k + 1;
    EXPECT_EQ(h.is_end_of_file, eh.value("eof", false)) << "hunk " << k + 1;
    if (eh.contains("source_line")) EXPECT_EQ(h.source_line, eh["source_line"].get<int>());
  }
}

class ReaderCases : public ::testing::TestWithParam<json> {};

TEST_P(ReaderCases, Reads) {
  const json& c = GetParam();
  const std::string text = c.at("text").get<std::string>();
  std::vector<Patch> patches = ReadPatches(text);
  const json& expected = c.at("patches");
  ASSERT_EQ(patches.size(), expected.size());
  std::vector<std::string> warnings;
  for (size_t p = 0; p < patches.size(); ++p) {
    const Patch& got = patches[p];
    const json& e = expected[p];
    EXPECT_EQ(got.span.first_line, e.at("lines")[0].get<int>()) << "patch " << p + 1;
    EXPECT_EQ(got.span.last_line, e.at("lines")[1].get<int>()) << "patch " << p + 1;
    // The byte span starts at its first line and ends after its last.
    ASSERT_LE(got.span.begin, got.span.end);
    ASSERT_LE(got.span.end, text.size());
    const std::string spanned = text.substr(got.span.begin, got.span.end - got.span.begin);
    EXPECT_TRUE(got.span.begin == 0 || text[got.span.begin - 1] == '\n');
    EXPECT_TRUE(got.span.end == text.size() || text[got.span.end - 1] == '\n');
    EXPECT_EQ(std::count(text.begin(), text.begin() + got.span.begin, '\n') + 1, got.span.first_line);
    EXPECT_EQ(std::count(spanned.begin(), spanned.end(), '\n') + (spanned.empty() || spanned.back() == '\n' ? 0 : 1),
              got.span.last_line - got.span.first_line + 1);
    EXPECT_EQ(FindPatches(text)[p].begin, got.span.begin);
    // Ended by its `*** End Patch` unless the case says it is not.
    EXPECT_EQ(got.ended, e.value("ended", true)) << "patch " << p + 1;

    const json& ops = e.at("ops");
    ASSERT_EQ(got.ops.size(), ops.size()) << "patch " << p + 1;
    for (size_t k = 0; k < ops.size(); ++k) CheckOp(got.ops[k], ops[k]);
    const json errors = e.value("errors", json::array());
    ASSERT_EQ(got.errors.size(), errors.size()) << (got.errors.empty() ? "" : got.errors[0].message);
    for (size_t k = 0; k < errors.size(); ++k) {
      EXPECT_EQ(got.errors[k].code, errors[k].at("code").get<std::string>());
      EXPECT_EQ(got.errors[k].line, errors[k].at("line").get<int>());
      EXPECT_FALSE(got.errors[k].message.empty());
      EXPECT_FALSE(got.errors[k].fix.empty());
      ExpectContains(got.errors[k].message, errors[k].value("message_contains", json::array()), "message");
      ExpectContains(got.errors[k].fix, errors[k].value("fix_contains", json::array()), "fix");
    }
    warnings.insert(warnings.end(), got.warnings.begin(), got.warnings.end());
    for (const FileOp& op : got.ops) warnings.insert(warnings.end(), op.warnings().begin(), op.warnings().end());
  }
  const std::string all_warnings = absl::StrJoin(warnings, "\n");
  if (c.contains("warnings_contain")) {
    ExpectContains(all_warnings, c["warnings_contain"], "warnings");
  } else {
    EXPECT_TRUE(warnings.empty()) << all_warnings;
  }

  if (!c.contains("files_before")) return;
  testing::FileMap files = c["files_before"].get<testing::FileMap>();
  std::vector<std::string> apply_errors, apply_warnings;
  for (const Patch& p : patches) {
    for (const FileOp& op : p.ops) {
      testing::OpOutcome r = testing::ApplyFileOp(op, &files);
      if (!r.ok) apply_errors.push_back(r.error);
      apply_warnings.insert(apply_warnings.end(), r.warnings.begin(), r.warnings.end());
    }
  }
  EXPECT_EQ(files, c.at("files_after").get<testing::FileMap>());
  const std::string errors_text = absl::StrJoin(apply_errors, "\n");
  if (c.contains("apply_errors_contain")) {
    ExpectContains(errors_text, c["apply_errors_contain"], "apply errors");
  } else {
    EXPECT_TRUE(apply_errors.empty()) << errors_text;
  }
  ExpectContains(absl::StrJoin(apply_warnings, "\n"), c.value("apply_warnings_contain", json::array()),
                 "apply warnings");
}

// The envelopes without their operations are ReadPatches' envelopes: the
// same spans, ends, errors (empty_patch included) and warnings.
TEST_P(ReaderCases, EnvelopesAreThePatchesWithoutTheirOperations) {
  const json& c = GetParam();
  const std::string text = c.at("text").get<std::string>();
  const std::vector<Patch> patches = ReadPatches(text);
  const std::vector<Patch> envelopes = ReadEnvelopes(text);
  ASSERT_EQ(envelopes.size(), patches.size());
  for (size_t k = 0; k < patches.size(); ++k) {
    EXPECT_TRUE(envelopes[k].ops.empty());
    EXPECT_EQ(envelopes[k].span.begin, patches[k].span.begin);
    EXPECT_EQ(envelopes[k].span.end, patches[k].span.end);
    EXPECT_EQ(envelopes[k].ended, patches[k].ended);
    EXPECT_EQ(envelopes[k].warnings, patches[k].warnings);
    ASSERT_EQ(envelopes[k].errors.size(), patches[k].errors.size());
    for (size_t e = 0; e < patches[k].errors.size(); ++e) {
      EXPECT_EQ(envelopes[k].errors[e].code, patches[k].errors[e].code);
      EXPECT_EQ(envelopes[k].errors[e].line, patches[k].errors[e].line);
    }
  }
}

// A piece of an answer read with its origin (ReadOptions) gives what the
// same piece gives after as many empty lines as stand before it (how the
// readers' adapter read each block span before): the same envelopes,
// operations, hunks, errors, warnings and lines, and its bytes the answer's.
TEST_P(ReaderCases, BasedReadEqualsPaddedRead) {
  const std::string text = GetParam().at("text").get<std::string>();
  constexpr int kLine = 41;       // the piece's first line in its answer
  constexpr size_t kByte = 5000;  // and its first byte
  const std::string padded = std::string(kLine - 1, '\n') + text;
  auto same_span = [&](const SourceSpan& based, const SourceSpan& padded) {
    core::testing::ExpectSameSpanWithBase(based, padded, kByte, kLine - 1);
  };
  for (const bool keep_ops : {true, false}) {
    const std::vector<Patch> p = keep_ops ? ReadPatches(padded) : ReadEnvelopes(padded);
    const std::vector<Patch> b =
        keep_ops ? ReadPatches(text, ReadOptions{kLine, kByte}) : ReadEnvelopes(text, ReadOptions{kLine, kByte});
    ASSERT_EQ(b.size(), p.size());
    for (size_t k = 0; k < b.size(); ++k) {
      same_span(b[k].span, p[k].span);
      EXPECT_EQ(b[k].ended, p[k].ended);
      EXPECT_EQ(b[k].warnings, p[k].warnings);
      ASSERT_EQ(b[k].errors.size(), p[k].errors.size());
      for (size_t e = 0; e < b[k].errors.size(); ++e) {
        EXPECT_EQ(b[k].errors[e].code, p[k].errors[e].code);
        EXPECT_EQ(b[k].errors[e].line, p[k].errors[e].line);
        EXPECT_EQ(b[k].errors[e].message, p[k].errors[e].message);
        EXPECT_EQ(b[k].errors[e].fix, p[k].errors[e].fix);
      }
      ASSERT_EQ(b[k].ops.size(), p[k].ops.size());
      for (size_t o = 0; o < b[k].ops.size(); ++o) {
        const FileOp& bo = b[k].ops[o];
        const FileOp& po = p[k].ops[o];
        EXPECT_EQ(bo.kind, po.kind);
        EXPECT_EQ(bo.path, po.path);
        same_span(bo.span, po.span);
        EXPECT_EQ(bo.move_to(), po.move_to());
        EXPECT_EQ(bo.content(), po.content());
        EXPECT_EQ(bo.warnings(), po.warnings());
        ASSERT_EQ(bo.hunks().size(), po.hunks().size());
        for (size_t h = 0; h < bo.hunks().size(); ++h) {
          const hunk_apply::Hunk& bh = bo.hunks()[h];
          const hunk_apply::Hunk& ph = po.hunks()[h];
          EXPECT_EQ(bh.source_line, ph.source_line);
          EXPECT_EQ(bh.anchors, ph.anchors);
          EXPECT_EQ(bh.is_end_of_file, ph.is_end_of_file);
          ASSERT_EQ(bh.lines.size(), ph.lines.size());
          for (size_t l = 0; l < bh.lines.size(); ++l) EXPECT_EQ(LineText(bh.lines[l]), LineText(ph.lines[l]));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TestData, ReaderCases, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

// Any bytes: no crash, spans inside the text and in order.
TEST(ApplyPatchReader, SpansStayInsideTheText) {
  const std::string texts[] = {"",
                               "\n",
                               "*** Begin Patch",
                               "*** Begin Patch\r",
                               "\r\n\r\n",
                               "*** Update File:",
                               "<<'EOF'\n*** Begin Patch\nEOF",
                               "```\n*** Begin Patch\n```\n*** End Patch\n"};
  for (const std::string& t : texts) {
    size_t previous_end = 0;
    for (const Patch& p : ReadPatches(t)) {
      EXPECT_LE(previous_end, p.span.begin) << t;
      EXPECT_LE(p.span.begin, p.span.end) << t;
      EXPECT_LE(p.span.end, t.size()) << t;
      previous_end = p.span.end;
    }
  }
}

// The prompt's example is a patch clada reads: four operations of every
// kind, a move among them, no error and no warning.
TEST(ApplyPatchInstructions, ExampleReadsWithoutErrors) {
  const std::string prompt = ApplyPatchInstructions();
  const std::vector<Patch> patches = ReadPatches(prompt);
  ASSERT_EQ(patches.size(), 1u);
  for (const ParseError& e : patches[0].errors) ADD_FAILURE() << e.message;
  EXPECT_TRUE(patches[0].warnings.empty());
  ASSERT_EQ(patches[0].ops.size(), 4u);
  EXPECT_EQ(patches[0].ops[0].kind, OpKind::kAdd);
  EXPECT_EQ(patches[0].ops[0].content(), "Hello, world.\nSecond line.\n");
  EXPECT_EQ(patches[0].ops[1].kind, OpKind::kUpdate);
  EXPECT_EQ(patches[0].ops[2].move_to().value_or(""), "src/new_name.py");
  EXPECT_EQ(patches[0].ops[3].kind, OpKind::kDelete);
  for (const char* word : {"*** Begin Patch", "*** End Patch", "*** End of File", "@@", "patch-1", "unique"}) {
    EXPECT_TRUE(absl::StrContains(prompt, word)) << word;
  }
}

}  // namespace
}  // namespace clada::apply_patch_reader
