#include "proj/src/settings.h"

#include <sys/stat.h>
#include <stdlib.h>

#include <fstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/test/test_util.h"

namespace clada {
namespace {

class SettingsFileCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(SettingsFileCase, AppliesOrNamesTheProblem) {
  const nlohmann::json& c = GetParam();
  std::string path = testing::MakeTempDir("clada_settings_") + "/config.yaml";
  std::ofstream(path) << c["yaml"].get<std::string>();
  Settings s = DefaultSettings();
  absl::Status status = ApplySettingsFile(path, s);
  if (c.contains("error")) {
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find(c["error"].get<std::string>()), std::string::npos) << status;
    EXPECT_NE(status.message().find(path), std::string::npos) << "the error must name the file: " << status;
    EXPECT_NE(status.message().find("correct it, or delete it to run with the defaults"), std::string::npos)
        << "the error must say how to repair the file: " << status;
    return;
  }
  ASSERT_TRUE(status.ok()) << status;
  for (auto& [key, value] : c["expect"].items()) {
    EXPECT_EQ(SettingValueText(s, key), value.get<std::string>()) << key;
    if (c["yaml"].get<std::string>().find(key + ":") != std::string::npos) {
      EXPECT_EQ(s.source[key], path) << key;
    }
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("proj/test-data/settings/apply_settings_file.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(Cases, SettingsFileCase, ::testing::ValuesIn(LoadCases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

TEST(Settings, MissingFileIsFine) {
  Settings s = DefaultSettings();
  EXPECT_TRUE(ApplySettingsFile("/definitely/not/here.yaml", s).ok());
  EXPECT_EQ(s.source["timeout"], "default");
}

// Issue 17 #10 and #16: a settings file nested 100,000 levels deep, one too
// large to be settings, and a directory in its place are each a clear error
// naming the file and the repair, never a crash.
TEST(Settings, UnreadableFileSaysHowToRepairIt) {
  std::string dir = testing::MakeTempDir("clada_settings_");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::vector<std::pair<std::string, std::string>> files = {
      {"deep-flow.yaml", "allow: " + deep + "\n"},
      {"huge.yaml", "# " + std::string(2 << 20, 'x') + "\n"},
  };
  std::vector<std::string> paths;
  for (const auto& [name, text] : files) {
    paths.push_back(dir + "/" + name);
    std::ofstream(paths.back()) << text;
  }
  paths.push_back(dir + "/config-dir.yaml");
  ASSERT_EQ(::mkdir(paths.back().c_str(), 0755), 0);
  for (const std::string& path : paths) {
    Settings s = DefaultSettings();
    absl::Status status = ApplySettingsFile(path, s);
    ASSERT_FALSE(status.ok()) << path;
    EXPECT_NE(status.message().find(path), std::string::npos) << status;
    EXPECT_NE(status.message().find("correct it, or delete it to run with the defaults"), std::string::npos)
        << status;
  }
}

TEST(Settings, FlagOverridesFile) {
  Settings s = DefaultSettings();
  ASSERT_TRUE(ApplySetting("timeout", "5s", "file", s).ok());
  ASSERT_TRUE(ApplySetting("timeout", "7s", "flag --timeout", s).ok());
  EXPECT_EQ(s.timeout_ms, 7000);
  EXPECT_EQ(s.source["timeout"], "flag --timeout");
}

TEST(ParseDurationMs, Units) {
  EXPECT_EQ(*ParseDurationMs("500ms"), 500);
  EXPECT_EQ(*ParseDurationMs("30"), 30000);
  EXPECT_EQ(*ParseDurationMs("2m"), 120000);
  EXPECT_FALSE(ParseDurationMs("2 weeks").ok());
  EXPECT_FALSE(ParseDurationMs("").ok());
}

TEST(ParseByteSize, Units) {
  EXPECT_EQ(*ParseByteSize("10MB"), 10 << 20);
  EXPECT_EQ(*ParseByteSize("1k"), 1024);
  EXPECT_EQ(*ParseByteSize("7"), 7);
  EXPECT_FALSE(ParseByteSize("MB").ok());
}

}  // namespace
}  // namespace clada
