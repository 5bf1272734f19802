#include "proj/comp/git-tx/src/internal/commit_message.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "proj/comp/core/src/terminal_text.h"

namespace clada::git_tx::internal {
namespace {

constexpr size_t kSubjectListBudget = 60;
// The message lists at most this many actions, and as many changed,
// planned or left-uncommitted paths each, and counts the others: a batch
// of a hundred thousand files would otherwise carry megabytes of message.
constexpr size_t kMaxListed = 1000;

// Which records changed one of `changed` (repo-relative, sorted): a path at
// or under their touched paths, or for an action that may change anything
// (exec), a path under no other record's touched paths. Linear in the
// records, the paths and their depth.
std::vector<bool> RecordsThatChanged(const std::vector<ActionRecord>& records,
                                     const std::vector<std::string>& changed,
                                     absl::string_view workdir) {
  std::vector<bool> out(records.size(), false);
  bool exec_changed = false;
  if (std::any_of(records.begin(), records.end(), [](const ActionRecord& r) { return r.touches_anything; })) {
    const PathPrefixes others = TouchedPrefixes(records, workdir, /*with_exec=*/false);
    for (const std::string& c : changed) {
      if (!others.Covers(c)) {
        exec_changed = true;
        break;
      }
    }
  }
  const absl::flat_hash_set<absl::string_view> changed_set(changed.begin(), changed.end());
  for (size_t i = 0; i < records.size(); ++i) {
    const ActionRecord& r = records[i];
    if (r.touches_anything) {
      out[i] = exec_changed;
      continue;
    }
    for (const std::string& t : RelTouched(r, workdir)) {
      if (t.empty()) {
        out[i] = !changed.empty();
      } else if (changed_set.contains(t)) {
        out[i] = true;
      } else {
        // A directory: the first changed path after "t/" in sorted order.
        const std::string dir = absl::StrCat(t, "/");
        auto it = std::lower_bound(changed.begin(), changed.end(), dir);
        out[i] = it != changed.end() && absl::StartsWith(*it, dir);
      }
      if (out[i]) break;
    }
  }
  return out;
}

// What an answer named (a path, a block ID, an explanation) as a message
// line shows it: `git log` prints messages raw, so a control character or
// a bidirectional override is written as a visible escape, and a newline
// cannot start a line of its own (core::EscapeForTerminal).
std::string Shown(absl::string_view text) { return core::EscapeForTerminal(text, core::TerminalForm::kOneLine); }

std::string Item(const ActionRecord& r, absl::string_view workdir) {
  std::string target = Shown(DisplayTarget(r.target, workdir));
  std::string verb = Shown(ActionVerb(r.action));
  return target.empty() ? verb : absl::StrCat(verb, " ", target);
}

}  // namespace

std::vector<std::string> RelTouched(const ActionRecord& r, absl::string_view workdir) {
  std::vector<std::string> out;
  const std::string prefix = absl::StrCat(workdir, "/");
  for (const std::string& t : r.touched_paths.get()) {
    if (t == workdir) {
      out.push_back("");
    } else if (absl::StartsWith(t, prefix)) {
      std::string rel = t.substr(prefix.size());
      while (!rel.empty() && rel.back() == '/') rel.pop_back();
      out.push_back(std::move(rel));
    }
  }
  return out;
}

PathPrefixes TouchedPrefixes(const std::vector<ActionRecord>& records, absl::string_view workdir, bool with_exec) {
  PathPrefixes out;
  for (const ActionRecord& r : records) {
    if (r.touches_anything && !with_exec) continue;
    for (std::string& t : RelTouched(r, workdir)) out.Add(std::move(t));
  }
  return out;
}

bool PathPrefixes::Covers(absl::string_view path) const {
  if (set_.contains("")) return true;
  for (size_t slash = path.find('/'); slash != absl::string_view::npos; slash = path.find('/', slash + 1)) {
    if (set_.contains(path.substr(0, slash))) return true;
  }
  return set_.contains(path);
}

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
  // The actions that changed a committed file, in batch order, each once.
  std::vector<std::string> sorted_changed = changed;
  std::sort(sorted_changed.begin(), sorted_changed.end());
  const std::vector<bool> changed_by = RecordsThatChanged(records, sorted_changed, workdir);
  absl::flat_hash_set<std::string> items;
  std::string list;
  size_t shown = 0;
  bool full = false;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!changed_by[i]) continue;
    std::string item = Item(records[i], workdir);
    if (!items.insert(item).second) continue;
    if (full || (shown > 0 && list.size() + 2 + item.size() > kSubjectListBudget)) {
      full = true;
      continue;
    }
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

// One bullet per path, the first kMaxListed, then one counting the others.
void AppendPaths(const std::vector<std::string>& paths, std::string* msg) {
  for (size_t i = 0; i < paths.size() && i < kMaxListed; ++i) {
    absl::StrAppend(msg, "- ", paths[i].empty() ? "." : Shown(paths[i]), "\n");
  }
  if (paths.size() > kMaxListed) absl::StrAppend(msg, "- and ", paths.size() - kMaxListed, " more files\n");
}

void AppendFiles(const std::vector<std::string>& changed, std::string* msg) {
  absl::StrAppend(msg, "\nChanged files:\n");
  AppendPaths(changed, msg);
}

void AppendForeign(const std::vector<std::string>& foreign, std::string* msg) {
  if (foreign.empty()) return;
  absl::StrAppend(msg,
                  "\nLeft uncommitted (changed meanwhile by someone else):\n");
  AppendPaths(foreign, msg);
}

}  // namespace

std::string BuildInterruptedMessage(const std::vector<std::string>& planned,
                                    const std::vector<std::string>& changed,
                                    const std::vector<std::string>& foreign) {
  std::string list;
  for (const std::string& path : changed) {
    const std::string c = Shown(path);
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
    AppendPaths(planned, &msg);
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
  size_t listed = 0, ok_after = 0, failed_after = 0;
  for (const ActionRecord& r : records) {
    if (listed == kMaxListed) {
      ++(r.success ? ok_after : failed_after);
      continue;
    }
    ++listed;
    std::string target = Shown(DisplayTarget(r.target, workdir));
    absl::StrAppend(&msg, "- ", r.success ? "ok" : "failed", " ", Shown(r.action),
                    target.empty() ? "" : " ", target);
    if (!r.block_id.empty()) absl::StrAppend(&msg, " (block ", Shown(r.block_id), ")");
    absl::StrAppend(&msg, "\n");
    // Its explanation, indented under it, one line of the body per line.
    for (absl::string_view line : absl::StrSplit(r.explanation.get(), '\n', absl::SkipWhitespace())) {
      absl::StrAppend(&msg, "  ", Shown(absl::StripTrailingAsciiWhitespace(line)), "\n");
    }
  }
  if (ok_after + failed_after > 0) {
    absl::StrAppend(&msg, "- and ", ok_after + failed_after, " more actions (", ok_after, " ok");
    if (failed_after > 0) absl::StrAppend(&msg, ", ", failed_after, " failed");
    absl::StrAppend(&msg, ")\n");
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
