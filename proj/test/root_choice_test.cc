// Where an answer's relative paths land when clada runs from a folder inside
// a git repository (issue 34): the default working root is the repository's
// top; --root chooses another (a settings file below the top is ignored), and
// the report's first line names the root when it is not the current folder.
#include <sys/wait.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/test/test_util.h"

namespace {

using clada::testing::ReadAll;
using clada::testing::ShellQuote;

constexpr char kAnswer[] =
    "#!SHAM [@three-char-SHA-256: t01]\naction = \"file_write\"\npath = \"tests/test_x.py\"\n"
    "content = \"x\"\n#!END_SHAM_t01\n";

class RootChoice : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = clada::testing::MakeTempDir("clada_root_");
    ASSERT_FALSE(repo_.empty());
    ASSERT_EQ(clada::testing::Sh(absl::StrCat(
                  "cd ", ShellQuote(repo_),
                  " && git init -q -b main && git config user.name t && git config user.email t@t"
                  " && mkdir -p src && echo a > a.txt && git add a.txt && git commit -qm init")),
              0);
  }

  // Runs `clada ARGS` with the answer on stdin from `rel` (a folder of the
  // repository); returns its exit code, stdout in *out.
  int Run(const std::string& rel, const std::string& args, std::string* out) {
    const std::string dir = repo_ + "/" + rel;
    const std::string answer = repo_ + "/.answer";
    {
      FILE* f = std::fopen(answer.c_str(), "wb");
      std::fputs(kAnswer, f);
      std::fclose(f);
    }
    const int status = clada::testing::Sh(absl::StrCat(
        "cd ", ShellQuote(dir), " && env -u BUILD_WORKING_DIRECTORY ", ShellQuote(clada::testing::CladaBinary()), " ",
        args, " <", ShellQuote(answer), " >", ShellQuote(repo_ + "/.out"), " 2>", ShellQuote(repo_ + "/.err")));
    *out = ReadAll(repo_ + "/.out");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  bool Exists(const std::string& rel) { return !ReadAll(repo_ + "/" + rel).empty(); }

  std::string repo_;
};

TEST_F(RootChoice, FromASubfolderPathsLandAtTheRepositoryTop) {
  std::string out;
  EXPECT_EQ(Run("src", "", &out), 0) << out << ReadAll(repo_ + "/.err");
  EXPECT_TRUE(Exists("tests/test_x.py")) << out;
  EXPECT_FALSE(Exists("src/tests/test_x.py")) << out;
  EXPECT_TRUE(absl::StartsWith(out, absl::StrCat("working root: ", repo_, " (the top of the git repository"))) << out;
}

TEST_F(RootChoice, AtTheTopTheReportSaysNothingAboutTheRoot) {
  std::string out;
  EXPECT_EQ(Run(".", "", &out), 0) << out;
  EXPECT_TRUE(Exists("tests/test_x.py"));
  EXPECT_FALSE(absl::StrContains(out, "working root:")) << out;
}

TEST_F(RootChoice, RootFlagKeepsTheCurrentFolder) {
  std::string out;
  EXPECT_EQ(Run("src", "--root .", &out), 0) << out;
  EXPECT_TRUE(Exists("src/tests/test_x.py"));
  EXPECT_FALSE(Exists("tests/test_x.py"));
  EXPECT_FALSE(absl::StrContains(out, "working root:")) << out;
}

TEST_F(RootChoice, ARootFlagNamingAnotherFolderIsNamedFirst) {
  std::string out;
  EXPECT_EQ(Run(".", "--root src", &out), 0) << out;
  EXPECT_TRUE(Exists("src/tests/test_x.py"));
  EXPECT_TRUE(absl::StartsWith(out, absl::StrCat("working root: ", repo_, "/src\n"))) << out;
}

// A settings file below the repository's top could have been written by an
// earlier exec (which may write anywhere in the project but its top's
// .clada/): it is not read unless --root names its folder, and a warning
// says which file was ignored and why.
TEST_F(RootChoice, ASettingsFileBelowTheRepositoryTopIsIgnored) {
  ASSERT_EQ(clada::testing::Sh(absl::StrCat("mkdir -p ", ShellQuote(repo_ + "/src/.clada"), " && printf 'sandbox: off\\n' > ",
                                            ShellQuote(repo_ + "/src/.clada/config.yaml"))),
            0);
  std::string out;
  EXPECT_EQ(Run("src", "", &out), 0) << out << ReadAll(repo_ + "/.err");
  EXPECT_TRUE(Exists("tests/test_x.py")) << out;
  EXPECT_FALSE(Exists("src/tests/test_x.py")) << out;
  const std::string err = ReadAll(repo_ + "/.err");
  EXPECT_TRUE(absl::StrContains(err, absl::StrCat("ignored ", repo_, "/src/.clada/config.yaml"))) << err;
  EXPECT_TRUE(absl::StrContains(err, "--root")) << err;
  // `clada config` shows the settings in force: not the ignored file's.
  EXPECT_EQ(Run("src", "config", &out), 0) << out;
  EXPECT_FALSE(absl::StrContains(out, "sandbox: off")) << out;
}

TEST_F(RootChoice, ARootFlagNamingTheFolderReadsItsSettingsFile) {
  ASSERT_EQ(clada::testing::Sh(absl::StrCat("mkdir -p ", ShellQuote(repo_ + "/src/.clada"), " && : > ",
                                            ShellQuote(repo_ + "/src/.clada/config.yaml"))),
            0);
  std::string out;
  EXPECT_EQ(Run("src", "--root .", &out), 0) << out << ReadAll(repo_ + "/.err");
  EXPECT_TRUE(Exists("src/tests/test_x.py"));
  EXPECT_FALSE(Exists("tests/test_x.py"));
  EXPECT_FALSE(absl::StrContains(ReadAll(repo_ + "/.err"), "ignored")) << ReadAll(repo_ + "/.err");
}

// Outside a repository, a folder below one clada already uses as a root
// (it has .clada/) is treated the same way.
TEST_F(RootChoice, OutsideARepositoryASettingsFileBelowACladaRootIsIgnored) {
  const std::string plain = clada::testing::MakeTempDir("clada_plain_");
  ASSERT_EQ(clada::testing::Sh(absl::StrCat("mkdir -p ", ShellQuote(plain + "/.clada"), " ",
                                            ShellQuote(plain + "/src/.clada"), " && printf 'sandbox: off\\n' > ",
                                            ShellQuote(plain + "/src/.clada/config.yaml"))),
            0);
  const std::string cmd = absl::StrCat("cd ", ShellQuote(plain + "/src"), " && env -u BUILD_WORKING_DIRECTORY ",
                                       ShellQuote(clada::testing::CladaBinary()), " config >", ShellQuote(plain + "/.out"),
                                       " 2>", ShellQuote(plain + "/.err"));
  ASSERT_EQ(clada::testing::Sh(cmd), 0) << ReadAll(plain + "/.err");
  EXPECT_FALSE(absl::StrContains(ReadAll(plain + "/.out"), "sandbox: off")) << ReadAll(plain + "/.out");
  EXPECT_TRUE(absl::StrContains(ReadAll(plain + "/.err"), absl::StrCat("ignored ", plain, "/src/.clada/config.yaml")))
      << ReadAll(plain + "/.err");
}

TEST_F(RootChoice, OutsideARepositoryTheCurrentFolderIsTheRoot) {
  const std::string plain = clada::testing::MakeTempDir("clada_plain_");
  ASSERT_EQ(clada::testing::Sh(absl::StrCat("mkdir -p ", ShellQuote(plain + "/src"))), 0);
  const std::string answer = plain + "/.answer";
  FILE* f = std::fopen(answer.c_str(), "wb");
  std::fputs(kAnswer, f);
  std::fclose(f);
  ASSERT_EQ(clada::testing::Sh(absl::StrCat("cd ", ShellQuote(plain + "/src"), " && env -u BUILD_WORKING_DIRECTORY ",
                                            ShellQuote(clada::testing::CladaBinary()), " <", ShellQuote(answer),
                                            " >/dev/null 2>&1")),
            0);
  EXPECT_FALSE(ReadAll(plain + "/src/tests/test_x.py").empty());
}

}  // namespace
