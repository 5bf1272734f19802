#include "proj/comp/patch-text/test/diff_memory_apply.h"

#include "absl/strings/str_cat.h"

namespace clada::patch_text::testing {

Outcome ApplyToTree(const FilePatch& patch, FileMap* files) {
  Outcome o;
  auto it = files->find(patch.path);
  if (patch.copy_from) {
    // A copy: written from its source, where no file is; the source kept.
    auto src = files->find(*patch.copy_from);
    if (it != files->end() || src == files->end()) {
      o.error = absl::StrCat(it != files->end() ? patch.path : *patch.copy_from,
                             it != files->end() ? " already exists" : " does not exist");
      return o;
    }
    absl::StatusOr<Applied> r = ApplyFilePatch(src->second, patch);
    if (!r.ok()) {
      o.error = std::string(r.status().message());
      return o;
    }
    o.warnings = r->warnings;
    (*files)[patch.path] = r->content;
    o.ok = true;
    return o;
  }
  if (patch.kind == FileKind::kAdd) {
    if (it != files->end() && it->second.empty()) {
      o.error = absl::StrCat(patch.path, " already exists");
      return o;
    }
    // An existing file: ApplyFilePatch tells the diff's own result (already
    // applied) from other text (an error).
  } else if (it == files->end()) {
    o.error = absl::StrCat(patch.path, " does not exist");
    return o;
  }
  absl::StatusOr<Applied> r = ApplyFilePatch(it == files->end() ? "" : it->second, patch);
  if (!r.ok()) {
    o.error = std::string(r.status().message());
    return o;
  }
  o.warnings = r->warnings;
  o.already_applied = r->already_applied;
  if (patch.kind == FileKind::kDelete) {
    files->erase(patch.path);
  } else if (patch.move_to) {
    files->erase(patch.path);
    (*files)[*patch.move_to] = r->content;
  } else {
    (*files)[patch.path] = r->content;
  }
  o.ok = true;
  return o;
}

}  // namespace clada::patch_text::testing
