// Runs every case in proj/test-data/execute/*.md (one case a file) and
// proj/test-data/security/*.cases.md (several a file): set up a scratch
// project (and a directory outside it), execute the answer, compare the
// result JSON, the report, the files inside and the files outside.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/src/clada.h"
#include "proj/src/report.h"
#include "proj/test/case_file.h"
#include "proj/test/test_util.h"

namespace clada {
namespace {

using testing::CaseEntry;
using testing::CaseFile;

constexpr char kNoFinalNewline[] = " (no final newline)";

std::string MakeTempDir() { return testing::MakeTempDir("clada_execute_"); }

struct Dirs {
  std::string root;     // the working root
  std::string outside;  // beside it, outside every allowed root
  std::string Expand(absl::string_view text) const {
    return absl::StrReplaceAll(text, {{"$ROOT", root}, {"$OUTSIDE", outside}});
  }
};

// A fenced body is a file's lines; the file ends with a newline unless the
// entry's title says "(no final newline)". Returns the name and the bytes.
std::pair<std::string, std::string> FileOf(const CaseEntry& e) {
  std::string title = e.title;
  size_t cut = title.find(kNoFinalNewline);
  if (cut != std::string::npos) return {title.substr(0, cut), e.body.value_or("")};
  return {title, absl::StrCat(e.body.value_or(""), "\n")};
}

void WriteFile(const std::string& path, const std::string& bytes) {
  ASSERT_TRUE(core::CreateDirectories(path.substr(0, path.rfind('/'))).ok()) << path;
  ASSERT_TRUE(core::WriteFileAtomic(path, bytes).ok()) << path;
}

// Setup entries: `### path` + fence (a file in the root), `### outside path`
// + fence (a file in $OUTSIDE), `### symlink path -> target`,
// `### hardlink path -> target`, `### dir path`.
void WriteSetup(const CaseFile& c, const Dirs& d) {
  auto it = c.sections.find("Setup");
  if (it == c.sections.end()) return;
  for (const CaseEntry& e : it->second) {
    std::vector<std::string> words = absl::StrSplit(e.title, absl::MaxSplits(' ', 1));
    if (words[0] == "symlink" || words[0] == "hardlink") {
      std::vector<std::string> parts = absl::StrSplit(words[1], " -> ");
      ASSERT_EQ(parts.size(), 2u) << e.title;
      std::string link = absl::StrCat(d.root, "/", parts[0]);
      std::string target = d.Expand(parts[1]);
      ASSERT_TRUE(core::CreateDirectories(link.substr(0, link.rfind('/'))).ok());
      int rc = words[0] == "symlink" ? ::symlink(target.c_str(), link.c_str()) : ::link(target.c_str(), link.c_str());
      ASSERT_EQ(rc, 0) << e.title;
    } else if (words[0] == "dir") {
      ASSERT_TRUE(core::CreateDirectories(absl::StrCat(d.root, "/", words[1])).ok());
    } else if (words[0] == "outside") {
      CaseEntry inner{words[1], e.body};
      auto [name, bytes] = FileOf(inner);
      WriteFile(absl::StrCat(d.outside, "/", name), bytes);
    } else {
      auto [name, bytes] = FileOf(e);
      WriteFile(absl::StrCat(d.root, "/", name), bytes);
    }
  }
}

void CheckFiles(const CaseFile& c, const std::string& section, const std::string& dir) {
  auto files = c.sections.find(section);
  if (files == c.sections.end()) return;
  for (const CaseEntry& e : files->second) {
    auto [name, bytes] = FileOf(e);
    std::string path = absl::StrCat(dir, "/", name);
    struct stat st;
    if (!e.body) {
      EXPECT_NE(::lstat(path.c_str(), &st), 0) << section << ": " << name << " should not exist";
      continue;
    }
    absl::StatusOr<std::string> got = core::ReadFileToString(path);
    ASSERT_TRUE(got.ok()) << section << ": " << name << ": " << got.status();
    EXPECT_EQ(*got, bytes) << section << ": " << name;
  }
}

struct NamedCase {
  std::string name;
  CaseFile file;
};

class ExecuteCase : public ::testing::TestWithParam<NamedCase> {};

TEST_P(ExecuteCase, MatchesExpectations) {
  const CaseFile& c = GetParam().file;
  ASSERT_TRUE(c.Has("Input")) << GetParam().name << " has no ## Input section";
  Dirs d{MakeTempDir(), MakeTempDir()};
  ASSERT_FALSE(d.root.empty());
  ASSERT_FALSE(d.outside.empty());
  WriteSetup(c, d);

  nlohmann::ordered_json options = c.Has("Options") ? nlohmann::ordered_json::parse(d.Expand(c.Body("Options")))
                                                    : nlohmann::ordered_json::object();
  CladaOptions clada_options;
  clada_options.working_root = d.root;
  clada_options.settings.quiet = true;
  clada_options.settings.git = git_tx::GitOptions::Mode::kOff;
  clada_options.dry_run = options.value("dryRun", false);
  if (options.contains("allow")) clada_options.settings.allow = options["allow"].get<std::vector<std::string>>();
  if (options.contains("timeoutMs")) clada_options.settings.timeout_ms = options["timeoutMs"].get<int64_t>();
  if (options.contains("maxOutputBytes")) {
    clada_options.settings.max_output_bytes = options["maxOutputBytes"].get<int64_t>();
  }
  if (options.value("git", false)) {
    clada_options.settings.git = git_tx::GitOptions::Mode::kRequire;
    std::string cmd = absl::StrCat("cd '", d.root,
                                   "' && git init -q && git -c user.name=t -c user.email=t@t add -A && "
                                   "git -c user.name=t -c user.email=t@t commit -qm init");
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  ExecutionResult result = Clada(clada_options).Execute(d.Expand(c.Body("Input")));
  nlohmann::ordered_json actual = ExecutionResultToJson(result);
  std::string report = FormatReport(result, clada_options.settings.max_output_bytes);

  if (c.Has("Expected")) {
    nlohmann::ordered_json expected = nlohmann::ordered_json::parse(d.Expand(c.Body("Expected")));
    EXPECT_EQ(testing::JsonSubsetMismatch(expected, actual), "") << actual.dump(2);
  }
  if (c.Has("Expected report")) {
    EXPECT_EQ(testing::LinesInOrderMismatch(d.Expand(c.Body("Expected report")), report), "");
  }
  CheckFiles(c, "Expected files", d.root);
  CheckFiles(c, "Expected outside", d.outside);
}

std::string GTestName(absl::string_view text) {
  std::string name;
  bool upper = true;
  for (char ch : text) {
    if (!isalnum(static_cast<unsigned char>(ch))) {
      upper = true;
    } else {
      name += upper ? static_cast<char>(toupper(ch)) : ch;
      upper = false;
    }
  }
  return name;
}

std::vector<NamedCase> ExecuteCases() {
  std::vector<NamedCase> out;
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/execute")) {
    std::string base = path.substr(path.rfind('/') + 1);
    out.push_back({GTestName(base.substr(0, base.size() - 3)), testing::LoadCaseFile(path)});
  }
  return out;
}

std::vector<NamedCase> SecurityCases() {
  std::vector<NamedCase> out;
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/security", ".cases.md")) {
    for (CaseFile& c : testing::LoadCasesFile(path)) out.push_back({GTestName(c.name), std::move(c)});
  }
  return out;
}

std::string CaseName(const ::testing::TestParamInfo<NamedCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Execute, ExecuteCase, ::testing::ValuesIn(ExecuteCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Security, ExecuteCase, ::testing::ValuesIn(SecurityCases()), CaseName);

// The corpus must not shrink unnoticed: the report counts it.
TEST(SecurityCorpus, IsThereAndCounted) {
  std::vector<NamedCase> cases = SecurityCases();
  size_t n = cases.size();
  for (const NamedCase& c : cases) std::cout << "  " << c.name << "\n";
  std::cout << "security corpus: " << n << " attack cases, each refused or contained\n";
  EXPECT_GE(n, 20u);
}

TEST(Execute, RefusesInputOverLimit) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  options.settings.max_input_bytes = 10;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  ExecutionResult result = Clada(options).Execute("01234567890123456789");
  ASSERT_TRUE(result.fatal_error.has_value());
  EXPECT_NE(result.fatal_error->find("input_too_large"), std::string::npos);
}

TEST(Execute, MissingRootIsFatal) {
  CladaOptions options;
  options.working_root = "/definitely/not/a/dir";
  ExecutionResult result = Clada(options).Execute("text");
  EXPECT_TRUE(result.fatal_error.has_value());
  EXPECT_FALSE(result.success);
}

}  // namespace
}  // namespace clada
