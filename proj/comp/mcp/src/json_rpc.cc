#include "proj/comp/mcp/src/json_rpc.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace clada::mcp {
namespace {

// An id a request may carry: a string or an integer (MCP forbids null).
bool IsValidId(const Json& id) { return id.is_string() || id.is_number_integer(); }

// nlohmann's own compact dump, invalid UTF-8 replaced.
void AppendDumped(const Json& value, std::string* out) {
  out->append(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// The length of the well-formed UTF-8 sequence starting at s[i] (a byte
// over 0x7F), or 0: the Unicode definition nlohmann's decoder follows (no
// overlong forms, no surrogates, nothing over U+10FFFF).
size_t Utf8SequenceLength(const std::string& s, size_t i) {
  const auto at = [&s](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0; };
  const unsigned char c = at(i);
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  size_t length;
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at(i + 1) < low || at(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return length;
}

// A JSON string as nlohmann's dump writes it: runs of bytes that need no
// escape are copied whole (valid UTF-8 is written as is). A string with
// invalid UTF-8 goes to nlohmann, which replaces it (U+FFFD).
void AppendString(const std::string& s, std::string* out) {
  const size_t start = out->size();
  out->push_back('"');
  size_t run = 0;  // start of the bytes not appended yet
  // The bytes written as they are: printable ASCII but '"' and '\\'.
  static constexpr auto kPlain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
    return plain;
  }();
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    // Eight bytes at a time while none of them is special (below 0x20,
    // '"', '\\' or over 0x7F): the usual "has a zero / a smaller byte" tests.
    constexpr uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
    for (uint64_t w; i + 8 <= n; i += 8) {
      std::memcpy(&w, s.data() + i, 8);
      const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
      const uint64_t special = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) |
                               ((backslash - kOnes) & ~backslash) | w;
      if ((special & kHigh) != 0) break;
    }
    while (i < n && kPlain[static_cast<unsigned char>(s[i])]) ++i;
    if (i == n) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(s, i);
      if (length == 0) {
        out->resize(start);
        AppendDumped(Json(s), out);
        return;
      }
      i += length - 1;
      continue;
    }
    out->append(s, run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\r':
        out->append("\\r");
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out->append(escape, sizeof escape);
      }
    }
  }
  out->append(s, run, std::string::npos);
  out->push_back('"');
}

}  // namespace

void AppendJson(const Json& value, std::string* out) {
  switch (value.type()) {
    case Json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out->push_back(',');
        first = false;
        AppendString(it.key(), out);
        out->push_back(':');
        AppendJson(it.value(), out);
      }
      out->push_back('}');
      return;
    }
    case Json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const Json& element : value) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(element, out);
      }
      out->push_back(']');
      return;
    }
    case Json::value_t::string:
      AppendString(value.get_ref<const std::string&>(), out);
      return;
    default:  // numbers, booleans, null
      AppendDumped(value, out);
  }
}

std::string DumpJson(const Json& value) {
  std::string out;
  AppendJson(value, &out);
  return out;
}

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

void Dispatcher::Write(const Json& message) { WriteText(DumpJson(message)); }

void Dispatcher::WriteText(const std::string& text) {
  std::lock_guard<std::mutex> lock(write_mu_);
  write_(text);
}

void Dispatcher::Respond(const Json& id, const Reply& reply) {
  // Written straight from the reply, not copied into a message first: a
  // result can hold a whole file, twice (text and structuredContent).
  std::string text = R"({"jsonrpc":"2.0","id":)";
  AppendJson(id, &text);
  if (reply.ok) {
    text.append(R"(,"result":)");
    AppendJson(reply.result, &text);
  } else {
    Json error = {{"code", reply.code}, {"message", reply.message}};
    if (!reply.data.is_null()) error["data"] = reply.data;
    text.append(R"(,"error":)");
    AppendJson(error, &text);
  }
  text.push_back('}');
  WriteText(text);
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
  // Taken out of the message, not copied: a call's arguments can hold a
  // whole file.
  Json params = message.contains("params") ? std::move(message["params"]) : Json::object();
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
      later->second(id, std::move(params));
    }
  } catch (const std::exception& e) {
    Respond(id, Reply::Error(kInternalError, absl::StrCat("Internal error: ", e.what())));
  }
}

}  // namespace clada::mcp
