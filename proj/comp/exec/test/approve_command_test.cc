// Cases from test-data/approve_command.json: `clada approve` against a fresh
// working root, and the shell quoting of the command it is given as.
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/allowed_commands.h"
#include "proj/comp/exec/src/exec.h"

namespace clada::exec {
namespace {

using Json = nlohmann::ordered_json;

const Json& Data() {
  static const Json* const kData = [] {
    std::ifstream in("proj/comp/exec/test-data/approve_command.json");
    return new Json(Json::parse(in));
  }();
  return *kData;
}

std::vector<Json> Section(const char* name) {
  std::vector<Json> cases;
  for (const Json& c : Data()[name]) cases.push_back(c);
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<Json>& info) { return info.param["name"].get<std::string>(); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ApproveCommandTest : public ::testing::TestWithParam<Json> {};

TEST_P(ApproveCommandTest, Run) {
  const Json& c = GetParam();
  std::string root = std::string(::getenv("TEST_TMPDIR")) + "/approve-XXXXXX";
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  const std::string file = root + "/.clada/allowed-commands.json";
  if (c.contains("file")) {
    ASSERT_TRUE(core::CreateDirectories(root + "/.clada").ok());
    ASSERT_TRUE(core::WriteFileAtomic(file, c["file"].get<std::string>()).ok());
  }
  absl::StatusOr<core::PathPolicy> paths = core::MakePathPolicy(root, {});
  ASSERT_TRUE(paths.ok());
  core::ExecContext ctx;
  ctx.paths = *paths;
  ctx.exec_policy = c.value("policy", "approve") == "allow" ? core::ExecPolicy::kAllow : core::ExecPolicy::kApprove;

  std::ostringstream out, err;
  const int code = RunApproveCommand(c["args"].get<std::vector<std::string>>(), ctx, out, err);
  EXPECT_EQ(code, c["exit"].get<int>()) << "out: " << out.str() << "\nerr: " << err.str();
  for (const Json& s : c.value("out_contains", Json::array())) {
    EXPECT_NE(out.str().find(s.get<std::string>()), std::string::npos) << s << "\nout: " << out.str();
  }
  for (const Json& s : c.value("err_contains", Json::array())) {
    EXPECT_NE(err.str().find(s.get<std::string>()), std::string::npos) << s << "\nerr: " << err.str();
  }
  if (code == 0) {
    EXPECT_TRUE(err.str().empty()) << err.str();
  }

  struct stat st;
  if (c.value("no_file", false)) {
    EXPECT_NE(::stat(file.c_str(), &st), 0) << "the file was created";
  }
  if (c.value("file_unchanged", false)) {
    EXPECT_EQ(ReadFile(file), c["file"].get<std::string>());
  }
  if (c.contains("commands")) {
    Json doc = Json::parse(ReadFile(file));
    // The entry clada appended (the last) carries its UTC time; entries are
    // compared without it.
    const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
    ASSERT_FALSE(doc["commands"].empty());
    const Json& last = doc["commands"].back();
    ASSERT_TRUE(last.is_object() && last.contains("added") && last["added"].is_string()) << doc.dump(2);
    EXPECT_TRUE(std::regex_match(last["added"].get<std::string>(), iso)) << doc.dump(2);
    for (Json& entry : doc["commands"]) {
      if (entry.is_object()) entry.erase("added");
    }
    EXPECT_EQ(doc["commands"], c["commands"]);
    // Each key of file_subset: an object's entries must all be present.
    const Json subset = c.value("file_subset", Json::object());
    for (const auto& [key, value] : subset.items()) {
      if (!value.is_object()) {
        EXPECT_EQ(doc[key], value) << doc.dump(2);
        continue;
      }
      for (const auto& [k, v] : value.items()) EXPECT_EQ(doc[key][k], v) << doc.dump(2);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ApproveCommandTest, ::testing::ValuesIn(Section("approve")), CaseName);

class ShellQuoteTest : public ::testing::TestWithParam<Json> {};

// The quoted text must be what /bin/sh reads back as the original.
TEST_P(ShellQuoteTest, QuotesForPosixShell) {
  const Json& c = GetParam();
  const std::string input = c["input"].get<std::string>();
  const std::string quoted = internal::ShellQuote(input);
  EXPECT_EQ(quoted, c["expected"].get<std::string>());
  FILE* sh = ::popen(("printf %s " + quoted).c_str(), "r");
  ASSERT_NE(sh, nullptr);
  std::string back;
  char buf[256];
  size_t n;
  while ((n = ::fread(buf, 1, sizeof buf, sh)) > 0) back.append(buf, n);
  EXPECT_EQ(::pclose(sh), 0);
  EXPECT_EQ(back, input);
}

INSTANTIATE_TEST_SUITE_P(Cases, ShellQuoteTest, ::testing::ValuesIn(Section("shell_quote")), CaseName);

class ApproveCommandLineTest : public ::testing::TestWithParam<Json> {};

TEST_P(ApproveCommandLineTest, Formats) {
  EXPECT_EQ(internal::ApproveCommandLine(GetParam()["lang"].get<std::string>(), GetParam()["input"].get<std::string>()),
            GetParam()["expected"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Cases, ApproveCommandLineTest, ::testing::ValuesIn(Section("approve_command_line")), CaseName);

// Issue 17 #10: an allowed-commands.json nested 100,000 levels deep
// crashed the JSON parser. It is refused, naming the file, the cause and
// the fix, and the file is left as it was.
TEST(LoadAllowedCommands, DeeplyNestedFileIsAnErrorNotACrash) {
  std::string root = std::string(::getenv("TEST_TMPDIR")) + "/approve-deep-XXXXXX";
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  ASSERT_TRUE(core::CreateDirectories(root + "/.clada").ok());
  const std::string file = root + "/.clada/allowed-commands.json";
  const std::string deep = "{\"commands\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  ASSERT_TRUE(core::WriteFileAtomic(file, deep).ok());
  absl::StatusOr<std::vector<core::ApprovedCode>> got = internal::LoadAllowedCommands(root);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find(file), std::string::npos) << got.status();
  EXPECT_NE(got.status().message().find("more than 64 levels deep"), std::string::npos) << got.status();
  EXPECT_NE(got.status().message().find("fix or remove it"), std::string::npos) << got.status();
  EXPECT_EQ(ReadFile(file), deep);
}

}  // namespace
}  // namespace clada::exec
