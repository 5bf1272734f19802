// Actions kept as bytes until they run. A reader that makes every action of
// an answer at once (CML's) would hold, for an answer of 300,000 small tasks,
// 300,000 core::Action objects of about 180 bytes each plus an allocation per
// string and per parameter: over a gigabyte for a 7 MB answer. Packed, a
// task like `<remove path="a.txt"/>` takes about 50 bytes, and the action
// made from them again (Get) is equal to the one packed, value types,
// parameter order and all.
//
// Example:
//   core::PackedActions packed;
//   size_t i = packed.Add(action);  // action may be dropped now
//   ...
//   core::Action again = packed.Get(i);  // == action
#ifndef CLADA_PROJ_COMP_CORE_SRC_PACKED_ACTIONS_H_
#define CLADA_PROJ_COMP_CORE_SRC_PACKED_ACTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"

namespace clada::core {

class PackedActions {
 public:
  // Packs `action` (every field) and returns its index: 0, 1, 2, ...
  size_t Add(const Action& action);
  // Moves `other`'s actions after these (their chunks moved, not copied):
  // other's action i is then this one's base + i, where base is size()
  // before the call (returned).
  size_t Append(PackedActions&& other);
  // The action packed at `index` (< size()).
  Action Get(size_t index) const;
  // Its name, without unpacking the rest (valid while this lives).
  absl::string_view Name(size_t index) const;

  size_t size() const { return where_.size(); }
  bool empty() const { return where_.empty(); }
  // The bytes held: chunks and index.
  size_t bytes() const;

 private:
  // Chunks of kChunkBytes (an action larger than one has its own), so that
  // growing never copies what is already packed nor holds twice its size.
  static constexpr size_t kChunkBytes = 1 << 20;
  std::vector<std::string> chunks_;
  // Where each action starts: chunk index in the top 24 bits, offset below.
  std::vector<uint64_t> where_;
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_PACKED_ACTIONS_H_
