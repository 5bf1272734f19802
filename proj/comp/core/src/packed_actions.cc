#include "proj/comp/core/src/packed_actions.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

namespace clada::core {
namespace {

// Value tags: the JSON types an action's parameters can hold, kept apart
// (an integer stays signed or unsigned, as it was made).
enum Tag : char {
  kNull = 0,
  kFalse,
  kTrue,
  kInteger,
  kUnsigned,
  kFloat,
  kString,
  kArray,
  kObject,
  kBinary,
};

// Where the Emit functions write: counting the bytes, into a string, or
// straight into a chunk.
struct CountSink {
  size_t n = 0;
  void Byte(char) { ++n; }
  void Bytes(absl::string_view s) { n += s.size(); }
};
struct StringSink {
  std::string* out;
  void Byte(char c) { out->push_back(c); }
  void Bytes(absl::string_view s) { out->append(s.data(), s.size()); }
};
struct WriteSink {
  char* out;
  void Byte(char c) { *out++ = c; }
  void Bytes(absl::string_view s) {
    if (!s.empty()) std::memcpy(out, s.data(), s.size());
    out += s.size();
  }
};

template <typename Sink>
void EmitVarint(uint64_t v, Sink& sink) {
  while (v >= 0x80) {
    sink.Byte(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  sink.Byte(static_cast<char>(v));
}

template <typename Sink>
void EmitSigned(int64_t v, Sink& sink) {
  EmitVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), sink);
}

template <typename Sink>
void EmitString(absl::string_view s, Sink& sink) {
  EmitVarint(s.size(), sink);
  sink.Bytes(s);
}

void PutVarint(uint64_t v, std::string* out) {
  StringSink sink{out};
  EmitVarint(v, sink);
}

void PutSigned(int64_t v, std::string* out) {
  StringSink sink{out};
  EmitSigned(v, sink);
}

void PutString(absl::string_view s, std::string* out) {
  StringSink sink{out};
  EmitString(s, sink);
}

void PutJson(const Json& j, std::string* out) {
  switch (j.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
      out->push_back(kNull);
      return;
    case Json::value_t::boolean:
      out->push_back(j.get<bool>() ? kTrue : kFalse);
      return;
    case Json::value_t::number_integer:
      out->push_back(kInteger);
      PutSigned(j.get<int64_t>(), out);
      return;
    case Json::value_t::number_unsigned:
      out->push_back(kUnsigned);
      PutVarint(j.get<uint64_t>(), out);
      return;
    case Json::value_t::number_float: {
      out->push_back(kFloat);
      const double d = j.get<double>();
      char bytes[sizeof d];
      std::memcpy(bytes, &d, sizeof d);
      out->append(bytes, sizeof d);
      return;
    }
    case Json::value_t::string:
      out->push_back(kString);
      PutString(j.get_ref<const std::string&>(), out);
      return;
    case Json::value_t::array:
      out->push_back(kArray);
      PutVarint(j.size(), out);
      for (const Json& e : j) PutJson(e, out);
      return;
    case Json::value_t::object:
      out->push_back(kObject);
      PutVarint(j.size(), out);
      for (auto it = j.begin(); it != j.end(); ++it) {
        PutString(it.key(), out);
        PutJson(it.value(), out);
      }
      return;
    case Json::value_t::binary: {
      out->push_back(kBinary);
      const Json::binary_t& b = j.get_binary();
      PutVarint(b.has_subtype() ? b.subtype() + 1 : 0, out);
      PutVarint(b.size(), out);
      out->append(reinterpret_cast<const char*>(b.data()), b.size());
      return;
    }
  }
}

// Reads back what the Put functions wrote (only ever the bytes they wrote).
class Reader {
 public:
  explicit Reader(const char* p) : p_(p) {}

  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto byte = static_cast<unsigned char>(*p_++);
      v |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return v;
    }
  }
  int64_t Signed() {
    const uint64_t v = Varint();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  absl::string_view String() {
    const size_t n = Varint();
    absl::string_view s(p_, n);
    p_ += n;
    return s;
  }
  Json Value() {
    switch (static_cast<Tag>(*p_++)) {
      case kNull:
        return nullptr;
      case kFalse:
        return false;
      case kTrue:
        return true;
      case kInteger:
        return Json(static_cast<Json::number_integer_t>(Signed()));
      case kUnsigned:
        return Json(static_cast<Json::number_unsigned_t>(Varint()));
      case kFloat: {
        double d;
        std::memcpy(&d, p_, sizeof d);
        p_ += sizeof d;
        return Json(d);
      }
      case kString:
        return Json(std::string(String()));
      case kArray: {
        Json a = Json::array();
        for (uint64_t n = Varint(); n > 0; --n) a.push_back(Value());
        return a;
      }
      case kObject: {
        Json o = Json::object();
        for (uint64_t n = Varint(); n > 0; --n) {
          std::string key(String());
          o.emplace(std::move(key), Value());
        }
        return o;
      }
      case kBinary: {
        const uint64_t subtype = Varint();
        absl::string_view bytes = String();
        Json::binary_t b(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
        if (subtype > 0) b.set_subtype(static_cast<Json::binary_t::subtype_type>(subtype - 1));
        return Json::binary(std::move(b));
      }
    }
    return nullptr;
  }
  bool Byte() { return *p_++ != 0; }

 private:
  const char* p_;
};

void PutStrings(const std::vector<std::string>& v, std::string* out) {
  PutVarint(v.size(), out);
  for (const std::string& s : v) PutString(s, out);
}

std::vector<std::string> ReadStrings(Reader& r) {
  std::vector<std::string> v(r.Varint());
  for (std::string& s : v) s = std::string(r.String());
  return v;
}

constexpr int kOffsetBits = 40;

}  // namespace

Action MakeAction(const ActionParts& parts) {
  Action a;
  a.name = std::string(parts.name);
  // Appended in order: the keys are distinct (ActionParts' rule), so
  // ordered_map's search for each key is skipped.
  auto& params = static_cast<Json::object_t::Container&>(a.params.get_ref<Json::object_t&>());
  params.reserve(parts.params.size());
  for (const PackedParam& p : parts.params) {
    switch (p.type) {
      case PackedParam::Type::kString:
        params.emplace_back(std::piecewise_construct, std::forward_as_tuple(p.key.data(), p.key.size()),
                            std::forward_as_tuple(std::string(p.text)));
        break;
      case PackedParam::Type::kInteger:
        params.emplace_back(std::piecewise_construct, std::forward_as_tuple(p.key.data(), p.key.size()),
                            std::forward_as_tuple(static_cast<Json::number_integer_t>(p.number)));
        break;
      case PackedParam::Type::kBoolean:
        params.emplace_back(std::piecewise_construct, std::forward_as_tuple(p.key.data(), p.key.size()),
                            std::forward_as_tuple(p.flag));
        break;
    }
  }
  a.metadata.block_id = std::string(parts.block_id);
  a.metadata.start_line = parts.start_line;
  a.metadata.end_line = parts.end_line;
  a.metadata.explanation = std::string(parts.explanation);
  a.warnings.assign(parts.warnings.begin(), parts.warnings.end());
  for (absl::string_view l : parts.line_params) a.line_params.emplace_back(l);
  a.search_replace = parts.search_replace;
  return a;
}

namespace {

// Each action is built apart first (its size decides whether it fits the
// current chunk), in a buffer kept from one action to the next.
std::string& Staging() {
  static thread_local std::string bytes;
  bytes.clear();
  return bytes;
}

}  // namespace

size_t PackedActions::Add(const Action& action) {
  std::string& bytes = Staging();
  PutString(action.name, &bytes);
  PutJson(action.params, &bytes);
  PutString(action.metadata.block_id, &bytes);
  PutSigned(action.metadata.start_line, &bytes);
  PutSigned(action.metadata.end_line, &bytes);
  PutString(action.metadata.explanation, &bytes);
  PutStrings(action.warnings, &bytes);
  PutStrings(action.line_params, &bytes);
  bytes.push_back(action.search_replace ? 1 : 0);
  std::memcpy(Place(bytes.size()), bytes.data(), bytes.size());
  if (bytes.capacity() > 4 * kChunkBytes) std::string().swap(bytes);  // a 50 MB body is not kept
  return where_.size() - 1;
}

namespace {

// Byte for byte what Add(const Action&) writes for MakeAction(parts): the
// parameters as PutJson writes an object of strings, integers
// (number_integer) and booleans.
template <typename Sink>
void EmitParts(const ActionParts& parts, Sink& sink) {
  EmitString(parts.name, sink);
  sink.Byte(kObject);
  EmitVarint(parts.params.size(), sink);
  for (const PackedParam& p : parts.params) {
    EmitString(p.key, sink);
    switch (p.type) {
      case PackedParam::Type::kString:
        sink.Byte(kString);
        EmitString(p.text, sink);
        break;
      case PackedParam::Type::kInteger:
        sink.Byte(kInteger);
        EmitSigned(p.number, sink);
        break;
      case PackedParam::Type::kBoolean:
        sink.Byte(p.flag ? kTrue : kFalse);
        break;
    }
  }
  EmitString(parts.block_id, sink);
  EmitSigned(parts.start_line, sink);
  EmitSigned(parts.end_line, sink);
  EmitString(parts.explanation, sink);
  EmitVarint(parts.warnings.size(), sink);
  for (const std::string& w : parts.warnings) EmitString(w, sink);
  EmitVarint(parts.line_params.size(), sink);
  for (absl::string_view l : parts.line_params) EmitString(l, sink);
  sink.Byte(parts.search_replace ? 1 : 0);
}

}  // namespace

size_t PackedActions::Add(const ActionParts& parts) {
  // Counted first, then written straight into its chunk: each text is
  // copied once, from the answer to the chunk.
  CountSink count;
  EmitParts(parts, count);
  WriteSink sink{Place(count.n)};
  EmitParts(parts, sink);
  return where_.size() - 1;
}

char* PackedActions::Place(size_t bytes) {
  if (chunks_.empty() || chunks_.back().size + bytes > chunks_.back().capacity) {
    Chunk& c = chunks_.emplace_back();
    c.capacity = std::max(kChunkBytes, bytes);
    c.data.reset(new char[c.capacity]);
  }
  Chunk& chunk = chunks_.back();
  where_.push_back((static_cast<uint64_t>(chunks_.size() - 1) << kOffsetBits) | chunk.size);
  char* at = chunk.data.get() + chunk.size;
  chunk.size += bytes;
  return at;
}

size_t PackedActions::Append(PackedActions&& other) {
  const size_t base = where_.size();
  const uint64_t chunk_base = chunks_.size();
  where_.reserve(where_.size() + other.where_.size());
  for (uint64_t w : other.where_) where_.push_back(w + (chunk_base << kOffsetBits));
  for (Chunk& c : other.chunks_) chunks_.push_back(std::move(c));
  // A chunk moved in may be full: the next Add starts a new one when needed.
  other.chunks_.clear();
  other.where_.clear();
  return base;
}

Action PackedActions::Get(size_t index) const {
  const uint64_t w = where_[index];
  Reader r(chunks_[w >> kOffsetBits].data.get() + (w & ((uint64_t{1} << kOffsetBits) - 1)));
  Action a;
  a.name = std::string(r.String());
  a.params = r.Value();
  a.metadata.block_id = std::string(r.String());
  a.metadata.start_line = static_cast<int>(r.Signed());
  a.metadata.end_line = static_cast<int>(r.Signed());
  a.metadata.explanation = std::string(r.String());
  a.warnings = ReadStrings(r);
  a.line_params = ReadStrings(r);
  a.search_replace = r.Byte();
  return a;
}

absl::string_view PackedActions::Name(size_t index) const {
  const uint64_t w = where_[index];
  return Reader(chunks_[w >> kOffsetBits].data.get() + (w & ((uint64_t{1} << kOffsetBits) - 1))).String();
}

size_t PackedActions::bytes() const {
  size_t n = where_.capacity() * sizeof(uint64_t);
  for (const Chunk& c : chunks_) n += c.capacity;
  return n;
}

}  // namespace clada::core
