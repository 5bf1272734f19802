#include "proj/comp/git-tx/src/internal/commit_message.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace clada::git_tx::internal {
namespace {

constexpr size_t kSubjectListBudget = 60;

bool ChangesFiles(const ActionRecord& r) {
  return r.touches_anything || !r.touched_paths.empty();
}

std::string Item(const ActionRecord& r, absl::string_view workdir) {
  std::string target = DisplayTarget(r.target, workdir);
  std::string verb = ActionVerb(r.action);
  return target.empty() ? verb : absl::StrCat(verb, " ", target);
}

}  // namespace

std::string ActionVerb(absl::string_view action) {
  static const auto* const kVerbs =
      new absl::flat_hash_map<std::string, std::string>{
          {"file_write", "write"},
          {"file_append", "append"},
          {"file_replace_text", "edit"},
          {"file_replace_all_text", "edit"},
          {"files_replace_all_text", "edit"},
          {"file_delete", "delete"},
          {"file_move", "move"},
          {"dir_create", "mkdir"},
          {"dir_delete", "rmdir"},
      };
  auto it = kVerbs->find(std::string(action));
  return it == kVerbs->end() ? std::string(action) : it->second;
}

std::string DisplayTarget(absl::string_view target, absl::string_view workdir) {
  if (target == workdir) return ".";
  std::string prefix = absl::StrCat(workdir, "/");
  if (absl::StartsWith(target, prefix))
    return std::string(target.substr(prefix.size()));
  return std::string(target);
}

std::string BuildBatchSubject(const std::vector<ActionRecord>& records,
                              absl::string_view workdir) {
  // Successful changing actions first; if none, whatever changed files.
  std::vector<std::string> items;
  for (int pass = 0; pass < 2 && items.empty(); ++pass) {
    for (const ActionRecord& r : records) {
      if (!ChangesFiles(r) || (pass == 0 && !r.success)) continue;
      std::string item = Item(r, workdir);
      if (std::find(items.begin(), items.end(), item) == items.end())
        items.push_back(item);
    }
  }
  std::string list;
  size_t shown = 0;
  for (const std::string& item : items) {
    if (shown > 0 && list.size() + 2 + item.size() > kSubjectListBudget) break;
    absl::StrAppend(&list, shown > 0 ? ", " : "", item);
    ++shown;
  }
  if (shown < items.size())
    absl::StrAppend(&list, " and ", items.size() - shown, " more");
  if (list.empty()) list = "changes";
  const size_t ok =
      std::count_if(records.begin(), records.end(),
                    [](const ActionRecord& r) { return r.success; });
  const size_t failed = records.size() - ok;
  std::string counts = absl::StrCat(ok, " ok");
  if (failed > 0) absl::StrAppend(&counts, ", ", failed, " failed");
  return absl::StrCat("AI: ", list, " (", counts, ")");
}

std::string BuildBatchMessage(const std::vector<ActionRecord>& records,
                              const std::vector<std::string>& foreign,
                              absl::string_view workdir) {
  std::string msg =
      absl::StrCat(BuildBatchSubject(records, workdir), "\n\nActions:\n");
  for (const ActionRecord& r : records) {
    std::string target = DisplayTarget(r.target, workdir);
    absl::StrAppend(&msg, "- ", r.success ? "ok" : "failed", " ", r.action,
                    target.empty() ? "" : " ", target);
    if (!r.block_id.empty()) absl::StrAppend(&msg, " (block ", r.block_id, ")");
    absl::StrAppend(&msg, "\n");
  }
  if (std::any_of(records.begin(), records.end(),
                  [](const ActionRecord& r) { return r.touches_anything; })) {
    absl::StrAppend(&msg,
                    "\nAn action may change any file (e.g. exec): every change "
                    "in the work tree "
                    "is part of this commit.\n");
  }
  if (!foreign.empty()) {
    absl::StrAppend(
        &msg, "\nLeft uncommitted (changed meanwhile by someone else):\n");
    for (const std::string& f : foreign) absl::StrAppend(&msg, "- ", f, "\n");
  }
  return msg;
}

}  // namespace clada::git_tx::internal
