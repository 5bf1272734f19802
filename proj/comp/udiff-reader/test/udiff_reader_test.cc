// Runs test-data/udiff_reader.json (each case's text read, the file patches
// compared, and applied to an in-memory tree when the case has files) and
// Aider's udiff parse cases of ../shared/peers/udiff.jsonl.
#include "proj/comp/udiff-reader/src/udiff_reader.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/test/span_testing.h"
#include "proj/comp/udiff-reader/test/memory_apply.h"

namespace clada::udiff_reader {
namespace {

using nlohmann::json;

std::vector<json> LoadCases() {
  std::ifstream in("proj/comp/udiff-reader/test-data/udiff_reader.json");
  EXPECT_TRUE(in.good()) << "cannot open test-data/udiff_reader.json";
  if (!in.good()) return {};
  return json::parse(in).at("cases").get<std::vector<json>>();
}

std::vector<json> LoadPeerCases() {
  std::ifstream in("external/peers/udiff.jsonl");
  EXPECT_TRUE(in.good()) << "cannot open external/peers/udiff.jsonl";
  std::vector<json> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) cases.push_back(json::parse(line));
  }
  return cases;
}

// A hunk line as written in the diff ("\ No newline..." after it when marked).
std::vector<std::string> Render(const DiffHunk& h) {
  std::vector<std::string> out;
  for (const DiffLine& l : h.lines) {
    out.push_back(absl::StrCat(std::string(1, l.kind), l.text));
    if (!l.newline) out.push_back("\\");
  }
  return out;
}

void ExpectContains(const std::string& haystack, const json& parts, const std::string& what) {
  for (const json& p : parts) {
    EXPECT_TRUE(absl::StrContains(haystack, p.get<std::string>()))
        << what << " lacks '" << p.get<std::string>() << "':\n" << haystack;
  }
}

class ReaderCases : public ::testing::TestWithParam<json> {};

TEST_P(ReaderCases, Reads) {
  const json& c = GetParam();
  const std::string text = c.at("text").get<std::string>();
  const Diffs d = ReadDiffs(text);
  const json files = c.value("files", json::array());
  ASSERT_EQ(d.files.size(), files.size()) << (d.errors.empty() ? "" : d.errors[0].message);
  std::vector<std::string> warnings;
  for (size_t k = 0; k < files.size(); ++k) {
    const FilePatch& f = d.files[k];
    const json& e = files[k];
    EXPECT_EQ(FileKindName(f.kind), e.value("kind", "update"));
    EXPECT_EQ(f.path, e.at("path").get<std::string>());
    EXPECT_EQ(f.move_to.value_or(""), e.value("move_to", ""));
    EXPECT_EQ(f.copy_from.value_or(""), e.value("copy_from", ""));
    EXPECT_EQ(f.executable, e.value("executable", false));
    if (e.contains("lines")) {
      EXPECT_EQ(f.span.first_line, e["lines"][0].get<int>());
      EXPECT_EQ(f.span.last_line, e["lines"][1].get<int>());
    }
    if (e.contains("hunks")) {
      ASSERT_EQ(f.hunks.size(), e["hunks"].size());
      for (size_t h = 0; h < f.hunks.size(); ++h) {
        const json& eh = e["hunks"][h];
        EXPECT_EQ(Render(f.hunks[h]), eh.at("lines").get<std::vector<std::string>>()) << "hunk " << h + 1;
        if (eh.contains("range")) {
          std::vector<int> range = {f.hunks[h].old_start, f.hunks[h].old_count, f.hunks[h].new_start,
                                    f.hunks[h].new_count};
          EXPECT_EQ(range, eh["range"].get<std::vector<int>>());
        }
      }
    }
    warnings.insert(warnings.end(), f.warnings.begin(), f.warnings.end());
  }
  const json errors = c.value("errors", json::array());
  ASSERT_EQ(d.errors.size(), errors.size()) << (d.errors.empty() ? "" : d.errors[0].message);
  for (size_t k = 0; k < errors.size(); ++k) {
    EXPECT_EQ(d.errors[k].code, errors[k].at("code").get<std::string>());
    EXPECT_EQ(d.errors[k].line, errors[k].at("line").get<int>());
    EXPECT_FALSE(d.errors[k].message.empty());
    EXPECT_FALSE(d.errors[k].fix.empty());
    ExpectContains(d.errors[k].message, errors[k].value("message_contains", json::array()), "message");
    ExpectContains(d.errors[k].fix, errors[k].value("fix_contains", json::array()), "fix");
  }
  const std::string all = absl::StrJoin(warnings, "\n");
  if (c.contains("warnings_contain")) {
    ExpectContains(all, c["warnings_contain"], "warnings");
  } else {
    EXPECT_TRUE(warnings.empty()) << all;
  }
  size_t previous_end = 0;
  for (const SourceSpan& s : FindDiffs(text)) {
    EXPECT_LE(previous_end, s.begin);
    EXPECT_TRUE(s.begin == 0 || text[s.begin - 1] == '\n');
    previous_end = s.end;
  }

  if (!c.contains("files_before")) return;
  testing::FileMap tree = c["files_before"].get<testing::FileMap>();
  std::vector<std::string> apply_errors, apply_warnings;
  for (const FilePatch& f : d.files) {
    testing::Outcome o = testing::ApplyToTree(f, &tree);
    if (!o.ok) apply_errors.push_back(o.error);
    apply_warnings.insert(apply_warnings.end(), o.warnings.begin(), o.warnings.end());
  }
  EXPECT_EQ(tree, c.at("files_after").get<testing::FileMap>());
  const std::string errors_text = absl::StrJoin(apply_errors, "\n");
  if (c.contains("apply_errors_contain")) {
    ExpectContains(errors_text, c["apply_errors_contain"], "apply errors");
  } else {
    EXPECT_TRUE(apply_errors.empty()) << errors_text;
  }
  const std::string warnings_text = absl::StrJoin(apply_warnings, "\n");
  if (c.contains("apply_warnings_contain")) {
    ExpectContains(warnings_text, c["apply_warnings_contain"], "apply warnings");
  } else {
    EXPECT_TRUE(apply_warnings.empty()) << warnings_text;
  }
}

// A piece of an answer read with its origin (ReadOptions) gives what the
// same piece gives after as many empty lines as stand before it (how the
// readers' adapter read each block span before): the same files, hunks,
// errors, warnings and lines, and its bytes the answer's.
TEST_P(ReaderCases, BasedReadEqualsPaddedRead) {
  const std::string text = GetParam().at("text").get<std::string>();
  constexpr int kLine = 41;       // the piece's first line in its answer
  constexpr size_t kByte = 5000;  // and its first byte
  const std::string padded = std::string(kLine - 1, '\n') + text;
  auto same_span = [&](const SourceSpan& based, const SourceSpan& padded) {
    core::testing::ExpectSameSpanWithBase(based, padded, kByte, kLine - 1);
  };
  std::vector<FilePatch> pf, bf;
  const Diffs p = ReadDiffs(padded, [&](FilePatch&& f) { pf.push_back(std::move(f)); });
  const Diffs b = ReadDiffs(text, ReadOptions{kLine, kByte}, [&](FilePatch&& f) { bf.push_back(std::move(f)); });
  ASSERT_EQ(bf.size(), pf.size());
  for (size_t k = 0; k < bf.size(); ++k) {
    EXPECT_EQ(bf[k].kind, pf[k].kind);
    EXPECT_EQ(bf[k].path, pf[k].path);
    EXPECT_EQ(bf[k].move_to, pf[k].move_to);
    EXPECT_EQ(bf[k].warnings, pf[k].warnings);
    EXPECT_EQ(bf[k].executable, pf[k].executable);
    same_span(bf[k].span, pf[k].span);
    ASSERT_EQ(bf[k].hunks.size(), pf[k].hunks.size());
    for (size_t h = 0; h < bf[k].hunks.size(); ++h) {
      const DiffHunk& bh = bf[k].hunks[h];
      const DiffHunk& ph = pf[k].hunks[h];
      EXPECT_EQ(bh.source_line, ph.source_line);
      EXPECT_EQ(bh.old_start, ph.old_start);
      EXPECT_EQ(bh.old_count, ph.old_count);
      EXPECT_EQ(bh.new_start, ph.new_start);
      EXPECT_EQ(bh.new_count, ph.new_count);
      EXPECT_EQ(bh.section, ph.section);
      EXPECT_EQ(Render(bh), Render(ph));
    }
  }
  ASSERT_EQ(b.errors.size(), p.errors.size());
  for (size_t k = 0; k < b.errors.size(); ++k) {
    EXPECT_EQ(b.errors[k].code, p.errors[k].code);
    EXPECT_EQ(b.errors[k].line, p.errors[k].line);
    EXPECT_EQ(b.errors[k].message, p.errors[k].message);
    EXPECT_EQ(b.errors[k].fix, p.errors[k].fix);
    same_span(b.errors[k].span, p.errors[k].span);
  }
}

INSTANTIATE_TEST_SUITE_P(TestData, ReaderCases, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

// Aider's udiff cases: the same files and hunk lines as Aider finds.
class PeerCases : public ::testing::TestWithParam<json> {};

TEST_P(PeerCases, SameHunksAsAider) {
  const json& c = GetParam();
  const Diffs d = ReadDiffs(c.at("answer").get<std::string>());
  EXPECT_TRUE(d.errors.empty());
  const json& expected = c.at("expect_edits");
  ASSERT_EQ(d.files.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(d.files[k].path, expected[k].at("path").get<std::string>());
    ASSERT_EQ(d.files[k].hunks.size(), 1u);
    std::vector<std::string> lines;
    for (const std::string& l : Render(d.files[k].hunks[0])) lines.push_back(l + "\n");
    EXPECT_EQ(lines, expected[k].at("hunk").get<std::vector<std::string>>());
  }
}

INSTANTIATE_TEST_SUITE_P(Peers, PeerCases, ::testing::ValuesIn(LoadPeerCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

// Odd inputs: no crash, spans inside the text.
TEST(UdiffReader, OddInputs) {
  const std::string texts[] = {"", "--- a", "--- a\n+++ b", "--- a\n+++ b\n@@", "diff --git ", "diff --git a/x",
                               "@@ -1 +1 @@\n-a\n+b\n", "--- a\n+++ b\n@@ -99999999999,1 +1 @@\n-x\n"};
  for (const std::string& t : texts) {
    for (const SourceSpan& s : FindDiffs(t)) {
      EXPECT_LE(s.begin, s.end) << t;
      EXPECT_LE(s.end, t.size()) << t;
    }
    for (const FilePatch& f : ReadDiffs(t).files) (void)ApplyFilePatch("x\n", f);
  }
}

// The prompt's example is a diff clada reads: one file, one hunk whose
// counts are right (no warning), no error.
TEST(UdiffReader, StreamedFilesAreTheFilesRead) {
  const std::string text =
      "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
      "--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
      "--- a/nohunk\n+++ b/nohunk\n"
      "diff --git a/old b/new\nrename from old\nrename to new\n";
  const Diffs kept = ReadDiffs(text);
  std::vector<FilePatch> streamed;
  const Diffs rest = ReadDiffs(text, [&streamed](FilePatch&& f) { streamed.push_back(std::move(f)); });
  EXPECT_TRUE(rest.files.empty());
  ASSERT_EQ(streamed.size(), kept.files.size());
  ASSERT_EQ(streamed.size(), 3u);
  for (size_t i = 0; i < streamed.size(); ++i) {
    EXPECT_EQ(streamed[i].path, kept.files[i].path);
    EXPECT_EQ(streamed[i].move_to, kept.files[i].move_to);
    EXPECT_EQ(streamed[i].hunks.size(), kept.files[i].hunks.size());
    EXPECT_EQ(streamed[i].span.begin, kept.files[i].span.begin);
    EXPECT_EQ(streamed[i].span.end, kept.files[i].span.end);
  }
  ASSERT_EQ(rest.errors.size(), kept.errors.size());
  ASSERT_EQ(rest.errors.size(), 1u);
  EXPECT_EQ(rest.errors[0].code, kept.errors[0].code);
}

TEST(UdiffInstructions, ExampleReadsWithoutErrors) {
  const std::string prompt = UdiffInstructions();
  const Diffs d = ReadDiffs(prompt);
  for (const ParseError& e : d.errors) ADD_FAILURE() << e.message;
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.files[0].path, "src/app.py");
  EXPECT_TRUE(d.files[0].warnings.empty()) << d.files[0].warnings[0];
  ASSERT_EQ(d.files[0].hunks.size(), 1u);
  EXPECT_EQ(d.files[0].hunks[0].old_count, 4);
  for (const char* word : {"--- a/", "+++ b/", "/dev/null", "@@ -", "diff-1", "git apply"}) {
    EXPECT_TRUE(absl::StrContains(prompt, word)) << word;
  }
}

}  // namespace
}  // namespace clada::udiff_reader
