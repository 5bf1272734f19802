#include "proj/comp/git-tx/src/internal/commit_message.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"

namespace clada::git_tx::internal {
namespace {

constexpr size_t kSubjectListBudget = 60;

// Repo-relative forms of `r`'s touched paths.
std::vector<std::string> RelTouched(const ActionRecord& r,
                                    absl::string_view workdir) {
  std::vector<std::string> out;
  for (const std::string& t : r.touched_paths.get()) {
    if (t == workdir) {
      out.push_back("");
    } else if (absl::StartsWith(t, absl::StrCat(workdir, "/"))) {
      std::string rel = t.substr(workdir.size() + 1);
      while (!rel.empty() && rel.back() == '/') rel.pop_back();
      out.push_back(rel);
    }
  }
  return out;
}

bool Under(const std::string& path, const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes) {
    if (p.empty() || path == p || absl::StartsWith(path, p + "/")) return true;
  }
  return false;
}

// Whether `r` changed one of `changed` (repo-relative): a path under its
// touched paths, or for an action that may change anything (exec), a path
// under no other record's touched paths.
bool ChangedFiles(const ActionRecord& r, const std::vector<ActionRecord>& all,
                  const std::vector<std::string>& changed,
                  absl::string_view workdir) {
  if (r.touches_anything) {
    std::vector<std::string> others;
    for (const ActionRecord& o : all) {
      if (o.touches_anything) continue;
      for (std::string& t : RelTouched(o, workdir)) others.push_back(std::move(t));
    }
    for (const std::string& c : changed) {
      if (!Under(c, others)) return true;
    }
    return false;
  }
  const std::vector<std::string> mine = RelTouched(r, workdir);
  for (const std::string& c : changed) {
    if (Under(c, mine)) return true;
  }
  return false;
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
                              absl::string_view workdir,
                              const std::vector<std::string>& changed) {
  // The actions that changed a committed file, in batch order.
  std::vector<std::string> items;
  for (const ActionRecord& r : records) {
    if (!ChangedFiles(r, records, changed, workdir)) continue;
    std::string item = Item(r, workdir);
    if (std::find(items.begin(), items.end(), item) == items.end())
      items.push_back(item);
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

namespace {

void AppendFiles(const std::vector<std::string>& changed, std::string* msg) {
  absl::StrAppend(msg, "\nChanged files:\n");
  for (const std::string& c : changed) absl::StrAppend(msg, "- ", c, "\n");
}

void AppendForeign(const std::vector<std::string>& foreign, std::string* msg) {
  if (foreign.empty()) return;
  absl::StrAppend(msg,
                  "\nLeft uncommitted (changed meanwhile by someone else):\n");
  for (const std::string& f : foreign) absl::StrAppend(msg, "- ", f, "\n");
}

}  // namespace

std::string BuildInterruptedMessage(const std::vector<std::string>& planned,
                                    const std::vector<std::string>& changed,
                                    const std::vector<std::string>& foreign) {
  std::string list;
  for (const std::string& c : changed) {
    if (!list.empty() && list.size() + 2 + c.size() > kSubjectListBudget) {
      list += ", ...";
      break;
    }
    absl::StrAppend(&list, list.empty() ? "" : ", ", c);
  }
  std::string msg = absl::StrCat(
      "AI: interrupted batch: ", list,
      "\n\nThe clada run of this batch was killed before it finished (its "
      "journal was found by the next run). What the batch changed by then is "
      "this commit; `clada undo` takes it back.\n");
  if (!planned.empty()) {
    absl::StrAppend(&msg, "\nIt was about to change:\n");
    for (const std::string& p : planned)
      absl::StrAppend(&msg, "- ", p.empty() ? "." : p, "\n");
  }
  AppendFiles(changed, &msg);
  AppendForeign(foreign, &msg);
  return msg;
}

std::string BuildBatchMessage(const std::vector<ActionRecord>& records,
                              const std::vector<std::string>& foreign,
                              absl::string_view workdir,
                              const std::vector<std::string>& changed) {
  std::string msg = absl::StrCat(BuildBatchSubject(records, workdir, changed),
                                 "\n\nActions:\n");
  for (const ActionRecord& r : records) {
    std::string target = DisplayTarget(r.target, workdir);
    absl::StrAppend(&msg, "- ", r.success ? "ok" : "failed", " ", r.action,
                    target.empty() ? "" : " ", target);
    if (!r.block_id.empty()) absl::StrAppend(&msg, " (block ", r.block_id, ")");
    absl::StrAppend(&msg, "\n");
    // Its explanation, indented under it, one line of the body per line.
    for (absl::string_view line : absl::StrSplit(r.explanation.get(), '\n', absl::SkipWhitespace())) {
      absl::StrAppend(&msg, "  ", absl::StripTrailingAsciiWhitespace(line), "\n");
    }
  }
  AppendFiles(changed, &msg);
  if (std::any_of(records.begin(), records.end(),
                  [](const ActionRecord& r) { return r.touches_anything; })) {
    absl::StrAppend(&msg,
                    "\nAn action may change any file (e.g. exec): every change "
                    "in the work tree is part of this commit.\n");
  }
  AppendForeign(foreign, &msg);
  return msg;
}

}  // namespace clada::git_tx::internal
