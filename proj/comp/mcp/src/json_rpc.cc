#include "proj/comp/mcp/src/json_rpc.h"

#include <exception>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace clada::mcp {
namespace {

// An id a request may carry: a string or an integer (MCP forbids null).
bool IsValidId(const Json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

Dispatcher::Dispatcher(WriteFunction write) : write_(std::move(write)) {}

void Dispatcher::AddRequestHandler(const std::string& method, RequestHandler handler) {
  requests_[method] = std::move(handler);
}

void Dispatcher::AddDeferredHandler(const std::string& method, DeferredHandler handler) {
  deferred_[method] = std::move(handler);
}

void Dispatcher::AddNotificationHandler(const std::string& method, NotificationHandler handler) {
  notifications_[method] = std::move(handler);
}

void Dispatcher::Write(const Json& message) {
  // Invalid UTF-8 from a file or a process is replaced, never thrown on.
  const std::string text = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(write_mu_);
  write_(text);
}

void Dispatcher::Respond(const Json& id, const Reply& reply) {
  Json message = {{"jsonrpc", "2.0"}, {"id", id}};
  if (reply.ok) {
    message["result"] = reply.result;
  } else {
    Json error = {{"code", reply.code}, {"message", reply.message}};
    if (!reply.data.is_null()) error["data"] = reply.data;
    message["error"] = std::move(error);
  }
  Write(message);
}

void Dispatcher::RespondWithoutId(int code, std::string message) {
  Respond(nullptr, Reply::Error(code, std::move(message)));
}

void Dispatcher::Notify(absl::string_view method, Json params) {
  Json message = {{"jsonrpc", "2.0"}, {"method", std::string(method)}};
  if (!params.is_null()) message["params"] = std::move(params);
  Write(message);
}

int64_t Dispatcher::SendRequest(absl::string_view method, Json params, ResponseHandler on_reply) {
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    id = next_id_++;
    pending_[id] = std::move(on_reply);
  }
  Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}};
  if (!params.is_null()) message["params"] = std::move(params);
  Write(message);
  return id;
}

void Dispatcher::HandleResponse(const Json& message) {
  const Json& id = message["id"];
  if (!id.is_number_integer()) return;  // not one of ours
  ResponseHandler handler;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    auto it = pending_.find(id.get<int64_t>());
    if (it == pending_.end()) return;
    handler = std::move(it->second);
    pending_.erase(it);
  }
  Reply reply;
  if (message.contains("result")) {
    reply = Reply::Ok(message["result"]);
  } else {
    const Json& error = message["error"];
    const Json* code = error.is_object() && error.contains("code") ? &error["code"] : nullptr;
    const Json* text = error.is_object() && error.contains("message") ? &error["message"] : nullptr;
    reply = Reply::Error(code != nullptr && code->is_number_integer() ? code->get<int>() : kInternalError,
                         text != nullptr && text->is_string() ? text->get<std::string>() : "error without a message");
  }
  try {
    handler(reply);
  } catch (const std::exception&) {
    // A response handler's failure has no one to answer.
  }
}

void Dispatcher::DispatchMessage(absl::string_view text) {
  if (absl::StripAsciiWhitespace(text).empty()) return;
  Json message = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    RespondWithoutId(kParseError, "Parse error: the message is not valid JSON (one JSON object per line)");
    return;
  }
  if (message.is_array()) {
    RespondWithoutId(kInvalidRequest, "Invalid Request: batches (JSON arrays) are not supported; send one "
                                      "message per line");
    return;
  }
  if (!message.is_object()) {
    RespondWithoutId(kInvalidRequest, "Invalid Request: a message is a JSON object");
    return;
  }
  const bool has_id = message.contains("id");
  const Json id = has_id && IsValidId(message["id"]) ? message["id"] : Json(nullptr);
  auto invalid = [&](const std::string& why) {
    Respond(id, Reply::Error(kInvalidRequest, absl::StrCat("Invalid Request: ", why)));
  };
  if (!message.contains("jsonrpc") || message["jsonrpc"] != "2.0") {
    invalid("\"jsonrpc\" must be \"2.0\"");
    return;
  }
  if (!message.contains("method")) {
    if (has_id && (message.contains("result") != message.contains("error"))) {
      HandleResponse(message);
      return;
    }
    invalid("a message has a \"method\" (a request or notification) or an \"id\" with a \"result\" or an "
            "\"error\" (a response)");
    return;
  }
  if (!message["method"].is_string()) {
    invalid("\"method\" must be a string");
    return;
  }
  if (has_id && !IsValidId(message["id"])) {
    invalid("\"id\" must be a string or an integer");
    return;
  }
  Json params = message.contains("params") ? message["params"] : Json::object();
  if (!params.is_object() && !params.is_array()) {
    invalid("\"params\" must be an object");
    return;
  }
  const std::string method = message["method"].get<std::string>();
  if (!has_id) {
    auto it = notifications_.find(method);
    if (it == notifications_.end()) return;
    try {
      it->second(params);
    } catch (const std::exception&) {
      // A notification has no one to answer.
    }
    return;
  }
  auto sync = requests_.find(method);
  auto later = deferred_.find(method);
  if (sync == requests_.end() && later == deferred_.end()) {
    Respond(id, Reply::Error(kMethodNotFound, absl::StrCat("Method not found: ", method)));
    return;
  }
  try {
    if (sync != requests_.end()) {
      Respond(id, sync->second(params));
    } else {
      later->second(id, params);
    }
  } catch (const std::exception& e) {
    Respond(id, Reply::Error(kInternalError, absl::StrCat("Internal error: ", e.what())));
  }
}

}  // namespace clada::mcp
