// Nothing an answer names reaches the terminal raw: hostile file names (an
// OSC 52 clipboard write, an erased and forged line, a bidirectional
// override) go through every command of the real `clada` binary, and
// nothing a terminal would act on comes out on stdout or stderr.
#include <sys/wait.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/test/test_util.h"

namespace {

using clada::testing::ReadAll;
using clada::testing::ShellQuote;

// OSC 52 (sets the clipboard to "foo"), erase line + CR (forges a line),
// and U+202E (shows "exe.txt" as "txt.exe").
const std::string kHostile = "evil\x1b]52;c;Zm9v\x07\x1b[2K\rforged\xE2\x80\xAEtxt.exe\xC2\x9B";

// The first raw byte (or sequence) of `text` a terminal would act on or
// that would reorder what it shows, described; "" when there is none.
std::string RawControl(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char n1 = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const unsigned char n2 = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
    if (c == '\r' && n1 == '\n') continue;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return absl::StrCat("byte ", c, " at ", i);
    if (c == 0xC2 && n1 >= 0x80 && n1 <= 0x9F) return absl::StrCat("C1 control at ", i);
    if (c == 0xE2 && ((n1 == 0x80 && n2 >= 0xAA && n2 <= 0xAE) || (n1 == 0x81 && n2 >= 0xA6 && n2 <= 0xA9))) {
      return absl::StrCat("bidi override at ", i);
    }
  }
  return "";
}

class TerminalEscape : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = clada::testing::MakeTempDir("clada_escape_");
    ASSERT_FALSE(dir_.empty());
    ASSERT_EQ(clada::testing::Sh(absl::StrCat("cd ", ShellQuote(dir_),
                                              " && git init -q && git config user.email t@t && git config user.name t"
                                              " && echo hi > readme.txt && git add . && git commit -qm init")),
              0);
  }

  // Runs clada with `args` (shell words); stdout and stderr must hold
  // nothing raw. Returns stdout.
  std::string Clada(const std::string& args) {
    const int status = clada::testing::Sh(absl::StrCat("cd ", ShellQuote(dir_), " && ",
                                                       ShellQuote(clada::testing::CladaBinary()), " ", args,
                                                       " </dev/null >.stdout 2>.stderr"));
    EXPECT_TRUE(WIFEXITED(status)) << args;
    const std::string out = ReadAll(dir_ + "/.stdout"), err = ReadAll(dir_ + "/.stderr");
    EXPECT_EQ(RawControl(out), "") << "clada " << args << " stdout:\n" << out;
    EXPECT_EQ(RawControl(err), "") << "clada " << args << " stderr:\n" << err;
    return out;
  }

  void WriteFile(const std::string& name, const std::string& text) {
    ASSERT_EQ(clada::testing::Sh(absl::StrCat("printf %s ", ShellQuote(text), " > ", ShellQuote(dir_ + "/" + name))),
              0);
  }

  std::string dir_;
};

TEST_F(TerminalEscape, NoCommandPrintsAHostileNameRaw) {
  // The CML and CSL report forms, and the run report of a SHAM block whose
  // error quotes the name.
  WriteFile("cml.md", absl::StrCat("<write path=\"", kHostile, "-cml\">y</write>\n<move from=\"", kHostile,
                                   "-cml\" to=\"", kHostile, "-moved\"/>\n"));
  WriteFile("csl.md", absl::StrCat("<---WRITE file=\"", kHostile, "-csl\"--->\nz\n<---END--->\n"));
  WriteFile("sham.md", absl::StrCat("#!SHAM [@three-char-SHA-256: h01]\naction = \"file_write\"\npath = \"", kHostile,
                                    "\"\ncontent = \"x\"\n#!END_SHAM_h01\n"));
  const std::string escaped_osc = "\\x1b]52;c;Zm9v\\x07";

  EXPECT_NE(Clada("validate cml.md").find(escaped_osc), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(Clada("validate --json cml.md")));
  EXPECT_NE(Clada("run --dry-run cml.md").find(escaped_osc), std::string::npos);
  EXPECT_NE(Clada("run cml.md").find(escaped_osc), std::string::npos);
  EXPECT_NE(Clada("run csl.md").find(escaped_osc), std::string::npos);
  Clada("run sham.md");
  EXPECT_TRUE(nlohmann::json::accept(Clada("run --json --dry-run cml.md")));

  // The commit messages clada wrote: what `git log` prints.
  ASSERT_EQ(clada::testing::Sh(absl::StrCat("cd ", ShellQuote(dir_), " && git log --format=%B >.gitlog")), 0);
  const std::string messages = ReadAll(dir_ + "/.gitlog");
  EXPECT_EQ(RawControl(messages), "") << messages;
  EXPECT_NE(messages.find(escaped_osc), std::string::npos) << messages;

  EXPECT_NE(Clada("log").find(escaped_osc), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(Clada("log --json")));

  Clada(absl::StrCat("context add ", ShellQuote(kHostile + "-csl")));
  EXPECT_NE(Clada("context list").find(escaped_osc), std::string::npos);
  EXPECT_NE(Clada("context show").find(escaped_osc), std::string::npos);

  EXPECT_NE(Clada("undo --dry-run").find(escaped_osc), std::string::npos);
  EXPECT_NE(Clada("undo").find(escaped_osc), std::string::npos);
  // A name given on the command line is shown escaped too.
  Clada(absl::StrCat("run ", ShellQuote(kHostile)));
}

// A name that is not UTF-8 reached git-tx's JSON journal from a CSL block
// and aborted clada run (exit 134) in a repository. Every dialect's path
// is checked once, in the engine: each of these ends in an ordinary
// report, exit 1, nothing written and the repository still usable.
TEST_F(TerminalEscape, NamesThatAreNotUtf8AreRefusedInEveryDialect) {
  const std::string bad = "a\xff.txt";
  const std::vector<std::string> answers = {
      "<---WRITE file=\"" + bad + "\"--->\nhello\n<---END--->\n",
      "<tasks>\n<write path=\"" + bad + "\">hello</write>\n</tasks>\n",
      "#!SHAM [@three-char-SHA-256: k7m]\naction = \"file_write\"\npath = \"" + bad +
          "\"\ncontent = \"x\"\n#!END_SHAM_k7m\n",
      "```\n" + bad + "\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n```\n",
      "*** Begin Patch\n*** Add File: " + bad + "\n+hello\n*** End Patch\n",
      "```diff\n--- /dev/null\n+++ b/" + bad + "\n@@ -0,0 +1 @@\n+hello\n```\n",
  };
  for (size_t i = 0; i < answers.size(); ++i) {
    SCOPED_TRACE(i);
    WriteFile("answer.md", answers[i]);
    for (const char* args : {"run --dry-run answer.md", "run answer.md", "run --json answer.md"}) {
      SCOPED_TRACE(args);
      const int status = clada::testing::Sh(absl::StrCat("cd ", ShellQuote(dir_), " && ",
                                                         ShellQuote(clada::testing::CladaBinary()), " ", args,
                                                         " </dev/null >.stdout 2>.stderr"));
      ASSERT_TRUE(WIFEXITED(status)) << ReadAll(dir_ + "/.stderr");
      EXPECT_EQ(WEXITSTATUS(status), 1) << ReadAll(dir_ + "/.stdout") << ReadAll(dir_ + "/.stderr");
      EXPECT_NE(::access((dir_ + "/" + bad).c_str(), F_OK), 0);
    }
  }
  Clada("run --json answer.md");  // and the next run is an ordinary one
}

}  // namespace
