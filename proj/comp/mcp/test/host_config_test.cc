// The configuration forms of mcp::RenderHostConfig, each JSON section parsed
// as its host parses it (nlohmann/json, strict) and checked for the key the
// host reads, the absolute command and the arguments. The TOML form and the
// command lines are parsed by python3's tomllib and a shell in
// host_config_forms_test.sh, through the real `clada mcp config`.
#include "proj/comp/mcp/src/host_config.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace clada::mcp {
namespace {

// A root with a space, quotes, a backslash, a control character and
// non-ASCII text: each must come back as it went in.
const StdioServer kServer = {"clada", "/opt/my tools/clada",
                             {"mcp", "--root", "/home/ann/it's \"my\" proj\\ect\t\xC3\xA9t\xC3\xA9"}};

struct Section {
  std::vector<std::string> comments;
  std::string body;
};

// Splits the text into sections: comment lines ("# ...") then the body.
std::vector<Section> Sections(const std::string& text) {
  std::vector<Section> sections;
  bool in_body = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "# ")) {
      if (sections.empty() || in_body) sections.emplace_back();
      sections.back().comments.emplace_back(line);
      in_body = false;
      continue;
    }
    if (sections.empty()) sections.emplace_back();
    absl::StrAppend(&sections.back().body, line, "\n");
    in_body = true;
  }
  return sections;
}

void ExpectEntry(const nlohmann::json& entry, const std::string& host) {
  EXPECT_EQ(entry["command"], kServer.command) << host;
  EXPECT_EQ(entry["args"], nlohmann::json(kServer.args)) << host;
}

TEST(HostConfig, EveryJsonFormParsesWithTheServerUnderTheHostsKey) {
  const std::vector<std::pair<std::string, std::string>> json_hosts = {
      {"claude-desktop", "mcpServers"}, {"vscode", "servers"},      {"cursor", "mcpServers"},
      {"gemini", "mcpServers"},         {"windsurf", "mcpServers"}, {"zed", "context_servers"}};
  for (const auto& [host, key] : json_hosts) {
    absl::StatusOr<std::string> text = RenderHostConfig(host, kServer);
    ASSERT_TRUE(text.ok()) << host << ": " << text.status();
    std::vector<Section> sections = Sections(*text);
    ASSERT_EQ(sections.size(), 1u) << host << "\n" << *text;
    EXPECT_FALSE(sections[0].comments.empty()) << host << ": says where it goes";
    nlohmann::json doc = nlohmann::json::parse(sections[0].body, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << host << "\n" << sections[0].body;
    ASSERT_EQ(doc.size(), 1u) << host;
    ASSERT_TRUE(doc.contains(key)) << host << "\n" << doc;
    ExpectEntry(doc[key]["clada"], host);
    if (host == "vscode") {
      EXPECT_EQ(doc[key]["clada"]["type"], "stdio");
    }
  }
}

TEST(HostConfig, ClaudeCodeGivesTheCommandAndTheMcpJson) {
  absl::StatusOr<std::string> text = RenderHostConfig("claude-code", kServer);
  ASSERT_TRUE(text.ok()) << text.status();
  std::vector<Section> sections = Sections(*text);
  ASSERT_EQ(sections.size(), 2u) << *text;
  EXPECT_TRUE(absl::StartsWith(sections[0].body, "claude mcp add --transport stdio clada -- '/opt/my tools/clada' mcp "
                                                 "--root '/home/ann/it'\\''s \"my\" proj\\ect\t"))
      << sections[0].body;
  nlohmann::json doc = nlohmann::json::parse(sections[1].body, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << sections[1].body;
  EXPECT_EQ(doc["mcpServers"]["clada"]["type"], "stdio");
  ExpectEntry(doc["mcpServers"]["clada"], "claude-code");
}

TEST(HostConfig, CodexIsATomlTable) {
  absl::StatusOr<std::string> text = RenderHostConfig("codex", kServer);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_TRUE(absl::StrContains(*text, "\n[mcp_servers.clada]\ncommand = \"/opt/my tools/clada\"\n"
                                       "args = [\"mcp\", \"--root\", \"/home/ann/it's \\\"my\\\" proj\\\\ect\\t"))
      << *text;
}

TEST(HostConfig, UnknownHostAndInvalidUtf8AreRefused) {
  absl::StatusOr<std::string> text = RenderHostConfig("emacs", kServer);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(text.status().message(), "claude-desktop, claude-code, vscode")) << text.status();
  for (const std::string& host : HostNames()) {
    EXPECT_TRUE(RenderHostConfig(host, kServer).ok()) << host;
    StdioServer bad = kServer;
    bad.args.back() = "/home/\xFF";
    EXPECT_EQ(RenderHostConfig(host, bad).status().code(), absl::StatusCode::kInvalidArgument) << host;
  }
}

}  // namespace
}  // namespace clada::mcp
