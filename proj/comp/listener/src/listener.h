// `clada listen FILE`: the chat round trip. A person pastes an LLM's answer
// into FILE and saves; the listener notices (inotify on FILE's directory),
// finds the blocks it has never run, hands exactly their text to a callback
// (the orchestrator, wired by the caller), and writes the results back: a
// summary at the top of FILE, the full report in `.clada-output-latest.txt`
// beside FILE, and the clipboard when a clipboard tool is installed.
//
// The listener does not depend on the orchestrator; the caller passes a
// RunBlocksFn that runs the given text the way `clada run` does.
//
// Example:
//   clada::listener::ListenOptions options;
//   options.file = "/home/me/proj/answer.md";
//   options.state_dir = "/home/me/proj/.clada";
//   options.should_stop = [] { return g_interrupted.load(); };
//   options.log = &std::cerr;
//   absl::Status s = clada::listener::Listen(options, [&](const std::string& text, int64_t answer) {
//     ExecutionResult r = Clada(clada_options).Execute(text);
//     return clada::listener::RunReport{FormatResultsSection(r), FormatReport(r, max_bytes),
//                                       FormatSummaryLine(r), r.total_blocks};
//   });
//
// The pure pieces (block scanning, new-block detection, results-section
// stripping, summary insertion, the remembered state) are public so they can
// be tested and reused without a watcher.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_LISTENER_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_LISTENER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/readers/src/all_readers.h"

namespace clada::listener {

// Markers of the sections clada writes (the same lines as the orchestrator's
// report). They count only as whole lines starting at column 0; the body of
// a summary the listener writes never holds one (FormatSummarySection).
inline constexpr char kResultsMarker[] = "=== CLADA RESULTS ===";
inline constexpr char kOutputsMarker[] = "=== OUTPUTS ===";
inline constexpr char kEndMarker[] = "=== END ===";

// Starts the first line of every summary the listener writes; a section at
// the top of FILE whose first line starts so is the listener's own.
inline constexpr char kSummaryPrefix[] = "clada listen ";
// Beside FILE: the full report of the latest run (after those of earlier
// runs nobody could see yet, see Listen).
inline constexpr char kOutputFileName[] = ".clada-output-latest.txt";
// In the state directory: the keys of every block already run.
inline constexpr char kStateFileName[] = "listen-state.json";
// In the state directory: held (flock) while a listener runs.
inline constexpr char kLockFileName[] = "listen.lock";
// The oldest keys are forgotten beyond this many.
inline constexpr size_t kMaxRememberedBlocks = 10000;
// The files listened to before; the oldest are forgotten beyond this many
// (a forgotten file's next start is a first start again).
inline constexpr size_t kMaxRememberedFiles = 1000;
// The most runs one write-back shows: its own and those before it whose
// results nobody could see yet (FILE was saved while each ran); the oldest
// are left out beyond this many.
inline constexpr size_t kMaxRunsShown = 4;
// Written into a FILE that does not exist yet.
inline constexpr char kNewFileText[] =
    "Paste an LLM answer below this line and save: clada runs its new blocks and puts the results "
    "at the top of this file.\n";

// What the callback reports about one run.
struct RunReport {
  std::string summary;      // results section; goes at the top of FILE
  std::string full_report;  // results + outputs; goes to .clada-output-latest.txt and the clipboard
  std::string stderr_line;  // "N succeeded, M failed, K skipped"
  int blocks_run = 0;       // blocks the runner saw; 0 lets the listener count them
};

// Runs exactly `answer_text` (the new blocks only) and reports the outcome.
// `answer` numbers the answer the blocks belong to (ContinuesAnswer): the
// batches of one answer saved in pieces while it was written share it, so
// the run keeps the answer's line record (core::AnswerLines) across them
// and a later line edit numbers the file as the model read it; a new answer
// gets the next number, and a new record.
using RunBlocksFn = std::function<RunReport(const std::string& answer_text, int64_t answer)>;

// Where an answer stood when its last batch ran: FILE's text below the
// listener's section at the top (BelowTopSection), as its length and hash.
struct AnswerMark {
  size_t length = 0;
  uint64_t hash = 0;
};

// The text of FILE below the listener's own section at the top and the
// blank lines after it (all of `file_text` when there is none).
absl::string_view BelowTopSection(absl::string_view file_text);

// The mark of `file_text` as read for a run (its BelowTopSection).
AnswerMark MarkAnswer(absl::string_view file_text);

// True when blocks starting at line `first_line` of `file_text` continue
// the answer `mark` was taken of: the text below the top section begins
// with the text the mark was taken of (nothing of it changed: the answer was
// only added to) and what was added before that line holds no results
// marker line (clada's report pasted back, which a next answer answers).
// Anything else (the file replaced, an earlier line edited, a report pasted
// in between) starts a new answer. The text cannot tell the rest of an
// answer from a next answer appended below it with nothing between: both
// continue.
bool ContinuesAnswer(const AnswerMark& mark, absl::string_view file_text, int first_line);

struct ListenOptions {
  std::string file;                   // absolute path of FILE; its directory must exist
  std::string state_dir;              // <root>/.clada; created when missing
  int debounce_ms = 30;               // quiet time after a save before FILE is read
  std::function<bool()> should_stop;  // polled at least every 100 ms; Ctrl-C sets it
  std::ostream* log = nullptr;        // one line per run (and one at start); null: silent
  std::function<void()> on_ready;     // called once the watch is in place (harnesses, tests)
  readers::ReaderOptions readers;     // what the readers take from the settings (CSL's delimiters, ...)
};

// One block found by the scanner: a block of the answer layer (the
// segmenter over the registry's readers, as `clada run` finds it), from the
// start of its first line through the end of its last.
struct ScannedBlock {
  std::string dialect;  // its reader's name ("sham", "udiff", ...: readers::Registry)
  std::string key;      // BlockKey(dialect, text)
  std::string text;     // the block's lines as in the file, line terminators included
  int start_line = 0;   // 1-based, its first line
  int end_line = 0;     // 1-based, its last line
  bool closed = false;  // its end is there (answer::Span::closed and complete); an unclosed one may still be arriving
};

// Finds the blocks of `text` (after a leading byte order mark), in order:
// the blocks answer::SegmentAnswer finds over the readers of a
// readers::Registry made with `options`, the same a run reads (one truth:
// the listener keeps no rules of its own about where a dialect's block
// starts, ends, or lies inside another's). Text a reader yields no blocks
// from (clada's results sections, its report pasted back) holds none.
//
// With `with_texts` false, each block's `text` is left empty (its key is
// still of its text): the listener, which needs only where the blocks are,
// then holds no copy of a file of a hundred thousand blocks.
std::vector<ScannedBlock> ScanBlocks(absl::string_view text, const readers::ReaderOptions& options = {},
                                     bool with_texts = true);

// `text` without its results sections: the lines of the segments the
// registry's readers that yield no blocks take (clada's report pasted
// back), as ScanBlocks (default options) finds them.
std::string StripResultsSections(absl::string_view text);

// "<id>:<16 hex digits>": the id (bytes other than printable ASCII made '_')
// and a 64-bit FNV-1a hash of the block's text with '\r' and trailing
// spaces/tabs of each line removed, so an editor that trims whitespace or
// changes line endings does not make a block new. Stable across processes
// and builds.
std::string BlockKey(absl::string_view id, absl::string_view block_text);

// The 64-bit FNV-1a hash of a key (BlockKey): how the listener holds and
// records a key, 8 bytes where the key's string takes over 50. Stable
// across processes and builds (it is written to the state file); two
// keys that hash alike are not a concern at 2^-64.
uint64_t KeyCode(absl::string_view key);

// What the listener remembers across restarts in
// <state_dir>/listen-state.json: the keys of the blocks already run (or set
// aside at a first start), oldest first, as KeyCodes, and the files it has
// listened to. A file not in files() is on its first start: the blocks
// already in it are recorded, not run. For a known file, any block not
// recorded is new and runs, also one saved while the listener was stopped.
class ListenState {
 public:
  bool HasRun(uint64_t code) const { return index_.contains(code); }
  bool HasRun(const std::string& key) const { return HasRun(KeyCode(key)); }
  // Adds `code` (when known, only its run number is updated); past
  // kMaxRememberedBlocks (or past the blocks present, when more), forgets
  // the oldest key that is not present (SetPresent): a key still in the
  // file is never forgotten, or its block would run again at the next
  // save. `run` is the caller's number for the run (0: none); it is kept in
  // memory only.
  void MarkRun(uint64_t code, uint32_t run = 0);
  void MarkRun(const std::string& key) { MarkRun(KeyCode(key)); }
  // The highest run number any of `codes` was last marked with; 0 when
  // none has one. One pass over the keys.
  uint32_t LatestRunOf(const std::vector<uint64_t>& codes) const;
  // The keys of the blocks now in the listened file (replacing the last);
  // only MarkRun reads them.
  void SetPresent(std::vector<uint64_t> codes);
  void SetPresent(const std::vector<std::string>& keys);
  const std::deque<uint64_t>& keys() const { return keys_; }
  // Frees the set that answers HasRun (a million keys: 19 MB), for a while
  // nothing asks (the listener's run); RestoreIndex builds it again from
  // the keys. HasRun must not be called in between.
  void ReleaseIndex() { absl::flat_hash_set<uint64_t>().swap(index_); }
  void RestoreIndex() { index_ = absl::flat_hash_set<uint64_t>(keys_.begin(), keys_.end()); }

  // `file` is an absolute path, as Listen watches it.
  bool HasListenedTo(const std::string& file) const { return file_index_.contains(file); }
  // Adds `file` (no-op when known); forgets the oldest past kMaxRememberedFiles.
  void MarkListenedTo(const std::string& file);
  const std::deque<std::string>& files() const { return files_; }

 private:
  bool Present(uint64_t code) const { return std::binary_search(present_.begin(), present_.end(), code); }

  // 20 bytes a key in all (a million keys: 31 MB): the codes, their run
  // numbers beside them, and a set of the codes.
  std::deque<uint64_t> keys_;
  std::deque<uint32_t> runs_;                      // runs_[i]: the run number keys_[i] was added with
  absl::flat_hash_map<uint64_t, uint32_t> rerun_;  // the run number of a key marked again since
  absl::flat_hash_set<uint64_t> index_;            // the codes of keys_
  std::vector<uint64_t> present_;                  // sorted (SetPresent)
  std::deque<std::string> files_;
  absl::flat_hash_set<std::string> file_index_;
};

// Reads <state_dir>/listen-state.json; a missing file is an empty state.
// A state of version 2 (what SaveListenState writes) records each key as
// its KeyCode in 16 lowercase hex digits; one of version 1 (written by
// earlier listeners) as the key itself, recorded here by its KeyCode.
// "files" may be absent: no file known; they are not read from a state
// whose "readers" is absent or below readers::kDialectsVersion (7: below,
// a listener saw fewer blocks or keyed them by a SHAM ID or a short tag).
// Errors: DataLoss when the file is not a listen state (the message names
// the file and says to delete it to start afresh: the next start is then a
// first start, which sets aside the blocks in FILE); the ReadFileToString
// errors otherwise.
absl::StatusOr<ListenState> LoadListenState(const std::string& state_dir);

// Writes <state_dir>/listen-state.json atomically (core::WriteFileAtomic):
// {"version": 2, "readers": 7, "ran": [code, ...], "files": [path, ...]}
// (each code 16 lowercase hex digits; "readers": which blocks the listener
// saw; LoadListenState forgets the files of a state without it, or below
// 7, so their next start is a first start). A listener that reads only
// version 1 refuses this state and says to delete it: its next start is
// then a first start, which sets aside, never runs. The directory must
// exist.
// Errors: those of WriteFileAtomic.
absl::Status SaveListenState(const std::string& state_dir, const ListenState& state);

// The blocks of `text` that `state` has not run, in file order, each key
// once (a block repeated in the same text runs once).
std::vector<ScannedBlock> FindNewBlocks(absl::string_view text, const ListenState& state,
                                        const readers::ReaderOptions& options = {});

// The text handed to the callback: every line of `file_text` that belongs to
// one of `blocks` kept, every other line made empty, so line numbers in the
// report are FILE's; empty lines after the last block are dropped.
std::string BuildRunText(absl::string_view file_text, const std::vector<ScannedBlock>& blocks);

// The section written at the top of FILE:
//   === CLADA RESULTS ===
//   <first_line>            (says when, the counts, and where the output went)
//   <summary lines>         (a leading results marker and a trailing END
//                            marker in `summary` are dropped, not doubled)
//   === END ===
// No line between the two markers can end the section or open a block,
// whatever a run printed: a body line (or a part of it after a lone '\r')
// that, trimmed, is one of the three section markers or starts with `#!`
// gets a '\' before its first non-blank character ("    \=== END ===").
std::string FormatSummarySection(absl::string_view first_line, absl::string_view summary);

// `file_text` with `section` at the top, followed by one empty line. The
// listener's own section already at the top (after blank lines only: the
// exact marker line, then a line starting with kSummaryPrefix, through the
// next exact END line) is replaced, together with the blank lines after it,
// rather than stacked; any other text is kept below.
std::string InsertSummary(absl::string_view file_text, absl::string_view section);

// Watches options.file until options.should_stop() returns true. On each
// completed save (IN_CLOSE_WRITE, IN_MOVED_TO or IN_CREATE of FILE's name,
// followed by debounce_ms without another event) it reads FILE, records the
// new blocks in the state, calls `run` once with their text, and writes the
// results back.
//
// At start: on the first start for FILE (not in the state's files()), the
// blocks already in it are recorded without running, so an old chat does
// not run again; on a later start, the blocks not in the state (saved while
// no listener ran) run at once. The start line of the log says which and
// how many. A trailing block without its end marker waits 300 ms for more
// text before it runs. A missing FILE is created with kNewFileText; a
// symlinked FILE is resolved once, at start, and FILE's directory made
// canonical. Writing FILE back does not cause a run; a save during a run is
// handled after it. Failures of one write-back (output file, clipboard,
// FILE) are logged and listening goes on.
//
// Results nobody could see are not replaced: when FILE, re-read for a
// write-back, holds blocks not run yet (saved while the run went), the next
// write-back shows that write-back's runs first, then its own, in the
// summary and in the output file and clipboard, each run under a heading
// line. This accumulates while each run is saved over so, up to
// kMaxRunsShown runs (older ones left out, with a line saying how many),
// and resets once a write-back's FILE holds no unrun block or a read of
// FILE finds none to run.
//
// Returns OK when stopped. Errors: InvalidArgument (file not absolute, empty
// state_dir, no callback, negative debounce); NotFound (FILE's directory is
// missing); FailedPrecondition (another listener holds the state dir, or
// FILE's directory was removed or moved while listening); DataLoss (state
// file unreadable); the error of SaveListenState when the blocks set aside
// at a first start or about to run cannot be recorded (nothing runs
// unrecorded); Internal (inotify failure).
absl::Status Listen(const ListenOptions& options, const RunBlocksFn& run);

}  // namespace clada::listener

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_LISTENER_H_
