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
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "proj/comp/aider-reader/src/aider_reader.h"
#include "proj/comp/apply-patch-reader/src/apply_patch_reader.h"
#include "proj/comp/cml-parser/src/cml_parser.h"
#include "proj/comp/csl-parser/src/csl_parser.h"
#include "proj/comp/replacer-reader/src/replacer_reader.h"
#include "proj/comp/udiff-reader/src/udiff_reader.h"
#include "proj/comp/context/src/context.h"
#include "proj/comp/core/src/answer_lines.h"
#include "proj/comp/core/src/packed_actions.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/fs-ops/src/file_store.h"
#include "proj/comp/fs-ops/src/fs_ops.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/readers/src/adapters.h"
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
std::string PathRefusal(absl::string_view action_name, const core::Json& params, const core::PathPolicy& paths) {
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
      if (!resolved.ok()) return std::string(resolved.status().message());
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
    r->error = absl::StrCat(action.name, ": ", bad, " (a real run would refuse this action)");
    r->data = core::Json{{"planned", true}};
    return;
  }
  const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(action.name);
  if (def != nullptr && def->executor == "fs-ops") {
    core::ActionOutcome outcome = fs_ops::ExecuteFileOperation(action, ctx, store);
    r->success = outcome.success;
    if (!r->success) r->error = absl::StrCat(outcome.error, " (a real run would refuse this action)");
    r->data = std::move(outcome.data);
    if (!r->data.is_object()) r->data = core::Json::object();
    r->data["planned"] = true;
    for (std::string& w : outcome.warnings) r->warnings.push_back(std::move(w));
    return;
  }
  std::string refusal = PathRefusal(action.name, action.params, ctx.paths);
  r->success = refusal.empty();
  if (!r->success) r->error = absl::StrCat(action.name, ": ", refusal, " (a real run would refuse this action)");
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
// CML task that could not be read (it fails its group where it stands).
// Small (28 bytes): an answer of a million blocks holds a million of them.
struct AnswerItem {
  // Where its action is in the answer's ActionStore (none when invalid).
  enum class Source : uint8_t { kNone, kWhole, kDeferred, kPacked };
  int32_t index = -1;
  int32_t group_key = 0;    // the same for every item of one group
  int32_t task_number = 0;  // CML
  int32_t line = 0;
  // Not run, and why (an operation of a CSL TASKS block that has an invalid
  // one): its entry in ActionStore::skip_reasons, shared by the operations
  // of that block; -1 for none.
  int32_t skip_reason = -1;
  Source source = Source::kNone;
  Dialect dialect;
  bool fail_fast = false;  // a CML <tasks> block, a CSL TASKS block
  bool atomic = false;     // a CSL TASKS block: any invalid operation and none runs
  bool invalid = false;
};
static_assert(sizeof(AnswerItem) <= 28, "an answer of a million blocks holds a million items");

// The actions of an answer. SHAM's (or ExecuteActions') as they were made
// (the vector moved in whole, never copied: a million small blocks would
// hold them twice); in a run, SHAM's valid blocks as where they are; every
// other reader's packed (core::PackedActions: 300,000 one-line CML tasks
// would otherwise hold 300,000 actions of a kilobyte each).
struct ActionStore {
  std::vector<core::Action> whole;
  sham_action_parser::DeferredActions deferred;
  core::PackedActions packed;
  std::vector<std::string> skip_reasons;

  // Packs `a` for `item`.
  void Add(const core::Action& a, AnswerItem& item) {
    item.index = static_cast<int32_t>(packed.Add(a));
    item.source = AnswerItem::Source::kPacked;
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
      case AnswerItem::Source::kDeferred:
        return deferred.Make(static_cast<size_t>(item.index));
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
      case AnswerItem::Source::kDeferred:
        return deferred.entries[static_cast<size_t>(item.index)].definition;
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

// How a failure is named in "not run: ... failed": CML's "task 3", CSL's
// label (`label`: the action's block id; empty for an invalid item).
std::string FailureName(const AnswerItem& item, absl::string_view label) {
  return item.dialect == "csl" && !label.empty() ? std::string(label) : absl::StrCat("task ", item.task_number);
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

sham_action_parser::ActionParseError CmlErrorToParseError(const cml_parser::CmlError& e,
                                                          const cml_parser::CmlBlock& block, size_t index,
                                                          absl::string_view text) {
  sham_action_parser::ActionParseError out;
  out.block_id = e.task_number > 0 ? absl::StrCat("task-", e.task_number) : absl::StrCat("block-", index);
  out.error_type = e.code;
  out.message = e.message;
  const core::SourceSpan span = block.span();
  out.block_start_line = e.task_number > 0 ? e.line : span.first_line;
  constexpr size_t kMaxContent = 4096;
  absl::string_view content = text.substr(span.begin, span.end - span.begin);
  out.block_content = std::string(content.substr(0, kMaxContent));
  out.fix = e.fix;
  return out;
}

// The line spans of a dialect's blocks (inclusive; they may nest), asked
// "does a block hold this line?" in O(log n) however many blocks an answer
// has. What each question needs is kept apart: for Holds, the union of
// the spans (adjacent ones merged as they come, so two million one-line
// CML tasks on consecutive lines are one range, not 24 MB); for
// HoldsBelowStart, only the spans of two lines or more (a one-line block
// has no line below its start), sorted by first line with the furthest
// last line reached so far.
class LineSpans {
 public:
  void Add(int first, int last) {
    ++count_;
    AddToUnion(first, last);
    if (last > first) {
      multi_.emplace_back(first, last);
      multi_ready_ = false;
    }
  }
  // Every span of `other` too.
  void AddAll(const LineSpans& other) {
    count_ += other.count_;
    for (const auto& [first, last] : other.union_) AddToUnion(first, last);
    multi_.insert(multi_.end(), other.multi_.begin(), other.multi_.end());
    multi_ready_ = false;
  }
  // How many spans were added.
  size_t size() const { return count_; }
  // A span holds `line` (its first line included).
  bool Holds(int line) const {
    if (!union_ready_) {
      std::sort(union_.begin(), union_.end());
      std::vector<std::pair<int, int>> merged;
      for (const auto& span : union_) {
        if (!merged.empty() && span.first <= merged.back().second + 1) {
          merged.back().second = std::max(merged.back().second, span.second);
        } else {
          merged.push_back(span);
        }
      }
      union_.swap(merged);
      union_ready_ = true;
    }
    auto after = std::upper_bound(union_.begin(), union_.end(), std::make_pair(line, std::numeric_limits<int>::max()));
    return after != union_.begin() && std::prev(after)->second >= line;
  }
  // A span holds `line` below its first line (a block starting inside it).
  bool HoldsBelowStart(int line) const {
    if (!multi_ready_) {
      std::sort(multi_.begin(), multi_.end());
      furthest_.clear();
      furthest_.reserve(multi_.size());
      for (const auto& [first, last] : multi_) {
        furthest_.push_back(furthest_.empty() ? last : std::max(furthest_.back(), last));
      }
      multi_ready_ = true;
    }
    // Some span starting before `line` ends at or after it.
    auto after = std::lower_bound(multi_.begin(), multi_.end(), std::make_pair(line, std::numeric_limits<int>::min()));
    if (after == multi_.begin()) return false;
    return furthest_[static_cast<size_t>(after - multi_.begin()) - 1] >= line;
  }

 private:
  void AddToUnion(int first, int last) {
    // In order and touching the last range (the usual case): widen it.
    if (union_ready_ && !union_.empty() && first >= union_.back().first && first <= union_.back().second + 1) {
      union_.back().second = std::max(union_.back().second, last);
      return;
    }
    if (!union_.empty() && first < union_.back().first) union_ready_ = false;
    union_.emplace_back(first, last);
  }

  size_t count_ = 0;
  mutable std::vector<std::pair<int, int>> union_;  // sorted and merged when union_ready_
  mutable bool union_ready_ = true;
  mutable std::vector<std::pair<int, int>> multi_;
  mutable std::vector<int> furthest_;
  mutable bool multi_ready_ = true;
};

// A reader's parse error as the report shows every block's: the block's
// text (at most 4 KB) with the reader's code, message, line and fix.
sham_action_parser::ActionParseError ReaderError(std::string block_id, std::string code, std::string message,
                                                 int line, absl::string_view text, size_t begin, size_t end,
                                                 std::string fix) {
  sham_action_parser::ActionParseError pe;
  pe.block_id = std::move(block_id);
  pe.error_type = std::move(code);
  pe.message = std::move(message);
  pe.block_start_line = line;
  pe.block_content = std::string(text.substr(begin, std::min<size_t>(end - begin, 4096)));
  pe.fix = std::move(fix);
  return pe;
}

// Every block of every dialect, in document order. SHAM is read first; CML
// is not looked for on a SHAM block's lines (a CML example in a heredoc is
// content), and a SHAM block that starts inside a CML block (in its CDATA)
// is content of that block, not a block. CSL likewise: its markers are not
// read on a SHAM block's lines or inside a well-formed CML block, and a SHAM
// block or CML element inside a CSL operation is content of it.
ReadAnswerResult ReadAnswer(absl::string_view text, size_t max_input, const csl_parser::Delimiters& csl_delimiters,
                            const sham_action_parser::ErrorKeeping& keeping = {}) {
  ReadAnswerResult out;
  // The readers' names, looked up once, not once an item.
  const Dialect kSham("sham"), kCml("cml"), kCsl("csl"), kReplacer("replacer"), kSearchReplace("search_replace"),
      kApplyPatch("apply_patch"), kUdiff("udiff");
  sham_action_parser::ActionParseResult sham = sham_action_parser::ParseShamResponse(text, max_input, keeping);
  std::vector<cml_parser::LineRange> sham_lines;
  sham_lines.reserve(sham.actions.size() + sham.errors.size() + sham.left_out.size());
  for (const sham_action_parser::LeftOutBlock& b : sham.left_out) {
    sham_lines.push_back({b.start_line, std::max(b.start_line, b.last_line)});
  }
  for (const core::Action& a : sham.actions) {
    sham_lines.push_back({a.metadata.start_line, std::max(a.metadata.start_line, a.metadata.end_line)});
  }
  for (const sham_action_parser::DeferredActions::Entry& e : sham.deferred.entries) {
    sham_lines.push_back({e.start_line, std::max(e.start_line, e.end_line)});
  }
  for (const auto& e : sham.errors) {
    if (e.block_start_line <= 0) continue;
    const int lines = static_cast<int>(std::count(e.block_content.begin(), e.block_content.end(), '\n'));
    sham_lines.push_back({e.block_start_line, e.block_start_line + lines});
  }
  cml_parser::ParseOptions cml_options;
  cml_options.pack_actions = keeping.defer_actions;
  cml_parser::CmlParseResult cml = cml_parser::ParseCml(text, sham_lines, cml_options);
  csl_parser::CslParseResult csl;
  std::vector<csl_parser::LineRange> csl_skip;
  for (const cml_parser::LineRange& r : sham_lines) csl_skip.push_back({r.first, r.last});
  const std::vector<csl_parser::SourceSpan> csl_found = csl_parser::FindCsl(text, csl_delimiters, csl_skip);
  if (!csl_found.empty()) {
    // Whichever starts first holds the other: a CML block (well-formed or
    // not: a CSL example in CDATA missing its ]]> still never runs) hides
    // the CSL markers in it, unless it starts inside a CSL operation (an
    // XML or HTML file's text in a WRITE), which is then read whole.
    LineSpans found;
    for (const csl_parser::SourceSpan& sp : csl_found) found.Add(sp.first_line, sp.last_line);
    for (const cml_parser::CmlBlock& b : cml.blocks) {
      const core::SourceSpan span = b.span();
      if (!found.HoldsBelowStart(span.first_line)) csl_skip.push_back({span.first_line, span.last_line});
    }
    csl_parser::ParseOptions csl_options;
    csl_options.pack_actions = keeping.defer_actions;
    csl_options.expected_blocks = csl_found.size();
    csl = csl_parser::ParseCsl(text, csl_delimiters, csl_skip, csl_options);
    if (!csl.blocks.empty() && !cml.blocks.empty()) {
      std::vector<cml_parser::LineRange> cml_skip = sham_lines;
      for (const csl_parser::CslBlock& b : csl.blocks) cml_skip.push_back({b.span.first_line, b.span.last_line});
      cml = cml_parser::ParseCml(text, cml_skip, cml_options);
    }
  }
  LineSpans csl_spans;
  for (const csl_parser::CslBlock& b : csl.blocks) csl_spans.Add(b.span.first_line, b.span.last_line);
  auto inside_csl = [&csl_spans](int line) { return csl_spans.size() > 0 && csl_spans.HoldsBelowStart(line); };
  LineSpans cml_spans;
  for (const cml_parser::CmlBlock& b : cml.blocks) cml_spans.Add(b.span().first_line, b.span().last_line);
  auto inside_cml = [&cml_spans](int line) { return cml_spans.HoldsBelowStart(line); };
  // The seeds' replacer blocks. One that starts on a SHAM block's lines or
  // inside a CML or CSL block is content of it; a block of any other dialect
  // that starts inside a replacer block (an example in an OVERWRITE) is
  // content of that block.
  // Read as a stream, in the answer's order: each edit that remains is
  // numbered and packed as soon as it is read (861,000 edits held whole, at
  // the input limit, took 131 MB).
  LineSpans rep_spans;
  core::PackedActions rep_packed;
  std::vector<int32_t> rep_lines;  // the first line of each packed edit
  std::vector<replacer_reader::ParseError> rep_errors;
  {
    std::optional<LineSpans> sham_spans;  // made at the first block
    auto content_of_other = [&](int line) {
      if (!sham_spans.has_value()) {
        sham_spans.emplace();
        for (const cml_parser::LineRange& r : sham_lines) sham_spans->Add(r.first, r.last);
      }
      return sham_spans->Holds(line) || cml_spans.Holds(line) || (csl_spans.size() > 0 && csl_spans.Holds(line));
    };
    // Numbered rep-1, rep-2, ... over the blocks that remain, in document order.
    int number = 0;
    replacer_reader::ReadBlocks(
        text,
        [&](replacer_reader::Edit&& e) {
          if (content_of_other(e.span.first_line)) return;
          e.number = ++number;
          rep_spans.Add(e.span.first_line, e.span.last_line);
          rep_packed.Add(replacer_reader::ToAction(e));
          rep_lines.push_back(e.span.first_line);
        },
        [&](replacer_reader::ParseError&& e) {
          if (content_of_other(e.line)) return;
          e.number = ++number;
          rep_spans.Add(e.span.first_line, e.span.last_line);
          rep_errors.push_back(std::move(e));
        });
  }
  auto inside_rep = [&rep_spans](int line) { return rep_spans.size() > 0 && rep_spans.HoldsBelowStart(line); };
  auto in_rep = [&rep_spans](int line) { return rep_spans.size() > 0 && rep_spans.Holds(line); };
  int dropped = 0;
  int key = 0;
  out.items.reserve(sham.actions.size() + sham.deferred.size());
  for (size_t i = 0; i < sham.actions.size(); ++i) {
    const core::Action& a = sham.actions[i];
    if ((!cml.blocks.empty() && inside_cml(a.metadata.start_line)) || inside_csl(a.metadata.start_line) ||
        inside_rep(a.metadata.start_line)) {
      ++dropped;
      continue;
    }
    AnswerItem item;
    item.line = a.metadata.start_line;
    item.index = static_cast<int32_t>(i);
    item.source = AnswerItem::Source::kWhole;
    item.dialect = kSham;
    item.group_key = key++;
    out.items.push_back(std::move(item));
  }
  out.actions.whole = std::move(sham.actions);  // the items point into it
  for (size_t i = 0; i < sham.deferred.entries.size(); ++i) {
    const int line = sham.deferred.entries[i].start_line;
    if ((!cml.blocks.empty() && inside_cml(line)) || inside_csl(line) || inside_rep(line)) {
      ++dropped;
      continue;
    }
    AnswerItem item;
    item.line = line;
    item.index = static_cast<int32_t>(i);
    item.source = AnswerItem::Source::kDeferred;
    item.dialect = kSham;
    item.group_key = key++;
    out.items.push_back(std::move(item));
  }
  out.actions.deferred = std::move(sham.deferred);
  struct KeyedError {
    sham_action_parser::ActionParseError error;
    std::string dialect;
    int key = 0;
  };
  std::vector<KeyedError> errors;
  for (auto& e : sham.errors) {
    if (e.block_start_line > 0 &&
        ((!cml.blocks.empty() && inside_cml(e.block_start_line)) || inside_csl(e.block_start_line))) {
      continue;
    }
    if (e.block_start_line > 0 && inside_rep(e.block_start_line)) {
      ++dropped;
      continue;
    }
    errors.push_back({std::move(e), "sham", key++});
  }
  // Counted refused blocks: each a group, as its errors would have been
  // (keys left_out_key + i); one inside another dialect's block is content
  // of it (its start_line set to 0).
  const int left_out_key = key;
  key += static_cast<int>(sham.left_out.size());
  auto drop_left_out = [&sham](const auto& inside) {
    int dropped_here = 0;
    for (sham_action_parser::LeftOutBlock& b : sham.left_out) {
      if (b.start_line > 0 && inside(b.start_line)) {
        b.start_line = 0;
        ++dropped_here;
      }
    }
    return dropped_here;
  };
  if (!sham.left_out.empty()) {
    drop_left_out([&](int line) { return (!cml.blocks.empty() && inside_cml(line)) || inside_csl(line); });
    dropped += drop_left_out(inside_rep);
  }
  int cml_dropped = 0;
  // Reserved exactly: 300,000 tasks would otherwise grow the items twice
  // over, and hold both copies while they move.
  size_t cml_items = cml.packed.size();
  for (const cml_parser::CmlBlock& b : cml.blocks) cml_items += b.tasks().size() + b.errors().size();
  out.items.reserve(out.items.size() + cml_items);
  // Packed CML tasks are the first packed actions: their indices hold.
  out.actions.packed = std::move(cml.packed_actions);
  for (size_t bi = 0; bi < cml.blocks.size(); ++bi) {
    const cml_parser::CmlBlock& b = cml.blocks[bi];
    if (inside_rep(b.span().first_line)) {
      ++cml_dropped;
      continue;
    }
    const int group = key++;
    AnswerItem task;  // what every task of the block shares
    task.dialect = kCml;
    task.group_key = group;
    task.fail_fast = b.is_tasks_block();
    auto add_task = [&out, &task](int line, int number) -> AnswerItem& {
      AnswerItem& item = out.items.emplace_back(task);
      item.line = line;
      item.task_number = number;
      return item;
    };
    for (const cml_parser::Task& t : b.tasks()) out.actions.Add(t.action, add_task(t.line, t.number));
    for (size_t i = b.packed_begin(), end = cml.PackedEnd(bi); i < end; ++i) {
      AnswerItem& item = add_task(cml.packed[i].line, cml.packed[i].number);
      item.index = static_cast<int32_t>(i);
      item.source = AnswerItem::Source::kPacked;
    }
    for (const cml_parser::CmlError& e : b.errors()) {
      errors.push_back({CmlErrorToParseError(e, b, bi, text), "cml", group});
      if (e.task_number != 0) add_task(e.line, e.task_number).invalid = true;
    }
    for (const std::string& w : b.warnings()) out.warnings.push_back(w);
  }
  std::vector<cml_parser::PackedTask>().swap(cml.packed);
  // The blocks are items now: freed before the readers that follow (a
  // million of them are 32 MB); cml_spans still says where they were.
  const int cml_block_count = static_cast<int>(cml.blocks.size());
  std::vector<cml_parser::CmlBlock>().swap(cml.blocks);
  // CSL: each standalone operation a group of its own; a TASKS block one
  // atomic_validation group (an invalid operation and none of them runs; at
  // run time the first failure skips the rest).
  int csl_dropped = 0;
  size_t csl_items = csl.packed.size();
  for (const csl_parser::CslBlock& b : csl.blocks) csl_items += b.operations().size();
  out.items.reserve(out.items.size() + csl_items);
  const size_t csl_base = out.actions.packed.Append(std::move(csl.packed_actions));
  for (csl_parser::CslBlock& b : csl.blocks) {
    if (inside_rep(b.span.first_line)) {
      ++csl_dropped;
      continue;
    }
    const int group = key++;
    int32_t skip_reason = -1;
    if (b.is_tasks && !b.errors().empty()) {
      const csl_parser::CslError& first = b.errors().front();
      skip_reason = static_cast<int32_t>(out.actions.skip_reasons.size());
      out.actions.skip_reasons.push_back(
          absl::StrCat("not run: its TASKS block (line ", b.span.first_line, ") has ", b.errors().size(),
                       b.errors().size() == 1 ? " invalid operation" : " errors", " (", first.label, " on line ",
                       first.line, ": ", first.code, "), and a TASKS block runs all or nothing"));
    }
    AnswerItem operation;  // what every operation of the block shares
    operation.dialect = kCsl;
    operation.group_key = group;
    operation.fail_fast = b.is_tasks;
    operation.atomic = b.is_tasks;
    operation.skip_reason = skip_reason;
    for (const csl_parser::Operation& op : b.operations()) {
      AnswerItem& item = out.items.emplace_back(operation);
      item.line = op.span.first_line;
      out.actions.Add(op.action, item);
    }
    for (size_t i = b.packed_begin; i < b.packed_end; ++i) {
      AnswerItem& item = out.items.emplace_back(operation);
      item.line = csl.packed[i].line;
      item.index = static_cast<int32_t>(csl_base + i);
      item.source = AnswerItem::Source::kPacked;
    }
    for (const csl_parser::CslError& e : b.errors()) {
      errors.push_back(
          {ReaderError(e.label, e.code, e.message, e.line, text, e.span.begin, e.span.end, e.fix), "csl", group});
    }
    for (const std::string& w : b.warnings()) out.warnings.push_back(w);
  }
  const int csl_block_count = static_cast<int>(csl.blocks.size());
  decltype(csl.blocks)().swap(csl.blocks);
  decltype(csl.packed)().swap(csl.packed);
  // Replacer blocks: each an independent group, labelled rep-N.
  int rep_blocks = static_cast<int>(rep_lines.size() + rep_errors.size());
  const size_t rep_base = out.actions.packed.Append(std::move(rep_packed));
  out.items.reserve(out.items.size() + rep_lines.size());
  for (size_t i = 0; i < rep_lines.size(); ++i) {
    AnswerItem item;
    item.line = rep_lines[i];
    item.index = static_cast<int32_t>(rep_base + i);
    item.source = AnswerItem::Source::kPacked;
    item.dialect = kReplacer;
    item.group_key = key++;
    out.items.push_back(std::move(item));
  }
  std::vector<int32_t>().swap(rep_lines);
  for (const replacer_reader::ParseError& e : rep_errors) {
    errors.push_back({ReaderError(absl::StrCat("rep-", e.number), e.code, e.message, e.line, text, e.span.begin,
                                  e.span.end, e.fix),
                      "replacer", key++});
  }
  // Aider's SEARCH/REPLACE blocks: each an independent group. A block that
  // starts on a SHAM block's lines or inside a CML block is content of that
  // block; a SHAM block inside a SEARCH/REPLACE block is content of it.
  LineSpans other_blocks;  // SHAM, CML and CSL
  for (const cml_parser::LineRange& r : sham_lines) other_blocks.Add(r.first, r.last);
  other_blocks.AddAll(cml_spans);
  other_blocks.AddAll(csl_spans);
  auto on_other_block = [&other_blocks](int line) { return other_blocks.Holds(line); };
  LineSpans sr_spans;
  // Each edit packed as it is read, never held with the others (875,596
  // at the input limit).
  const aider_reader::Blocks sr = aider_reader::ReadBlocks(text, [&](aider_reader::Edit&& e) {
    if (on_other_block(e.span.first_line) || in_rep(e.span.first_line)) return;
    sr_spans.Add(e.span.first_line, e.span.last_line);
    AnswerItem item;
    item.line = e.span.first_line;
    out.actions.Add(aider_reader::ToAction(e), item);
    item.dialect = kSearchReplace;
    item.group_key = key++;
    out.items.push_back(std::move(item));
  });
  for (const aider_reader::ParseError& e : sr.errors) {
    if (on_other_block(e.line) || in_rep(e.line)) continue;
    errors.push_back({ReaderError(absl::StrCat("sr-", e.number), e.code, e.message, e.line, text, e.span.begin,
                                  e.span.end, e.fix),
                      "search_replace", key++});
    sr_spans.Add(e.span.first_line, e.span.last_line);
  }
  auto in_sr = [&sr_spans](int line) { return sr_spans.Holds(line); };
  // Codex apply_patch envelopes: each file operation a group of its own
  // (operations are independent; an update with a move: the hunks, then the
  // move, fail_fast). Inside another dialect's block a patch is content.
  std::vector<apply_patch_reader::Patch> patches = apply_patch_reader::ReadPatches(text);
  LineSpans patch_spans;
  int patch_number = 0;
  int patch_blocks = 0;
  for (apply_patch_reader::Patch& p : patches) {
    if (on_other_block(p.span.first_line) || in_sr(p.span.first_line) || in_rep(p.span.first_line)) continue;
    patch_spans.Add(p.span.first_line, p.span.last_line);
    bool first = true;
    // Each operation is freed once it is packed: a million of them and
    // their actions are never held at once.
    for (; !p.ops.empty(); p.ops.pop_front()) {
      const apply_patch_reader::FileOp& op = p.ops.front();
      ++patch_blocks;
      const int group = key++;
      const std::string label = absl::StrCat("patch-", ++patch_number);
      const bool two = op.kind == apply_patch_reader::OpKind::kUpdate && op.move_to().has_value();
      auto add = [&](core::Action a) {
        a.metadata.block_id = label;
        a.metadata.start_line = op.span.first_line;
        a.metadata.end_line = op.span.last_line;
        if (first) a.warnings.insert(a.warnings.begin(), p.warnings.begin(), p.warnings.end());
        first = false;
        AnswerItem item;
        item.line = op.span.first_line;
        out.actions.Add(a, item);
        item.dialect = kApplyPatch;
        item.group_key = group;
        item.fail_fast = two;
        out.items.push_back(std::move(item));
      };
      readers::PatchOpActions(op, text, add);
    }
    for (const apply_patch_reader::ParseError& e : p.errors) {
      ++patch_blocks;
      errors.push_back({ReaderError(absl::StrCat("patch-", ++patch_number), e.code, e.message, e.line, text,
                                    p.span.begin, p.span.end, e.fix),
                        "apply_patch", key++});
    }
  }
  auto in_patch = [&patch_spans](int line) { return patch_spans.Holds(line); };
  std::vector<apply_patch_reader::Patch>().swap(patches);

  // Unified diffs: each file's part a group of its own (a rename with
  // hunks: the move, then the hunks, fail_fast). Inside another dialect's
  // block (a SHAM heredoc, CML, a SEARCH/REPLACE text) a diff is content.
  int diff_number = 0;
  int diff_blocks = 0;
  // Each file packed as soon as it is read, then let go: a diff of a
  // million files is never held whole.
  const udiff_reader::Diffs diffs = udiff_reader::ReadDiffs(text, [&](udiff_reader::FilePatch&& f) {
    if (on_other_block(f.span.first_line) || in_sr(f.span.first_line) || in_patch(f.span.first_line) ||
        in_rep(f.span.first_line)) {
      return;
    }
    ++diff_blocks;
    const int group = key++;
    const std::string label = absl::StrCat("diff-", ++diff_number);
    const bool two = f.kind == udiff_reader::FileKind::kUpdate && f.move_to.has_value() && !f.hunks.empty();
    auto add = [&](core::Action a) {
      a.metadata.block_id = label;
      a.metadata.start_line = f.span.first_line;
      a.metadata.end_line = f.span.last_line;
      AnswerItem item;
      item.line = f.span.first_line;
      out.actions.Add(a, item);
      item.dialect = kUdiff;
      item.group_key = group;
      item.fail_fast = two;
      out.items.push_back(std::move(item));
    };
    readers::DiffFileActions(f, text, add);
  });
  for (const udiff_reader::ParseError& e : diffs.errors) {
    if (on_other_block(e.line) || in_sr(e.line) || in_patch(e.line) || in_rep(e.line)) continue;
    ++diff_blocks;
    errors.push_back({ReaderError(absl::StrCat("diff-", ++diff_number), e.code, e.message, e.line, text,
                                  e.span.begin, e.span.end, e.fix),
                      "udiff", key++});
  }
  if (sr_spans.size() > 0) {
    auto inside_sr = [&sr_spans](int line) { return sr_spans.HoldsBelowStart(line); };
    const size_t before = out.items.size();
    out.items.erase(std::remove_if(out.items.begin(), out.items.end(),
                                   [&](const AnswerItem& i) { return i.dialect == "sham" && inside_sr(i.line); }),
                    out.items.end());
    dropped += static_cast<int>(before - out.items.size());
    errors.erase(std::remove_if(errors.begin(), errors.end(),
                                [&](const KeyedError& e) {
                                  return e.dialect == "sham" && e.error.block_start_line > 0 &&
                                         inside_sr(e.error.block_start_line);
                                }),
                 errors.end());
    if (!sham.left_out.empty()) drop_left_out(inside_sr);
    // A replacer block inside a SEARCH/REPLACE block is its content too.
    const size_t items_before = out.items.size(), errors_before = errors.size();
    out.items.erase(std::remove_if(out.items.begin(), out.items.end(),
                                   [&](const AnswerItem& i) { return i.dialect == "replacer" && inside_sr(i.line); }),
                    out.items.end());
    errors.erase(std::remove_if(errors.begin(), errors.end(),
                                [&](const KeyedError& e) {
                                  return e.dialect == "replacer" && inside_sr(e.error.block_start_line);
                                }),
                 errors.end());
    rep_blocks -= static_cast<int>(items_before - out.items.size() + errors_before - errors.size());
  }

  // Sorted only when they are not (one dialect's blocks already are):
  // stable_sort's buffer would be half a million-block answer's items.
  const auto by_line = [](const AnswerItem& a, const AnswerItem& b) { return a.line < b.line; };
  if (!std::is_sorted(out.items.begin(), out.items.end(), by_line)) {
    std::stable_sort(out.items.begin(), out.items.end(), by_line);
  }
  const auto by_start = [](const KeyedError& a, const KeyedError& b) {
    return a.error.block_start_line < b.error.block_start_line;
  };
  if (!std::is_sorted(errors.begin(), errors.end(), by_start)) {
    std::stable_sort(errors.begin(), errors.end(), by_start);
  }
  // Groups numbered in document order (by the first line of each). Keys
  // run from 0 to `key`: tables, not maps, for a million groups.
  constexpr int kNone = std::numeric_limits<int>::max();
  std::vector<int> first_line(static_cast<size_t>(key), kNone);  // key -> first line
  auto note = [&first_line](int k, int line) {
    int& at = first_line[static_cast<size_t>(k)];
    at = std::min(at, line);
  };
  for (const AnswerItem& item : out.items) note(item.group_key, item.line);
  for (const KeyedError& e : errors) note(e.key, e.error.block_start_line);
  for (size_t i = 0; i < sham.left_out.size(); ++i) {
    if (sham.left_out[i].start_line > 0) note(left_out_key + static_cast<int>(i), sham.left_out[i].start_line);
  }
  std::vector<std::pair<int, int>> group_starts;  // line, key
  for (int k = 0; k < key; ++k) {
    if (first_line[static_cast<size_t>(k)] != kNone) group_starts.emplace_back(first_line[static_cast<size_t>(k)], k);
  }
  std::vector<int>().swap(first_line);
  std::sort(group_starts.begin(), group_starts.end());
  std::vector<int> number(static_cast<size_t>(key), 0);  // key -> group number in document order
  for (size_t g = 0; g < group_starts.size(); ++g) number[static_cast<size_t>(group_starts[g].second)] = static_cast<int>(g);
  for (AnswerItem& item : out.items) item.group_key = number[static_cast<size_t>(item.group_key)];
  out.errors.reserve(errors.size());
  out.error_dialects.reserve(errors.size());
  out.error_groups.reserve(errors.size());
  for (KeyedError& e : errors) {
    out.errors.push_back(std::move(e.error));
    out.error_dialects.push_back(std::move(e.dialect));
    out.error_groups.push_back(number[static_cast<size_t>(e.key)]);
  }
  const auto kept_left_out = std::find_if(sham.left_out.begin(), sham.left_out.end(),
                                          [](const sham_action_parser::LeftOutBlock& b) { return b.start_line > 0; });
  if (kept_left_out != sham.left_out.end()) {
    const int first = kept_left_out->start_line;
    out.left_out.after = static_cast<size_t>(
        std::partition_point(out.errors.begin(), out.errors.end(),
                             [first](const sham_action_parser::ActionParseError& e) {
                               return e.block_start_line < first;
                             }) -
        out.errors.begin());
    for (const sham_action_parser::LeftOutBlock& b : sham.left_out) {
      if (b.start_line == 0) continue;
      ++out.left_out.blocks;
      out.left_out.section_lines += b.entry_lines;
      out.left_out.section_bytes += b.entry_bytes;
      if (keeping.spill) out.left_out.spans.emplace_back(b.spill_offset, b.spill_bytes);
    }
    std::vector<sham_action_parser::LeftOutBlock>().swap(sham.left_out);
  }
  for (std::string& w : sham.warnings) out.warnings.push_back(std::move(w));
  out.total_blocks = sham.total_blocks - dropped + cml_block_count - cml_dropped + csl_block_count - csl_dropped + static_cast<int>(sr_spans.size()) + diff_blocks +
                     patch_blocks + rep_blocks;
  return out;
}

// CML's <remove> deletes a directory with everything in it (the seeds);
// the reader cannot know which the path is, so it is decided here, just
// before the action runs, on the view the action would see.
void ResolveCmlRemove(core::Action& action, const core::PathPolicy& paths, const fs_ops::FileStore& store) {
  if (action.name != "file_delete" || !action.params.contains("path") || !action.params["path"].is_string()) return;
  absl::StatusOr<std::string> resolved = core::ResolvePath(paths, action.params["path"].get<std::string>());
  if (!resolved.ok()) return;  // the action reports it
  struct stat st;
  if (store.Lstat(*resolved, &st) != 0 || !S_ISDIR(st.st_mode)) return;
  action.name = "dir_delete";
  action.params["recursive"] = true;
}

// A failed CML task's or CSL operation's error leads with the seeds' error
// type (search_not_found, match_count_mismatch, ...).
void TypeCmlError(ActionResult& r) {
  if (r.success || (r.dialect != "cml" && r.dialect != "csl")) return;
  r.error_type = cml_parser::ErrorType(r.action, r.error, r.data);
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

ExecutionResult FatalResult(ExecutionResult result, std::string message) {
  result.success = false;
  result.fatal_error = std::move(message);
  return result;
}

}  // namespace

int RunValidateAnswer(absl::string_view input, bool json, std::ostream& out, size_t max_input_bytes,
                      absl::string_view csl_start, absl::string_view csl_end) {
  const csl_parser::Delimiters csl{std::string(csl_start), std::string(csl_end)};
  // An answer that only a SHAM reader finds blocks in prints as the SHAM
  // validator prints it; any other dialect's block, and the plan is a run's.
  const readers::Registry registry({csl.start, csl.end, max_input_bytes});
  if (!readers::AnyBlockBesides(registry, input, "sham")) {
    return sham_action_parser::RunValidateCommand(input, json, out, max_input_bytes);
  }
  ReadAnswerResult r = ReadAnswer(input, max_input_bytes, csl);
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
        const std::string value = PrimaryParamValue(action.name, action.params);
        out << "  " << action.metadata.block_id << " " << action.name << (value.empty() ? "" : " ") << value << "\n";
        if (!why.empty()) out << "      " << why << "\n";
        for (const std::string& w : action.warnings) out << "      warning: " << w << "\n";
      }
    }
    if (!r.errors.empty()) {
      out << "\nerrors:\n";
      for (const auto& e : r.errors) {
        // CML messages already lead with their type (malformed_xml: ...).
        const bool typed = absl::StartsWith(e.message, absl::StrCat(e.error_type, ": "));
        out << "  " << (e.block_id.empty() ? "(no id)" : e.block_id) << " line " << e.block_start_line << " "
            << (typed ? "" : absl::StrCat(e.error_type, ": ")) << e.message << "\n";
        out << "      fix: " << e.fix << "\n";
      }
    }
    if (!r.warnings.empty()) {
      out << "\nwarnings:\n";
      for (const std::string& w : r.warnings) out << "  " << w << "\n";
    }
  }
  return r.errors.empty() ? 0 : 1;
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
  if (def == nullptr) return core::ActionOutcome::Fail(absl::StrCat("Unknown action: ", action.name));
  if (std::string bad = NonUtf8PathRefusal(action.name, action.params); !bad.empty()) {
    return core::ActionOutcome::Fail(absl::StrCat(action.name, ": ", bad));
  }
  if (def->executor == "fs-ops") return fs_ops::ExecuteFileOperation(action, ctx);
  if (def->executor == "exec") return exec::ExecuteCode(action, ctx);
  if (def->executor == "context") return context::ExecuteContextAction(action, ctx);
  if (def->executor == "git-tx") return git_tx::ExecuteGitAction(action, ctx);
  return core::ActionOutcome::Fail(
      absl::StrCat("internal: the schema names executor '", def->executor, "' for ", action.name,
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
ExecutionResult RunItems(const CladaOptions& options, Clock::time_point start, ExecutionResult result,
                         std::vector<AnswerItem> items, ActionStore actions, const core::ExecContext& ctx) {
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
      if (!held.ok()) return FatalResult(std::move(result), std::string(held.status().message()));
      file_lock.emplace(*std::move(held));
    }
    const absl::Duration timeout = absl::Milliseconds(settings.lock_timeout_ms);
    absl::StatusOr<git_tx::RunLock> acquired =
        options.run_lock != nullptr && options.run_lock->working_root() == ctx.paths.working_root
            ? options.run_lock->Acquire(timeout)
            : git_tx::RunLock::Acquire(ctx.paths.working_root, timeout);
    if (!acquired.ok()) return FatalResult(std::move(result), std::string(acquired.status().message()));
    lock.emplace(*std::move(acquired));
    // Only writes and exec matter to the plan: a deferred action is made
    // for it only when it is one of those.
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
        return FatalResult(std::move(result), absl::StrCat("git_operation_failed: ", begun.status().message()));
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
    // The CSL report names a RUN by its command's first line.
    auto code = r.params.find("code");
    if (r.dialect == "csl" && code != r.params.end() && code->is_string()) {
      const std::string& text = code->get_ref<const std::string&>();
      kept["code"] = text.substr(0, std::min<size_t>(text.find('\n'), 200));
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
  // run and a dry run alike.
  core::AnswerLines answer_lines;
  int seq = 0;
  std::map<int, std::string> failed_group;  // fail_fast group key -> the task that failed ("task 3", "task-2.1")
  for (AnswerItem& item : items) {
    const int group = item.group_key;  // numbered in document order by ReadAnswer
    if (item.invalid) {
      // Reported with the parse errors; it stops the rest of its block.
      if (item.fail_fast) failed_group.emplace(item.group_key, FailureName(item, ""));
      continue;
    }
    // A deferred SHAM block or a packed CML task becomes its action now,
    // for as long as it runs.
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
      r.data = core::Json{{"not_run", true}};
      keep_params(r);
      kept.Add(std::move(r));
      continue;
    }
    if (item.fail_fast) {
      auto failed = failed_group.find(item.group_key);
      if (failed != failed_group.end()) {
        r.params = std::move(action.params);
        r.error = absl::StrCat("not run: ", failed->second, " failed (",
                               item.atomic ? "a TASKS block" : "a <tasks> block", " stops at its first failure)");
        r.data = core::Json{{"not_run", true}};
        keep_params(r);
        kept.Add(std::move(r));
        continue;
      }
    }
    if (item.dialect == "cml") {
      ResolveCmlRemove(action, ctx.paths,
                       options.dry_run ? static_cast<const fs_ops::FileStore&>(dry_store) : fs_ops::DiskStore::Get());
      r.action = action.name;
    }
    if (options.dry_run) {
      core::ExecContext dry_ctx = ctx;
      dry_ctx.answer_lines = &answer_lines;
      dry_ctx.limits.deadline = deadline;
      DryRunAction(action, dry_ctx, dry_store, &r);
      if (!r.success && item.fail_fast) failed_group.emplace(item.group_key, FailureName(item, r.block_id));
      TypeCmlError(r);
      r.params = std::move(action.params);
      budget.Fit(r);
      keep_params(r);
      kept.Add(std::move(r));
      continue;
    }
    core::ExecContext action_ctx = ctx;
    action_ctx.answer_lines = &answer_lines;
    double elapsed = MillisSince(start);
    if (settings.total_timeout_ms > 0) {
      int64_t left = settings.total_timeout_ms - static_cast<int64_t>(elapsed);
      if (left <= 0) {
        r.params = std::move(action.params);
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
    r.data = std::move(outcome.data);
    TypeCmlError(r);
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
                                    " bytes; split it into smaller batches (or raise max_input)"));
  }
  absl::StatusOr<core::ExecContext> ctx = MakeExecContext(options_.working_root, settings, options_.path_policy.get());
  if (!ctx.ok()) return FatalResult(std::move(result), std::string(ctx.status().message()));
  ctx->paths.protected_files = ProtectedFiles(options_, ctx->paths);
  ctx->on_output = options_.on_exec_output;
  ctx->cancel = options_.cancel;

  // A text report (and the listener's output file, with
  // full_report_budget_bytes) shows the first and last refused blocks of
  // an answer of many thousands: only theirs are kept whole, the others
  // counted (the CML and CSL forms count them in one line); --json spills
  // those between.
  sham_action_parser::ErrorKeeping keeping;
  // SHAM's valid blocks are kept as where they are and made into their
  // actions one at a time, as they run.
  keeping.defer_actions = true;
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
      keeping.spill = [file = error_file.get()](const std::vector<sham_action_parser::ActionParseError>& errors) {
        std::string text;
        for (const sham_action_parser::ActionParseError& e : errors) {
          if (!text.empty()) text += ",\n";
          text += DocumentArrayElement(ParseErrorToJson(e, "sham"));
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
  ReadAnswerResult parsed = ReadAnswer(llm_output, static_cast<size_t>(settings.max_input_bytes),
                                       {settings.csl_start, settings.csl_end}, keeping);
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

ExecutionResult Clada::ExecuteActions(std::vector<core::Action> actions, absl::string_view dialect) {
  const Clock::time_point start = Clock::now();
  ExecutionResult result;
  result.dry_run = options_.dry_run;
  result.report_form = options_.settings.report;
  result.error_detail = options_.settings.error_detail;
  absl::StatusOr<core::ExecContext> ctx =
      MakeExecContext(options_.working_root, options_.settings, options_.path_policy.get());
  if (!ctx.ok()) return FatalResult(std::move(result), std::string(ctx.status().message()));
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
  return RunItems(options_, start, std::move(result), std::move(items), std::move(store), *ctx);
}

}  // namespace clada
