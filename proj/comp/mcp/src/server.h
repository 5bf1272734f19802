// An MCP server (Model Context Protocol, revision 2025-11-25; 2025-06-18
// and 2025-03-26 when a client asks for them) over a Dispatcher: the
// initialize handshake, ping, logging/setLevel, tools/list and tools/call
// from a ToolRegistry, cancellation, progress, and the client's roots. It
// knows nothing of clada's engine: the tools do (proj/src/mcp_adapter.h).
//
// Threads: HandleMessage runs on the reading thread and answers everything
// but tools/call there; each tools/call is queued for one worker thread
// (or, after RunCallsOnCallerThreads, for whichever reading thread calls
// RunQueuedCalls), so calls run one at a time, in the order they came,
// while ping and tools/list still answer (a Tool::quick call excepted,
// which ServeLines runs before it reads on: RunQueuedQuickCalls). Responses are written under one
// mutex.
//
// Example:
//   ToolRegistry tools;
//   tools.Add({.name = "echo", .description = "Echoes", .input_schema = ...,
//              .call = [](const ToolCall& c) { return ToolResult::Text(c.arguments.dump()); }});
//   Server server({"clada", "1.0"}, std::move(tools), [](absl::string_view m) { ... });
//   server.HandleMessage(line);  // for each line read
//   server.Shutdown();           // at end of input
#ifndef CLADA_PROJ_COMP_MCP_SRC_SERVER_H_
#define CLADA_PROJ_COMP_MCP_SRC_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/mcp/src/json_rpc.h"

namespace clada::mcp {

// The protocol revisions this server speaks through the initialize
// handshake, newest first.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
// The stateless revisions (no initialize: each request names its version
// and the client's capabilities in params._meta), newest first.
inline constexpr const char* kStatelessProtocolVersions[] = {"2026-07-28"};
// The error a stateless request naming another version gets, with data
// {requested, supported}.
inline constexpr int kUnsupportedProtocolVersion = -32022;

// What a tool's call function gets.
struct ToolCall {
  Json arguments = Json::object();
  // Set when the client sent a progressToken: sends notifications/progress
  // (progress must grow from call to call; the server keeps it growing).
  std::function<void(const std::string& message)> progress;
  // Becomes true when the client cancels this call (notifications/cancelled).
  const std::atomic<bool>* cancelled = nullptr;
  // The client's roots as absolute paths (file:// URIs decoded), when it
  // offers roots and answered roots/list; nullopt otherwise.
  std::optional<std::vector<std::string>> client_roots;
};

// The key of a failed tool result's _meta that names its error's code (the
// executors' codes: invalid_params, not_found, search_not_found,
// path_escape, ...; core::ErrorCode).
inline constexpr char kMetaErrorCode[] = "clada/code";

// A CallToolResult.
struct ToolResult {
  Json content = Json::array();
  std::optional<Json> structured_content;
  bool is_error = false;
  // The result's _meta (an object), or null for none.
  Json meta;

  static ToolResult Text(std::string text, bool is_error = false) {
    ToolResult r;
    Json item = Json::object();
    item["type"] = "text";
    item["text"] = std::move(text);  // a report can hold a whole file: moved, not copied
    r.content.push_back(std::move(item));
    r.is_error = is_error;
    return r;
  }
  // A failed call: its message, and its error's code in _meta
  // (kMetaErrorCode).
  static ToolResult Error(std::string code, std::string text) {
    ToolResult r = Text(std::move(text), /*is_error=*/true);
    r.meta = Json{{kMetaErrorCode, std::move(code)}};
    return r;
  }
};

struct Tool {
  std::string name;
  std::string title;  // "" when none
  std::string description;
  Json input_schema = Json::object();
  std::optional<Json> output_schema;
  Json annotations;  // null when none
  // Runs on the worker thread; never concurrently with another call.
  std::function<ToolResult(const ToolCall& call)> call;
  // Always done in a moment (a bounded read, no walk, no command): with
  // caller threads (ServeLines) it may run on the thread that read it
  // before that thread reads on (RunQueuedQuickCalls), so that a call
  // wakes no other thread.
  bool quick = false;
};

// The tools a server offers, in the order added.
class ToolRegistry {
 public:
  // Adds `tool`, replacing one of the same name.
  void Add(Tool tool);
  // The tool called `name`, or nullptr.
  const Tool* Find(absl::string_view name) const;
  const std::vector<Tool>& tools() const { return tools_; }

 private:
  std::vector<Tool> tools_;
};

struct ServerInfo {
  std::string name;
  std::string version;
  std::string instructions;  // "" when none
  // How long a tools/call waits for the client's answer to roots/list
  // before running with the server's own roots.
  int roots_wait_ms = 5000;
  // How many tools one tools/list page holds; more are listed on further
  // pages (nextCursor). Large enough by default that every clada tool fits
  // on the first page, for clients that never ask for a second.
  size_t tools_page_size = 100;
  // serverInfo.description ("" for none), sent to clients at 2025-11-25,
  // the revision that added it (Implementation.description).
  std::string description;
};

class Server {
 public:
  Server(ServerInfo info, ToolRegistry tools, Dispatcher::WriteFunction write);
  // Shuts down (see Shutdown).
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // One message from the client (a line without its newline).
  void HandleMessage(absl::string_view text);
  // A line the transport could not read whole (over its limit): answered
  // with -32600 and no id.
  void RejectMessage(std::string why);
  // The input ended: every call received still runs (a client that wants
  // one not to run cancels it), in order, and is answered; returns once
  // the last has finished.
  void Shutdown();
  // Cancels every call: a running one sees its flag (exec kills its process
  // group), a queued one is dropped unanswered. For a client that is gone.
  void CancelAll();
  // Returns once no call is queued or running (tests).
  void WaitIdle();
  // From now on no worker thread runs the calls: the threads that feed
  // HandleMessage call RunQueuedCalls after each message (ServeLines).
  void RunCallsOnCallerThreads();
  // Runs the queued calls on this thread, in order, until none is left,
  // unless another thread is running them already (then returns at once:
  // that thread runs the ones queued meanwhile).
  void RunQueuedCalls();
  // Runs the queued calls on this thread when every one of them is quick,
  // no call is running and none waits for the client's roots; returns
  // false (having run nothing) otherwise, so that the caller lets another
  // thread read before it runs them with RunQueuedCalls.
  bool RunQueuedQuickCalls();
  // The level logging/setLevel last set ("info" at first).
  std::string log_level() const;
  // Sends notifications/message when `level` is at or above log_level().
  void Log(const std::string& level, const std::string& text);

 private:
  struct PendingCall {
    Json id;
    std::string key;  // id.dump(): how notifications/cancelled names it
    const Tool* tool = nullptr;
    Json arguments;
    Json progress_token;  // null: none
    std::shared_ptr<std::atomic<bool>> cancelled;
    bool stateless = false;  // a 2026-07-28 request: resultType in the result
  };

  // Which protocol this connection speaks, picked by its first request:
  // initialize (the handshake, 2025-11-25 and older) or a request carrying
  // its version in _meta (2026-07-28, stateless).
  enum class Era { kUnset, kHandshake, kStateless };
  // Checks a request's era and _meta, picking the era on the first: an
  // error to answer with, or nullopt with *stateless set.
  std::optional<Reply> EnterRequest(absl::string_view method, const Json& params, bool* stateless);
  // A request handler that checks the era first and, for a stateless
  // request, puts resultType in its result.
  Dispatcher::RequestHandler Checked(std::string method, std::function<Reply(const Json&)> handler);
  Reply Discover() const;
  Reply Initialize(const Json& params);
  Reply ListTools(const Json& params) const;
  void OnInitialized();
  void RequestRoots();
  void QueueCall(const Json& id, Json params);
  void OnCancelled(const Json& params);
  void WorkerLoop();
  // Runs the queued calls until none is left; `lock` holds mu_.
  void DrainQueue(std::unique_lock<std::mutex>& lock);
  void RunCall(PendingCall& call);

  ServerInfo info_;
  ToolRegistry tools_;
  Dispatcher dispatcher_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool initialized_ = false;       // initialize answered
  Era era_ = Era::kUnset;
  bool client_has_roots_ = false;  // the client's capabilities offer roots
  bool roots_pending_ = false;     // a roots/list is unanswered
  std::optional<std::vector<std::string>> roots_;
  std::string log_level_ = "info";
  std::deque<PendingCall> queue_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_;  // key -> flag, queued or running
  bool busy_ = false;  // a thread is running the queued calls
  bool stopping_ = false;
  bool caller_threads_ = false;  // RunCallsOnCallerThreads: no worker
  std::thread worker_;
};

// The absolute path a file:// URI names (percent-decoded), or nullopt for
// another scheme, a remote host or a relative path.
std::optional<std::string> FileUriToPath(absl::string_view uri);

}  // namespace clada::mcp

#endif  // CLADA_PROJ_COMP_MCP_SRC_SERVER_H_
