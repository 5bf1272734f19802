// The watcher: inotify on FILE's directory, debounce, run the new blocks,
// write the results back.
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/comp/listener/src/internal/clipboard.h"
#include "proj/comp/listener/src/internal/combine.h"
#include "proj/comp/listener/src/internal/lines.h"
#include "proj/comp/listener/src/internal/scan.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener {
namespace {

constexpr int kMaxPollMs = 100;  // should_stop is checked at least this often
constexpr absl::Duration kUnclosedGrace = absl::Milliseconds(300);
constexpr int64_t kMaxFileBytes = 50 * 1024 * 1024;  // the block parser's input limit
constexpr size_t kMaxIdsInLog = 8;
// The box of an acknowledgement (a save that held only blocks already run):
// the person writes x in it and saves to run those blocks again. Only in
// FILE's summary, never in the report the LLM reads.
constexpr absl::string_view kRunAgainBox = "[ ] run again";
constexpr absl::string_view kRunAgainHow =
    " (to run these blocks again, e.g. after clada undo: write x between the brackets and save)";
constexpr uint32_t kTriggerEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE;
constexpr uint32_t kWatchMask = kTriggerEvents | IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

std::string ClockTime() { return absl::FormatTime("%H:%M:%S", absl::Now(), absl::LocalTimeZone()); }

std::string Plural(size_t n, absl::string_view word) { return absl::StrCat(n, " ", word, n == 1 ? "" : "s"); }

using internal::BlockSpan;
using internal::Scan;

// A block as the log names it: its dialect and first line ("sham line 3").
std::string NameInLog(const Scan& scan, const BlockSpan& b) {
  return absl::StrCat(scan.dialect(b), " line ", b.start_line);
}

// How the listener names a block the answer has not finished (its dialect,
// first line and where it stops): "udiff line 3 (stops at line 9)".
std::string NameUnfinished(const Scan& scan, const BlockSpan& b) {
  return absl::StrCat(NameInLog(scan, b), " (stops at line ", b.end_line, ")");
}

// The names of `blocks` (NameUnfinished), at most kMaxIdsInLog, joined.
std::string NamesUnfinished(const Scan& scan, const std::vector<const BlockSpan*>& blocks);

// What the summary and the report say of blocks the answer has not
// finished: one line each (at most kMaxIdsInLog), addressed to whoever
// wrote the answer.
std::string UnfinishedText(const Scan& scan, const std::vector<const BlockSpan*>& blocks);

// The keys of `blocks`, in order.
std::vector<uint64_t> KeysOf(const std::vector<BlockSpan>& blocks) {
  std::vector<uint64_t> keys;
  keys.reserve(blocks.size());
  for (const BlockSpan& b : blocks) keys.push_back(b.key);
  return keys;
}

// After a file this large, freed memory is handed back to the system
// (TrimHeap) before the run and before the write-back, so that neither
// stacks on the peak of the step before it.
constexpr size_t kTrimAfterBytes = 1u << 20;

// glibc keeps the pages of freed small blocks; trimming walks the whole
// heap, so it is done only after a large file.
void TrimHeap() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// The keys of `blocks`, sorted, each as often as it occurs: 8 bytes a
// block, where a map of counts takes over twice that.
std::vector<uint64_t> CountKeys(const std::vector<BlockSpan>& blocks) {
  std::vector<uint64_t> keys = KeysOf(blocks);
  std::sort(keys.begin(), keys.end());
  return keys;
}

// How often `key` occurs in `counts` (CountKeys).
size_t CountOf(const std::vector<uint64_t>& counts, uint64_t key) {
  auto [first, last] = std::equal_range(counts.begin(), counts.end(), key);
  return static_cast<size_t>(last - first);
}

std::string NamesUnfinished(const Scan& scan, const std::vector<const BlockSpan*>& blocks) {
  std::vector<std::string> names;
  for (size_t i = 0; i < blocks.size() && i < kMaxIdsInLog; ++i) names.push_back(NameUnfinished(scan, *blocks[i]));
  if (blocks.size() > kMaxIdsInLog) names.push_back("...");
  return absl::StrJoin(names, ", ");
}

std::string UnfinishedText(const Scan& scan, const std::vector<const BlockSpan*>& blocks) {
  std::string out;
  for (size_t i = 0; i < blocks.size() && i < kMaxIdsInLog; ++i) {
    const BlockSpan& b = *blocks[i];
    absl::StrAppend(&out, "unfinished, not run: the ", scan.dialect(b), " block at line ", b.start_line,
                    " stops at line ", b.end_line,
                    " without its end (the answer was cut off there, or is still being written); nothing of it "
                    "ran. Send the rest of it (the block from line ",
                    b.start_line, " again, whole): it runs once it is complete.\n");
  }
  if (blocks.size() > kMaxIdsInLog) {
    absl::StrAppend(&out, "unfinished, not run: ", blocks.size() - kMaxIdsInLog, " more blocks\n");
  }
  return out;
}

// True when the person wrote x in the run-again box of the section at the top.
bool RunAgainTicked(absl::string_view text) {
  const std::optional<absl::string_view> section = internal::TopSection(text);
  if (!section) return false;
  for (const internal::Line& line : internal::SplitLines(*section)) {
    absl::string_view t = absl::StripAsciiWhitespace(line.content);
    if (absl::StartsWith(t, "[x] run again") || absl::StartsWith(t, "[X] run again")) return true;
  }
  return false;
}

// What one read of the inotify fd said about FILE.
struct Events {
  bool saved = false;     // a completed save (close-after-write, rename onto, create)
  bool modified = false;  // a write in progress
  bool watch_gone = false;
};

class Listener {
 public:
  Listener(const ListenOptions& options, const RunBlocksFn& run) : options_(options), run_(run) {}

  absl::Status Run() {
    RETURN_IF_ERROR(Setup());
    return Loop();
  }

 private:
  absl::Status Setup();
  absl::Status Loop();
  absl::StatusOr<Events> ReadEvents();
  // Runs the new blocks of FILE, if any. Sets *recheck_at when a trailing
  // unclosed block should get more time. Errors are fatal to Listen.
  absl::Status Process(std::optional<absl::Time>* recheck_at);
  // `unfinished`: UnfinishedText of the blocks of this save the answer has
  // not finished, or "".
  void WriteBack(const RunReport& report, size_t blocks_given, const std::string& unfinished);
  // internal::ScanSpans(text), the set of keys run freed meanwhile for a
  // large text and built again after (nothing asks it during the scan):
  // the scan's peak and the set's would otherwise stack (1,982,807 blocks
  // at the input limit: a 38 MB set beside the scan's 200 MB).
  Scan ScanFreeingIndex(absl::string_view text);
  // Tells at the top of FILE (only there) that `again` (blocks of `scan`) were run before.
  void Acknowledge(const Scan& scan, const std::vector<const BlockSpan*>& again);
  // Puts a section of the listener's at the top of FILE, nothing else.
  void WriteNote(const std::string& first_line, const std::string& body);
  // The blocks of `all` not run yet (pointers into it).
  std::vector<const BlockSpan*> NewBlocks(const std::vector<BlockSpan>& all) const;
  // True when `all` holds a block not run yet that the answer has finished.
  bool HasRunnable(const std::vector<BlockSpan>& all) const;
  void Log(absl::string_view line) {
    // The line names FILE and block IDs an answer chose: escaped, one line.
    if (options_.log != nullptr) {
      *options_.log << core::EscapeForTerminal(line, core::TerminalForm::kOneLine) << std::endl;
    }
  }

  const ListenOptions& options_;
  const RunBlocksFn& run_;
  std::string file_;  // options_.file (or its target when a symlink) in its canonical directory
  std::string dir_;
  std::string name_;
  std::string output_path_;
  Fd lock_fd_;
  Fd inotify_fd_;
  int watch_ = -1;
  ListenState state_;
  bool process_at_start_ = false;            // FILE holds blocks saved while no listener ran
  std::optional<std::string> written_text_;  // FILE as last written back, when it held no new block
  std::optional<std::string> waited_text_;   // FILE as read when a trailing unclosed block got its grace
  // The keys of the unfinished blocks (never run) last said to be so:
  // each is said once while it stays in FILE.
  absl::flat_hash_set<uint64_t> unfinished_said_;
  // The answer the last run's blocks belonged to (its number, passed to the
  // callback) and where it stood then: a run whose blocks continue it
  // (ContinuesAnswer) keeps the number, any other takes the next.
  int64_t answer_ = 0;
  std::optional<AnswerMark> answer_mark_;
  // The runs of the last write-back, kept when FILE then held blocks saved
  // during the run: nobody could see their results, so the next run's
  // write-back shows them first. Empty otherwise.
  std::vector<internal::ShownRun> unseen_;
  size_t unseen_left_out_ = 0;  // older unseen runs dropped past kMaxRunsShown
  // When each run of this listener was (memory only): run_times_[n - 1]
  // for run n, the number state_ marks its keys with.
  std::vector<absl::Time> run_times_;
  // The keys in FILE as last read or written, each as often as it occurs
  // (CountKeys): a save that adds a copy of a block already run is a
  // re-paste.
  std::vector<uint64_t> last_counts_;
  // The keys the last acknowledgement offered to run again.
  std::vector<uint64_t> rerun_keys_;
  // This listener has put a section at the top of FILE: a FILE without one
  // since was replaced (a re-paste of the whole file), not merely edited.
  bool wrote_section_ = false;
};

absl::Status Listener::Setup() {
  if (options_.file.empty() || options_.file.front() != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("the file to listen on must be an absolute path, got '", options_.file, "'"));
  }
  if (options_.file.back() == '/') {
    return absl::InvalidArgumentError(absl::StrCat("'", options_.file, "' names a directory, not a file"));
  }
  if (options_.state_dir.empty()) return absl::InvalidArgumentError("the state directory must not be empty");
  if (!run_) return absl::InvalidArgumentError("no callback to run the blocks");
  if (options_.debounce_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat("debounce must be >= 0 ms, got ", options_.debounce_ms));
  }
  // A symlinked FILE is followed once, at start: the target is watched and
  // rewritten, so the link survives the write-back.
  file_ = options_.file;
  struct stat lst;
  if (::lstat(file_.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(file_.c_str(), resolved) == nullptr) {
      return core::ErrnoStatus(errno, "cannot follow the symlink", file_);
    }
    file_ = resolved;
  }
  size_t slash = file_.rfind('/');
  dir_ = slash == 0 ? "/" : file_.substr(0, slash);
  name_ = file_.substr(slash + 1);
  const size_t given_slash = options_.file.rfind('/');  // the output goes beside the path the person gave
  output_path_ = absl::StrCat(options_.file.substr(0, given_slash), "/", kOutputFileName);

  struct stat st;
  if (::stat(dir_.c_str(), &st) != 0) return core::ErrnoStatus(errno, "cannot use the directory of FILE", dir_);
  if (!S_ISDIR(st.st_mode)) return absl::NotFoundError(absl::StrCat("'", dir_, "' is not a directory"));
  if (::stat(file_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("'", options_.file, "' is a directory, not a file"));
  }
  // The state knows FILE by this path, so it must not depend on how FILE was named.
  char canonical_dir[PATH_MAX];
  if (::realpath(dir_.c_str(), canonical_dir) == nullptr) {
    return core::ErrnoStatus(errno, "cannot resolve the directory of FILE", dir_);
  }
  dir_ = canonical_dir;
  file_ = absl::StrCat(dir_ == "/" ? "" : dir_, "/", name_);

  RETURN_IF_ERROR(core::CreateStateDirectory(options_.state_dir));
  const std::string lock_path = absl::StrCat(options_.state_dir, "/", kLockFileName);
  lock_fd_.reset(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (lock_fd_.get() < 0) return core::ErrnoStatus(errno, "cannot open the listen lock", lock_path);
  if (::flock(lock_fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("another clada listen is already running with the state directory '", options_.state_dir, "'"));
    }
    return core::ErrnoStatus(errno, "cannot lock", lock_path);
  }
  ASSIGN_OR_RETURN(state_, LoadListenState(options_.state_dir));

  inotify_fd_.reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (inotify_fd_.get() < 0) return core::ErrnoStatus(errno, "cannot start inotify for", dir_);
  watch_ = ::inotify_add_watch(inotify_fd_.get(), dir_.c_str(), kWatchMask);
  if (watch_ < 0) {
    absl::Status s = core::ErrnoStatus(errno, "cannot watch the directory", dir_);
    return absl::InternalError(s.message());
  }

  // The watch is in place: from here on no save is missed.
  bool created = false;
  absl::StatusOr<std::string> text = core::ReadFileToString(file_, kMaxFileBytes);
  if (absl::IsNotFound(text.status())) {
    RETURN_IF_ERROR(core::WriteFileAtomic(file_, kNewFileText));
    written_text_ = kNewFileText;
    text = std::string(kNewFileText);
    created = true;
  }
  std::string start = absl::StrCat("clada listen: watching ", file_);
  if (created) absl::StrAppend(&start, " (created it; paste an answer into it and save)");
  if (text.ok()) {
    const Scan scan = ScanFreeingIndex(*text);
    const std::vector<BlockSpan>& all = scan.blocks;
    last_counts_ = CountKeys(all);
    std::vector<const BlockSpan*> unrun = NewBlocks(all);
    state_.SetPresent(KeysOf(all));
    if (!state_.HasListenedTo(file_)) {
      // First start on FILE: what is in it is an old chat, not a paste to run.
      for (const BlockSpan* b : unrun) state_.MarkRun(b->key);
      state_.SetPresent(std::vector<uint64_t>());
      state_.MarkListenedTo(file_);
      absl::Status saved = SaveListenState(options_.state_dir, state_);
      if (!saved.ok()) {
        return absl::Status(saved.code(), absl::StrCat("cannot record the file being listened to: ", saved.message()));
      }
      if (!unrun.empty()) {
        absl::StrAppend(&start, " (first start on this file: ", Plural(unrun.size(), "block"),
                        " already in it recorded as seen, not run; blocks saved from now on run, also those saved "
                        "while clada listen is stopped)");
      }
    } else if (!unrun.empty()) {
      // Blocks the answer has not finished do not run (Process names them).
      const size_t open = static_cast<size_t>(
          std::count_if(unrun.begin(), unrun.end(), [](const BlockSpan* b) { return !b->closed; }));
      const size_t runnable = unrun.size() - open;
      if (runnable > 0) {
        absl::StrAppend(&start, " (", Plural(runnable, "block"), " saved while clada listen was stopped; running ",
                        runnable == 1 ? "it" : "them", " now)");
      }
      if (open > 0) {
        absl::StrAppend(&start, " (", Plural(open, "unfinished block"), " saved while clada listen was stopped: ",
                        open == 1 ? "it runs" : "each runs", " once its end is saved)");
      }
      process_at_start_ = true;
    }
  } else {
    // Not marked as listened to: the next start that can read FILE is a first start.
    Log(absl::StrCat("clada listen: cannot read ", file_, " yet: ", text.status().message()));
  }
  Log(start);
  if (options_.on_ready) options_.on_ready();
  return absl::OkStatus();
}

std::vector<const BlockSpan*> Listener::NewBlocks(const std::vector<BlockSpan>& all) const {
  return internal::NewBlocksOf(all, state_);
}

bool Listener::HasRunnable(const std::vector<BlockSpan>& all) const {
  for (const BlockSpan* b : NewBlocks(all)) {
    if (b->closed) return true;
  }
  return false;
}

absl::StatusOr<Events> Listener::ReadEvents() {
  Events events;
  alignas(struct inotify_event) char buf[64 * 1024];
  while (true) {
    ssize_t n = ::read(inotify_fd_.get(), buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return events;
      return absl::InternalError(absl::StrCat("cannot read inotify events for '", dir_, "': ", std::strerror(errno)));
    }
    if (n == 0) return events;
    for (char* p = buf; p < buf + n;) {
      const auto* e = reinterpret_cast<const struct inotify_event*>(p);
      p += sizeof(struct inotify_event) + e->len;
      if (e->mask & IN_Q_OVERFLOW) {
        events.saved = true;  // events were lost: read FILE to be safe
        continue;
      }
      if (e->wd != watch_) continue;
      if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)) {
        events.watch_gone = true;
        continue;
      }
      if (e->len == 0 || name_ != e->name) continue;
      if (e->mask & kTriggerEvents) events.saved = true;
      if (e->mask & IN_MODIFY) events.modified = true;
    }
  }
}

absl::Status Listener::Loop() {
  const absl::Duration debounce = absl::Milliseconds(options_.debounce_ms);
  std::optional<absl::Time> due;  // when to read FILE
  if (process_at_start_) due = absl::Now();
  while (true) {
    if (options_.should_stop && options_.should_stop()) return absl::OkStatus();
    int timeout_ms = kMaxPollMs;
    if (due) {
      absl::Duration left = *due - absl::Now();
      timeout_ms = static_cast<int>(
          std::clamp<int64_t>(absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))), 0, kMaxPollMs));
    }
    struct pollfd pfd = {inotify_fd_.get(), POLLIN, 0};
    int ready = ::poll(&pfd, 1, timeout_ms);
    if (ready < 0 && errno != EINTR) return core::ErrnoStatus(errno, "cannot poll inotify for", dir_);
    if (ready > 0) {
      ASSIGN_OR_RETURN(Events events, ReadEvents());
      if (events.watch_gone) {
        return absl::FailedPreconditionError(
            absl::StrCat("the directory '", dir_, "' of the watched file was removed or moved"));
      }
      if (events.saved || (events.modified && due)) due = absl::Now() + debounce;
    }
    if (due && absl::Now() >= *due) {
      std::optional<absl::Time> recheck_at;
      due.reset();
      RETURN_IF_ERROR(Process(&recheck_at));
      if (recheck_at) due = recheck_at;
    }
  }
}

absl::Status Listener::Process(std::optional<absl::Time>* recheck_at) {
  absl::StatusOr<std::string> text = core::ReadFileToString(file_, kMaxFileBytes);
  if (absl::IsNotFound(text.status())) return absl::OkStatus();  // deleted; wait for it to come back
  if (!text.ok()) {
    Log(absl::StrCat(ClockTime(), " clada listen: cannot read ", file_, ": ", text.status().message()));
    return absl::OkStatus();
  }
  if (written_text_ && *text == *written_text_) return absl::OkStatus();  // our own write-back

  Scan scan = ScanFreeingIndex(*text);
  std::vector<BlockSpan>& all = scan.blocks;
  std::vector<const BlockSpan*> fresh = NewBlocks(all);
  // A block the answer has not finished (a hunk short of the lines its
  // header counts, an envelope without *** End Patch, a block without its
  // end marker, a CML element without its end tag) never runs: it is said
  // to be unfinished, once, and runs when a save completes it (its text,
  // so its key, is then another).
  std::vector<const BlockSpan*> unfinished;
  {
    auto open = std::stable_partition(fresh.begin(), fresh.end(), [](const BlockSpan* b) { return b->closed; });
    unfinished.assign(open, fresh.end());
    fresh.erase(open, fresh.end());
  }
  // The last block may still be arriving (an editor writing in pieces): give
  // it a moment, so that a block completed meanwhile runs with the others.
  if (!unfinished.empty() && unfinished.back() == &all.back() && waited_text_ != *text) {
    waited_text_ = *text;
    *recheck_at = absl::Now() + kUnclosedGrace;
    return absl::OkStatus();
  }
  waited_text_.reset();
  std::vector<const BlockSpan*> unfinished_new;  // not said yet
  {
    absl::flat_hash_set<uint64_t> said;
    for (const BlockSpan* b : unfinished) {
      if (!unfinished_said_.contains(b->key)) unfinished_new.push_back(b);
      said.insert(b->key);
    }
    unfinished_said_ = std::move(said);
  }
  std::vector<uint64_t> counts = CountKeys(all);
  bool run_again = false;
  if (fresh.empty() && RunAgainTicked(*text)) {
    // The person asked to run the blocks the acknowledgement named: their
    // last copies in FILE, in file order.
    absl::flat_hash_set<uint64_t> wanted(rerun_keys_.begin(), rerun_keys_.end());
    rerun_keys_.clear();
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      if (wanted.erase(it->key) > 0) fresh.push_back(&*it);
    }
    std::reverse(fresh.begin(), fresh.end());
    run_again = !fresh.empty();
    if (!run_again) {
      last_counts_ = std::move(counts);
      WriteNote(absl::StrCat(kSummaryPrefix, ClockTime(), ": nothing to run again"),
                "This listener offered no blocks to run again (it was restarted, or the blocks are gone): paste "
                "them again, then write x in the box it shows.");
      return absl::OkStatus();
    }
  }
  if (fresh.empty()) {
    // The blocks saved during the last run are gone again: whatever runs
    // next comes from a later save, after the results were in FILE.
    unseen_.clear();
    unseen_left_out_ = 0;
    if (!unfinished_new.empty()) {
      last_counts_ = std::move(counts);
      const std::string names = NamesUnfinished(scan, unfinished_new);
      Log(absl::StrCat(ClockTime(), " clada listen: unfinished, not run: ", names));
      WriteNote(absl::StrCat(kSummaryPrefix, ClockTime(), ": unfinished, not run: ", names, "; ", kOutputFileName,
                             " still holds the last report"),
                UnfinishedText(scan, unfinished_new));
      return absl::OkStatus();
    }
    // A copy of a block already run was added (or the whole file replaced
    // by old blocks, the summary gone): say so rather than stay silent.
    std::vector<const BlockSpan*> again;
    absl::flat_hash_set<uint64_t> seen;
    const bool summary_gone = wrote_section_ && !internal::TopSection(*text).has_value();
    for (const BlockSpan& b : all) {
      const bool added = CountOf(counts, b.key) > CountOf(last_counts_, b.key);
      if ((added || summary_gone) && seen.insert(b.key).second) again.push_back(&b);
    }
    last_counts_ = std::move(counts);
    if (!again.empty()) Acknowledge(scan, again);
    return absl::OkStatus();
  }

  std::string unfinished_names, unfinished_text;
  if (!unfinished_new.empty()) {
    unfinished_names = NamesUnfinished(scan, unfinished_new);
    unfinished_text = UnfinishedText(scan, unfinished_new);
  }
  std::vector<const BlockSpan*>().swap(unfinished);
  std::vector<const BlockSpan*>().swap(unfinished_new);

  rerun_keys_.clear();
  // The blocks asked to run again belong to no answer being written.
  if (run_again || !answer_mark_ || !ContinuesAnswer(*answer_mark_, *text, fresh.front()->start_line)) ++answer_;
  answer_mark_ = MarkAnswer(*text);
  std::string run_text;
  {
    std::vector<internal::LineSpan> lines;
    lines.reserve(fresh.size());
    for (const BlockSpan* b : fresh) lines.push_back({b->start_line, b->end_line});
    run_text = internal::BuildRunText(*text, lines);
  }
  std::vector<std::string> ids;
  for (size_t i = 0; i < fresh.size() && i < kMaxIdsInLog; ++i) {
    ids.push_back(NameInLog(scan, *fresh[i]));
  }
  if (fresh.size() > kMaxIdsInLog) ids.push_back("...");
  const size_t fresh_count = fresh.size();
  const bool large = text->size() >= kTrimAfterBytes;
  std::vector<uint64_t> fresh_keys;
  fresh_keys.reserve(fresh.size());
  for (const BlockSpan* b : fresh) fresh_keys.push_back(b->key);
  std::vector<uint64_t> present = KeysOf(all);
  // The marking, the run and the write-back need none of the scan: a file
  // of a hundred thousand blocks would hold it twice over meanwhile (and
  // the set of keys run grows while it is marked).
  std::string().swap(*text);
  scan = Scan();
  std::vector<const BlockSpan*>().swap(fresh);
  std::vector<uint64_t>().swap(counts);
  run_times_.push_back(absl::Now());
  const uint32_t run_number = static_cast<uint32_t>(run_times_.size());
  state_.SetPresent(std::move(present));  // none of these is forgotten
  for (uint64_t key : fresh_keys) state_.MarkRun(key, run_number);
  std::vector<uint64_t>().swap(fresh_keys);
  state_.SetPresent(std::vector<uint64_t>());  // not needed until the next marking
  state_.MarkListenedTo(file_);  // when FILE could not be read at start
  absl::Status saved = SaveListenState(options_.state_dir, state_);
  if (!saved.ok()) {
    return absl::Status(saved.code(),
                        absl::StrCat("cannot record the blocks about to run, so none ran: ", saved.message()));
  }
  // Nor the set of keys run: built again from the keys after the run.
  if (large) {
    state_.ReleaseIndex();
    TrimHeap();
  }
  RunReport report = run_(run_text, answer_);
  std::string().swap(run_text);
  if (large) {
    TrimHeap();
    state_.RestoreIndex();
  }

  size_t count = report.blocks_run > 0 ? static_cast<size_t>(report.blocks_run) : fresh_count;
  Log(absl::StrCat(ClockTime(), " clada listen: ran ", Plural(count, "block"), " (", absl::StrJoin(ids, ", "),
                   ")", run_again ? ", again as asked" : "", ": ", report.stderr_line,
                   unfinished_names.empty() ? "" : "; unfinished, not run: ", unfinished_names));
  if (!unfinished_names.empty()) absl::StrAppend(&report.stderr_line, "; unfinished, not run: ", unfinished_names);
  WriteBack(report, count, unfinished_text);
  return absl::OkStatus();
}

Scan Listener::ScanFreeingIndex(absl::string_view text) {
  const bool large = text.size() >= kTrimAfterBytes;
  if (large) state_.ReleaseIndex();
  Scan scan = internal::ScanSpans(text, options_.readers);
  if (large) {
    TrimHeap();
    state_.RestoreIndex();
  }
  return scan;
}

void Listener::WriteBack(const RunReport& report, size_t blocks_given, const std::string& unfinished) {
  std::string heading = absl::StrCat(ClockTime(), ": ran ", Plural(blocks_given, "block"));
  if (!report.stderr_line.empty()) absl::StrAppend(&heading, ", ", report.stderr_line);
  // This run's results come after those nobody could see yet.
  std::vector<internal::ShownRun> runs = std::move(unseen_);
  size_t left_out = unseen_left_out_;
  unseen_.clear();
  unseen_left_out_ = 0;
  if (unfinished.empty()) {
    runs.push_back(internal::ShownRun{heading, report.summary, report.full_report});
  } else {
    // Said after the run's results in FILE, before them in the report the LLM reads.
    std::string summary(internal::SummaryBody(report.summary));
    if (!summary.empty() && summary.back() != '\n') summary += '\n';
    runs.push_back(
        internal::ShownRun{heading, absl::StrCat(summary, unfinished), absl::StrCat(unfinished, report.full_report)});
  }
  if (runs.size() > kMaxRunsShown) {
    left_out += runs.size() - kMaxRunsShown;
    runs.erase(runs.begin(), runs.end() - kMaxRunsShown);
  }

  std::string where;
  absl::Status out = core::WriteFileAtomic(output_path_, internal::CombineFullReports(runs, left_out));
  if (out.ok()) {
    where = absl::StrCat("full output in ", kOutputFileName, " (beside this file)");
    if (std::optional<internal::ClipboardTool> tool = internal::FindClipboardTool(internal::CurrentClipboardEnv())) {
      absl::Status copied = internal::CopyFileToClipboard(*tool, output_path_);
      if (copied.ok()) {
        absl::StrAppend(&where, " and on the clipboard (", tool->name, ")");
      } else {
        absl::StrAppend(&where, "; not on the clipboard: ", copied.message());
        Log(absl::StrCat(ClockTime(), " clada listen: clipboard: ", copied.message()));
      }
    }
  } else {
    where = absl::StrCat("the full output could not be written: ", out.message());
    Log(absl::StrCat(ClockTime(), " clada listen: ", out.message()));
  }
  std::string first_line = absl::StrCat(kSummaryPrefix, heading);
  if (runs.size() > 1) {
    const size_t earlier = runs.size() - 1;
    absl::StrAppend(&first_line, "; with the results of ", Plural(earlier, "earlier run"),
                    ", not seen yet (this file was saved during ", earlier == 1 ? "it" : "each", "), earlier first");
  }
  absl::StrAppend(&first_line, "; ", where);

  absl::StatusOr<std::string> current = core::ReadFileToString(file_, kMaxFileBytes);
  if (absl::IsNotFound(current.status())) current = std::string();
  if (!current.ok()) {
    Log(absl::StrCat(ClockTime(), " clada listen: results not written into the file: ", current.status().message()));
    return;
  }
  std::string updated =
      InsertSummary(*current, FormatSummarySection(first_line, internal::CombineSummaries(runs, left_out)));
  std::string().swap(*current);
  // Blocks not run yet in FILE were saved during this run: the run they
  // start must show these results again, or they are replaced unseen.
  bool saved_during_run = false;
  {
    const Scan scan = ScanFreeingIndex(updated);
    saved_during_run = HasRunnable(scan.blocks);
    last_counts_ = CountKeys(scan.blocks);
  }
  if (saved_during_run) {
    unseen_ = std::move(runs);
    unseen_left_out_ = left_out;
  }
  absl::Status written = core::WriteFileAtomic(file_, updated);
  if (!written.ok()) {
    Log(absl::StrCat(ClockTime(), " clada listen: results not written into the file: ", written.message()));
    return;
  }
  wrote_section_ = true;
  // Reading this text back must not run anything; but if the file gained
  // new blocks between the run and the write-back, they still have to run.
  if (saved_during_run) {
    written_text_.reset();
  } else {
    written_text_ = std::move(updated);
  }
}

void Listener::Acknowledge(const Scan& scan, const std::vector<const BlockSpan*>& again) {
  std::optional<absl::Time> latest;
  std::vector<std::string> ids;
  std::vector<uint64_t> keys;
  keys.reserve(again.size());
  for (const BlockSpan* b : again) {
    if (ids.size() < kMaxIdsInLog) ids.push_back(NameInLog(scan, *b));
    keys.push_back(b->key);
  }
  const uint32_t run = state_.LatestRunOf(keys);
  if (run > 0 && run <= run_times_.size()) latest = run_times_[run - 1];
  if (again.size() > kMaxIdsInLog) ids.push_back("...");
  const std::string what = absl::StrCat(
      latest ? absl::StrCat("already run at ", absl::FormatTime("%H:%M", *latest, absl::LocalTimeZone()))
             : "already run, or set aside, before this clada listen started",
      " (", absl::StrJoin(ids, ", "), "); nothing new");
  Log(absl::StrCat(ClockTime(), " clada listen: ", what));
  rerun_keys_.clear();
  for (const BlockSpan* b : again) rerun_keys_.push_back(b->key);
  WriteNote(absl::StrCat(kSummaryPrefix, ClockTime(), ": ", what, "; ", kOutputFileName, " still holds the last report"),
            absl::StrCat(kRunAgainBox, kRunAgainHow));
}

void Listener::WriteNote(const std::string& first_line, const std::string& body) {
  absl::StatusOr<std::string> current = core::ReadFileToString(file_, kMaxFileBytes);
  if (!current.ok()) {
    Log(absl::StrCat(ClockTime(), " clada listen: note not written into the file: ", current.status().message()));
    return;
  }
  std::string updated = InsertSummary(*current, FormatSummarySection(first_line, body));
  std::string().swap(*current);
  // Blocks saved meanwhile: the save that brought them runs them next.
  bool unrun = false;
  {
    const Scan scan = ScanFreeingIndex(updated);
    unrun = HasRunnable(scan.blocks);
    last_counts_ = CountKeys(scan.blocks);
  }
  absl::Status written = core::WriteFileAtomic(file_, updated);
  if (!written.ok()) {
    Log(absl::StrCat(ClockTime(), " clada listen: note not written into the file: ", written.message()));
    return;
  }
  wrote_section_ = true;
  if (unrun) {
    written_text_.reset();
  } else {
    written_text_ = std::move(updated);
  }
}

}  // namespace

absl::Status Listen(const ListenOptions& options, const RunBlocksFn& run) {
  Listener listener(options, run);
  return listener.Run();
}

}  // namespace clada::listener
