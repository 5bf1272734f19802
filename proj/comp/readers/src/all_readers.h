// The registry: the one list of the dialects clada reads. Adding a dialect
// is its reader component plus one line in all_readers.cc.
#ifndef CLADA_PROJ_COMP_READERS_SRC_ALL_READERS_H_
#define CLADA_PROJ_COMP_READERS_SRC_ALL_READERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proj/comp/answer/src/reader.h"

namespace clada::readers {

// Which dialects the registry reads, as a number that only grows: 1 the
// strict grammar's SHAM blocks only; 2 also chat noise tolerated, quoted
// blocks and CML; 3 also Aider's SEARCH/REPLACE blocks; 4 also CSL
// operations; 5 also the seeds' replacer blocks; 6 also Codex apply_patch
// envelopes and unified diffs; 7 the same dialects, a listener's keys made
// of each block's dialect and text. A new dialect raises it (with its line
// in all_readers.cc and test-data/dialects.json): a listener's state
// records it, and a file listened to by an older one starts afresh.
inline constexpr int kDialectsVersion = 7;

// The dialect `clada instructions` teaches when none is named: the
// schema's own (its tools are clada mcp's).
inline constexpr char kDefaultDialect[] = "sham";

// What a reader needs from the settings.
struct ReaderOptions {
  std::string csl_start = "<---";  // settings csl_start, csl_end
  std::string csl_end = "--->";
  size_t max_input_bytes = 50u * 1024 * 1024;  // settings max_input_bytes
};

// Every reader, in the order that breaks a tie between two blocks that
// start at the same byte (the first listed wins).
class Registry {
 public:
  explicit Registry(const ReaderOptions& options = {});
  absl::Span<const answer::Reader* const> readers() const { return view_; }
  // The reader of `dialect` ("sham", "cml", ...), or null.
  const answer::Reader* Find(absl::string_view dialect) const;
  // The dialects' names, in registry order (not the readers of text that
  // holds no block: clada's report).
  std::vector<std::string> Dialects() const;

 private:
  std::vector<std::unique_ptr<answer::Reader>> owned_;
  std::vector<const answer::Reader*> view_;
};

}  // namespace clada::readers

#endif  // CLADA_PROJ_COMP_READERS_SRC_ALL_READERS_H_
