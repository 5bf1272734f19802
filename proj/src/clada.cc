#include "proj/src/clada.h"

#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/context/src/context.h"
#include "proj/comp/core/src/answer_lines.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/packed_actions.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/terms.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/fs-ops/src/file_store.h"
#include "proj/comp/fs-ops/src/fs_ops.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/readers/src/all_readers.h"
#include "proj/comp/sham-action-parser/src/commands.h"
#include "proj/src/report.h"

namespace clada {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Said plainly, because the AI commit may hold the user's own edits: with an
// exec in the batch, nothing tells a change the code made from one an editor
// saved while it ran.
std::string UnattributedChangesWarning(const git_tx::BatchCommitResult& committed, const std::string& root) {
  std::vector<std::string> shown;
  for (const std::string& path : committed.unattributed_changes) {
    shown.push_back(absl::StartsWith(path, root + "/") ? path.substr(root.size() + 1) : path);
  }
  const std::string id = committed.commit_id ? committed.commit_id->substr(0, 7) : "(none)";
  return absl::StrCat(
      "this batch ran exec, so changes made while it ran (an editor saving, say) cannot be told apart from "
      "the exec's own: ",
      shown.size(), " file(s) not written by clada's file actions were included in the AI commit ", id, ": ",
      absl::StrJoin(shown, ", "),
      ". An edit of yours among them is in that commit, not in a [clada:pre] snapshot, and `clada "
      "undo` would take it back with the batch (`git show ",
      id, "` shows it)");
}

// Why a real run would refuse one of a not-simulated action's paths
// (path_escape, path_denied: exec's cwd, context paths), or "" when every
// path parameter resolves inside the roots. fs-ops actions are simulated
// whole instead (DryRunAction).
std::string PathRefusal(absl::string_view action_name, const core::Json& params, const core::PathPolicy& paths,
                        std::string* code) {
  const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action_name);
  if (def == nullptr) return "";
  for (const sham_action_parser::ParameterDef& p : def->parameters) {
    if (p.format != "path" && p.format != "multiline_paths") continue;
    auto it = params.find(p.name);
    if (it == params.end() || !it->is_string()) continue;
    for (absl::string_view line : absl::StrSplit(it->get_ref<const std::string&>(), '\n')) {
      line = absl::StripAsciiWhitespace(line);
      if (line.empty()) continue;
      absl::StatusOr<std::string> resolved = core::ResolvePath(paths, line);
      if (!resolved.ok()) {
        *code = core::ErrorCode(resolved.status());
        return std::string(resolved.status().message());
      }
    }
  }
  return "";
}

// Why an action's own path parameters cannot be run, or "" when each is
// UTF-8 text: clada's journal, commit bodies, reports and JSON hold names
// as UTF-8, so a name that is not could be neither recorded nor undone (a
// CSL `<---WRITE file="a\xff.txt"--->` aborted every run in a repository).
// Checked here, for every dialect and MCP, before anything is planned or
// run; names already on disk (a directory walk) are not affected.
std::string NonUtf8PathRefusal(absl::string_view action_name, const core::Json& params) {
  const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action_name);
  if (def == nullptr) return "";
  for (const sham_action_parser::ParameterDef& p : def->parameters) {
    if (p.format != "path" && p.format != "multiline_paths") continue;
    auto it = params.find(p.name);
    if (it == params.end() || !it->is_string()) continue;
    size_t bad = 0;
    if (!core::IsValidUtf8(it->get_ref<const std::string&>(), &bad)) {
      return absl::StrCat("invalid_path: parameter '", p.name, "' is not valid UTF-8 (byte ", bad,
                          "); clada writes file names as UTF-8 text only: send the name in UTF-8");
    }
  }
  return "";
}

// What the batch's valid actions are about to write, move or delete (each
// path parameter of a `write` action, resolved; a path a real run refuses is
// left out, its action fails), and whether an exec runs: git-tx keeps the
// old bytes of untracked files there before anything changes them.
// One action's part of it.
void PlanAction(const core::Action& action, const core::PathPolicy& paths, git_tx::BatchPlan& plan) {
  {
    const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action.name);
    if (def == nullptr) return;
    if (def->executor == "exec") plan.has_exec = true;
    if (def->type != "write") return;
    if (!NonUtf8PathRefusal(action.name, action.params).empty()) return;  // refused when it runs
    for (const sham_action_parser::ParameterDef& p : def->parameters) {
      if (p.format != "path" && p.format != "multiline_paths") continue;
      auto it = action.params.find(p.name);
      if (it == action.params.end() || !it->is_string()) continue;
      for (absl::string_view line : absl::StrSplit(it->get_ref<const std::string&>(), '\n')) {
        line = absl::StripAsciiWhitespace(line);
        if (line.empty()) continue;
        absl::StatusOr<std::string> resolved = core::ResolvePath(paths, line);
        if (!resolved.ok()) continue;
        // Below the working root, kept relative to it (BatchPlan::paths).
        absl::string_view planned = *resolved;
        if (paths.working_root != "/" && core::IsWithin(planned, paths.working_root))
          planned.remove_prefix(std::min(planned.size(), paths.working_root.size() + 1));
        plan.paths.push_back(planned);
      }
    }
  }
}

// A dry run of one action: fs-ops actions run every check of a real run
// over `store` (the batch's earlier actions applied in memory, nothing
// written), so the verdict is the real run's; exec, context and git
// actions are not simulated and are shown as what would run.
void DryRunAction(const core::Action& action, const core::ExecContext& ctx, fs_ops::OverlayStore& store,
                  ActionResult* r) {
  if (std::string bad = NonUtf8PathRefusal(action.name, action.params); !bad.empty()) {
    r->success = false;
    r->code = "invalid_path";
    r->error = absl::StrCat(action.name, ": ", bad);
    r->data = core::Json{{"planned", true}};
    return;
  }
  const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action.name);
  if (def != nullptr && def->executor == "fs-ops") {
    core::ActionOutcome outcome = fs_ops::ExecuteFileOperation(action, ctx, store);
    r->success = outcome.success;
    if (!r->success) r->error = std::move(outcome.error);
    r->code = std::move(outcome.code);
    r->data = std::move(outcome.data);
    if (!r->data.is_object()) r->data = core::Json::object();
    r->data["planned"] = true;
    for (std::string& w : outcome.warnings) r->warnings.push_back(std::move(w));
    return;
  }
  std::string refusal = PathRefusal(action.name, action.params, ctx.paths, &r->code);
  r->success = refusal.empty();
  if (!r->success) r->error = absl::StrCat(action.name, ": ", refusal);
  r->data = core::Json{{"planned", true}, {"would_run", true}};
  if (r->success) {
    r->warnings.push_back(absl::StrCat("dry run: ", action.name,
                                       " is not simulated; a real run would run it, and actions after it would "
                                       "see what it changes"));
  }
}

// A reader's name ("sham", "cml", or ExecuteActions' caller's), in one
// byte: an answer of a million blocks holds a million items.
class Dialect {
 public:
  Dialect() = default;
  Dialect(absl::string_view name) : index_(IndexOf(name)) {}  // NOLINT: a name is a dialect
  Dialect(const char* name) : index_(IndexOf(name)) {}         // NOLINT
  operator absl::string_view() const { return Names()[index_]; }  // NOLINT
  explicit operator std::string() const { return Names()[index_]; }
  bool operator==(absl::string_view name) const { return absl::string_view(*this) == name; }
  bool operator!=(absl::string_view name) const { return !(*this == name); }

 private:
  // Every name seen, index 0 the empty one, kept for the program's life in
  // slots that never move (a name is read without the lock, by any thread
  // holding its index).
  static std::string* Names() {
    static auto* const names = new std::string[256];
    return names;
  }
  static uint8_t IndexOf(absl::string_view name) {
    static std::mutex mu;
    static size_t used = 1;
    std::lock_guard<std::mutex> lock(mu);
    std::string* names = Names();
    for (size_t i = 0; i < used; ++i) {
      if (names[i] == name) return static_cast<uint8_t>(i);
    }
    if (used == 256) return 0;  // never: clada has eight readers
    names[used] = std::string(name);
    return static_cast<uint8_t>(used++);
  }
  uint8_t index_ = 0;
};

// One thing the answer asks for, in document order: an action to run, or a
// refused member of a group (a task that could not be read: it fails its
// group where it stands).
// Small (28 bytes): an answer of a million blocks holds a million of them.
struct AnswerItem {
  // Where its action is in the answer's ActionStore (none when invalid).
  enum class Source : uint8_t { kNone, kWhole, kPacked };
  int32_t index = -1;
  int32_t group_key = 0;    // the same for every item of one group
  int32_t task_number = 0;  // the number its label ends in ("task-3"), naming it when it fails its group
  int32_t line = 0;
  // Not run, and why (its group's answer::Group::not_run: an atomic group
  // with a refused member): its entry in ActionStore::skip_reasons, shared
  // by the items of that group; -1 for none.
  int32_t skip_reason = -1;
  Source source = Source::kNone;
  Dialect dialect;
  bool fail_fast = false;  // a fail-fast or atomic group: its first failure stops the rest
  bool atomic = false;     // an atomic group: a refused member and none runs
  bool invalid = false;
};
static_assert(sizeof(AnswerItem) <= 28, "an answer of a million blocks holds a million items");

// The actions of an answer. ExecuteActions' as they were made (the vector
// moved in whole, never copied); an answer's packed as each span is read
// (core::PackedActions: 300,000 one-line CML tasks would otherwise hold
// 300,000 actions of a kilobyte each).
struct ActionStore {
  std::vector<core::Action> whole;
  core::PackedActions packed;
  std::vector<std::string> skip_reasons;

  // Packs `a` for `item`; a large one (a 50 MB file body) is moved in whole
  // instead, never copied.
  void Add(core::Action&& a, AnswerItem& item) {
    constexpr size_t kWholeBytes = 64 << 10;
    size_t bytes = 0;
    for (const auto& [key, value] : a.params.items()) {
      if (value.is_string()) bytes += value.get_ref<const std::string&>().size();
    }
    if (bytes >= kWholeBytes) {
      item.index = static_cast<int32_t>(whole.size());
      item.source = AnswerItem::Source::kWhole;
      whole.push_back(std::move(a));
      return;
    }
    item.index = static_cast<int32_t>(packed.Add(a));
    item.source = AnswerItem::Source::kPacked;
    a = core::Action();
  }
  // The action as it was read, when it was kept whole (null otherwise).
  core::Action* Whole(const AnswerItem& item) {
    return item.source == AnswerItem::Source::kWhole ? &whole[static_cast<size_t>(item.index)] : nullptr;
  }
  // The action of `item` (a copy when it was kept whole).
  absl::StatusOr<core::Action> Make(const AnswerItem& item) const {
    switch (item.source) {
      case AnswerItem::Source::kWhole:
        return whole[static_cast<size_t>(item.index)];
      case AnswerItem::Source::kPacked:
        return packed.Get(static_cast<size_t>(item.index));
      case AnswerItem::Source::kNone:
        break;
    }
    return absl::InternalError("the item has no action (it was invalid)");
  }
  // The schema's definition of its action (null for an unknown name or none).
  const sham_action_parser::ActionDefinition* Definition(const AnswerItem& item) const {
    switch (item.source) {
      case AnswerItem::Source::kWhole:
        return sham_action_parser::FindAction(whole[static_cast<size_t>(item.index)].name);
      case AnswerItem::Source::kPacked:
        return sham_action_parser::FindAction(packed.Name(static_cast<size_t>(item.index)));
      case AnswerItem::Source::kNone:
        break;
    }
    return nullptr;
  }
  const std::string* SkipReason(const AnswerItem& item) const {
    return item.skip_reason < 0 ? nullptr : &skip_reasons[static_cast<size_t>(item.skip_reason)];
  }
};

// `name` as a dialect (ExecuteActions' caller's).
Dialect DialectName(absl::string_view name) { return Dialect(name); }

// The policy of an item's group, as --json names it.
const char* GroupPolicy(const AnswerItem& item) {
  return item.atomic ? "atomic_validation" : item.fail_fast ? "fail_fast" : "independent";
}

// The reader of `dialect` (one registry for the answers' words), or null
// (MCP's and ExecuteActions' callers' names).
const answer::Reader* ReaderOf(absl::string_view dialect) {
  static const readers::Registry* const registry = new readers::Registry();
  return registry->Find(dialect);
}

// How a failure is named in "not run: ... failed", in its dialect's words
// (answer::Reader::FailedMemberName; `label`: the action's block id, empty
// for an invalid item).
std::string FailureName(const AnswerItem& item, absl::string_view label) {
  const answer::Reader* reader = ReaderOf(item.dialect);
  return reader != nullptr ? reader->FailedMemberName(label, item.task_number)
                           : absl::StrCat("task ", item.task_number);
}

struct ReadAnswerResult {
  ActionStore actions;
  std::vector<AnswerItem> items;
  std::vector<sham_action_parser::ActionParseError> errors;
  LeftOutSkipped left_out;
  std::vector<std::string> error_dialects;
  std::vector<int> error_groups;
  std::vector<std::string> warnings;
  int total_blocks = 0;
};

// How many refused blocks keep their errors whole: an answer of a million
// refused blocks would hold a million errors of about a kilobyte each,
// where a report that shows the first and the last of them needs only
// those.
struct ErrorKeeping {
  // 0: every error is kept. N: the errors of the first N and of the last N
  // refused blocks are kept whole; those of the blocks between are counted
  // into ReadAnswerResult::left_out, in input order.
  size_t keep_blocks = 0;
  // The lines and bytes one block's errors take in the caller's report, or
  // unset for none.
  std::function<std::pair<int64_t, int64_t>(const std::vector<sham_action_parser::ActionParseError>&)> measure;
  // Writes one left-out block's errors (of `dialect`) where the caller
  // keeps them, returning where (offset, size; size -1: not written), or
  // unset for none.
  std::function<std::pair<int64_t, int64_t>(const std::vector<sham_action_parser::ActionParseError>&,
                                            absl::string_view dialect)>
      spill;
};

// The number a label ends in ("task-3": 3), or 0: how a failed member of a
// group is named ("task 3").
int32_t LabelNumber(absl::string_view label) {
  size_t digits = label.size();
  while (digits > 0 && absl::ascii_isdigit(static_cast<unsigned char>(label[digits - 1]))) --digits;
  int32_t n = 0;
  if (digits == label.size() || label.size() - digits > 9 || !absl::SimpleAtoi(label.substr(digits), &n)) return 0;
  return n;
}

// The refused blocks of one span, as the report shows them.
struct RefusedBlock {
  std::vector<sham_action_parser::ActionParseError> errors;
  std::vector<int> groups;
  Dialect dialect;
};

// Every block of every dialect, in document order: the registry's readers'
// spans merged by the one segmenter (answer::SegmentAnswer), each accepted
// span read by its reader, and what it reads made into items (the actions
// packed as they come), refused blocks and warnings. Groups are numbered in
// document order across the whole answer.
ReadAnswerResult ReadAnswer(absl::string_view text, const readers::Registry& registry,
                            const ErrorKeeping& keeping = {}) {
  ReadAnswerResult out;
  const absl::Span<const answer::Reader* const> readers = registry.readers();
  std::vector<std::unique_ptr<answer::SpanReader>> readings(readers.size());
  std::vector<Dialect> dialects;
  dialects.reserve(readers.size());
  for (const answer::Reader* r : readers) dialects.emplace_back(r->dialect());
  int next_group = 0;
  // Refused blocks: the first keep_blocks kept, the last keep_blocks held
  // here until the end, those between counted (and spilled) as they pass.
  size_t head_blocks = 0;
  std::deque<RefusedBlock> tail;
  auto keep = [&out](RefusedBlock& b) {
    for (size_t i = 0; i < b.errors.size(); ++i) {
      out.errors.push_back(std::move(b.errors[i]));
      out.error_dialects.emplace_back(b.dialect);
      out.error_groups.push_back(b.groups[i]);
    }
  };
  auto leave_out = [&out, &keeping](const RefusedBlock& b) {
    ++out.left_out.blocks;
    if (keeping.measure) {
      const auto [lines, bytes] = keeping.measure(b.errors);
      out.left_out.section_lines += lines;
      out.left_out.section_bytes += bytes;
    }
    if (keeping.spill) out.left_out.spans.push_back(keeping.spill(b.errors, absl::string_view(b.dialect)));
  };

  // The layer's checks of quotes: an answer quoted as a whole is read
  // without its quote marks (`text` becomes that), a block quoted among
  // prose is named in a warning and not read.
  answer::CheckedAnswer checked;
  answer::SegmentCheckedAnswer(text, readers, &checked, [&](const answer::Segment& segment) {
    std::unique_ptr<answer::SpanReader>& reading = readings[segment.reader];
    if (reading == nullptr) reading = readers[segment.reader]->Reading(checked.text);
    answer::ReadResult r = reading->Read(segment.span);
    answer::NameSwallowed(segment, readers, &r);
    const Dialect dialect = dialects[segment.reader];
    out.total_blocks += r.blocks;

    // Groups numbered by their first line: the span's groups, then the
    // refusals that stand alone.
    constexpr int kNone = std::numeric_limits<int>::max();
    const size_t groups = r.groups.size();
    // Actions [0, held) are r.actions, those after r.packed.
    const size_t held = r.actions.size();
    auto line_of = [&r, held](size_t i) {
      return i < held ? r.actions[i].metadata.start_line : r.packed_lines[i - held];
    };
    std::vector<int> first_line(groups + r.diagnostics.size(), kNone);
    for (size_t g = 0; g < groups; ++g) {
      for (size_t i = r.groups[g].first; i < r.groups[g].first + r.groups[g].count; ++i) {
        first_line[g] = std::min(first_line[g], line_of(i));
      }
    }
    for (size_t d = 0; d < r.diagnostics.size(); ++d) {
      const answer::Diagnostic& diag = r.diagnostics[d];
      const size_t g = diag.group >= 0 && static_cast<size_t>(diag.group) < groups ? static_cast<size_t>(diag.group)
                                                                                   : groups + d;
      first_line[g] = std::min(first_line[g], diag.line);
    }
    std::vector<size_t> order;
    for (size_t g = 0; g < first_line.size(); ++g) {
      if (first_line[g] != kNone) order.push_back(g);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&first_line](size_t a, size_t b) { return first_line[a] < first_line[b]; });
    std::vector<int> number(first_line.size(), -1);
    for (size_t g : order) number[g] = next_group++;

    // The items: each action, and each refusal that stands in its group.
    const size_t items_before = out.items.size();
    const size_t packed_base = r.packed.empty() ? 0 : out.actions.packed.Append(std::move(r.packed));
    for (size_t g = 0; g < groups; ++g) {
      const answer::Group& group = r.groups[g];
      AnswerItem shared;
      shared.dialect = dialect;
      shared.group_key = number[g];
      shared.fail_fast = group.policy != answer::GroupPolicy::kIndependent;
      shared.atomic = group.policy == answer::GroupPolicy::kAtomic;
      if (!group.not_run.empty()) {
        shared.skip_reason = static_cast<int32_t>(out.actions.skip_reasons.size());
        out.actions.skip_reasons.push_back(group.not_run);
      }
      for (size_t i = group.first; i < group.first + group.count; ++i) {
        AnswerItem& item = out.items.emplace_back(shared);
        item.line = line_of(i);
        if (i < held) {
          item.task_number = LabelNumber(r.actions[i].metadata.block_id);
          out.actions.Add(std::move(r.actions[i]), item);
          continue;
        }
        item.index = static_cast<int32_t>(packed_base + (i - held));
        item.source = AnswerItem::Source::kPacked;
        // Its number names it only when it fails a fail-fast group.
        if (shared.fail_fast) {
          item.task_number =
              LabelNumber(out.actions.packed.Get(static_cast<size_t>(item.index)).metadata.block_id);
        }
      }
    }
    for (size_t d = 0; d < r.diagnostics.size(); ++d) {
      const answer::Diagnostic& diag = r.diagnostics[d];
      if (!diag.member) continue;
      const bool in_group = diag.group >= 0 && static_cast<size_t>(diag.group) < groups;
      AnswerItem& item = out.items.emplace_back();
      item.dialect = dialect;
      item.invalid = true;
      item.line = diag.line;
      item.task_number = LabelNumber(diag.label);
      item.group_key = number[in_group ? static_cast<size_t>(diag.group) : groups + d];
      if (in_group) {
        item.fail_fast = r.groups[diag.group].policy != answer::GroupPolicy::kIndependent;
        item.atomic = r.groups[diag.group].policy == answer::GroupPolicy::kAtomic;
      }
    }
    std::vector<core::Action>().swap(r.actions);
    std::vector<int32_t>().swap(r.packed_lines);
    const auto by_line = [](const AnswerItem& a, const AnswerItem& b) { return a.line < b.line; };
    if (!std::is_sorted(out.items.begin() + static_cast<std::ptrdiff_t>(items_before), out.items.end(), by_line)) {
      std::stable_sort(out.items.begin() + static_cast<std::ptrdiff_t>(items_before), out.items.end(), by_line);
    }

    // The refused blocks, in line order.
    if (!r.diagnostics.empty()) {
      RefusedBlock refused;
      refused.dialect = dialect;
      std::vector<size_t> by_start(r.diagnostics.size());
      for (size_t d = 0; d < by_start.size(); ++d) by_start[d] = d;
      std::stable_sort(by_start.begin(), by_start.end(),
                       [&r](size_t a, size_t b) { return r.diagnostics[a].line < r.diagnostics[b].line; });
      for (size_t d : by_start) {
        answer::Diagnostic& diag = r.diagnostics[d];
        const bool in_group = diag.group >= 0 && static_cast<size_t>(diag.group) < groups;
        refused.groups.push_back(number[in_group ? static_cast<size_t>(diag.group) : groups + d]);
        sham_action_parser::ActionParseError& e = refused.errors.emplace_back();
        e.block_id = std::move(diag.label);
        e.action = std::move(diag.action);
        e.error_type = std::move(diag.code);
        e.message = std::move(diag.message);
        e.block_start_line = diag.line;
        e.block_content = std::move(diag.content);
        e.fix = std::move(diag.fix);
      }
      if (keeping.keep_blocks == 0 || head_blocks < keeping.keep_blocks) {
        ++head_blocks;
        keep(refused);
        out.left_out.after = out.errors.size();
      } else {
        tail.push_back(std::move(refused));
        if (tail.size() > keeping.keep_blocks) {
          leave_out(tail.front());
          tail.pop_front();
        }
      }
    }
    for (std::string& w : r.warnings) out.warnings.push_back(std::move(w));
  });
  for (std::string& w : checked.warnings) out.warnings.push_back(std::move(w));
  for (RefusedBlock& b : tail) keep(b);
  if (out.left_out.blocks == 0) out.left_out.after = 0;
  for (std::unique_ptr<answer::SpanReader>& reading : readings) {
    if (reading == nullptr) continue;
    for (std::string& w : reading->Finish()) out.warnings.push_back(std::move(w));
  }
  return out;
}

// A file_delete with EditOptions::delete_directories (CML's <remove>)
// deletes a directory with everything in it; the reader cannot know which
// the path is, so it is decided here, just before the action runs, on the
// view the action would see.
void ResolveDeleteDirectories(core::Action& action, const core::PathPolicy& paths, const fs_ops::FileStore& store) {
  if (!action.edit_options.delete_directories || action.name != "file_delete" || !action.params.contains("path") ||
      !action.params["path"].is_string()) {
    return;
  }
  absl::StatusOr<std::string> resolved = core::ResolvePath(paths, action.params["path"].get<std::string>());
  if (!resolved.ok()) return;  // the action reports it
  struct stat st;
  if (store.Lstat(*resolved, &st) != 0 || !S_ISDIR(st.st_mode)) return;
  action.name = "dir_delete";
  action.params["recursive"] = true;
}

// A failed action's error as every report shows it, phrased in this one
// place for a run, a dry run and MCP: in the words of `words` (the
// dialect's, PhraseFixIn), led by its error type where the dialect has
// them (answer::Reader::ErrorType: the seeds' CML and CSL forms,
// search_not_found, ...); a dry run's ends in its note that a real run
// would refuse the action.
void PhraseFailure(ActionResult& r, absl::string_view words, bool dry_run) {
  if (r.success) return;
  PhraseFixIn(r, words);
  if (dry_run) r.error += " (a real run would refuse this action)";
  const answer::Reader* reader = ReaderOf(words);
  if (reader == nullptr) return;
  std::optional<std::string> type = reader->ErrorType(r.action, r.code, r.data);
  if (!type.has_value()) return;
  r.error_type = std::move(*type);
  if (!absl::StartsWith(r.error, absl::StrCat(r.error_type, ": "))) r.error = absl::StrCat(r.error_type, ": ", r.error);
}

// The canonical path of the lock_file setting (--lock-file): relative to
// the working root, its directory resolved through symlinks (the file may
// not exist yet); "" when the setting is none.
std::string LockFilePath(const Settings& settings, const core::PathPolicy& paths) {
  if (settings.lock_file.empty()) return "";
  const std::string& setting = settings.lock_file;
  const std::string full = core::NormalizeAbsolutePath(
      setting[0] == '/' ? setting : absl::StrCat(paths.working_root, "/", setting));
  const size_t slash = full.rfind('/');
  const std::string dir = slash == 0 ? "/" : full.substr(0, slash);
  char buf[PATH_MAX];
  if (::realpath(dir.c_str(), buf) == nullptr) return full;
  return absl::StrCat(std::string(buf) == "/" ? "" : buf, full.substr(slash));
}

// The files no action may touch: the caller's (the listened file and its
// report) and the lock file, which an action that deleted it would open to
// a second run.
std::vector<std::string> ProtectedFiles(const CladaOptions& options, const core::PathPolicy& paths) {
  std::vector<std::string> files = options.protected_files;
  std::string lock_file = LockFilePath(options.settings, paths);
  if (!lock_file.empty()) files.push_back(std::move(lock_file));
  return files;
}

ExecutionResult FatalResult(ExecutionResult result, std::string message, absl::string_view code) {
  result.success = false;
  result.fatal_error = std::move(message);
  result.fatal_code = std::string(code);
  return result;
}
ExecutionResult FatalResult(ExecutionResult result, const absl::Status& status) {
  return FatalResult(std::move(result), std::string(status.message()), core::ErrorCode(status));
}

}  // namespace

int RunValidateAnswer(absl::string_view input, bool json, std::ostream& out, size_t max_input_bytes,
                      absl::string_view csl_start, absl::string_view csl_end) {
  // The plan a dry run makes, every dialect alike, without touching a file.
  const readers::Registry registry({std::string(csl_start), std::string(csl_end), max_input_bytes});
  ReadAnswerResult r = ReadAnswer(input, registry);
  // In a fail-fast group, the tasks after an invalid one would not run.
  std::map<int, int> invalid_in_group;
  std::vector<std::pair<const AnswerItem*, std::string>> listed;  // item, why it would not run
  int would_run = 0;
  for (const AnswerItem& item : r.items) {
    if (item.invalid) {
      if (item.fail_fast) invalid_in_group.emplace(item.group_key, item.task_number);
      continue;
    }
    auto it = item.fail_fast ? invalid_in_group.find(item.group_key) : invalid_in_group.end();
    const std::string* skip = r.actions.SkipReason(item);
    std::string why = skip != nullptr                 ? *skip
                      : it == invalid_in_group.end() ? ""
                                                     : absl::StrCat("not run: task ", it->second,
                                                                    " is invalid and its <tasks> block stops there");
    if (why.empty()) ++would_run;
    listed.emplace_back(&item, std::move(why));
  }
  if (json) {
    core::Json doc = core::Json::object();
    doc["summary"] = {{"totalBlocks", r.total_blocks},
                      {"successCount", would_run},
                      {"errorCount", r.errors.size()}};
    doc["actions"] = core::Json::array();
    for (const auto& [item, why] : listed) {
      const core::Action action = r.actions.Make(*item).value_or(core::Action());
      core::Json a = sham_action_parser::ActionToJson(action);
      a["dialect"] = absl::string_view(item->dialect);
      a["label"] = action.metadata.block_id;
      a["groupPolicy"] = GroupPolicy(*item);
      if (!why.empty()) a["notRun"] = why;
      doc["actions"].push_back(std::move(a));
    }
    doc["errors"] = core::Json::array();
    for (size_t i = 0; i < r.errors.size(); ++i) {
      core::Json e = sham_action_parser::ActionParseErrorToJson(r.errors[i]);
      e["dialect"] = r.error_dialects[i];
      e["label"] = r.errors[i].block_id;
      doc["errors"].push_back(std::move(e));
    }
    doc["warnings"] = r.warnings;
    out << doc.dump(2, ' ', false, core::Json::error_handler_t::replace) << "\n";
  } else {
    out << r.total_blocks << (r.total_blocks == 1 ? " block: " : " blocks: ") << would_run << " would run, "
        << r.errors.size() << (r.errors.size() == 1 ? " error" : " errors") << "\n";
    if (!listed.empty()) {
      out << "\nwould run:\n";
      for (const auto& [item, why] : listed) {
        const core::Action action = r.actions.Make(*item).value_or(core::Action());
        const std::string value = sham_action_parser::SummaryValue(action);
        out << "  " << core::ToValidUtf8(action.metadata.block_id) << " " << action.name << (value.empty() ? "" : " ")
            << value << "\n";
        if (!why.empty()) out << "      " << core::ToValidUtf8(why) << "\n";
        for (const std::string& w : action.warnings) out << "      warning: " << core::ToValidUtf8(w) << "\n";
      }
    }
    if (!r.errors.empty()) {
      out << "\nerrors:\n";
      for (const auto& e : r.errors) {
        // CML messages already lead with their type (malformed_xml: ...).
        const bool typed = absl::StartsWith(e.message, absl::StrCat(e.error_type, ": "));
        out << "  " << (e.block_id.empty() ? "(no id)" : core::ToValidUtf8(e.block_id)) << " line "
            << e.block_start_line << " " << (typed ? "" : absl::StrCat(e.error_type, ": "))
            << core::ToValidUtf8(e.message) << "\n";
        out << "      fix: " << core::ToValidUtf8(e.fix) << "\n";
      }
    }
    if (!r.warnings.empty()) {
      out << "\nwarnings:\n";
      for (const std::string& w : r.warnings) out << "  " << core::ToValidUtf8(w) << "\n";
    }
  }
  return r.errors.empty() ? 0 : 1;
}

void PhraseFixIn(ActionResult& r, absl::string_view dialect) {
  const answer::Reader* reader = ReaderOf(dialect);
  // The schema's words the executor's message names (core::Term), in the
  // dialect's own; bare without a reader.
  r.error = core::RenderTerms(r.error, [&](absl::string_view name, absl::string_view value) {
    return reader == nullptr ? std::optional<std::string>() : reader->SayTerm(name, value);
  });
  if (reader == nullptr) return;
  if (std::optional<std::string> fix = reader->PhraseFix(r.code, r.action)) {
    absl::StrAppend(&r.error, absl::EndsWith(r.error, ".") ? " " : ". ", *fix);
  }
}

std::string PrimaryParamValue(absl::string_view action_name, const core::Json& params) {
  const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action_name);
  if (def == nullptr || def->primary_param.empty()) return "";
  auto it = params.find(def->primary_param);
  if (it == params.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

git_tx::GitOptions MakeGitOptions(const Settings& settings) {
  git_tx::GitOptions options;
  options.mode = settings.git;
  std::string author = settings.git_author;
  size_t lt = author.find('<');
  size_t gt = author.rfind('>');
  if (lt != std::string::npos && gt != std::string::npos && gt > lt) {
    options.author_email = author.substr(lt + 1, gt - lt - 1);
    author = author.substr(0, lt);
    while (!author.empty() && author.back() == ' ') author.pop_back();
  }
  options.author_name = author;
  options.lock_timeout = absl::Milliseconds(settings.lock_timeout_ms);
  return options;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ExecutorActionNames() {
  return {{"fs-ops", fs_ops::FsOpsActionNames()},
          {"exec", exec::ExecActionNames()},
          {"context", context::ContextActionNames()},
          {"git-tx", git_tx::GitActionNames()}};
}

core::ActionOutcome DispatchAction(const core::Action& action, const core::ExecContext& ctx) {
  const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action.name);
  if (def == nullptr) return core::ActionOutcome::Failure("unknown_action", absl::StrCat("Unknown action: ", action.name));
  if (std::string bad = NonUtf8PathRefusal(action.name, action.params); !bad.empty()) {
    return core::ActionOutcome::Failure("invalid_path", absl::StrCat(action.name, ": ", bad));
  }
  if (def->executor == "fs-ops") return fs_ops::ExecuteFileOperation(action, ctx);
  if (def->executor == "exec") return exec::ExecuteCode(action, ctx);
  if (def->executor == "context") return context::ExecuteContextAction(action, ctx);
  if (def->executor == "git-tx") return git_tx::ExecuteGitAction(action, ctx);
  return core::ActionOutcome::Failure(
      "internal", absl::StrCat("internal: the schema names executor '", def->executor, "' for ", action.name,
                   ", which clada does not have"));
}

absl::StatusOr<core::PathPolicy> MakeRunPathPolicy(const std::string& working_root, const Settings& settings) {
  std::vector<std::string> allow = settings.allow;
  if (settings.allow_escape) allow.push_back("/");  // the deny list still holds
  return core::MakePathPolicy(working_root, allow);
}

absl::StatusOr<core::ExecContext> MakeExecContext(const std::string& working_root, const Settings& settings,
                                                  const core::PathPolicy* policy) {
  core::ExecContext ctx;
  if (policy != nullptr) {
    ctx.paths = *policy;
  } else {
    absl::StatusOr<core::PathPolicy> made = MakeRunPathPolicy(working_root, settings);
    if (!made.ok()) return made.status();
    ctx.paths = *std::move(made);
  }
  ctx.limits.max_file_bytes = settings.max_file_bytes;
  ctx.limits.max_output_bytes = settings.max_output_bytes;
  ctx.limits.timeout_ms = settings.timeout_ms;
  ctx.exec_policy = settings.exec;
  ctx.sandbox = settings.sandbox;
  ctx.exec_network = settings.exec_network;
  auto exec_source = settings.source.find("exec");
  exec::ApplySandboxFallback(&ctx, exec_source == settings.source.end() || exec_source->second == "default");
  ctx.quiet = settings.quiet || settings.output_mode == "silent";
  ctx.buffer_echo = settings.output_mode == "buffer";
  exec::LoadApprovedCode(&ctx);  // once per run: an action cannot approve code for a later one
  return ctx;
}

Clada::Clada(CladaOptions options) : options_(std::move(options)) {}

namespace {

// The budget of the report whose results and refused blocks a batch
// keeps (the others counted): the text report's; with full_outputs, the
// listener's output file's (full_report_budget_bytes); 0, every one, for
// --json, which spills them to a file.
int64_t KeptReportBudget(const CladaOptions& options) {
  if (!options.full_outputs) return options.settings.report_budget_bytes;
  return options.spill_results ? 0 : options.full_report_budget_bytes;
}

// Runs the items of one batch, in order, under the run lock and a git
// transaction (a real run with something to run): what Execute and
// ExecuteActions share once the answer is read. `actions` holds what the
// items point to.
// The files the batch's line-addressed actions (a parameter of format
// line_range in the schema) name, watched in `lines`; `lines`, or null when
// the batch has no such action (then no edit is recorded).
core::AnswerLines* WatchLineAddressedFiles(const std::vector<AnswerItem>& items, const ActionStore& actions,
                                           const core::PathPolicy& paths, core::AnswerLines& lines) {
  bool any = false;
  for (const AnswerItem& item : items) {
    const sham_action_parser::ActionDefinition* def = actions.Definition(item);
    if (def == nullptr) continue;
    bool line_addressed = false;
    for (const sham_action_parser::ParameterDef& p : def->parameters) line_addressed |= p.format == "line_range";
    if (!line_addressed) continue;
    absl::StatusOr<core::Action> action = actions.Make(item);
    if (!action.ok()) continue;
    any = true;
    for (const sham_action_parser::ParameterDef& p : def->parameters) {
      if (p.format != "path") continue;
      auto it = action->params.find(p.name);
      if (it == action->params.end() || !it->is_string()) continue;
      absl::StatusOr<std::string> resolved = core::ResolvePath(paths, it->get_ref<const std::string&>());
      if (resolved.ok()) lines.Watch(*resolved);
    }
  }
  if (any) lines.Watch("");  // none of the named paths resolved: still keep only those
  return any ? &lines : nullptr;
}

// `words`: the dialect whose words phrase every failure; empty: each
// item's own.
ExecutionResult RunItems(const CladaOptions& options, Clock::time_point start, ExecutionResult result,
                         std::vector<AnswerItem> items, ActionStore actions, const core::ExecContext& ctx,
                         absl::string_view words = "") {
  const Settings& settings = options.settings;
  std::vector<const AnswerItem*> runnable;
  runnable.reserve(items.size());
  for (const AnswerItem& item : items) {
    if (!item.invalid) runnable.push_back(&item);
  }
  // The schema's definition of an item's action (null for an unknown name).
  auto definition_of = [&actions](const AnswerItem& item) { return actions.Definition(item); };
  // A text report (in every form) shows the head and tail of a batch of
  // many thousands of actions: only those results are kept, the middle is
  // counted.
  ResultKeeper kept(KeptReportBudget(options));
  kept.NoteParseErrorGroups(result.parse_error_groups);
  if (options.full_outputs && options.spill_results) {
    // An unnamed file (gone when closed); without one, the results are kept.
    std::shared_ptr<std::FILE> spill(std::tmpfile(), [](std::FILE* f) {
      if (f != nullptr) std::fclose(f);
    });
    if (spill != nullptr) kept.SpillTo(std::move(spill));
  }

  // Git and the lock wrap only real runs; a dry run touches nothing.
  std::optional<git_tx::RunLock> lock, file_lock;
  std::unique_ptr<git_tx::BatchTransaction> tx;
  if (!options.dry_run && !runnable.empty()) {
    const std::string lock_file = LockFilePath(settings, ctx.paths);
    if (!lock_file.empty()) {
      absl::StatusOr<git_tx::RunLock> held =
          git_tx::RunLock::AcquireFile(lock_file, absl::Milliseconds(settings.lock_timeout_ms));
      if (!held.ok()) return FatalResult(std::move(result), held.status());
      file_lock.emplace(*std::move(held));
    }
    const absl::Duration timeout = absl::Milliseconds(settings.lock_timeout_ms);
    absl::StatusOr<git_tx::RunLock> acquired =
        options.run_lock != nullptr && options.run_lock->working_root() == ctx.paths.working_root
            ? options.run_lock->Acquire(timeout)
            : git_tx::RunLock::Acquire(ctx.paths.working_root, timeout);
    if (!acquired.ok()) return FatalResult(std::move(result), acquired.status());
    lock.emplace(*std::move(acquired));
    // Only writes and exec matter to the plan: a packed action is made for
    // it only when it is one of those.
    git_tx::BatchPlan plan;
    for (const AnswerItem* item : runnable) {
      if (const core::Action* whole = actions.Whole(*item)) {
        PlanAction(*whole, ctx.paths, plan);
        continue;
      }
      const sham_action_parser::ActionDefinition* def = definition_of(*item);
      if (def == nullptr || (def->type != "write" && def->executor != "exec")) continue;
      absl::StatusOr<core::Action> made = actions.Make(*item);
      if (made.ok()) PlanAction(*made, ctx.paths, plan);
    }
    const bool reads_only = plan.paths.empty() && !plan.has_exec;  // BeginBatch's read-only batch
    if (!(reads_only && options.read_only_skips_git)) {
      absl::StatusOr<std::unique_ptr<git_tx::BatchTransaction>> begun =
          git_tx::BeginBatch(ctx.paths.working_root, MakeGitOptions(settings), std::move(plan));
      if (!begun.ok()) {
        return FatalResult(std::move(result), absl::StrCat("git_operation_failed: ", begun.status().message()),
                           "git_operation_failed");
      }
      tx = *std::move(begun);
      result.git.active = tx->active();
      result.git.snapshot_commit = tx->snapshot_commit();
      result.git.notes = tx->notes();
    }
  }

  // Outputs are cut to what will be reported as each action finishes, so
  // memory holds the budget, not every output (issue: 200 reads of one
  // 4.5 MB file once held 900 MB).
  int outputs = 0, writes = 0;
  for (const AnswerItem* item : runnable) {
    const sham_action_parser::ActionDefinition* def = definition_of(*item);
    const core::Action* whole = actions.Whole(*item);
    const absl::string_view name = def != nullptr ? absl::string_view(def->name)
                                   : whole != nullptr ? absl::string_view(whole->name)
                                                      : absl::string_view();
    if (ShowsChange(name)) {
      ++writes;
    } else if (ProducesOutput(name)) {
      ++outputs;
    }
  }
  const int64_t kept_total = options.full_outputs ? 2 * settings.max_output_bytes
                                                   : settings.report_budget_bytes * 3 / 4;
  OutputBudget budget(kept_total, std::min(settings.max_output_bytes, kept_total), outputs, writes);
  // Parameters beyond the primary one (a file body, code) are shown only
  // by --json; the text report names each action by its primary value.
  auto keep_params = [&options](ActionResult& r) {
    if (options.full_outputs) return;
    const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(r.action);
    if (def == nullptr || def->primary_param.empty() || !r.params.is_object()) return;
    auto it = r.params.find(def->primary_param);
    core::Json kept = core::Json::object();
    if (it != r.params.end()) kept[def->primary_param] = std::move(*it);
    // A dialect's report may name an action by one more (its first line:
    // CSL's names a RUN by its command).
    const answer::Reader* reader = ReaderOf(r.dialect);
    const std::string naming(reader != nullptr ? reader->NamingParam() : "");
    auto named = naming.empty() ? r.params.end() : r.params.find(naming);
    if (named != r.params.end() && named->is_string()) {
      const std::string& text = named->get_ref<const std::string&>();
      kept[naming] = text.substr(0, std::min<size_t>(text.find('\n'), 200));
    }
    r.params = std::move(kept);
  };
  const absl::Time deadline = settings.total_timeout_ms > 0
                                  ? absl::Now() - absl::Milliseconds(MillisSince(start)) +
                                        absl::Milliseconds(settings.total_timeout_ms)
                                  : absl::InfiniteFuture();

  std::vector<git_tx::ActionRecord> records;
  // One per item: grown by doubling, a batch of 300,000 held twice that
  // while it moved.
  if (tx != nullptr && tx->active()) records.reserve(items.size());
  // A dry run's view of the files: earlier actions' changes, in memory.
  fs_ops::OverlayStore dry_store(fs_ops::DiskStore::Get());
  // The lines each edit of the batch changed: a line-addressed edit numbers
  // the lines of the file as the model read it (core::AnswerLines), in a
  // run and a dry run alike. Kept only when the batch has a line-addressed
  // action, and only for the files those name.
  core::AnswerLines answer_lines;
  core::AnswerLines* const lines_record = options.answer_lines != nullptr
                                              ? options.answer_lines
                                              : WatchLineAddressedFiles(items, actions, ctx.paths, answer_lines);
  int seq = 0;
  std::map<int, std::string> failed_group;  // fail_fast group key -> the task that failed ("task 3", "task-2.1")
  for (AnswerItem& item : items) {
    const int group = item.group_key;  // numbered in document order by ReadAnswer
    if (item.invalid) {
      // Reported with the parse errors; it stops the rest of its block.
      if (item.fail_fast) failed_group.emplace(item.group_key, FailureName(item, ""));
      continue;
    }
    // A packed action becomes its action now, for as long as it runs.
    core::Action made;
    core::Action* const whole = actions.Whole(item);
    if (whole == nullptr) {
      absl::StatusOr<core::Action> read = actions.Make(item);
      if (!read.ok()) {
        ActionResult r;
        r.seq = ++seq;
        r.start_line = r.end_line = item.line;
        r.dialect = std::string(item.dialect);
        r.group = group;
        r.error = absl::StrCat("internal_error: ", read.status().message());
        r.code = "internal";
        kept.Add(std::move(r));
        continue;
      }
      made = *std::move(read);
    }
    core::Action& action = whole != nullptr ? *whole : made;
    ActionResult r;
    r.seq = ++seq;
    r.block_id = action.metadata.block_id;
    r.action = action.name;
    r.start_line = action.metadata.start_line;
    r.end_line = action.metadata.end_line;
    r.warnings = std::move(action.warnings);
    r.explanation = action.metadata.explanation;
    r.dialect = std::string(item.dialect);
    r.group = group;
    r.group_policy = GroupPolicy(item);
    if (const std::string* skip = actions.SkipReason(item)) {
      r.params = std::move(action.params);
      r.error = *skip;
      r.code = "not_run";
      r.data = core::Json{{"not_run", true}};
      keep_params(r);
      kept.Add(std::move(r));
      continue;
    }
    if (item.fail_fast) {
      auto failed = failed_group.find(item.group_key);
      if (failed != failed_group.end()) {
        r.params = std::move(action.params);
        r.code = "not_run";
        r.error = absl::StrCat("not run: ", failed->second, " failed (",
                               item.atomic ? "a TASKS block" : "a <tasks> block", " stops at its first failure)");
        r.data = core::Json{{"not_run", true}};
        keep_params(r);
        kept.Add(std::move(r));
        continue;
      }
    }
    if (action.edit_options.delete_directories) {
      ResolveDeleteDirectories(
          action, ctx.paths,
          options.dry_run ? static_cast<const fs_ops::FileStore&>(dry_store) : fs_ops::DiskStore::Get());
      r.action = action.name;
    }
    if (options.dry_run) {
      core::ExecContext dry_ctx = ctx;
      dry_ctx.answer_lines = lines_record;
      dry_ctx.limits.deadline = deadline;
      DryRunAction(action, dry_ctx, dry_store, &r);
      if (!r.success && item.fail_fast) failed_group.emplace(item.group_key, FailureName(item, r.block_id));
      PhraseFailure(r, words.empty() ? absl::string_view(item.dialect) : words, /*dry_run=*/true);
      r.params = std::move(action.params);
      budget.Fit(r);
      keep_params(r);
      kept.Add(std::move(r));
      continue;
    }
    core::ExecContext action_ctx = ctx;
    action_ctx.answer_lines = lines_record;
    double elapsed = MillisSince(start);
    if (settings.total_timeout_ms > 0) {
      int64_t left = settings.total_timeout_ms - static_cast<int64_t>(elapsed);
      if (left <= 0) {
        r.params = std::move(action.params);
        r.code = "total_timeout";
        r.error = absl::StrCat("total_timeout: not run; the batch passed its total timeout of ",
                               SettingValueText(settings, "total_timeout"),
                               " before this action. Send it again in the next answer");
        keep_params(r);
        kept.Add(std::move(r));
        continue;
      }
      // Every action stops by the batch's deadline; exec's own timeout is
      // at most what is left of it.
      action_ctx.limits.timeout_ms = std::min(action_ctx.limits.timeout_ms, left);
      action_ctx.limits.deadline = deadline;
    }
    std::string target = PrimaryParamValue(action.name, action.params);
    core::ActionOutcome outcome = DispatchAction(action, action_ctx);
    ++result.executed_actions;
    // Moved, not copied: a parameter can be a 50 MB file body.
    r.params = std::move(action.params);
    r.success = outcome.success;
    if (!r.success && item.fail_fast) failed_group.emplace(item.group_key, FailureName(item, r.block_id));
    r.error = std::move(outcome.error);
    r.code = std::move(outcome.code);
    r.data = std::move(outcome.data);
    PhraseFailure(r, words.empty() ? absl::string_view(item.dialect) : words, /*dry_run=*/false);
    for (std::string& w : outcome.warnings) r.warnings.push_back(std::move(w));

    if (tx != nullptr && tx->active()) {  // what the AI commit says and holds
      git_tx::ActionRecord record;
      record.block_id = r.block_id;
      record.action = r.action;
      record.target = std::move(target);
      record.success = r.success;
      if (!r.explanation.empty()) record.explanation.mut() = r.explanation;
      if (!outcome.touched_paths.empty()) record.touched_paths.mut() = std::move(outcome.touched_paths);
      const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action.name);
      record.touches_anything = def != nullptr && def->executor == "exec";
      records.push_back(std::move(record));
    }
    budget.Fit(r);
    keep_params(r);
    kept.Add(std::move(r));
  }

  if (tx != nullptr) {
    absl::StatusOr<git_tx::BatchCommitResult> committed = tx->Finish(records);
    if (!committed.ok()) {
      result.fatal_error = absl::StrCat("git_operation_failed: the actions ran but their commit failed: ",
                                        committed.status().message());
    } else {
      result.git.ai_commit = committed->commit_id;
      result.git.foreign_changes = committed->foreign_changes;
      if (!committed->unattributed_changes.empty()) {
        result.warnings.push_back(UnattributedChangesWarning(*committed, ctx.paths.working_root));
      }
      if (!committed->ignored_uncommitted.empty()) {
        result.warnings.push_back(absl::StrCat(
            "ignored by git, so changed but not committed (`clada undo` still takes the change back): ",
            absl::StrJoin(committed->ignored_uncommitted, ", ")));
      }
      if (!committed->exec_changed_ignored.empty()) {
        result.warnings.push_back(absl::StrCat(
            "ignored by git and changed while exec ran, so in no commit and not restorable by `clada undo` (their "
            "old bytes were never kept): ",
            absl::StrJoin(committed->exec_changed_ignored, ", ")));
      }
      if (!committed->head_moved.empty()) {
        result.warnings.push_back(absl::StrCat(
            "HEAD moved during the batch (", committed->head_moved,
            "): its code, or someone else, committed; the AI commit records it, and `clada undo` takes the batch "
            "back, those commits included"));
      }
    }
  }

  std::move(kept).MoveInto(result);
  bool all_ok = result.parse_errors.empty() && result.left_out_skipped.blocks == 0 && !result.fatal_error.has_value() &&
                result.left_out.succeeded == result.left_out.count &&
                result.spilled.succeeded == result.spilled.count;
  for (const ActionResult& r : result.results) all_ok = all_ok && r.success;
  result.success = all_ok;
  result.elapsed_ms = MillisSince(start);
  return result;
}

}  // namespace

ExecutionResult Clada::Execute(absl::string_view llm_output) {
  const Clock::time_point start = Clock::now();
  const Settings& settings = options_.settings;
  ExecutionResult result;
  result.dry_run = options_.dry_run;
  result.report_form = settings.report;
  result.error_detail = settings.error_detail;

  if (static_cast<int64_t>(llm_output.size()) > settings.max_input_bytes) {
    return FatalResult(std::move(result),
                       absl::StrCat("input_too_large: the answer is ", llm_output.size(),
                                    " bytes, over the limit of ", settings.max_input_bytes,
                                    " bytes; split it into smaller batches (or raise max_input)"),
                       "input_too_large");
  }
  absl::StatusOr<core::ExecContext> ctx = MakeExecContext(options_.working_root, settings, options_.path_policy.get());
  if (!ctx.ok()) return FatalResult(std::move(result), ctx.status());
  ctx->paths.protected_files = ProtectedFiles(options_, ctx->paths);
  ctx->on_output = options_.on_exec_output;
  ctx->cancel = options_.cancel;

  // A text report (and the listener's output file, with
  // full_report_budget_bytes) shows the first and last refused blocks of
  // an answer of many thousands: only theirs are kept whole, the others
  // counted (the CML and CSL forms count them in one line); --json spills
  // those between.
  ErrorKeeping keeping;
  std::shared_ptr<std::FILE> error_file;
  const int64_t keeping_budget = KeptReportBudget(options_);
  if (keeping_budget > 0) {
    keeping.keep_blocks = SkippedBlocksKept(keeping_budget);
    keeping.measure = [&settings](const std::vector<sham_action_parser::ActionParseError>& errors) {
      return SkippedEntrySize(errors, settings.error_detail);
    };
  } else if (options_.full_outputs && options_.spill_results) {
    // --json prints every error: those of the blocks between the first and
    // the last thousand go to an unnamed file as they are read.
    error_file.reset(std::tmpfile(), [](std::FILE* f) {
      if (f != nullptr) std::fclose(f);
    });
    if (error_file != nullptr) {
      keeping.keep_blocks = 1000;
      keeping.spill = [file = error_file.get()](const std::vector<sham_action_parser::ActionParseError>& errors,
                                                absl::string_view dialect) {
        std::string text;
        for (const sham_action_parser::ActionParseError& e : errors) {
          if (!text.empty()) text += ",\n";
          text += DocumentArrayElement(ParseErrorToJson(e, dialect));
        }
        std::fseek(file, 0, SEEK_END);
        const long offset = std::ftell(file);
        if (offset < 0 || std::fwrite(text.data(), 1, text.size(), file) != text.size()) {
          return std::pair<int64_t, int64_t>{0, -1};  // not written: counted in a warning
        }
        return std::pair<int64_t, int64_t>{offset, static_cast<int64_t>(text.size())};
      };
    }
  }
  const readers::Registry registry(
      {settings.csl_start, settings.csl_end, static_cast<size_t>(settings.max_input_bytes)});
  ReadAnswerResult parsed = ReadAnswer(llm_output, registry, keeping);
#ifdef __GLIBC__
  // The readers' records are freed by now, but glibc keeps the pages of
  // freed small blocks: handed back, the run that follows does not stack
  // on the parse's peak. Only for a large answer: trimming walks the
  // whole heap.
  if (llm_output.size() >= (1u << 20)) malloc_trim(0);
#endif
  result.total_blocks = parsed.total_blocks;
  result.parse_errors = std::move(parsed.errors);
  result.left_out_skipped = parsed.left_out;
  if (error_file != nullptr && !result.left_out_skipped.spans.empty()) {
    result.left_out_skipped.file = error_file;
    const auto lost = std::count_if(result.left_out_skipped.spans.begin(), result.left_out_skipped.spans.end(),
                                    [](const std::pair<int64_t, int64_t>& s) { return s.second < 0; });
    if (lost > 0) {
      result.warnings.push_back(absl::StrCat("the errors of ", lost, " refused blocks could not be written to a "
                                             "temporary file (is it full?) and are left out of parseErrors"));
    }
  }
  result.parse_error_dialects = std::move(parsed.error_dialects);
  result.parse_error_groups = std::move(parsed.error_groups);
  result.warnings = std::move(parsed.warnings);
  return RunItems(options_, start, std::move(result), std::move(parsed.items), std::move(parsed.actions), *ctx);
}

ExecutionResult Clada::ExecuteActions(std::vector<core::Action> actions, absl::string_view dialect,
                                      absl::string_view words) {
  const Clock::time_point start = Clock::now();
  ExecutionResult result;
  result.dry_run = options_.dry_run;
  result.report_form = options_.settings.report;
  result.error_detail = options_.settings.error_detail;
  absl::StatusOr<core::ExecContext> ctx =
      MakeExecContext(options_.working_root, options_.settings, options_.path_policy.get());
  if (!ctx.ok()) return FatalResult(std::move(result), ctx.status());
  ctx->paths.protected_files = ProtectedFiles(options_, ctx->paths);
  ctx->on_output = options_.on_exec_output;
  ctx->cancel = options_.cancel;
  ActionStore store;
  store.whole = std::move(actions);
  std::vector<AnswerItem> items;
  items.reserve(store.whole.size());
  const Dialect named = DialectName(dialect);
  for (core::Action& action : store.whole) {
    AnswerItem item;
    item.line = action.metadata.start_line;
    item.index = static_cast<int32_t>(items.size());
    item.source = AnswerItem::Source::kWhole;
    item.dialect = named;
    item.group_key = static_cast<int>(items.size());
    items.push_back(std::move(item));
  }
  result.total_blocks = static_cast<int>(items.size());
  return RunItems(options_, start, std::move(result), std::move(items), std::move(store), *ctx, words);
}

}  // namespace clada
