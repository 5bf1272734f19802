// Explains a miss: why the LLM's old_text is not in the file, so that it can
// fix the text in one turn. The diagnosis only reports; nothing it finds is
// ever applied.
//
// Bounded work: a few linear passes over the file and memmem searches for a
// handful of tokens (well under 5 ms on a 2 MB file; see bench/).
//
// Example:
//   MissDiagnosis d = DiagnoseMiss("\tif x:\n", "    if x:", "old_text");
//   // d.kind == MissKind::kNormalized, d.differences == {"indentation"}
#ifndef CLADA_PROJ_COMP_FS_OPS_SRC_MISS_DIAGNOSIS_H_
#define CLADA_PROJ_COMP_FS_OPS_SRC_MISS_DIAGNOSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace clada::fs_ops::internal {

enum class MissKind {
  kNothingClose,  // no similar text in the file
  kNormalized,    // matches once line endings, whitespace, indentation,
                  // Unicode punctuation or letter case are normalised
  kClose,         // a region shares most of old_text's words
};

struct MissDiagnosis {
  MissKind kind = MissKind::kNothingClose;
  int64_t first_line = 0;  // 1-based region in the file (0 when nothing close)
  int64_t last_line = 0;
  int64_t normalized_matches = 0;  // kNormalized: how many places match
  // kNormalized: what differs, from "line endings", "trailing whitespace",
  // "indentation", "whitespace", "blank lines", "unicode punctuation",
  // "letter case". kClose: empty.
  std::vector<std::string> differences;
  // Full explanation for the LLM: where, what differs (made visible with
  // escapes such as \t and \r), and the region's lines as they are.
  std::string message;
};

// Diagnoses why `needle` does not occur in `text` (a file's content without
// its BOM). `what` names the needle in messages ("old_text").
MissDiagnosis DiagnoseMiss(absl::string_view text, absl::string_view needle, absl::string_view what);

// `line` quoted, with tabs, carriage returns, control characters and
// invisible or look-alike Unicode characters written as escapes: "\tx = 1;\r".
std::string VisibleLine(absl::string_view line);

}  // namespace clada::fs_ops::internal

#endif  // CLADA_PROJ_COMP_FS_OPS_SRC_MISS_DIAGNOSIS_H_
