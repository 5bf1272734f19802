#include "proj/comp/core/src/utf8.h"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace clada::core {
namespace {

// Length of the well-formed sequence at `p` (1..4), or 0 when ill-formed.
// Follows Table 3-7 of the Unicode standard.
size_t SequenceLength(const unsigned char* p, const unsigned char* end) {
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t avail = static_cast<size_t>(end - p);
  auto cont = [](unsigned char b) { return (b & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return avail >= 2 && cont(p[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (avail < 3) return 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
    return p[1] >= lo && p[1] <= hi && cont(p[2]) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (avail < 4) return 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // <= U+10FFFF
    return p[1] >= lo && p[1] <= hi && cont(p[2]) && cont(p[3]) ? 4 : 0;
  }
  return 0;
}

// Offset of the first non-ASCII byte at or after `p`, eight bytes at a time.
const unsigned char* SkipAscii(const unsigned char* p, const unsigned char* end) {
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    if (word & 0x8080808080808080ULL) break;
    p += 8;
  }
  while (p < end && *p < 0x80) ++p;
  return p;
}

}  // namespace

bool IsValidUtf8(absl::string_view text, size_t* bad_offset) {
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = begin + text.size();
  const unsigned char* p = begin;
  while (true) {
    p = SkipAscii(p, end);
    if (p == end) return true;
    size_t n = SequenceLength(p, end);
    if (n == 0) {
      if (bad_offset != nullptr) *bad_offset = static_cast<size_t>(p - begin);
      return false;
    }
    p += n;
  }
}

size_t Utf8SequenceLength(absl::string_view text, size_t offset) {
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  return SequenceLength(begin + offset, begin + text.size());
}

std::string ToValidUtf8(absl::string_view text) {
  size_t bad = 0;
  if (IsValidUtf8(text, &bad)) return std::string(text);
  std::string out(text.substr(0, bad));
  const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = begin + text.size();
  const unsigned char* p = begin + bad;
  while (p < end) {
    size_t n = SequenceLength(p, end);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");
      ++p;
    } else {
      out.append(reinterpret_cast<const char*>(p), n);
      p += n;
    }
  }
  return out;
}

absl::string_view Utf8Prefix(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes;
  // Step back over continuation bytes to a character boundary.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut);
}

size_t MakeJsonValidUtf8(nlohmann::ordered_json* value) {
  size_t repaired = 0;
  std::vector<nlohmann::ordered_json*> pending = {value};
  while (!pending.empty()) {
    nlohmann::ordered_json* v = pending.back();
    pending.pop_back();
    if (v->is_string()) {
      std::string& s = v->get_ref<std::string&>();
      if (!IsValidUtf8(s)) {
        s = ToValidUtf8(s);
        ++repaired;
      }
    } else if (v->is_array()) {
      for (nlohmann::ordered_json& item : *v) pending.push_back(&item);
    } else if (v->is_object()) {
      bool bad_key = false;
      for (auto it = v->begin(); it != v->end() && !bad_key; ++it) bad_key = !IsValidUtf8(it.key());
      if (bad_key) {
        // Keys cannot be renamed in place: the object is rebuilt, its
        // values moved (a move takes no recursion).
        nlohmann::ordered_json rebuilt = nlohmann::ordered_json::object();
        for (auto it = v->begin(); it != v->end(); ++it) {
          if (!IsValidUtf8(it.key())) ++repaired;
          rebuilt[ToValidUtf8(it.key())] = std::move(it.value());
        }
        *v = std::move(rebuilt);
      }
      for (auto it = v->begin(); it != v->end(); ++it) pending.push_back(&it.value());
    }
  }
  return repaired;
}

size_t Utf8WithoutIncompleteTail(absl::string_view text) {
  const size_t n = text.size();
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    const unsigned char c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) == 0x80) continue;
    size_t need = 1;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 4;
    }
    return need > back ? n - back : n;
  }
  return n;
}

size_t Utf8LeadingContinuations(absl::string_view text) {
  size_t i = 0;
  while (i < 3 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  return i;
}

absl::string_view WithoutUtf8Bom(absl::string_view text) {
  absl::ConsumePrefix(&text, kUtf8Bom);
  return text;
}

bool DropUtf8Bom(std::string* text) {
  if (!absl::StartsWith(*text, kUtf8Bom)) return false;
  text->erase(0, kUtf8Bom.size());
  return true;
}

}  // namespace clada::core
