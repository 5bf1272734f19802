#include "proj/comp/readers/src/all_readers.h"

#include <utility>

#include "proj/comp/readers/src/adapters.h"

namespace clada::readers {

core::PackedActions ShiftPackedLabels(core::PackedActions packed, absl::string_view prefix, int by) {
  if (by == 0) return packed;
  core::PackedActions out;
  for (size_t i = 0; i < packed.size(); ++i) {
    core::Action a = packed.Get(i);
    ShiftNumbers(a.metadata.block_id, prefix, by);
    for (std::string& w : a.warnings) ShiftNumbers(w, prefix, by);
    out.Add(a);
  }
  return out;
}

Registry::Registry(const ReaderOptions& options) {
  // The one list of dialects. A tie (two blocks at the same byte) goes to
  // the reader listed first.
  // Not a dialect: clada's own report pasted back, in which no block starts.
  owned_.push_back(MakeCladaReportReader());
  owned_.push_back(MakeShamReader(options));
  owned_.push_back(MakeCmlReader());
  owned_.push_back(MakeCslReader(options));
  owned_.push_back(MakeReplacerReader());
  owned_.push_back(MakeSearchReplaceReader());
  owned_.push_back(MakeApplyPatchReader());
  owned_.push_back(MakeUdiffReader());
  for (const auto& r : owned_) view_.push_back(r.get());
}

const answer::Reader* Registry::Find(absl::string_view dialect) const {
  for (const answer::Reader* r : view_) {
    if (r->dialect() == dialect) return r;
  }
  return nullptr;
}

std::vector<std::string> Registry::Dialects() const {
  std::vector<std::string> out;
  for (const answer::Reader* r : view_) {
    if (r->yields_blocks()) out.emplace_back(r->dialect());
  }
  return out;
}

}  // namespace clada::readers
