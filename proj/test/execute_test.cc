// Runs every case in proj/test-data/execute/: set up a scratch project,
// execute the answer, compare the result JSON, the report and the files.
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/src/clada.h"
#include "proj/src/report.h"
#include "proj/test/case_file.h"

namespace clada {
namespace {

using testing::CaseFile;

constexpr char kCaseDir[] = "proj/test-data/execute";

std::string MakeScratchRoot() {
  char tmpl[] = "/tmp/clada_execute_XXXXXX";
  char* dir = ::mkdtemp(tmpl);
  return dir == nullptr ? "" : dir;
}

constexpr char kNoFinalNewline[] = " (no final newline)";

// A fenced body is a file's lines; the file ends with a newline unless the
// entry's title says "(no final newline)". Returns the path and the bytes.
std::pair<std::string, std::string> FileOf(const testing::CaseEntry& e) {
  std::string title = e.title;
  size_t cut = title.find(kNoFinalNewline);
  if (cut != std::string::npos) return {title.substr(0, cut), e.body.value_or("")};
  return {title, absl::StrCat(e.body.value_or(""), "\n")};
}

void WriteSetup(const CaseFile& c, const std::string& root) {
  auto it = c.sections.find("Setup");
  if (it == c.sections.end()) return;
  for (const testing::CaseEntry& e : it->second) {
    auto [name, bytes] = FileOf(e);
    std::string path = absl::StrCat(root, "/", name);
    ASSERT_TRUE(core::CreateDirectories(path.substr(0, path.rfind('/'))).ok());
    ASSERT_TRUE(core::WriteFileAtomic(path, bytes).ok()) << path;
  }
}

class ExecuteCase : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecuteCase, MatchesExpectations) {
  CaseFile c = testing::LoadCaseFile(GetParam());
  ASSERT_TRUE(c.Has("Input")) << GetParam() << " has no ## Input section";
  std::string root = MakeScratchRoot();
  ASSERT_FALSE(root.empty());
  WriteSetup(c, root);

  nlohmann::ordered_json options = c.Has("Options") ? nlohmann::ordered_json::parse(c.Body("Options"))
                                                    : nlohmann::ordered_json::object();
  CladaOptions clada_options;
  clada_options.working_root = root;
  clada_options.settings.quiet = true;
  clada_options.settings.git = git_tx::GitOptions::Mode::kOff;
  clada_options.dry_run = options.value("dryRun", false);
  if (options.value("git", false)) {
    clada_options.settings.git = git_tx::GitOptions::Mode::kRequire;
    std::string cmd = absl::StrCat("cd '", root,
                                   "' && git init -q && git -c user.name=t -c user.email=t@t add -A && "
                                   "git -c user.name=t -c user.email=t@t commit -qm init");
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  std::string input = absl::StrReplaceAll(c.Body("Input"), {{"$ROOT", root}});
  ExecutionResult result = Clada(clada_options).Execute(input);
  nlohmann::ordered_json actual = ExecutionResultToJson(result);
  std::string report = FormatReport(result, clada_options.settings.max_output_bytes);

  if (c.Has("Expected")) {
    nlohmann::ordered_json expected =
        nlohmann::ordered_json::parse(absl::StrReplaceAll(c.Body("Expected"), {{"$ROOT", root}}));
    EXPECT_EQ(testing::JsonSubsetMismatch(expected, actual), "") << actual.dump(2);
  }
  if (c.Has("Expected report")) {
    EXPECT_EQ(testing::LinesInOrderMismatch(absl::StrReplaceAll(c.Body("Expected report"), {{"$ROOT", root}}),
                                            report),
              "");
  }
  auto files = c.sections.find("Expected files");
  if (files != c.sections.end()) {
    for (const testing::CaseEntry& e : files->second) {
      auto [name, bytes] = FileOf(e);
      absl::StatusOr<std::string> got = core::ReadFileToString(absl::StrCat(root, "/", name));
      if (!e.body) {
        EXPECT_FALSE(got.ok()) << name << " should not exist";
      } else {
        ASSERT_TRUE(got.ok()) << name << ": " << got.status();
        EXPECT_EQ(*got, bytes) << name;
      }
    }
  }
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string base = info.param.substr(info.param.rfind('/') + 1);
  base = base.substr(0, base.size() - 3);
  std::string name;
  bool upper = true;
  for (char ch : base) {
    if (ch == '-' || ch == '_') {
      upper = true;
    } else {
      name += upper ? static_cast<char>(toupper(ch)) : ch;
      upper = false;
    }
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, ExecuteCase, ::testing::ValuesIn(testing::ListCaseFiles(kCaseDir)), CaseName);

TEST(Execute, RefusesInputOverLimit) {
  CladaOptions options;
  options.working_root = MakeScratchRoot();
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
