#include "proj/comp/mcp/src/server.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace clada::mcp {
namespace {

// The per-request _meta keys of 2026-07-28.
constexpr char kMetaProtocolVersion[] = "io.modelcontextprotocol/protocolVersion";
constexpr char kMetaClientCapabilities[] = "io.modelcontextprotocol/clientCapabilities";

constexpr const char* kLogLevels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

// What every tools/list cursor starts with; the index of the page's first
// tool follows.
constexpr absl::string_view kCursorPrefix = "tools-from-";

int LevelRank(absl::string_view level) {
  for (int i = 0; i < 8; ++i) {
    if (level == kLogLevels[i]) return i;
  }
  return -1;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Json ToolToJson(const Tool& tool) {
  Json j = {{"name", tool.name}};
  if (!tool.title.empty()) j["title"] = tool.title;
  j["description"] = tool.description;
  j["inputSchema"] = tool.input_schema;
  if (tool.output_schema.has_value()) j["outputSchema"] = *tool.output_schema;
  if (!tool.annotations.is_null()) j["annotations"] = tool.annotations;
  return j;
}

Json ResultToJson(ToolResult r) {
  Json j = Json::object();
  j["content"] = std::move(r.content);
  if (r.structured_content.has_value()) j["structuredContent"] = *std::move(r.structured_content);
  if (r.is_error) j["isError"] = true;
  if (r.meta.is_object()) j["_meta"] = std::move(r.meta);
  return j;
}

}  // namespace

std::optional<std::string> FileUriToPath(absl::string_view uri) {
  if (!absl::ConsumePrefix(&uri, "file://")) return std::nullopt;
  // file:///path or file://localhost/path; another host is not this machine.
  if (!absl::ConsumePrefix(&uri, "localhost") && !absl::StartsWith(uri, "/")) return std::nullopt;
  if (!absl::StartsWith(uri, "/")) return std::nullopt;
  const size_t end = uri.find_first_of("?#");
  if (end != absl::string_view::npos) uri = uri.substr(0, end);
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() + 0 && HexValue(uri[i + 1]) >= 0 && HexValue(uri[i + 2]) >= 0) {
      const char c = static_cast<char>(HexValue(uri[i + 1]) * 16 + HexValue(uri[i + 2]));
      if (c == '\0') return std::nullopt;
      path.push_back(c);
      i += 2;
    } else {
      path.push_back(uri[i]);
    }
  }
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

void ToolRegistry::Add(Tool tool) {
  for (Tool& t : tools_) {
    if (t.name == tool.name) {
      t = std::move(tool);
      return;
    }
  }
  tools_.push_back(std::move(tool));
}

const Tool* ToolRegistry::Find(absl::string_view name) const {
  for (const Tool& t : tools_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Server::Server(ServerInfo info, ToolRegistry tools, Dispatcher::WriteFunction write)
    : info_(std::move(info)), tools_(std::move(tools)), dispatcher_(std::move(write)) {
  dispatcher_.AddRequestHandler("initialize", Checked("initialize", [this](const Json& params) { return Initialize(params); }));
  dispatcher_.AddRequestHandler("server/discover", Checked("server/discover", [this](const Json&) { return Discover(); }));
  dispatcher_.AddRequestHandler("ping", Checked("ping", [](const Json&) { return Reply::Ok(Json::object()); }));
  dispatcher_.AddRequestHandler("logging/setLevel", Checked("logging/setLevel", [this](const Json& params) {
    if (!params.is_object() || !params.contains("level") || !params["level"].is_string() ||
        LevelRank(params["level"].get<std::string>()) < 0) {
      return Reply::Error(kInvalidParams, absl::StrCat("Invalid params: level is one of ",
                                                       absl::StrJoin(kLogLevels, ", ")));
    }
    std::lock_guard<std::mutex> lock(mu_);
    log_level_ = params["level"].get<std::string>();
    return Reply::Ok(Json::object());
  }));
  dispatcher_.AddRequestHandler("tools/list", Checked("tools/list", [this](const Json& params) { return ListTools(params); }));
  dispatcher_.AddDeferredHandler("tools/call", [this](const Json& id, Json params) { QueueCall(id, std::move(params)); });
  dispatcher_.AddNotificationHandler("notifications/initialized", [this](const Json&) { OnInitialized(); });
  dispatcher_.AddNotificationHandler("notifications/roots/list_changed", [this](const Json&) { RequestRoots(); });
  dispatcher_.AddNotificationHandler("notifications/cancelled", [this](const Json& params) { OnCancelled(params); });
}

Server::~Server() { Shutdown(); }

std::string Server::log_level() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_level_;
}

void Server::Log(const std::string& level, const std::string& text) {
  if (LevelRank(level) < LevelRank(log_level())) return;
  dispatcher_.Notify("notifications/message", {{"level", level}, {"logger", info_.name}, {"data", text}});
}

std::optional<Reply> Server::EnterRequest(absl::string_view method, const Json& params, bool* stateless) {
  *stateless = false;
  const Json* meta = params.is_object() && params.contains("_meta") && params["_meta"].is_object() ? &params["_meta"]
                                                                                                   : nullptr;
  const bool names_version = meta != nullptr && meta->contains(kMetaProtocolVersion);
  std::lock_guard<std::mutex> lock(mu_);
  if (method == "initialize") {
    if (era_ == Era::kStateless) {
      return Reply::Error(kInvalidRequest,
                          absl::StrCat("Invalid Request: this connection speaks ", kStatelessProtocolVersions[0],
                                       " (its first request named it in _meta), which has no initialize"));
    }
    return std::nullopt;  // Initialize picks the handshake era
  }
  if (era_ == Era::kHandshake) return std::nullopt;  // _meta is the client's own
  if (!names_version) {
    if (era_ == Era::kStateless) {
      return Reply::Error(kInvalidParams,
                          absl::StrCat("Invalid params: _meta[\"", kMetaProtocolVersion, "\"] is missing; this "
                                       "connection speaks ", kStatelessProtocolVersions[0],
                                       ", which needs it, and the client's capabilities, in every request"));
    }
    return std::nullopt;  // before any era: as a handshake client's request
  }
  const Json& version = (*meta)[kMetaProtocolVersion];
  bool known = false;
  for (const char* v : kStatelessProtocolVersions) known = known || (version.is_string() && version == v);
  if (!known) {
    return Reply::Error(
        kUnsupportedProtocolVersion,
        absl::StrCat("Unsupported protocol version ", version.dump(), " in _meta: requests without initialize speak ",
                     absl::StrJoin(kStatelessProtocolVersions, ", "), "; ", absl::StrJoin(kProtocolVersions, ", "),
                     " start with initialize"),
        Json{{"requested", version.is_string() ? version : Json(version.dump())},
             {"supported", Json(std::vector<std::string>(std::begin(kStatelessProtocolVersions),
                                                         std::end(kStatelessProtocolVersions)))}});
  }
  if (!meta->contains(kMetaClientCapabilities) || !(*meta)[kMetaClientCapabilities].is_object()) {
    return Reply::Error(kInvalidParams, absl::StrCat("Invalid params: _meta[\"", kMetaClientCapabilities,
                                                     "\"] (an object, {} for none) is missing"));
  }
  era_ = Era::kStateless;
  *stateless = true;
  return std::nullopt;
}

Dispatcher::RequestHandler Server::Checked(std::string method, std::function<Reply(const Json&)> handler) {
  return [this, method = std::move(method), handler = std::move(handler)](const Json& params) {
    bool stateless = false;
    std::optional<Reply> refused = EnterRequest(method, params, &stateless);
    if (refused.has_value()) return *std::move(refused);
    Reply reply = handler(params);
    if (stateless && reply.ok && reply.result.is_object()) reply.result["resultType"] = "complete";
    return reply;
  };
}

// server/discover (2026-07-28): the versions a request may name in _meta,
// the capabilities and who this is. Answered in either era: a client that
// speaks both asks it first to learn which to use.
Reply Server::Discover() const {
  Json server_info = {{"name", info_.name}, {"version", info_.version}};
  if (!info_.description.empty()) server_info["description"] = info_.description;
  Json result = {
      {"resultType", "complete"},
      {"supportedVersions",
       std::vector<std::string>(std::begin(kStatelessProtocolVersions), std::end(kStatelessProtocolVersions))},
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo", server_info},
      {"_meta", {{"io.modelcontextprotocol/serverInfo", server_info}}}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return Reply::Ok(std::move(result));
}

Reply Server::Initialize(const Json& params) {
  if (!params.is_object() || !params.contains("protocolVersion") || !params["protocolVersion"].is_string()) {
    return Reply::Error(kInvalidParams, "Invalid params: initialize needs protocolVersion (a string), "
                                        "capabilities and clientInfo");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (initialized_) return Reply::Error(kInvalidRequest, "Invalid Request: already initialized");
  era_ = Era::kHandshake;
  const std::string asked = params["protocolVersion"].get<std::string>();
  // The client's revision when this server speaks it; else the newest, and
  // the client decides whether it can go on.
  std::string version = kProtocolVersions[0];
  for (const char* v : kProtocolVersions) {
    if (asked == v) version = v;
  }
  client_has_roots_ = params.contains("capabilities") && params["capabilities"].is_object() &&
                      params["capabilities"].contains("roots");
  initialized_ = true;
  Json result = {{"protocolVersion", version},
                 {"capabilities", {{"tools", {{"listChanged", false}}}, {"logging", Json::object()}}},
                 {"serverInfo", {{"name", info_.name}, {"version", info_.version}}}};
  // 2025-11-25 added a description to Implementation, as context during
  // initialization; older revisions' clients are sent what they know.
  if (!info_.description.empty() && version == "2025-11-25") {
    result["serverInfo"]["description"] = info_.description;
  }
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return Reply::Ok(std::move(result));
}

// Pagination (spec 2025-11-25, utilities/pagination): a page of at most
// tools_page_size tools, and nextCursor when more follow. The cursor is
// opaque to the client; here it names where the next page starts, which
// stays true because the tool list never changes (listChanged: false).
Reply Server::ListTools(const Json& params) const {
  const std::vector<Tool>& all = tools_.tools();
  size_t start = 0;
  if (params.is_object() && params.contains("cursor") && !params["cursor"].is_null()) {
    const Json& cursor = params["cursor"];
    absl::string_view text = cursor.is_string() ? absl::string_view(cursor.get_ref<const std::string&>()) : "";
    uint64_t at = 0;
    if (!absl::ConsumePrefix(&text, kCursorPrefix) || !absl::SimpleAtoi(text, &at) ||
        absl::StrCat(at) != text || at == 0 || at >= all.size()) {
      return Reply::Error(kInvalidParams,
                          absl::StrCat("Invalid params: ", cursor.dump(), " is not a cursor this server gave; send "
                                       "tools/list without a cursor for the first page, then each nextCursor"));
    }
    start = static_cast<size_t>(at);
  }
  const size_t page = std::max<size_t>(info_.tools_page_size, 1);
  const size_t end = std::min(all.size(), start + page);
  Json list = Json::array();
  for (size_t i = start; i < end; ++i) list.push_back(ToolToJson(all[i]));
  Json result = {{"tools", std::move(list)}};
  if (end < all.size()) result["nextCursor"] = absl::StrCat(kCursorPrefix, end);
  return Reply::Ok(std::move(result));
}

void Server::OnInitialized() {
  bool ask;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ask = client_has_roots_;
  }
  if (ask) RequestRoots();
}

void Server::RequestRoots() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!client_has_roots_) return;
    roots_pending_ = true;
  }
  dispatcher_.SendRequest("roots/list", nullptr, [this](const Reply& reply) {
    std::optional<std::vector<std::string>> roots;
    std::vector<std::string> refused;
    if (reply.ok && reply.result.is_object() && reply.result.contains("roots") && reply.result["roots"].is_array()) {
      roots.emplace();
      for (const Json& r : reply.result["roots"]) {
        const std::string uri = r.is_object() && r.contains("uri") && r["uri"].is_string() ? r["uri"].get<std::string>() : "";
        std::optional<std::string> path = FileUriToPath(uri);
        if (path.has_value()) {
          roots->push_back(*std::move(path));
        } else {
          refused.push_back(uri.empty() ? r.dump() : uri);
        }
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      roots_ = std::move(roots);
      roots_pending_ = false;
    }
    cv_.notify_all();
    if (!reply.ok) Log("warning", absl::StrCat("roots/list failed (", reply.message, "); using the server's roots"));
    if (!refused.empty()) {
      Log("warning", absl::StrCat("roots that are not local file:// URIs are ignored: ", absl::StrJoin(refused, ", ")));
    }
  });
}

void Server::QueueCall(const Json& id, Json params) {
  bool stateless = false;
  std::optional<Reply> refused = EnterRequest("tools/call", params, &stateless);
  if (refused.has_value()) {
    dispatcher_.Respond(id, *refused);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!initialized_ && !stateless) {
      dispatcher_.Respond(id, Reply::Error(kInvalidRequest, "Invalid Request: send initialize first"));
      return;
    }
  }
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    dispatcher_.Respond(id, Reply::Error(kInvalidParams, "Invalid params: tools/call needs name (a string)"));
    return;
  }
  const std::string name = params["name"].get<std::string>();
  const Tool* tool = tools_.Find(name);
  if (tool == nullptr) {
    dispatcher_.Respond(id, Reply::Error(kInvalidParams, absl::StrCat("Unknown tool: ", name, " (tools/list names them)")));
    return;
  }
  Json arguments = params.contains("arguments") ? std::move(params["arguments"]) : Json::object();
  if (arguments.is_null()) arguments = Json::object();
  if (!arguments.is_object()) {
    dispatcher_.Respond(id, Reply::Error(kInvalidParams, "Invalid params: arguments must be an object"));
    return;
  }
  PendingCall call;
  call.id = id;
  call.key = id.dump();
  call.tool = tool;
  call.arguments = std::move(arguments);
  if (params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains("progressToken")) {
    const Json& token = params["_meta"]["progressToken"];
    if (token.is_string() || token.is_number_integer()) call.progress_token = token;
  }
  call.cancelled = std::make_shared<std::atomic<bool>>(false);
  call.stateless = stateless;
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  if (running_.count(call.key) > 0) {
    dispatcher_.Respond(id, Reply::Error(kInvalidRequest, "Invalid Request: a call with this id is still running"));
    return;
  }
  running_[call.key] = call.cancelled;
  queue_.push_back(std::move(call));
  if (!caller_threads_ && !worker_.joinable()) worker_ = std::thread([this] { WorkerLoop(); });
  cv_.notify_all();
}

void Server::OnCancelled(const Json& params) {
  if (!params.is_object() || !params.contains("requestId")) return;
  const std::string key = params["requestId"].dump();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = running_.find(key);
  if (it == running_.end()) return;  // finished, or never ours: ignored, as the spec says
  it->second->store(true);
  // A call not started yet is dropped here; the running one sees the flag.
  auto queued = std::find_if(queue_.begin(), queue_.end(), [&](const PendingCall& c) { return c.key == key; });
  if (queued != queue_.end()) {
    queue_.erase(queued);
    running_.erase(it);
    cv_.notify_all();
  }
}

void Server::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    DrainQueue(lock);
  }
}

void Server::RunCallsOnCallerThreads() {
  std::lock_guard<std::mutex> lock(mu_);
  caller_threads_ = true;
}

void Server::RunQueuedCalls() {
  std::unique_lock<std::mutex> lock(mu_);
  if (busy_) return;  // that thread runs what is queued, this call's included
  DrainQueue(lock);
}

bool Server::RunQueuedQuickCalls() {
  std::unique_lock<std::mutex> lock(mu_);
  // A call that waits for roots/list must not hold up the thread that
  // would read the client's answer.
  if (busy_ || roots_pending_) return false;
  for (const PendingCall& call : queue_) {
    if (!call.tool->quick) return false;
  }
  DrainQueue(lock);
  return true;
}

void Server::DrainQueue(std::unique_lock<std::mutex>& lock) {
  while (!queue_.empty()) {
    PendingCall call = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    // The client's roots, once it has answered roots/list (bounded wait).
    cv_.wait_for(lock, std::chrono::milliseconds(info_.roots_wait_ms), [this] { return !roots_pending_ || stopping_; });
    lock.unlock();
    RunCall(call);
    lock.lock();
    running_.erase(call.key);
  }
  busy_ = false;
  cv_.notify_all();
}

void Server::RunCall(PendingCall& call) {
  ToolCall tool_call;
  tool_call.arguments = std::move(call.arguments);
  tool_call.cancelled = call.cancelled.get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    tool_call.client_roots = roots_;
  }
  if (!call.progress_token.is_null()) {
    auto count = std::make_shared<int64_t>(0);
    Json token = call.progress_token;
    tool_call.progress = [this, token, count](const std::string& message) {
      dispatcher_.Notify("notifications/progress",
                         {{"progressToken", token}, {"progress", ++*count}, {"message", message}});
    };
  }
  Reply reply;
  try {
    reply = Reply::Ok(ResultToJson(call.tool->call(tool_call)));
    if (call.stateless) reply.result["resultType"] = "complete";
  } catch (const std::exception& e) {
    reply = Reply::Error(kInternalError, absl::StrCat("Internal error in ", call.tool->name, ": ", e.what()));
  }
  // A cancelled request gets no response (the spec: the client has
  // stopped waiting for it).
  if (!call.cancelled->load()) dispatcher_.Respond(call.id, reply);
}

void Server::HandleMessage(absl::string_view text) { dispatcher_.DispatchMessage(text); }

void Server::RejectMessage(std::string why) {
  dispatcher_.RespondWithoutId(kInvalidRequest, absl::StrCat("Invalid Request: ", why));
}

void Server::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;  // the worker runs what is queued, then ends
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  RunQueuedCalls();  // with caller threads: anything they left (nothing, as ServeLines runs)
}

void Server::CancelAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, flag] : running_) flag->store(true);
  for (const PendingCall& c : queue_) running_.erase(c.key);
  queue_.clear();
  cv_.notify_all();
}

void Server::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

}  // namespace clada::mcp
