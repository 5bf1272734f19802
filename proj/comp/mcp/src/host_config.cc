#include "proj/comp/mcp/src/host_config.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "nlohmann/json.hpp"

namespace clada::mcp {
namespace {

using OrderedJson = nlohmann::ordered_json;

// `s` as one word of a POSIX shell command line.
std::string ShellWord(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
                        std::string::npos) {
    return s;
  }
  return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'");
}

std::string CommandLine(const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  for (const std::string& w : words) quoted.push_back(ShellWord(w));
  return absl::StrJoin(quoted, " ");
}

// {"command": ..., "args": [...]} with the extra keys a host wants first.
OrderedJson ServerEntry(const StdioServer& server, const OrderedJson& before) {
  OrderedJson entry = before.is_object() ? before : OrderedJson::object();
  entry["command"] = server.command;
  entry["args"] = server.args;
  return entry;
}

// `{"<key>": {"<name>": entry}}`, indented as people keep these files.
std::string Wrapped(const std::string& key, const StdioServer& server, const OrderedJson& entry) {
  OrderedJson servers = OrderedJson::object();
  servers[server.name] = entry;
  OrderedJson doc = OrderedJson::object();
  doc[key] = std::move(servers);
  return doc.dump(2) + "\n";
}

// A TOML basic string: JSON's escapes are TOML's, but for DEL, which
// TOML wants escaped and JSON writes as it is.
std::string TomlString(const std::string& s) {
  return absl::StrReplaceAll(OrderedJson(s).dump(), {{"\x7f", "\\u007F"}});
}

// A TOML key: bare when it can be, else quoted.
std::string TomlKey(const std::string& s) {
  const bool bare = !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") ==
                                      std::string::npos;
  return bare ? s : TomlString(s);
}

std::string ClaudeDesktop(const StdioServer& s) {
  return absl::StrCat(
      "# Claude Desktop: merge into claude_desktop_config.json (Settings > Developer > Edit Config)\n"
      "#   macOS: ~/Library/Application Support/Claude/claude_desktop_config.json\n"
      "#   Windows: %APPDATA%\\Claude\\claude_desktop_config.json\n",
      Wrapped("mcpServers", s, ServerEntry(s, {})));
}

std::string ClaudeCode(const StdioServer& s) {
  std::vector<std::string> words = {"claude", "mcp", "add", "--transport", "stdio", s.name, "--", s.command};
  words.insert(words.end(), s.args.begin(), s.args.end());
  return absl::StrCat(
      "# Claude Code: run in the project (-s user: for every project; -s project: writes .mcp.json)\n",
      CommandLine(words), "\n",
      "# or check in as .mcp.json at the project root\n",
      Wrapped("mcpServers", s, ServerEntry(s, {{"type", "stdio"}})));
}

std::string Vscode(const StdioServer& s) {
  return absl::StrCat(
      "# VS Code: .vscode/mcp.json in the workspace (or MCP: Open User Configuration)\n",
      Wrapped("servers", s, ServerEntry(s, {{"type", "stdio"}})));
}

std::string Cursor(const StdioServer& s) {
  return absl::StrCat("# Cursor: .cursor/mcp.json in the project, or ~/.cursor/mcp.json for every project\n",
                      Wrapped("mcpServers", s, ServerEntry(s, {})));
}

std::string Codex(const StdioServer& s) {
  std::vector<std::string> args;
  for (const std::string& a : s.args) args.push_back(TomlString(a));
  std::vector<std::string> words = {"codex", "mcp", "add", s.name, "--", s.command};
  words.insert(words.end(), s.args.begin(), s.args.end());
  return absl::StrCat(
      "# Codex: add to ~/.codex/config.toml (or .codex/config.toml in a trusted project), or run\n#   ",
      CommandLine(words), "\n",
      "[mcp_servers.", TomlKey(s.name), "]\n",
      "command = ", TomlString(s.command), "\n",
      "args = [", absl::StrJoin(args, ", "), "]\n");
}

std::string Gemini(const StdioServer& s) {
  return absl::StrCat(
      "# Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in the project)\n",
      Wrapped("mcpServers", s, ServerEntry(s, {})));
}

std::string Windsurf(const StdioServer& s) {
  return absl::StrCat("# Windsurf: merge into ~/.codeium/windsurf/mcp_config.json\n",
                      Wrapped("mcpServers", s, ServerEntry(s, {})));
}

std::string Zed(const StdioServer& s) {
  return absl::StrCat("# Zed: merge into settings.json (zed: open settings file)\n",
                      Wrapped("context_servers", s, ServerEntry(s, {})));
}

using Renderer = std::string (*)(const StdioServer&);

const std::map<std::string, Renderer>& Renderers() {
  static const auto* const kRenderers = new std::map<std::string, Renderer>{
      {"claude-desktop", ClaudeDesktop}, {"claude-code", ClaudeCode}, {"vscode", Vscode},
      {"cursor", Cursor},                {"codex", Codex},            {"gemini", Gemini},
      {"windsurf", Windsurf},            {"zed", Zed},
  };
  return *kRenderers;
}

}  // namespace

const std::vector<std::string>& HostNames() {
  static const auto* const kHosts = new std::vector<std::string>{
      "claude-desktop", "claude-code", "vscode", "cursor", "codex", "gemini", "windsurf", "zed"};
  return *kHosts;
}

absl::StatusOr<std::string> RenderHostConfig(absl::string_view host, const StdioServer& server) {
  auto it = Renderers().find(std::string(host));
  if (it == Renderers().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown host '", host, "'; hosts: ", absl::StrJoin(HostNames(), ", ")));
  }
  // nlohmann/json refuses to write invalid UTF-8 (type_error 316): a path
  // that is not UTF-8 cannot be written into any of these files.
  try {
    return it->second(server);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the command or an argument is not valid UTF-8, which a host's JSON or TOML configuration cannot hold: ",
        e.what()));
  }
}

}  // namespace clada::mcp
