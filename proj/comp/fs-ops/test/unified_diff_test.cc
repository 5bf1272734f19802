#include "proj/comp/fs-ops/src/unified_diff.h"

#include <stdlib.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/fs-ops/test/unit_cases.h"

namespace clada::fs_ops::internal {
namespace {

using nlohmann::json;

class DiffCase : public ::testing::TestWithParam<json> {};

TEST_P(DiffCase, MatchesExpectation) {
  const json& c = GetParam();
  UnifiedDiff d = DiffTexts(c.at("before").get<std::string>(), c.at("after").get<std::string>(), "f.txt");
  EXPECT_TRUE(d.computed);
  EXPECT_EQ(d.text, c.at("text").get<std::string>());
  EXPECT_EQ(d.added, c.at("added").get<int64_t>());
  EXPECT_EQ(d.removed, c.at("removed").get<int64_t>());
}

INSTANTIATE_TEST_SUITE_P(Cases, DiffCase, ::testing::ValuesIn(testing::LoadUnitCases("unified_diff.json", "diff")),
                         testing::CaseName);

// ------------------------------------------------- differential: GNU diff

std::string TempDir() {
  const char* t = getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `diff <flags>` of the two texts, with the labels DiffTexts prints.
std::string GnuDiff(const std::string& before, const std::string& after, const std::string& flags) {
  const std::string dir = TempDir();
  WriteFile(dir + "/old", before);
  WriteFile(dir + "/new", after);
  const std::string cmd = absl::StrCat("diff ", flags, " --label a/f.txt --label b/f.txt '", dir, "/old' '", dir,
                                       "/new' > '", dir, "/gnu.diff'");
  int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) <= 1) << cmd;
  return ReadFile(dir + "/gnu.diff");
}

// `before` with `diff` applied by patch(1).
std::string Patched(const std::string& before, const std::string& diff) {
  const std::string dir = TempDir();
  WriteFile(dir + "/old", before);
  WriteFile(dir + "/ours.diff", diff);
  const std::string cmd =
      absl::StrCat("patch -s -o '", dir, "/patched' '", dir, "/old' < '", dir, "/ours.diff' > /dev/null 2>&1");
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << diff;
  return ReadFile(dir + "/patched");
}

// A random edit of `lines`: ranges replaced, inserted or deleted; the new
// lines are fresh, so the lines kept are the only common subsequence.
std::vector<std::string> Edit(std::vector<std::string> lines, std::mt19937& rng, int* fresh) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = lines.empty() ? 0 : rng() % (lines.size() + 1);
    const size_t drop = at >= lines.size() ? 0 : rng() % std::min<size_t>(6, lines.size() - at + 1);
    const size_t add = rng() % 5;
    lines.erase(lines.begin() + at, lines.begin() + at + drop);
    for (size_t k = 0; k < add; ++k) lines.insert(lines.begin() + at + k, absl::StrCat("new line ", (*fresh)++));
  }
  return lines;
}

std::string Join(const std::vector<std::string>& lines, bool final_newline) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StrAppend(&out, lines[i], i + 1 < lines.size() || final_newline ? "\n" : "");
  }
  return out;
}

// Unique lines: one minimal alignment only, so the diff must be GNU
// diff's byte for byte.
TEST(DiffAgainstGnuDiff, SameBytesOnGeneratedEdits) {
  std::mt19937 rng(18);
  int fresh = 0;
  for (int round = 0; round < 80; ++round) {
    std::vector<std::string> lines;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) lines.push_back(absl::StrCat("line ", i));
    const std::string before = Join(lines, rng() % 5 != 0);
    const std::string after = Join(Edit(lines, rng, &fresh), rng() % 5 != 0);
    UnifiedDiff ours = DiffTexts(before, after, "f.txt");
    ASSERT_TRUE(ours.computed);
    ASSERT_EQ(ours.text, GnuDiff(before, after, "-U2")) << "round " << round << "\nbefore:\n"
                                                         << before << "\nafter:\n"
                                                         << after;
  }
}

// Few distinct lines: many minimal alignments. Ours must be minimal (as
// many changed lines as `diff --minimal`) and turn the old text into the
// new one through patch(1).
TEST(DiffAgainstGnuDiff, MinimalAndAppliesWithRepeatedLines) {
  std::mt19937 rng(1818);
  const std::vector<std::string> alphabet = {"{", "}", "", "x = 1;"};
  for (int round = 0; round < 40; ++round) {
    auto random_text = [&] {
      std::vector<std::string> lines;
      const int n = static_cast<int>(rng() % 30);
      for (int i = 0; i < n; ++i) lines.push_back(alphabet[rng() % alphabet.size()]);
      return Join(lines, rng() % 4 != 0);
    };
    const std::string before = random_text();
    const std::string after = random_text();
    UnifiedDiff ours = DiffTexts(before, after, "f.txt");
    ASSERT_TRUE(ours.computed);
    const std::string gnu = GnuDiff(before, after, "--minimal -U0");
    int64_t gnu_changed = 0;
    for (size_t at = 0; at < gnu.size();) {
      size_t nl = gnu.find('\n', at);
      if (nl == std::string::npos) nl = gnu.size();
      const std::string line = gnu.substr(at, nl - at);
      if ((line[0] == '-' || line[0] == '+') && line.rfind("--- ", 0) != 0 && line.rfind("+++ ", 0) != 0) {
        ++gnu_changed;
      }
      at = nl + 1;
    }
    EXPECT_EQ(ours.added + ours.removed, gnu_changed) << "round " << round << "\n" << ours.text << "\n" << gnu;
    if (before != after) {
      EXPECT_EQ(Patched(before, ours.text), after) << "round " << round << "\n" << ours.text;
    }
  }
}

// Over 4,096 lines the alignment is first cut at lines unique to both
// texts. Unique lines: still GNU diff's bytes. Repeated lines mixed in
// (braces, blank lines): the diff still turns the old text into the new.
TEST(DiffAnchored, LargeTextsOfUniqueLinesMatchGnuDiff) {
  std::mt19937 rng(4096);
  int fresh = 0;
  for (int round = 0; round < 6; ++round) {
    std::vector<std::string> lines;
    for (int i = 0; i < 5000; ++i) lines.push_back(absl::StrCat("line ", i));
    std::vector<std::string> edited = lines;
    for (int k = 0; k < 15; ++k) edited = Edit(edited, rng, &fresh);
    const std::string before = Join(lines, true), after = Join(edited, true);
    UnifiedDiff ours = DiffTexts(before, after, "f.txt");
    ASSERT_TRUE(ours.computed);
    ASSERT_EQ(ours.text, GnuDiff(before, after, "-U2")) << "round " << round;
  }
}

TEST(DiffAnchored, LargeTextsWithRepeatedLinesApply) {
  std::mt19937 rng(40960);
  int fresh = 0;
  const std::vector<std::string> common = {"{", "}", "", "  return 0;"};
  for (int round = 0; round < 6; ++round) {
    std::vector<std::string> lines;
    for (int i = 0; i < 6000; ++i) {
      lines.push_back(rng() % 3 == 0 ? absl::StrCat("f", i, "();") : common[rng() % common.size()]);
    }
    std::vector<std::string> edited = lines;
    for (int k = 0; k < 20; ++k) edited = Edit(edited, rng, &fresh);
    for (int k = 0; k < 10; ++k) edited[rng() % edited.size()] = common[rng() % common.size()];
    const std::string before = Join(lines, true), after = Join(edited, rng() % 2 == 0);
    UnifiedDiff ours = DiffTexts(before, after, "f.txt");
    ASSERT_TRUE(ours.computed);
    EXPECT_EQ(Patched(before, ours.text), after) << "round " << round;
  }
}

// Over 4,096 lines, differences are first looked for by walking both texts
// in step; one that does not end within a short look-ahead (a block moved
// far, a long rewrite) sends the whole alignment to the unique-line anchors.
// Either way the diff turns the old text into the new, with GNU diff's
// counts where lines are unique.
TEST(DiffAnchored, BlockMovedFarAndLongRewriteStillApply) {
  std::vector<std::string> lines;
  for (int i = 0; i < 6000; ++i) lines.push_back(absl::StrCat("line ", i));
  std::vector<std::string> moved(lines.begin(), lines.begin() + 1000);
  moved.insert(moved.end(), lines.begin() + 1100, lines.begin() + 5000);
  moved.insert(moved.end(), lines.begin() + 1000, lines.begin() + 1100);
  moved.insert(moved.end(), lines.begin() + 5000, lines.end());
  std::vector<std::string> rewritten = lines;
  for (int i = 3000; i < 3200; ++i) rewritten[i] = absl::StrCat("other ", i);
  rewritten[10] = "changed 10";  // a small edit beside it: aligned by the anchors too
  for (const auto& edited : {moved, rewritten}) {
    const std::string before = Join(lines, true), after = Join(edited, true);
    UnifiedDiff ours = DiffTexts(before, after, "f.txt");
    ASSERT_TRUE(ours.computed);
    EXPECT_EQ(Patched(before, ours.text), after);
    const std::string gnu = GnuDiff(before, after, "-U2");
    EXPECT_EQ(ours.text, gnu);
  }
}

// Changes every 100 lines of a large file (what an answer's many-hunk edit
// does) are found by the stepped walk: GNU diff's bytes.
TEST(DiffAnchored, ManyScatteredReplacementsMatchGnuDiff) {
  std::vector<std::string> lines, edited;
  for (int i = 0; i < 20000; ++i) {
    lines.push_back(absl::StrCat("line ", i % 7 == 0 ? std::string("}") : absl::StrCat(i)));
    edited.push_back(i % 100 == 50 ? absl::StrCat("changed ", i) : lines.back());
    if (i % 1000 == 500) edited.push_back("inserted");
  }
  const std::string before = Join(lines, true), after = Join(edited, true);
  UnifiedDiff ours = DiffTexts(before, after, "f.txt");
  ASSERT_TRUE(ours.computed);
  EXPECT_EQ(ours.text, GnuDiff(before, after, "-U2"));
}

// ------------------------------------------------------------- bounded work

TEST(DiffWork, RewriteOverTheBoundIsNotDiffed) {
  std::string before, after;
  for (int i = 0; i < 20000; ++i) {
    absl::StrAppend(&before, "old ", i, "\n");
    absl::StrAppend(&after, "new ", i, "\n");
  }
  UnifiedDiff d = DiffTexts(before, after, "f.txt", DiffOptions{2, 1'000'000});
  EXPECT_FALSE(d.computed);
  EXPECT_EQ(d.text, "");
  EXPECT_EQ(d.old_lines, 20000);
  EXPECT_EQ(d.new_lines, 20000);
}

TEST(DiffWork, ScatteredEditsInALargeFileAreDiffedWithinTheDefaultBound) {
  std::string before, after;
  for (int i = 0; i < 200000; ++i) {
    absl::StrAppend(&before, "line ", i, "\n");
    absl::StrAppend(&after, i % 2000 == 7 ? "changed " : "line ", i, "\n");
  }
  UnifiedDiff d = DiffTexts(before, after, "f.txt");
  ASSERT_TRUE(d.computed);
  EXPECT_EQ(d.removed, 100);
  EXPECT_EQ(d.added, 100);
  EXPECT_NE(d.text.find("@@ -198006,5 +198006,5 @@\n line 198005\n line 198006\n-line 198007\n+changed 198007\n"),
            std::string::npos);
}

// ------------------------------------ DiffSplices: from the places alone

// The places of `needle` in `text` (non-overlapping, left to right).
std::vector<Splice> PlacesOf(const std::string& text, const std::string& needle) {
  std::vector<Splice> out;
  for (size_t at : FindAllText(text, needle)) out.push_back({at, at + needle.size()});
  return out;
}

// A random text, one word a line from `words` (some lines without a
// break at the end), every occurrence of a random piece of it replaced by
// a random text with or without line breaks. CRLF lines every fifth round.
struct RandomEdit {
  std::string text;
  std::string needle;
  std::string replacement;
};
bool MakeRandomEdit(std::mt19937& rng, int round, const std::vector<std::string>& words, RandomEdit* e) {
  const bool crlf = round % 5 == 4;
  e->text.clear();
  const int n = static_cast<int>(rng() % 30);
  for (int i = 0; i < n; ++i) absl::StrAppend(&e->text, words[rng() % words.size()], crlf ? "\r\n" : "\n");
  if (rng() % 4 == 0) absl::StrAppend(&e->text, words[rng() % words.size()]);  // a last line without a break
  if (e->text.empty()) return false;
  const size_t at = rng() % e->text.size();
  e->needle = e->text.substr(at, 1 + rng() % std::min<size_t>(8, e->text.size() - at));
  e->replacement.clear();
  const int parts = static_cast<int>(rng() % 4);
  for (int k = 0; k < parts; ++k) absl::StrAppend(&e->replacement, words[rng() % words.size()], rng() % 2 ? "\n" : "");
  return e->replacement != e->needle;
}

// Lines that occur once (a word per line, numbered): one minimal alignment
// only, so DiffSplices must be DiffTexts over the built result byte for
// byte, whatever the places and their new text.
TEST(DiffSplices, SameAsDiffTextsWhereTheAlignmentIsUnique) {
  std::mt19937 rng(35);
  std::vector<std::string> words;
  for (int i = 0; i < 40; ++i) words.push_back(absl::StrCat("w", i, i % 3 == 0 ? " x" : ""));
  int compared = 0;
  for (int round = 0; round < 3000; ++round) {
    RandomEdit e;
    if (!MakeRandomEdit(rng, round, words, &e)) continue;
    SplicedText t(e.text, PlacesOf(e.text, e.needle), e.replacement);
    const std::string after = t.Build();
    ASSERT_EQ(after, ApplySplices(e.text, t.spans(), e.replacement));
    const UnifiedDiff want = DiffTexts(e.text, after, "f.txt");
    const UnifiedDiff got = DiffSplices(t, "f.txt");
    ASSERT_TRUE(want.computed && got.computed);
    // Repeated words make more than one minimal alignment: compared below.
    if (CountTextLines(e.text) != static_cast<int64_t>(absl::flat_hash_set<absl::string_view>(
                                                             absl::StrSplit(e.text, '\n')).size()) -
                                        (e.text.back() == '\n' ? 1 : 0)) {
      continue;
    }
    ASSERT_EQ(got.text, want.text) << "round " << round << " text:\n"
                                   << e.text << "\nneedle '" << e.needle << "' -> '" << e.replacement << "'";
    ASSERT_EQ(got.added, want.added);
    ASSERT_EQ(got.removed, want.removed);
    ASSERT_EQ(got.old_lines, want.old_lines);
    ASSERT_EQ(got.new_lines, want.new_lines);
    ++compared;
  }
  EXPECT_GT(compared, 500);
}

// Few distinct lines (runs, ties, repeated lines): each run of changed
// lines is aligned alone, so where a minimal alignment would pair a changed
// line with one outside its run the diff differs from DiffTexts'. It still
// turns the old text into the new one through patch(1), with the same net
// line count, and is never shorter than the minimal one.
TEST(DiffSplices, AppliesWithRepeatedLines) {
  std::mt19937 rng(36);
  const std::vector<std::string> words = {"a", "b", "c", "alpha", "x y", ""};
  int same = 0, rounds = 0;
  for (int round = 0; round < 400; ++round) {
    RandomEdit e;
    if (!MakeRandomEdit(rng, round, words, &e)) continue;
    SplicedText t(e.text, PlacesOf(e.text, e.needle), e.replacement);
    const std::string after = t.Build();
    const UnifiedDiff want = DiffTexts(e.text, after, "f.txt");
    const UnifiedDiff got = DiffSplices(t, "f.txt");
    ASSERT_TRUE(want.computed && got.computed);
    ++rounds;
    EXPECT_EQ(got.added - got.removed, want.added - want.removed);
    EXPECT_GE(got.removed, want.removed);
    EXPECT_EQ(got.new_lines, want.new_lines);
    if (got.text == want.text) {
      ++same;
      continue;
    }
    ASSERT_EQ(Patched(e.text, got.text), after) << "round " << round;
  }
  EXPECT_GT(same, rounds / 2);  // most are the same diff
}

// A 2 MB file with a place on every line: the same diff as DiffTexts (one
// hunk, every line), and with a bound on the text, not built: too_long,
// the counts still whole.
TEST(DiffSplices, EveryLineChangedAndTheTextBound) {
  std::string text;
  for (int i = 0; i < 60000; ++i) absl::StrAppend(&text, "    value = compute(alpha, beta", i % 7, ");\n");
  SplicedText t(text, PlacesOf(text, "alpha"), "alpha_renamed");
  const UnifiedDiff whole = DiffSplices(t, "big.txt");
  ASSERT_TRUE(whole.computed);
  EXPECT_EQ(whole.added, 60000);
  EXPECT_EQ(whole.removed, 60000);
  // DiffTexts gives this up (no line in common to anchor on: too different).
  EXPECT_FALSE(DiffTexts(text, t.Build(), "big.txt").computed);
  EXPECT_TRUE(absl::StartsWith(whole.text, "--- a/big.txt\n+++ b/big.txt\n@@ -1,60000 +1,60000 @@\n"
                                           "-    value = compute(alpha, beta0);\n"
                                           "-    value = compute(alpha, beta1);\n"));
  EXPECT_TRUE(absl::EndsWith(whole.text, "+    value = compute(alpha_renamed, beta2);\n"));
  EXPECT_TRUE(Patched(text, whole.text) == t.Build());
  const UnifiedDiff bounded = DiffSplices(t, "big.txt", {}, 100000);
  EXPECT_FALSE(bounded.computed);
  EXPECT_TRUE(bounded.too_long);
  EXPECT_TRUE(bounded.text.empty());
  EXPECT_EQ(bounded.added, 60000);
  EXPECT_EQ(bounded.removed, 60000);
  EXPECT_EQ(bounded.new_lines, 60000);
  // Within the bound it is the whole diff.
  const UnifiedDiff roomy = DiffSplices(t, "big.txt", {}, static_cast<int64_t>(whole.text.size()));
  EXPECT_TRUE(roomy.computed);
  EXPECT_TRUE(roomy.text == whole.text);
}

// One place whose old text spans a long run of lines that the new text
// rewrites: past the work bound it is not computed, as DiffTexts.
TEST(DiffSplices, ARunTooDifferentToAlignIsNotComputed) {
  std::string body, rewritten;
  for (int i = 0; i < 3000; ++i) {
    absl::StrAppend(&body, "old ", i, "\n");
    absl::StrAppend(&rewritten, "new ", i, "\n");
  }
  const std::string text = absl::StrCat("head\n", body, "tail\n");
  SplicedText t(text, PlacesOf(text, body), rewritten);
  const DiffOptions tight{2, 100000};
  EXPECT_FALSE(DiffTexts(text, t.Build(), "f.txt", tight).computed);
  const UnifiedDiff d = DiffSplices(t, "f.txt", tight);
  EXPECT_FALSE(d.computed);
  EXPECT_FALSE(d.too_long);
  EXPECT_EQ(d.old_lines, 3002);
  EXPECT_EQ(d.new_lines, 3002);
}

TEST(CountTextLines, CountsALastLineWithoutBreak) {
  EXPECT_EQ(CountTextLines(""), 0);
  EXPECT_EQ(CountTextLines("a"), 1);
  EXPECT_EQ(CountTextLines("a\n"), 1);
  EXPECT_EQ(CountTextLines("a\nb"), 2);
}

}  // namespace
}  // namespace clada::fs_ops::internal
