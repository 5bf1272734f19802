// Cases from test-data/params.json: actions that no valid SHAM block yields
// (wrong types, unknown values), built directly. Each must be refused with
// its error and leave no trace of running.
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/exec/src/exec.h"

namespace clada::exec {
namespace {

using core::Json;

std::vector<Json> Cases() {
  std::ifstream in("proj/comp/exec/test-data/params.json");
  const Json data = Json::parse(in);
  return std::vector<Json>(data["cases"].begin(), data["cases"].end());
}

class ExecParamsTest : public ::testing::TestWithParam<Json> {};

TEST_P(ExecParamsTest, RefusesAndRunsNothing) {
  const Json& c = GetParam();
  std::string root = std::string(::getenv("TEST_TMPDIR")) + "/params-XXXXXX";
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  for (const Json& d : c.value("dirs", Json::array())) {
    ASSERT_TRUE(core::CreateDirectories(root + "/" + d.get<std::string>()).ok());
  }
  absl::StatusOr<core::PathPolicy> paths = core::MakePathPolicy(root, {});
  ASSERT_TRUE(paths.ok());
  core::ExecContext ctx;
  ctx.paths = *paths;
  ctx.quiet = true;
  ctx.exec_policy = c.value("policy", "allow") == "deny" ? core::ExecPolicy::kDeny : core::ExecPolicy::kAllow;
  core::Action action;
  action.name = c.value("action", "exec");
  action.params = c["params"];
  const Json hex_params = c.value("params_hex", Json::object());
  for (const auto& [key, hex] : hex_params.items()) action.params[key] = absl::HexStringToBytes(hex.get<std::string>());

  std::optional<std::string> old_path;
  if (c.contains("path")) {
    old_path = ::getenv("PATH");
    ::setenv("PATH", c["path"].get<std::string>().c_str(), 1);
  }
  const core::ActionOutcome outcome = ExecuteCode(action, ctx);
  if (old_path) ::setenv("PATH", old_path->c_str(), 1);

  EXPECT_FALSE(outcome.success);
  if (c.contains("error")) {
    EXPECT_EQ(outcome.error, c["error"].get<std::string>());
  }
  if (c.contains("error_prefix")) {
    EXPECT_EQ(outcome.error.rfind(c["error_prefix"].get<std::string>(), 0), 0u) << outcome.error;
  }
  EXPECT_TRUE(outcome.data.empty()) << outcome.data.dump();
  EXPECT_NO_THROW(Json(outcome.error).dump()) << "the error is not valid UTF-8";
  struct stat st;
  EXPECT_NE(::stat((root + "/ran.txt").c_str(), &st), 0) << "the snippet ran";
}

INSTANTIATE_TEST_SUITE_P(Cases, ExecParamsTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Json>& info) {
                           return info.param["name"].get<std::string>();
                         });

TEST(ExecActionNames, IsExactlyExec) { EXPECT_EQ(ExecActionNames(), std::vector<std::string>{"exec"}); }

}  // namespace
}  // namespace clada::exec
