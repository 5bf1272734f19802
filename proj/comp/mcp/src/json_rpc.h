// JSON-RPC 2.0 over any transport: handlers keyed by method, a write
// function for every message going out, ids matched both ways. The
// dispatcher knows nothing of MCP nor of clada's engine; `Server` (server.h)
// builds MCP on it, and a test drives it with lines and a string writer.
//
// Example:
//   Dispatcher d([](absl::string_view message) { std::cout << message << "\n"; });
//   d.AddRequestHandler("ping", [](const Json&) { return Reply::Ok(Json::object()); });
//   d.DispatchMessage(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
//   // writes {"jsonrpc":"2.0","id":1,"result":{}}
#ifndef CLADA_PROJ_COMP_MCP_SRC_JSON_RPC_H_
#define CLADA_PROJ_COMP_MCP_SRC_JSON_RPC_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace clada::mcp {

using Json = nlohmann::ordered_json;

// The JSON-RPC 2.0 error codes this layer answers with.
inline constexpr int kParseError = -32700;      // not JSON
inline constexpr int kInvalidRequest = -32600;  // JSON, but not a request
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// What a request gets back: a result, or an error with a code.
struct Reply {
  bool ok = true;
  Json result = Json::object();
  int code = 0;
  std::string message;
  Json data;  // null: no `data` member

  static Reply Ok(Json result) {
    Reply r;
    r.result = std::move(result);
    return r;
  }
  static Reply Error(int code, std::string message, Json data = nullptr) {
    Reply r;
    r.ok = false;
    r.code = code;
    r.message = std::move(message);
    r.data = std::move(data);
    return r;
  }
};

// `value` as one line of compact JSON, exactly as
// value.dump(-1, ' ', false, Json::error_handler_t::replace) writes it
// (invalid UTF-8 replaced by U+FFFD), appended to `out`. About five times
// faster on ASCII text (a tool result holding a file): it escapes runs of
// bytes, not one code point at a time.
void AppendJson(const Json& value, std::string* out);
std::string DumpJson(const Json& value);

class Dispatcher {
 public:
  // Receives each outgoing message as one line of JSON (no newline in it;
  // the transport frames it). Called under the dispatcher's write mutex, so
  // messages never interleave, from whichever thread answers.
  using WriteFunction = std::function<void(absl::string_view message)>;
  // Answers at once, on the reading thread.
  using RequestHandler = std::function<Reply(const Json& params)>;
  // Answers later, from any thread, by calling Respond(id, ...) once; or
  // never, for a request the client cancelled.
  // `params` is the message's own, moved in: a call's arguments can hold a
  // whole file.
  using DeferredHandler = std::function<void(const Json& id, Json params)>;
  using NotificationHandler = std::function<void(const Json& params)>;
  using ResponseHandler = std::function<void(const Reply& reply)>;

  explicit Dispatcher(WriteFunction write);

  // Handlers are added before the first message; one per method.
  void AddRequestHandler(const std::string& method, RequestHandler handler);
  void AddDeferredHandler(const std::string& method, DeferredHandler handler);
  void AddNotificationHandler(const std::string& method, NotificationHandler handler);

  // Reads one message (a line without its newline) and answers it:
  // -32700 when it is not JSON, -32600 when it is not a JSON-RPC 2.0
  // request, notification or response (a batch array included: MCP since
  // 2025-06-18 has none), -32601 for a request whose method has no handler,
  // the handler's reply otherwise. A handler that throws is -32603. A
  // notification nobody handles, and a response to no request of ours, are
  // dropped. Never throws. Blank lines are ignored.
  void DispatchMessage(absl::string_view text);

  // Writes the reply to request `id` (as the request gave it).
  void Respond(const Json& id, const Reply& reply);
  // Writes a notification.
  void Notify(absl::string_view method, Json params);
  // Sends a request to the other side; `on_reply` gets its response (on the
  // reading thread). Returns the id used.
  int64_t SendRequest(absl::string_view method, Json params, ResponseHandler on_reply);
  // An error that belongs to no request (a line over the transport's limit).
  void RespondWithoutId(int code, std::string message);

 private:
  void Write(const Json& message);
  void WriteText(const std::string& text);
  void HandleResponse(const Json& message);

  WriteFunction write_;
  std::mutex write_mu_;
  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, DeferredHandler> deferred_;
  std::map<std::string, NotificationHandler> notifications_;
  std::mutex pending_mu_;
  std::map<int64_t, ResponseHandler> pending_;
  int64_t next_id_ = 1;
};

}  // namespace clada::mcp

#endif  // CLADA_PROJ_COMP_MCP_SRC_JSON_RPC_H_
