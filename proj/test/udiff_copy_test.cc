// A unified diff's `copy from`/`copy to` (issue 34), differential against
// `git apply`: the same diff applied by git apply in one repository and by
// `clada run` (a ```diff fence) in a twin gives the same files, bytes and
// executable bits, or both refuse and leave the tree alone; `clada undo` then
// gives back the tree as it was before.
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/test/test_util.h"

namespace {

namespace fs = std::filesystem;
using clada::testing::ReadAll;
using clada::testing::ShellQuote;
using clada::testing::Sh;

// path -> (bytes, executable); leading '+' in a key marks an executable file.
using Tree = std::map<std::string, std::pair<std::string, bool>>;

Tree ReadTree(const std::string& root) {
  Tree t;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (name == ".git" || name == ".clada" || name == ".answer" || name == ".patch") {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    struct stat st;
    ::stat(it->path().c_str(), &st);
    t[fs::relative(it->path(), root).string()] = {ReadAll(it->path().string()), (st.st_mode & 0100) != 0};
  }
  return t;
}

std::string Show(const Tree& t) {
  std::string s;
  for (const auto& [p, v] : t) absl::StrAppend(&s, p, v.second ? " (x)" : "", ": ", v.first, "|\n");
  return s;
}

void WriteTree(const std::string& root, const Tree& t) {
  for (const auto& [p, v] : t) {
    const fs::path path = fs::path(root) / p;
    fs::create_directories(path.parent_path());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(v.first.data(), 1, v.first.size(), f);
    std::fclose(f);
    ::chmod(path.c_str(), v.second ? 0755 : 0644);
  }
}

std::string NewRepo(const std::string& prefix, const Tree& tracked) {
  const std::string dir = clada::testing::MakeTempDir(prefix);
  EXPECT_EQ(Sh(absl::StrCat("cd ", ShellQuote(dir),
                            " && git init -q -b main && git config user.name t && git config user.email t@t"
                            " && git config core.autocrlf false")),
            0);
  WriteTree(dir, tracked);
  EXPECT_EQ(Sh(absl::StrCat("cd ", ShellQuote(dir), " && git add -A && git commit -qm init --allow-empty")), 0);
  return dir;
}

int Exit(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

struct CopyCase {
  std::string name;
  Tree tracked;    // committed in both repositories
  Tree untracked;  // written after the commit, before the diff is applied
  Tree after;      // the tree `git diff -C -C` is made from ("" diff: use `patch`)
  std::string patch;  // a hand-written diff (when after is empty)
};

class CopyDiff : public ::testing::TestWithParam<CopyCase> {};

TEST_P(CopyDiff, AsGitApplyAndUndoRestores) {
  const CopyCase& c = GetParam();
  std::string patch = c.patch;
  if (patch.empty()) {
    const std::string maker = NewRepo("copy_make_", c.tracked);
    WriteTree(maker, c.after);
    ASSERT_EQ(Sh(absl::StrCat("cd ", ShellQuote(maker), " && git add -A && git diff --cached -C -C > .patch")), 0);
    patch = ReadAll(maker + "/.patch");
    ASSERT_NE(patch.find("copy from"), std::string::npos) << patch;
  }

  const std::string by_git = NewRepo("copy_git_", c.tracked);
  WriteTree(by_git, c.untracked);
  {
    std::FILE* f = std::fopen((by_git + "/.patch").c_str(), "wb");
    std::fwrite(patch.data(), 1, patch.size(), f);
    std::fclose(f);
  }
  const int git_exit = Exit(Sh(absl::StrCat("cd ", ShellQuote(by_git), " && git apply .patch 2>/dev/null")));

  const std::string by_clada = NewRepo("copy_clada_", c.tracked);
  WriteTree(by_clada, c.untracked);
  const Tree before = ReadTree(by_clada);
  {
    const std::string answer = absl::StrCat("```diff\n", patch, "```\n");
    std::FILE* f = std::fopen((by_clada + "/.answer").c_str(), "wb");
    std::fwrite(answer.data(), 1, answer.size(), f);
    std::fclose(f);
  }
  const std::string clada = ShellQuote(clada::testing::CladaBinary());
  const std::string out = by_clada + ".out";
  const int clada_exit =
      Exit(Sh(absl::StrCat("cd ", ShellQuote(by_clada), " && ", clada, " < .answer > ", ShellQuote(out), " 2>&1")));
  const std::string report = ReadAll(out);

  EXPECT_EQ(clada_exit == 0, git_exit == 0) << "git apply exit " << git_exit << "\n" << patch << "\n" << report;
  EXPECT_EQ(Show(ReadTree(by_clada)), Show(ReadTree(by_git))) << patch << "\n" << report;

  // Undo gives back the tree before the diff, byte for byte and mode for mode.
  if (clada_exit == 0) {
    EXPECT_EQ(Exit(Sh(absl::StrCat("cd ", ShellQuote(by_clada), " && ", clada, " undo >/dev/null 2>&1"))), 0);
  }
  EXPECT_EQ(Show(ReadTree(by_clada)), Show(before));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CopyDiff,
    ::testing::Values(
        // A copy without hunks (similarity 100%): the source stays.
        CopyCase{"WholeCopy", {{"a.txt", {"one\ntwo\nthree\n", false}}}, {},
                 {{"a.txt", {"one\ntwo\nthree\n", false}}, {"b.txt", {"one\ntwo\nthree\n", false}}}, ""},
        // A copy with hunks, into a folder that does not exist yet.
        CopyCase{"CopyWithHunks",
                 {{"src/a.txt", {"alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n", false}}},
                 {},
                 {{"src/a.txt", {"alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n", false}},
                  {"lib/sub/c.txt", {"alpha\nbeta\nGAMMA\ndelta\nepsilon\nzeta\neta\ntheta\n", false}}},
                 ""},
        // The source's executable bit goes to the copy.
        CopyCase{"ExecutableSource", {{"run.sh", {"#!/bin/sh\necho hi\n", true}}}, {},
                 {{"run.sh", {"#!/bin/sh\necho hi\n", true}}, {"run2.sh", {"#!/bin/sh\necho hi\n", true}}}, ""},
        // CR LF bytes copied as they are.
        CopyCase{"CrLfBytes", {{"w.txt", {"a\r\nb\r\nc\r\nd\r\ne\r\n", false}}}, {},
                 {{"w.txt", {"a\r\nb\r\nc\r\nd\r\ne\r\n", false}}, {"x.txt", {"a\r\nb\r\nc\r\nd\r\nE\r\n", false}}},
                 ""},
        // The source changed too, after the copy (the copy's name sorts
        // first in git's diff): the copy is of the source as it was.
        CopyCase{"CopyBeforeSourceEdit",
                 {{"m.txt", {"1\n2\n3\n4\n5\n6\n7\n8\n", false}}},
                 {},
                 {{"m.txt", {"1\n2\nTHREE\n4\n5\n6\n7\n8\n", false}},
                  {"c.txt", {"1\n2\n3\n4\n5\n6\n7\nEIGHT\n", false}}},
                 ""},
        // The destination exists (untracked): git apply refuses, so does clada.
        CopyCase{"DestinationExists",
                 {{"a.txt", {"x\ny\n", false}}},
                 {{"b.txt", {"mine\n", false}}},
                 {},
                 "diff --git a/a.txt b/b.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to b.txt\n"},
        // The hunks do not fit the source: both refuse.
        CopyCase{"HunksDoNotFit",
                 {{"a.txt", {"x\ny\n", false}}},
                 {},
                 {},
                 "diff --git a/a.txt b/b.txt\nsimilarity index 50%\ncopy from a.txt\ncopy to b.txt\n"
                 "--- a/a.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n p\n-q\n+Q\n"},
        // The source does not exist: both refuse.
        CopyCase{"MissingSource",
                 {{"a.txt", {"x\n", false}}},
                 {},
                 {},
                 "diff --git a/nope.txt b/b.txt\nsimilarity index 100%\ncopy from nope.txt\ncopy to b.txt\n"}),
    [](const ::testing::TestParamInfo<CopyCase>& info) { return info.param.name; });

// git apply copies a source as it was before the whole diff; a diff that
// changes the source in an earlier section (git's order when the copy's
// name sorts after its source) would give another copy when applied in
// order, so the copy is refused (copy_source_changed) and nothing is
// written for it; the source's own edit is applied.
TEST(CopyDiff, CopyAfterAnEditOfItsSourceIsRefused) {
  const std::string repo = NewRepo("copy_after_", {{"a.txt", {"1\n2\n3\n4\n5\n6\n", false}}});
  const std::string answer =
      "```diff\n"
      "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+THREE\n 4\n 5\n 6\n"
      "diff --git a/a.txt b/b.txt\nsimilarity index 90%\ncopy from a.txt\ncopy to b.txt\n"
      "--- a/a.txt\n+++ b/b.txt\n@@ -4,3 +4,3 @@\n 4\n 5\n-6\n+six\n"
      "```\n";
  {
    std::FILE* f = std::fopen((repo + "/.answer").c_str(), "wb");
    std::fwrite(answer.data(), 1, answer.size(), f);
    std::fclose(f);
  }
  const std::string out = repo + ".out";
  const int exit = Exit(Sh(absl::StrCat("cd ", ShellQuote(repo), " && ", ShellQuote(clada::testing::CladaBinary()),
                                        " < .answer > ", ShellQuote(out), " 2>&1")));
  const std::string report = ReadAll(out);
  EXPECT_NE(exit, 0) << report;
  EXPECT_NE(report.find("copy_source_changed"), std::string::npos) << report;
  const Tree t = ReadTree(repo);
  EXPECT_EQ(t.count("b.txt"), 0u) << report;
  ASSERT_EQ(t.count("a.txt"), 1u);
  EXPECT_EQ(t.at("a.txt").first, "1\n2\nTHREE\n4\n5\n6\n") << report;
}

}  // namespace
