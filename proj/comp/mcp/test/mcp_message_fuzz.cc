// libFuzzer target for the message layer: each input is split into lines
// and fed to a Server (as the stdio transport does), after a handshake.
//
//   bazel build --config=fuzz //proj/comp/mcp:mcp_message_fuzz
//   tools/fuzz.sh 30 //proj/comp/mcp:mcp_message_fuzz
//
// Besides crashes and sanitizer reports it checks what the server promises:
// every message it writes is one line of JSON, a JSON-RPC 2.0 object with
// either a method or an id with exactly one of result and error.
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "proj/comp/core/test/fuzz_check.h"
#include "proj/comp/mcp/src/server.h"

namespace {

void CheckMessage(absl::string_view text) {
  Check(text.find('\n') == absl::string_view::npos);
  clada::mcp::Json m = clada::mcp::Json::parse(text.begin(), text.end(), nullptr, false);
  Check(!m.is_discarded());
  Check(m.is_object());
  Check(m.value("jsonrpc", "") == "2.0");
  if (m.contains("method")) {
    Check(m["method"].is_string());
    return;
  }
  Check(m.contains("id"));
  Check(m.contains("result") != m.contains("error"));
  if (m.contains("error")) Check(m["error"]["code"].is_number_integer());
}

clada::mcp::ToolRegistry Tools() {
  clada::mcp::ToolRegistry tools;
  clada::mcp::Tool echo;
  echo.name = "echo";
  echo.description = "Echoes its arguments";
  echo.input_schema = {{"type", "object"}};
  echo.call = [](const clada::mcp::ToolCall& c) {
    if (c.progress) c.progress("echo");
    return clada::mcp::ToolResult::Text(c.arguments.dump(-1, ' ', false, clada::mcp::Json::error_handler_t::replace));
  };
  tools.Add(std::move(echo));
  return tools;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  clada::mcp::ServerInfo info{"fuzz", "0", "", 0};
  clada::mcp::Server server(info, Tools(), CheckMessage);
  if (size > 0 && data[0] % 2 == 0) {
    server.HandleMessage(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
        R"("capabilities":{"roots":{}},"clientInfo":{"name":"f","version":"0"}}})");
    server.HandleMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  while (!input.empty()) {
    size_t nl = input.find('\n');
    server.HandleMessage(input.substr(0, nl));
    if (nl == absl::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  server.WaitIdle();
  server.Shutdown();
  return 0;
}
