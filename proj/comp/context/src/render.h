// Internal: `clada context show`, the whole working set as one paste for an
// LLM:
//
//   # Context: 2 files, 81 bytes, ~20 tokens
//
//   === START FILE: src/a.txt ===
//   hello
//   === END FILE: src/a.txt ===
//
//   === START FILE: logo.png ===
//   [binary file, 2048 bytes, not shown]
//   === END FILE: logo.png ===
//
// The header's bytes are those of everything below it, and tokens are
// bytes/4. A file's content always ends with a newline before its END line.
#ifndef CLADA_PROJ_COMP_CONTEXT_SRC_RENDER_H_
#define CLADA_PROJ_COMP_CONTEXT_SRC_RENDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proj/comp/context/src/expand.h"

namespace clada::context::internal {

// `text` with each byte that is not part of a valid UTF-8 sequence written
// as \xNN, so it can go into a JSON report.
std::string EscapeInvalidUtf8(absl::string_view text);

// True when `content` holds a NUL byte or is not valid UTF-8.
bool LooksBinary(absl::string_view content);

// "N: line\n" per line, N right-aligned to the widest number, as
// file_read_numbered prints them. A final newline does not start a line.
std::string NumberLines(absl::string_view content);

struct ShowOptions {
  bool numbered = false;
  int64_t max_file_bytes =
      -1;  // larger files are listed, not printed; < 0: no limit
};

struct ShowResult {
  std::string text;  // header and file sections
  std::vector<std::string>
      notes;  // for the person: missing entries, unreadable files
};

// Renders the files of `entries` in entry order, each file once.
ShowResult RenderShow(const std::vector<EntryInfo>& entries,
                      const ShowOptions& options);

}  // namespace clada::context::internal

#endif  // CLADA_PROJ_COMP_CONTEXT_SRC_RENDER_H_
