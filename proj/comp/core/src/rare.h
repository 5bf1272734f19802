// core::Rare<T>: a part of a record that most records never set, kept
// behind a pointer, so that a million records of one-line operations do
// not each carry it empty (a CML block's tasks, errors and warnings; an
// apply_patch delete's move, content and hunks; a CSL operation's block).
// Reading a record that has none gives an empty T; writing makes it.
// Copies copy it.
//
// Example:
//   struct Block { core::Rare<Details> details; };
//   for (const auto& e : block.details.get().errors) ...;  // none: empty
//   block.details.mut().errors.push_back(e);                 // made now
#ifndef CLADA_PROJ_COMP_CORE_SRC_RARE_H_
#define CLADA_PROJ_COMP_CORE_SRC_RARE_H_

#include <memory>

namespace clada::core {

template <typename T>
class Rare {
 public:
  Rare() = default;
  Rare(const Rare& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Rare& operator=(const Rare& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Rare(Rare&&) noexcept = default;
  Rare& operator=(Rare&&) noexcept = default;

  // The value, or an empty T when none was made.
  const T& get() const { return value_ ? *value_ : Empty(); }
  // The value, made (empty) when there is none yet: to write to.
  T& mut() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }

 private:
  static const T& Empty() {
    static const T kEmpty;
    return kEmpty;
  }
  std::unique_ptr<T> value_;
};

}  // namespace clada::core

#endif  // CLADA_PROJ_COMP_CORE_SRC_RARE_H_
