#include "proj/comp/patch-text/test/envelope_memory_apply.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proj/comp/hunk-apply/src/hunk_apply.h"

namespace clada::patch_text::testing {
namespace {

bool IsDirectory(const FileMap& files, const std::string& path) {
  const std::string prefix = path + "/";
  auto it = files.lower_bound(prefix);
  return it != files.end() && absl::StartsWith(it->first, prefix);
}

size_t LineCount(const std::string& s) {
  size_t n = std::count(s.begin(), s.end(), '\n');
  if (!s.empty() && s.back() != '\n') ++n;
  return n;
}

OpOutcome Fail(std::string message) { return {false, std::move(message), {}}; }

}  // namespace

OpOutcome ApplyFileOp(const FileOp& op, FileMap* files) {
  OpOutcome out;
  out.warnings = op.warnings();
  switch (op.kind) {
    case OpKind::kAdd: {
      if (IsDirectory(*files, op.path)) return Fail(absl::StrCat(op.path, " is a directory"));
      auto it = files->find(op.path);
      if (it != files->end()) {
        out.warnings.push_back(
            absl::StrCat("*** Add File: ", op.path, " replaced the existing file (", LineCount(it->second), " lines)"));
      }
      (*files)[op.path] = op.content();
      return out;
    }
    case OpKind::kDelete: {
      auto it = files->find(op.path);
      if (it == files->end()) {
        return Fail(IsDirectory(*files, op.path)
                        ? absl::StrCat(op.path, " is a directory; *** Delete File: deletes files")
                        : absl::StrCat("no file ", op.path, " to delete"));
      }
      files->erase(it);
      return out;
    }
    case OpKind::kUpdate: {
      auto it = files->find(op.path);
      if (it == files->end()) return Fail(absl::StrCat("no file ", op.path, " to update"));
      hunk_apply::ApplyError why;
      absl::StatusOr<hunk_apply::Applied> r = hunk_apply::ApplyHunks(it->second, op.hunks(), &why);
      if (!r.ok()) return Fail(absl::StrCat(op.path, ": ", r.status().message()));
      for (const std::string& w : r->warnings) out.warnings.push_back(absl::StrCat(op.path, ": ", w));
      if (op.move_to()) {
        if (IsDirectory(*files, *op.move_to())) {
          return Fail(absl::StrCat(*op.move_to(), " is a directory"));
        }
        auto dest = files->find(*op.move_to());
        if (dest != files->end()) {
          out.warnings.push_back(absl::StrCat("*** Move to: ", *op.move_to(), " replaced the existing file (",
                                              LineCount(dest->second), " lines)"));
        }
        files->erase(it);
        (*files)[*op.move_to()] = std::move(r->content);
      } else {
        it->second = std::move(r->content);
      }
      return out;
    }
  }
  return out;
}

}  // namespace clada::patch_text::testing
