#include "proj/comp/core/src/packed_actions.h"

#include <algorithm>
#include <cstring>
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

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutSigned(int64_t v, std::string* out) {
  PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

void PutString(absl::string_view s, std::string* out) {
  PutVarint(s.size(), out);
  out->append(s.data(), s.size());
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

size_t PackedActions::Add(const Action& action) {
  // Built apart first: its size decides whether it fits the current chunk.
  static thread_local std::string bytes;
  bytes.clear();
  PutString(action.name, &bytes);
  PutJson(action.params, &bytes);
  PutString(action.metadata.block_id, &bytes);
  PutSigned(action.metadata.start_line, &bytes);
  PutSigned(action.metadata.end_line, &bytes);
  PutString(action.metadata.explanation, &bytes);
  PutStrings(action.warnings, &bytes);
  PutStrings(action.line_params, &bytes);
  bytes.push_back(action.search_replace ? 1 : 0);
  if (chunks_.empty() || chunks_.back().size() + bytes.size() > chunks_.back().capacity()) {
    chunks_.emplace_back();
    chunks_.back().reserve(std::max(kChunkBytes, bytes.size()));
  }
  std::string& chunk = chunks_.back();
  where_.push_back((static_cast<uint64_t>(chunks_.size() - 1) << kOffsetBits) | chunk.size());
  chunk.append(bytes);
  if (bytes.capacity() > 4 * kChunkBytes) std::string().swap(bytes);  // a 50 MB body is not kept
  return where_.size() - 1;
}

size_t PackedActions::Append(PackedActions&& other) {
  const size_t base = where_.size();
  const uint64_t chunk_base = chunks_.size();
  where_.reserve(where_.size() + other.where_.size());
  for (uint64_t w : other.where_) where_.push_back(w + (chunk_base << kOffsetBits));
  for (std::string& c : other.chunks_) chunks_.push_back(std::move(c));
  // A chunk moved in may be full: the next Add starts a new one when needed.
  other.chunks_.clear();
  other.where_.clear();
  return base;
}

Action PackedActions::Get(size_t index) const {
  const uint64_t w = where_[index];
  Reader r(chunks_[w >> kOffsetBits].data() + (w & ((uint64_t{1} << kOffsetBits) - 1)));
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
  return Reader(chunks_[w >> kOffsetBits].data() + (w & ((uint64_t{1} << kOffsetBits) - 1))).String();
}

size_t PackedActions::bytes() const {
  size_t n = where_.capacity() * sizeof(uint64_t);
  for (const std::string& c : chunks_) n += c.capacity();
  return n;
}

}  // namespace clada::core
