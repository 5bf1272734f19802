// A failed action's fix is said in the words of the dialect its block was
// written in: a SEARCH/REPLACE, diff, apply_patch, CML, CSL or replacer
// block is never told to use a SHAM tool (file_replace_all_text,
// file_write, old_text), a SHAM block never to write a dialect's markers;
// each is told what to write in its own.
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/core/test/test_dir.h"
#include "proj/src/clada.h"

namespace clada {
namespace {

struct Case {
  std::string dialect;
  // An edit of a.txt whose text is found twice in it, and the code it
  // fails with; none for a diff, whose hunk is placed by its line numbers.
  std::string twice;
  std::string twice_code;
  std::string missing;  // an edit of nope.txt, which does not exist
  // What its fixes say: the match and the missing file.
  std::string match_fix;
  std::string missing_fix;
};

std::string Sham(const std::string& path) {
  return absl::StrCat("#!SHAM [@three-char-SHA-256: m01]\naction = \"file_replace_text\"\npath = \"", path,
                      "\"\nold_text = \"x\"\nnew_text = \"z\"\n#!END_SHAM_m01\n");
}
std::string SearchReplace(const std::string& path) {
  return absl::StrCat(path, "\n```\n<<<<<<< SEARCH\nx\n=======\nz\n>>>>>>> REPLACE\n```\n");
}
std::string Cml(const std::string& path) {
  return absl::StrCat("<edit path=\"", path, "\"><search><![CDATA[x]]></search><replace><![CDATA[z]]></replace></edit>\n");
}
std::string Csl(const std::string& path) {
  return absl::StrCat("<---SEARCH file=\"", path, "\"--->\nx\n<---REPLACE--->\nz\n<---END--->\n");
}
std::string Replacer(const std::string& path) {
  return absl::StrCat("<<<FILE>>>\n", path, "\n<<<SEARCH>>>\nx\n<<<REPLACE>>>\nz\n<<<END>>>\n");
}
std::string ApplyPatch(const std::string& path) {
  return absl::StrCat("*** Begin Patch\n*** Update File: ", path, "\n@@\n-x\n+z\n*** End Patch\n");
}
std::string Udiff(const std::string& path) {
  return absl::StrCat("```diff\n--- a/", path, "\n+++ b/", path, "\n@@ -1,1 +1,1 @@\n-x\n+z\n```\n");
}

std::vector<Case> Cases() {
  return {
      {"sham", Sham("a.txt"), "match_count_mismatch", Sham("nope.txt"), "file_replace_all_text", "file_write"},
      {"search_replace", SearchReplace("a.txt"), "match_count_mismatch", SearchReplace("nope.txt"),
       "SEARCH section", "empty SEARCH section"},
      {"cml", Cml("a.txt"), "match_count_mismatch", Cml("nope.txt"), "<search>", "<write path="},
      {"csl", Csl("a.txt"), "match_count_mismatch", Csl("nope.txt"), "SEARCH marker", "WRITE block"},
      {"replacer", Replacer("a.txt"), "match_count_mismatch", Replacer("nope.txt"), "<<<SEARCH>>>",
       "<<<OVERWRITE>>>"},
      // hunk-apply's own message, in the patch's words already.
      {"apply_patch", ApplyPatch("a.txt"), "match_count_mismatch", ApplyPatch("nope.txt"), "context lines",
       "*** Add File:"},
      {"udiff", "", "", Udiff("nope.txt"), "", "--- /dev/null"},
  };
}

// Words of SHAM's tools, and of the other dialects' markers.
const char* const kShamWords[] = {"file_write", "file_replace_all_text", "old_text", "new_text", "count = ",
                                  "file_read"};
const char* const kMarkerWords[] = {"SEARCH", "<<<", "*** ", "/dev/null", "<write", "<edit", "WRITE block"};

ActionResult RunOne(const std::string& answer) {
  CladaOptions o;
  o.working_root = core::testing::MakeTestDir("clada_fix_phrasing_");
  std::ofstream(o.working_root + "/a.txt") << "x\ny\nx\n";
  o.settings.quiet = true;
  o.settings.git = git_tx::GitOptions::Mode::kOff;
  o.settings.exec = core::ExecPolicy::kDeny;
  const ExecutionResult run = Clada(o).Execute(answer);
  EXPECT_EQ(run.results.size(), 1u) << answer;
  return run.results.empty() ? ActionResult{} : run.results.front();
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.dialect; }

void ExpectOwnWords(const Case& c, const ActionResult& r, const std::string& fix) {
  SCOPED_TRACE(absl::StrCat(c.dialect, " ", r.code, ": ", r.error));
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.dialect, c.dialect);
  EXPECT_TRUE(absl::StrContains(r.error, fix)) << "lacks " << fix;
  // The message after the action's name (the report's neutral word for
  // it, which CML's form leads with its error type).
  const size_t named = r.error.find(r.action + ": ");
  const std::string said = named == std::string::npos ? r.error : r.error.substr(named + r.action.size() + 2);
  if (c.dialect == "sham") {
    for (const char* w : kMarkerWords) EXPECT_FALSE(absl::StrContains(said, w)) << "names " << w;
  } else {
    for (const char* w : kShamWords) EXPECT_FALSE(absl::StrContains(said, w)) << "names " << w;
  }
}

class FixPhrasing : public ::testing::TestWithParam<Case> {};

TEST_P(FixPhrasing, TextFoundTwiceIsFixedInTheDialectsWords) {
  const Case& c = GetParam();
  if (c.twice.empty()) GTEST_SKIP() << c.dialect << ": a hunk is placed by its line numbers";
  const ActionResult r = RunOne(c.twice);
  EXPECT_EQ(r.code, c.twice_code) << r.error;
  ExpectOwnWords(c, r, c.match_fix);
}

TEST_P(FixPhrasing, MissingFileIsFixedInTheDialectsWords) {
  const Case& c = GetParam();
  const ActionResult r = RunOne(c.missing);
  EXPECT_EQ(r.code, "not_found") << r.error;
  ExpectOwnWords(c, r, c.missing_fix);
}

INSTANTIATE_TEST_SUITE_P(EveryDialect, FixPhrasing, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.dialect; });

}  // namespace
}  // namespace clada
