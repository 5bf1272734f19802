// Actions kept as bytes until they run. A reader that makes every action of
// an answer at once (CML's) would hold, for an answer of 300,000 small tasks,
// 300,000 core::Action objects of about 180 bytes each plus an allocation per
// string and per parameter: over a gigabyte for a 7 MB answer. Packed, a
// task like `<remove path="a.txt"/>` takes about 28 bytes (the schema's
// names and keys, and labels like task-N, packed as numbers), and the
// action made from them again (Get) is equal to the one packed, value
// types, parameter order and all.
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
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proj/comp/core/src/action.h"

namespace clada::core {

// One parameter of an action given as parts: a string, a signed integer or
// a boolean, the JSON types a reader's parameters take.
struct PackedParam {
  enum class Type : char { kString, kInteger, kBoolean };
  absl::string_view key;
  Type type = Type::kString;
  absl::string_view text;  // kString
  int64_t number = 0;      // kInteger
  bool flag = false;       // kBoolean

  static PackedParam String(absl::string_view key, absl::string_view text) {
    return {key, Type::kString, text, 0, false};
  }
  static PackedParam Integer(absl::string_view key, int64_t number) { return {key, Type::kInteger, {}, number, false}; }
  static PackedParam Boolean(absl::string_view key, bool flag) { return {key, Type::kBoolean, {}, 0, flag}; }
};

// An action as views of its parts, for a reader that packs what it reads
// without making a core::Action first (an allocation per parameter, and the
// ordered_json object, were most of a dense CSL answer's parse). Packing
// parts gives the bytes packing the equal Action gives, so Get makes the
// same Action. `params` must have distinct keys (they are not checked).
struct ActionParts {
  absl::string_view name;
  absl::Span<const PackedParam> params;
  absl::string_view block_id;
  int start_line = 0;
  int end_line = 0;
  absl::string_view explanation;
  absl::Span<const std::string> warnings;
  absl::Span<const absl::string_view> line_params;
  EditOptions edit_options;
};

// The Action `parts` describe (what Get returns after Add(parts)).
Action MakeAction(const ActionParts& parts);

class PackedActions {
 public:
  // Packs `action` (every field) and returns its index: 0, 1, 2, ...
  size_t Add(const Action& action);
  // Packs the action `parts` describe: the same bytes as Add(MakeAction(parts)).
  size_t Add(const ActionParts& parts);
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
  // Raw bytes, not strings: an action is written straight into its place.
  static constexpr size_t kChunkBytes = 1 << 20;
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    size_t capacity = 0;
  };
  std::vector<Chunk> chunks_;
  // Where each action starts: chunk index in the top 24 bits, offset below.
  std::vector<uint64_t> where_;

  // Indexes an action of `bytes` bytes and returns where to write it (in
  // the last chunk, or a new one when it does not fit).
  char* Place(size_t bytes);
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_PACKED_ACTIONS_H_
