// Differential test against `git apply`: random trees are edited at random
// (lines changed, added, removed; final line breaks added and removed; CRLF
// lines; files added and deleted), `git diff` writes the diff, and the tree
// clada makes from it must be the one `git apply` makes, byte for byte.
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/patch-text/src/diff_format.h"
#include "proj/comp/patch-text/test/diff_memory_apply.h"

namespace clada::patch_text {
namespace {

namespace fs = std::filesystem;
using testing::FileMap;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FileMap ReadTree(const fs::path& root) {
  FileMap files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename() == ".git") continue;
    if (e.path().string().find("/.git/") != std::string::npos || !e.is_regular_file()) continue;
    files[fs::relative(e.path(), root).string()] = ReadAll(e.path());
  }
  return files;
}

void WriteTree(const fs::path& root, const FileMap& files) {
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.path().filename() != ".git") fs::remove_all(e.path());
  }
  for (const auto& [path, content] : files) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path, std::ios::binary) << content;
  }
}

int Shell(const fs::path& root, const std::string& cmd) {
  return std::system(absl::StrCat("cd '", root.string(), "' && (", cmd, ") >/dev/null 2>&1").c_str());
}

// Few distinct lines, so contexts repeat and placement is tested.
std::string RandomFile(std::mt19937& rng) {
  static const char* const kLines[] = {"a", "b", "c", "", "x = 1", "  indented", "}", "c"};
  std::string s;
  const int n = std::uniform_int_distribution<int>(0, 40)(rng);
  for (int i = 0; i < n; ++i) {
    s += kLines[rng() % 8];
    s += rng() % 10 == 0 ? "\r\n" : "\n";
  }
  if (!s.empty() && rng() % 4 == 0) s.pop_back();  // no final line break
  return s;
}

std::string Edit(std::string s, std::mt19937& rng) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < s.size();) {
    size_t nl = s.find('\n', pos);
    size_t end = nl == std::string::npos ? s.size() : nl + 1;
    lines.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int e = 0; e < edits; ++e) {
    const size_t at = lines.empty() ? 0 : rng() % (lines.size() + 1);
    switch (rng() % 3) {
      case 0:  // insert
        lines.insert(lines.begin() + at, absl::StrCat("new ", rng() % 100, "\n"));
        break;
      case 1:  // delete
        if (at < lines.size()) lines.erase(lines.begin() + at);
        break;
      default:  // change
        if (at < lines.size()) lines[at] = absl::StrCat("changed ", rng() % 100, "\n");
    }
  }
  std::string out;
  for (const std::string& l : lines) out += l;
  if (!out.empty() && out.back() != '\n') out += '\n';  // a middle line lost its break
  if (!out.empty() && rng() % 5 == 0) out.pop_back();
  return out;
}

TEST(GitApplyDifferential, SameTreeAsGitApply) {
  ASSERT_EQ(std::system("git --version >/dev/null 2>&1"), 0) << "git is needed";
  std::string tmpl = (fs::temp_directory_path() / "udiff-diff-XXXXXX").string();
  const fs::path root = mkdtemp(tmpl.data());
  ASSERT_EQ(Shell(root, "git init -q . && git config core.autocrlf false && git config user.email t@t && "
                      "git config user.name t"),
            0);
  std::mt19937 rng(20261125);
  int placed_rounds = 0;
  for (int round = 0; round < 10; ++round) {
    FileMap before, after;
    const int files = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int f = 0; f < files; ++f) before[absl::StrCat("d", f % 2, "/f", f, ".txt")] = RandomFile(rng);
    after = before;
    for (auto& [path, content] : after) content = Edit(content, rng);
    if (rng() % 4 == 0) after.erase(after.begin());                     // a deleted file
    if (rng() % 4 == 0) after[absl::StrCat("n", round, ".txt")] = RandomFile(rng);  // an added one
    WriteTree(root, before);
    ASSERT_EQ(Shell(root, "git add -A && git commit -q --allow-empty -m before"), 0);
    WriteTree(root, after);
    ASSERT_EQ(Shell(root, "git add -A && git diff --cached > .git/round.patch"), 0);
    const std::string patch = ReadAll(root / ".git" / "round.patch");
    ASSERT_EQ(Shell(root, "git reset -q --hard"), 0);
    if (patch.empty()) continue;  // the edits changed nothing
    ASSERT_EQ(Shell(root, "git apply .git/round.patch"), 0) << patch;
    FileMap by_git = ReadTree(root);

    FileMap by_clada = before;
    const Diffs d = ParseDiffs(patch);
    EXPECT_TRUE(d.errors.empty()) << d.errors[0].message << "\n" << patch;
    for (const FilePatch& f : d.files) {
      testing::Outcome o = testing::ApplyToTree(f, &by_clada);
      EXPECT_TRUE(o.ok) << o.error << "\n" << patch;
      EXPECT_TRUE(o.warnings.empty()) << o.warnings[0] << "\n" << patch;
    }
    EXPECT_EQ(by_clada, by_git) << "round " << round << "\n" << patch;
    EXPECT_EQ(by_git, after) << "round " << round;

    // The same diff with every hunk's line numbers shifted by 3 (an LLM's
    // wrong numbers): placed by context, the same tree when the contexts are
    // unique, else refused with the tree unchanged.
    std::string shifted;
    std::istringstream lines(patch);
    for (std::string line; std::getline(lines, line);) {
      int a, b, c, e;
      if (std::sscanf(line.c_str(), "@@ -%d,%d +%d,%d @@", &a, &b, &c, &e) == 4 && b > 0) {
        line = absl::StrCat("@@ -", a + 3, ",", b, " +", c + 3, ",", e, " @@");
      }
      shifted += line + "\n";
    }
    FileMap by_context = before;
    for (const FilePatch& f : ParseDiffs(shifted).files) {
      FileMap one = by_context;
      testing::Outcome o = testing::ApplyToTree(f, &one);
      if (o.ok) {
        by_context = one;
        ++placed_rounds;
        if (f.kind == FileKind::kUpdate) {
          const std::string p = f.move_to.value_or(f.path);
          EXPECT_EQ(by_context[p], by_git[p]) << "round " << round << " (shifted)\n" << shifted;
        }
      }
    }
  }
  EXPECT_GT(placed_rounds, 0);
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace clada::patch_text
