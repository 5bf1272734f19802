#include "proj/comp/core/src/packed_actions.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace clada::core {
namespace {

// An action's EditOptions in one byte: a bit each.
char EditOptionBits(const EditOptions& o) {
  return static_cast<char>((o.tolerant_match ? 1 : 0) | (o.find_file_by_name ? 2 : 0) | (o.append_once ? 4 : 0) |
                           (o.delete_directories ? 8 : 0));
}
EditOptions EditOptionsOfBits(char bits) {
  EditOptions o;
  o.tolerant_match = (bits & 1) != 0;
  o.find_file_by_name = (bits & 2) != 0;
  o.append_once = (bits & 4) != 0;
  o.delete_directories = (bits & 8) != 0;
  return o;
}

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

// The words every action repeats (the schema's action and parameter
// names), packed as their number here: a million `file_delete` actions
// do not each hold the name and the key `path`. Only ever read back by
// this build, so the list can change freely.
constexpr absl::string_view kWords[] = {
    "file_write", "file_append", "file_replace_text", "file_replace_all_text", "file_replace_text_range",
    "files_replace_all_text", "file_replace_lines", "file_apply_diff", "file_apply_patch", "file_read_numbered",
    "file_read", "files_read", "file_delete", "file_move", "dir_create", "dir_delete", "ls", "grep", "glob", "exec",
    "context_add", "context_remove", "context_list", "context_prune", "context_clear", "undo", "git_step_back",
    "git_step_forward", "git_squash", "all", "base_path", "code", "content", "contiguous_only", "count", "cwd", "days",
    "delimiter", "diff", "hours", "include", "lang", "lines", "message", "mode", "msg_target", "new_content",
    "new_path", "new_text", "old_path", "old_text", "old_text_end", "old_text_start", "patch", "path", "paths",
    "pattern", "recursive", "return_output", "timeout"};

// Up to sixteen bytes of `s` (its first eight and its last eight, which
// for a word of 16 bytes or less are all of them) with fixed-size loads.
struct Fingerprint {
  uint64_t head = 0, tail = 0;
  bool operator==(const Fingerprint& o) const { return head == o.head && tail == o.tail; }
};
inline uint64_t Load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Load4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline Fingerprint FingerprintOf(absl::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 8) return {Load8(p), Load8(p + n - 8)};
  if (n >= 4) return {Load4(p), Load4(p + n - 4)};
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return {v, 0};
}

// A word's number in kWords, or -1: its fingerprint looked for among the
// few words of its length, then the bytes compared once (a hash map, or a
// memcmp with each word of the length, cost a dense CSL answer's parse a
// third of its speed).
int WordNumber(absl::string_view s) {
  constexpr size_t kMaxLength = 24;
  struct Entry {
    Fingerprint fingerprint;
    int number;
  };
  static const auto* by_length = [] {
    auto* t = new std::array<std::vector<Entry>, kMaxLength + 1>();
    for (size_t i = 0; i < sizeof kWords / sizeof kWords[0]; ++i)
      (*t)[kWords[i].size()].push_back({FingerprintOf(kWords[i]), static_cast<int>(i)});
    return t;
  }();
  if (s.size() > kMaxLength) return -1;
  const Fingerprint fingerprint = FingerprintOf(s);
  for (const Entry& e : (*by_length)[s.size()]) {
    // Up to 16 bytes the fingerprint is the whole word.
    if (e.fingerprint == fingerprint && (s.size() <= 16 || kWords[e.number] == s)) return e.number;
  }
  return -1;
}

// A name or key: its number in kWords (odd header) or its bytes (even).
template <typename Sink>
void EmitWord(absl::string_view s, Sink& sink) {
  const int number = WordNumber(s);
  if (number >= 0) {
    EmitVarint(static_cast<uint64_t>(number) * 2 + 1, sink);
    return;
  }
  EmitVarint(s.size() * 2, sink);
  sink.Bytes(s);
}

// The block ids readers give their actions (task-12, csl-4, patch-3, ...): the
// prefix's number and N (odd header), or the bytes (even): `task-1234567`
// is 4 bytes, not 13.
constexpr absl::string_view kLabelPrefixes[] = {"task-", "patch-", "diff-", "rep-", "sr-", "csl-"};

template <typename Sink>
void EmitLabel(absl::string_view s, Sink& sink) {
  for (size_t i = 0; i < sizeof kLabelPrefixes / sizeof kLabelPrefixes[0]; ++i) {
    const absl::string_view prefix = kLabelPrefixes[i];
    if (s.size() <= prefix.size() || s.size() > prefix.size() + 9 || s.substr(0, prefix.size()) != prefix) continue;
    const absl::string_view digits = s.substr(prefix.size());
    // Only N as it is written back: digits, no leading zero.
    if (digits[0] == '0' || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      break;
    uint64_t n = 0;
    for (char c : digits) n = n * 10 + static_cast<uint64_t>(c - '0');
    EmitVarint(i * 2 + 1, sink);
    EmitVarint(n, sink);
    return;
  }
  EmitVarint(s.size() * 2, sink);
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

void PutWord(absl::string_view s, std::string* out) {
  StringSink sink{out};
  EmitWord(s, sink);
}

void PutLabel(absl::string_view s, std::string* out) {
  StringSink sink{out};
  EmitLabel(s, sink);
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
        PutWord(it.key(), out);
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
  // What EmitWord wrote (a view of kWords or of the bytes).
  absl::string_view Word() {
    const uint64_t header = Varint();
    if (header % 2 == 1) return kWords[header / 2];
    absl::string_view s(p_, header / 2);
    p_ += header / 2;
    return s;
  }
  // What EmitLabel wrote.
  std::string Label() {
    const uint64_t header = Varint();
    if (header % 2 == 1) return absl::StrCat(kLabelPrefixes[header / 2], Varint());
    std::string s(p_, header / 2);
    p_ += header / 2;
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
          std::string key(Word());
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
  char Byte() { return *p_++; }

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

void PutWords(const std::vector<std::string>& v, std::string* out) {
  PutVarint(v.size(), out);
  for (const std::string& s : v) PutWord(s, out);
}

std::vector<std::string> ReadWords(Reader& r) {
  std::vector<std::string> v(r.Varint());
  for (std::string& s : v) s = std::string(r.Word());
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
  a.edit_options = parts.edit_options;
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
  PutWord(action.name, &bytes);
  PutJson(action.params, &bytes);
  PutLabel(action.metadata.block_id, &bytes);
  PutSigned(action.metadata.start_line, &bytes);
  PutSigned(action.metadata.end_line, &bytes);
  PutString(action.metadata.explanation, &bytes);
  PutStrings(action.warnings, &bytes);
  PutWords(action.line_params, &bytes);
  bytes.push_back(EditOptionBits(action.edit_options));
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
  EmitWord(parts.name, sink);
  sink.Byte(kObject);
  EmitVarint(parts.params.size(), sink);
  for (const PackedParam& p : parts.params) {
    EmitWord(p.key, sink);
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
  EmitLabel(parts.block_id, sink);
  EmitSigned(parts.start_line, sink);
  EmitSigned(parts.end_line, sink);
  EmitString(parts.explanation, sink);
  EmitVarint(parts.warnings.size(), sink);
  for (const std::string& w : parts.warnings) EmitString(w, sink);
  EmitVarint(parts.line_params.size(), sink);
  for (absl::string_view l : parts.line_params) EmitWord(l, sink);
  sink.Byte(EditOptionBits(parts.edit_options));
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
  a.name = std::string(r.Word());
  a.params = r.Value();
  a.metadata.block_id = r.Label();
  a.metadata.start_line = static_cast<int>(r.Signed());
  a.metadata.end_line = static_cast<int>(r.Signed());
  a.metadata.explanation = std::string(r.String());
  a.warnings = ReadStrings(r);
  a.line_params = ReadWords(r);
  a.edit_options = EditOptionsOfBits(r.Byte());
  return a;
}

absl::string_view PackedActions::Name(size_t index) const {
  const uint64_t w = where_[index];
  return Reader(chunks_[w >> kOffsetBits].data.get() + (w & ((uint64_t{1} << kOffsetBits) - 1))).Word();
}

size_t PackedActions::bytes() const {
  size_t n = where_.capacity() * sizeof(uint64_t);
  for (const Chunk& c : chunks_) n += c.capacity;
  return n;
}

}  // namespace clada::core
