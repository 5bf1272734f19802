// The keys of the block being parsed, in order of first appearance, with
// constant-time lookup: duplicate keys must be found without making a block
// of a million keys quadratic.
#ifndef CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_KEY_INDEX_H_
#define CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_KEY_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"

namespace clada::sham_parser::internal {

class KeyIndex {
 public:
  static constexpr size_t kNotFound = static_cast<size_t>(-1);

  // Forgets every key (for the next block).
  void Clear();

  // Position of `key` among the added keys, or kNotFound.
  size_t Find(absl::string_view key) const;

  // Appends `key`, which must not be present yet; returns its position. The
  // view is kept: its bytes must outlive the index (they are the input).
  size_t Add(absl::string_view key);

 private:
  // Small blocks are scanned; past this many keys a hash table takes over.
  static constexpr size_t kLinearLimit = 8;

  // Open addressing with linear probing. A slot holds the high half of the
  // key's hash (to skip most comparisons) and position + 1 (0 = empty).
  struct Slot {
    uint32_t tag = 0;
    uint32_t position_plus_one = 0;
  };

  void Insert(uint64_t hash, size_t position);
  void Rehash(size_t capacity);

  std::vector<absl::string_view> keys_;
  std::vector<Slot> slots_;  // empty, or a power of two at most half full
};

}  // namespace clada::sham_parser::internal

#endif  // CLADA_PROJ_COMP_SHAM_PARSER_SRC_INTERNAL_KEY_INDEX_H_
