#include "proj/comp/sham-parser/src/internal/key_index.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace clada::sham_parser::internal {
namespace {

// absl's hash is seeded per process, so inputs cannot be crafted to collide.
uint64_t HashKey(absl::string_view key) {
  return absl::Hash<absl::string_view>{}(key);
}

uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

}  // namespace

void KeyIndex::Clear() {
  keys_.clear();
  if (slots_.size() > 4096) {
    std::vector<Slot>().swap(slots_);  // give back what a huge block took
  } else {
    slots_.clear();
  }
}

size_t KeyIndex::Find(absl::string_view key) const {
  if (slots_.empty()) {
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == key) return i;
    }
    return kNotFound;
  }
  const uint64_t hash = HashKey(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.position_plus_one == 0) return kNotFound;
    if (s.tag == Tag(hash) && keys_[s.position_plus_one - 1] == key)
      return s.position_plus_one - 1;
  }
}

size_t KeyIndex::Add(absl::string_view key) {
  const size_t position = keys_.size();
  keys_.push_back(key);
  if (keys_.size() <= kLinearLimit) return position;
  if (keys_.size() * 2 > slots_.size()) {
    Rehash(std::max<size_t>(
        64, slots_.size() * 2));  // inserts every key, this one too
  } else {
    Insert(HashKey(key), position);
  }
  return position;
}

void KeyIndex::Insert(uint64_t hash, size_t position) {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].position_plus_one != 0) i = (i + 1) & mask;
  slots_[i].tag = Tag(hash);
  slots_[i].position_plus_one = static_cast<uint32_t>(position + 1);
}

void KeyIndex::Rehash(size_t capacity) {
  slots_.assign(capacity, Slot{});
  for (size_t p = 0; p < keys_.size(); ++p) Insert(HashKey(keys_[p]), p);
}

}  // namespace clada::sham_parser::internal
