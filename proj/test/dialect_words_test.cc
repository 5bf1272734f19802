// Every failed action's error, as a run and a dry run report it, is said in
// the words of the dialect its block was written in: an answer in
// SEARCH/REPLACE, CML, CSL, replacer, apply_patch or diff form is never told
// a SHAM action or parameter name (file_write, old_text, ...) that its own
// dialect does not use. SHAM (and MCP, whose tools are SHAM's actions) keep
// the bare names.
//
// The words come from the schema (every action and parameter name that is
// not an English word: those with an underscore); a dialect "uses" one when
// its instructions (`clada instructions --dialect D`) name it. The failures
// are those of every answer of the run's test data and a set made for it:
// one per way an edit, a write, a removal or a move can fail.
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "proj/comp/core/test/test_dir.h"
#include "proj/comp/readers/src/all_readers.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/src/clada.h"
#include "proj/test/case_file.h"

namespace clada {
namespace {

// The schema's words that are no English word.
std::vector<std::string> SchemaWords() {
  std::set<std::string> words;
  for (const sham_action_parser::ActionDefinition& a : sham_action_parser::LoadedSchema().actions) {
    if (absl::StrContains(a.name, '_')) words.insert(a.name);
    for (const sham_action_parser::ParameterDef& p : a.parameters) {
      if (absl::StrContains(p.name, '_')) words.insert(p.name);
    }
  }
  return {words.begin(), words.end()};
}

// The schema words `dialect`'s instructions do not name: its answers are
// never told them.
std::vector<std::string> ForeignWords(const std::string& dialect) {
  static const readers::Registry* registry = new readers::Registry();
  const answer::Reader* reader = registry->Find(dialect);
  const std::string taught = reader == nullptr ? "" : reader->Instructions();
  std::vector<std::string> out;
  for (const std::string& w : SchemaWords()) {
    if (!absl::StrContains(taught, w)) out.push_back(w);
  }
  return out;
}

// The report's text for a failed action, after the action's name it leads
// with (the report's neutral word for the action: each report form gives
// its own).
std::string Said(const ActionResult& r) {
  const size_t named = r.error.find(r.action + ": ");
  return named == std::string::npos ? r.error : r.error.substr(named + r.action.size() + 2);
}

// Checks every failure of `run`; returns how many were checked.
int ExpectOwnWords(const ExecutionResult& run, const std::string& what) {
  int checked = 0;
  for (const ActionResult& r : run.results) {
    if (r.success || r.dialect == "sham" || r.code == "not_run") continue;
    ++checked;
    const std::string said = Said(r);
    for (const std::string& w : ForeignWords(r.dialect)) {
      EXPECT_FALSE(absl::StrContains(said, w))
          << what << ": a " << r.dialect << " " << r.action << " failure (" << r.code << ") names " << w << ":\n"
          << r.error;
    }
    // Nothing left for the dialect to say: no marker reaches a report.
    EXPECT_FALSE(absl::StrContains(r.error, '\x1f')) << what << ": " << r.error;
  }
  return checked;
}

struct Run {
  ExecutionResult real;
  ExecutionResult dry;
};

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The files every made case edits: a.txt holds "x" twice, c.py a function,
// b.bin a NUL byte, l1.txt Latin-1 text, d/ a directory.
std::string MadeRoot() {
  const std::string root = core::testing::MakeTestDir("clada_dialect_words_");
  WriteBytes(root + "/a.txt", "x\ny\nx\n");
  WriteBytes(root + "/c.py", "def compute(a, b):\n    return a\n\n\ndef main():\n    pass\n");
  WriteBytes(root + "/b.bin", std::string("ab\0cd\nx\n", 8));
  WriteBytes(root + "/l1.txt", "caf\xe9\nx\n");
  WriteBytes(root + "/e.txt", "");
  ::mkdir((root + "/d").c_str(), 0755);
  WriteBytes(root + "/d/f.txt", "f\n");
  return root;
}

ExecutionResult RunIn(const std::string& root, const std::string& answer, bool dry) {
  CladaOptions o;
  o.working_root = root;
  o.settings.quiet = true;
  o.settings.git = git_tx::GitOptions::Mode::kOff;
  o.settings.exec = core::ExecPolicy::kDeny;
  o.dry_run = dry;
  return Clada(o).Execute(answer);
}

// One way to fail, written in each dialect that can say it ("" where it
// cannot).
struct Made {
  std::string name;
  std::string dialect;
  std::string answer;
};

std::string Sr(const std::string& path, const std::string& search, const std::string& replace) {
  return absl::StrCat(path, "\n```\n<<<<<<< SEARCH\n", search, "=======\n", replace, ">>>>>>> REPLACE\n```\n");
}
std::string CmlEdit(const std::string& path, const std::string& search, const std::string& replace,
                    const std::string& attrs = "") {
  return absl::StrCat("<edit path=\"", path, "\"", attrs, "><search><![CDATA[", search, "]]></search><replace><![CDATA[",
                      replace, "]]></replace></edit>\n");
}
std::string CslEdit(const std::string& path, const std::string& search, const std::string& replace,
                    const std::string& attrs = "") {
  return absl::StrCat("<---SEARCH file=\"", path, "\"", attrs, "--->\n", search, "<---REPLACE--->\n", replace,
                      "<---END--->\n");
}
std::string ReplacerEdit(const std::string& path, const std::string& search, const std::string& replace) {
  return absl::StrCat("<<<FILE>>>\n", path, "\n<<<SEARCH>>>\n", search, "<<<REPLACE>>>\n", replace, "<<<END>>>\n");
}
// `search` and `replace` as whole lines ("" or ending in a newline).
std::string PatchLines(const std::string& prefix, const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size() - 1;
    absl::StrAppend(&out, prefix, text.substr(at, nl + 1 - at));
    at = nl + 1;
  }
  return out;
}
std::string PatchEdit(const std::string& path, const std::string& search, const std::string& replace) {
  return absl::StrCat("*** Begin Patch\n*** Update File: ", path, "\n@@\n", PatchLines("-", search),
                      PatchLines("+", replace), "*** End Patch\n");
}
int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }
std::string DiffEdit(const std::string& path, const std::string& search, const std::string& replace) {
  return absl::StrCat("```diff\n--- a/", path, "\n+++ b/", path, "\n@@ -1,", Lines(search), " +1,", Lines(replace),
                      " @@\n", PatchLines("-", search), PatchLines("+", replace), "```\n");
}

// An edit of `path` in every dialect that edits by search and replace.
std::vector<Made> Edits(const std::string& name, const std::string& path, const std::string& search,
                        const std::string& replace) {
  return {{name, "search_replace", Sr(path, search, replace)},  {name, "cml", CmlEdit(path, search, replace)},
          {name, "csl", CslEdit(path, search, replace)},        {name, "replacer", ReplacerEdit(path, search, replace)},
          {name, "apply_patch", PatchEdit(path, search, replace)}, {name, "udiff", DiffEdit(path, search, replace)}};
}

std::vector<Made> MadeCases() {
  std::vector<Made> out;
  auto add = [&](std::vector<Made> more) { out.insert(out.end(), more.begin(), more.end()); };
  add(Edits("SearchNotFound", "c.py", "def compute(a, c):\n    return a\n", "z = 1\n"));
  {  // a hunk that changes nothing is no error
    std::vector<Made> same = Edits("SameSearchAndReplace", "a.txt", "y\n", "y\n");
    same.resize(4);
    add(same);
  }
  add(Edits("BinaryFile", "b.bin", "x\n", "z\n"));
  add(Edits("NotUtf8File", "l1.txt", "x\n", "z\n"));
  add(Edits("EditADirectory", "d", "x\n", "z\n"));
  add(Edits("Placeholder", "c.py", "def main():\n    pass\n", "def main():\n    # ... existing code ...\n"));
  add(Edits("EmptyFile", "e.txt", "x\n", "z\n"));
  add({{"EmptySearch", "cml", CmlEdit("a.txt", "", "z")},
       {"EmptySearch", "csl", CslEdit("a.txt", "", "z\n")},
       {"EmptySearch", "replacer", ReplacerEdit("a.txt", "", "z\n")},
       {"CountMismatch", "cml", CmlEdit("a.txt", "x", "z", " count=\"3\"")},
       {"CountMismatch", "csl", CslEdit("a.txt", "x\n", "z\n", " count=\"3\"")},
       {"RangeStartMissing", "csl", CslEdit("c.py", "def compute(q\n<---TO--->\n    return a\n", "z = 1\n")},
       {"RangeEndMissing", "csl", CslEdit("c.py", "def compute(\n<---TO--->\n    return b\n", "z = 1\n")},
       {"RangeEndBeforeStart", "csl", CslEdit("c.py", "def main\n<---TO--->\n    return a\n", "z = 1\n")},
       {"RangeCountMismatch", "csl", CslEdit("a.txt", "x\n<---TO--->\ny\n", "z\n", " count=\"2\"")},
       {"RangeDangling", "csl", CslEdit("a.txt", "x\n<---TO--->\ny\n", "z\n", " count=\"all\"")},
       {"RangeStartMissing", "cml",
        "<edit path=\"c.py\"><search-start>def compute(q</search-start><search-end>return a</search-end>"
        "<replace>z = 1</replace></edit>\n"},
       {"RangeEndMissing", "cml",
        "<edit path=\"c.py\"><search-start>def compute(</search-start><search-end>return b</search-end>"
        "<replace>z = 1</replace></edit>\n"},
       {"WritePlaceholder", "cml", "<write path=\"c.py\"><![CDATA[# ... rest of the code ...\n]]></write>\n"},
       {"WritePlaceholder", "csl", "<---WRITE file=\"c.py\"--->\n# ... rest of the code ...\n<---END--->\n"},
       {"WritePlaceholder", "replacer", "<<<FILE>>>\nc.py\n<<<OVERWRITE>>>\n# ... rest of the code ...\n<<<END>>>\n"},
       {"WriteADirectory", "cml", "<write path=\"d\">z</write>\n"},
       {"WriteADirectory", "csl", "<---WRITE file=\"d\"--->\nz\n<---END--->\n"},
       {"WriteADirectory", "apply_patch", "*** Begin Patch\n*** Add File: d\n+z\n*** End Patch\n"},
       {"RemoveMissing", "cml", "<remove path=\"nope.txt\"/>\n"},
       {"RemoveMissing", "apply_patch", "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch\n"},
       {"RemoveADirectory", "apply_patch", "*** Begin Patch\n*** Delete File: d\n*** End Patch\n"},
       {"MoveOntoItself", "cml", "<move from=\"a.txt\" to=\"a.txt\"/>\n"},
       {"MoveMissing", "cml", "<move from=\"nope.txt\" to=\"z.txt\"/>\n"},
       {"DiffCreatesAnExistingFile", "udiff", "```diff\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+z\n```\n"},
       {"DiffDeletesWhatIsNotThere", "udiff", "```diff\n--- a/a.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-q\n```\n"}});
  return out;
}

void PrintTo(const Made& m, std::ostream* os) { *os << m.name << " in " << m.dialect; }

class DialectWords : public ::testing::TestWithParam<Made> {};

TEST_P(DialectWords, FailureIsSaidInTheDialectsWords) {
  const Made& m = GetParam();
  for (const bool dry : {false, true}) {
    SCOPED_TRACE(dry ? "dry run" : "run");
    const ExecutionResult run = RunIn(MadeRoot(), m.answer, dry);
    bool failed = false;
    for (const ActionResult& r : run.results) {
      EXPECT_EQ(r.dialect, m.dialect) << m.answer;
      failed = failed || !r.success;
    }
    // A made case fails, or it proves nothing.
    EXPECT_TRUE(failed || !run.parse_errors.empty())
        << m.answer << run.results.size() << " results " << run.fatal_error.value_or("");
    ExpectOwnWords(run, m.name);
  }
}

INSTANTIATE_TEST_SUITE_P(Made, DialectWords, ::testing::ValuesIn(MadeCases()), [](const auto& info) {
  return absl::StrCat(info.param.name, "_", info.param.dialect);
});

// Every answer of the run's test data, run and dry run in a root holding
// its Setup's files.
TEST(DialectWordsInTestData, EveryFailureIsSaidInItsDialectsWords) {
  std::vector<testing::CaseFile> cases;
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/execute")) {
    cases.push_back(testing::LoadCaseFile(path));
  }
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/security", ".cases.md")) {
    for (testing::CaseFile& c : testing::LoadCasesFile(path)) cases.push_back(std::move(c));
  }
  int checked = 0;
  for (const testing::CaseFile& c : cases) {
    for (const bool dry : {false, true}) {
      const std::string root = core::testing::MakeTestDir("clada_dialect_words_data_");
      auto setup = c.sections.find("Setup");
      if (setup != c.sections.end()) {
        for (const testing::CaseEntry& e : setup->second) {
          // Plain files only: links, directories and files outside the
          // root are what the security cases test, not how errors read.
          if (absl::StrContains(e.title, ' ') || absl::StrContains(e.title, '/')) continue;
          WriteBytes(absl::StrCat(root, "/", e.title), absl::StrCat(e.body.value_or(""), "\n"));
        }
      }
      const std::string answer =
          absl::StrReplaceAll(c.Body("Input"), {{"$ROOT", root}, {"$OUTSIDE", root + "-out"}});
      checked += ExpectOwnWords(RunIn(root, answer, dry), c.name);
    }
  }
  // The test data hold failures of other dialects than SHAM to check.
  EXPECT_GT(checked, 10);
}

}  // namespace
}  // namespace clada
