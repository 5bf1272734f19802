// Drives the real `clada` binary: arguments, stdin, exit codes, files.
#include <stdlib.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/test/test_util.h"

namespace {

using clada::testing::ReadAll;
using clada::testing::ShellQuote;

class CliCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(CliCase, Behaves) {
  const nlohmann::json& c = GetParam();
  std::string dir = clada::testing::MakeTempDir("clada_cli_");
  ASSERT_FALSE(dir.empty());
  std::string binary = clada::testing::CladaBinary();
  if (c.contains("setup")) {
    for (auto& [path, content] : c["setup"].items()) {
      std::string full = absl::StrCat(dir, "/", path);
      ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", ShellQuote(full.substr(0, full.rfind('/')))).c_str()), 0);
      std::ofstream(full, std::ios::binary) << content.get<std::string>();
    }
  }
  std::ofstream(dir + "/.stdin", std::ios::binary) << c.value("stdin", "");
  std::string cmd = absl::StrCat("cd ", ShellQuote(dir), " && BUILD_WORKING_DIRECTORY=", ShellQuote(dir), " ",
                                 ShellQuote(binary));
  for (const auto& a : c["args"]) absl::StrAppend(&cmd, " ", ShellQuote(a.get<std::string>()));
  absl::StrAppend(&cmd, " <.stdin >.stdout 2>.stderr");
  int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  std::string out = ReadAll(dir + "/.stdout"), err = ReadAll(dir + "/.stderr");
  EXPECT_EQ(WEXITSTATUS(status), c["exit"].get<int>()) << "stdout:\n" << out << "\nstderr:\n" << err;
  for (const auto& s : c.value("stdout", nlohmann::json::array())) {
    EXPECT_NE(out.find(s.get<std::string>()), std::string::npos) << "stdout lacks: " << s << "\n" << out;
  }
  for (const auto& s : c.value("stderr", nlohmann::json::array())) {
    EXPECT_NE(err.find(s.get<std::string>()), std::string::npos) << "stderr lacks: " << s << "\n" << err;
  }
  const nlohmann::json files = c.value("files", nlohmann::json::object());
  for (auto& [path, content] : files.items()) {
    EXPECT_EQ(ReadAll(absl::StrCat(dir, "/", path)), content.get<std::string>()) << path;
  }
  for (const auto& path : c.value("absent", nlohmann::json::array())) {
    std::ifstream f(absl::StrCat(dir, "/", path.get<std::string>()));
    EXPECT_FALSE(f.good()) << path << " should not exist";
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("proj/test-data/cli/cases.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(Cases, CliCase, ::testing::ValuesIn(LoadCases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

}  // namespace
