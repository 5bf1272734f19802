// Runs xd5 commands on the fake workspaces in test-data/workspaces/ and
// compares stdout, stderr and the exit code with test-data/cli_cases.json
// (stdout as a list of lines, or as a file under test-data/expected/).
//
// A workspace's BUILD files are stored as BUILD.bazel.in (a real BUILD.bazel
// would make a Bazel package of test-data); each case copies its workspace
// to TEST_TMPDIR and renames them.

#include "tools/xd5/src/cli.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::xd5 {
namespace {

namespace fs = std::filesystem;

constexpr char kData[] = "tools/xd5/test-data/";

// Copies test-data workspace WS to a fresh directory; returns its path.
std::string MaterializeWorkspace(const std::string& ws,
                                 const std::string& case_name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path dest = fs::path(tmp != nullptr ? tmp : "/tmp") / "xd5" / case_name;
  fs::remove_all(dest);
  fs::create_directories(dest);
  fs::copy(std::string(kData) + "workspaces/" + ws, dest,
           fs::copy_options::recursive);
  for (const auto& entry : fs::recursive_directory_iterator(dest)) {
    if (entry.path().filename() == "BUILD.bazel.in") {
      fs::rename(entry.path(), entry.path().parent_path() / "BUILD.bazel");
    }
  }
  return dest.string();
}

std::string Lines(const nlohmann::json& lines) {
  std::string out;
  for (const auto& l : lines) out += l.get<std::string>() + "\n";
  return out;
}

class CliCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(CliCase, MatchesExpectedOutput) {
  const nlohmann::json& c = GetParam();
  std::string root = MaterializeWorkspace(c["workspace"].get<std::string>(),
                                          c["name"].get<std::string>());
  std::vector<std::string> args = {"--root", root};
  for (const auto& a : c["args"]) args.push_back(a.get<std::string>());
  std::ostringstream out, err;
  int code = RunXd5(args, out, err);
  EXPECT_EQ(code, c["exit"].get<int>()) << "stderr:\n" << err.str();
  std::string stdout_text = absl::StrReplaceAll(out.str(), {{root, "ROOT"}});
  if (c.contains("stdout_file")) {
    std::ifstream in(std::string(kData) + c["stdout_file"].get<std::string>());
    std::stringstream expected;
    expected << in.rdbuf();
    EXPECT_EQ(stdout_text, expected.str());
  } else {
    EXPECT_EQ(stdout_text, Lines(c["stdout"]));
  }
  if (c.contains("stderr")) {
    EXPECT_EQ(absl::StrReplaceAll(err.str(), {{root, "ROOT"}}),
              Lines(c["stderr"]));
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in(std::string(kData) + "cli_cases.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(
    TestData, CliCase, ::testing::ValuesIn(LoadCases()),
    [](const ::testing::TestParamInfo<nlohmann::json>& info) {
      return info.param["name"].get<std::string>();
    });

}  // namespace
}  // namespace clada::xd5
