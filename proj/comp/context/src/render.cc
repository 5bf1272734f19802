#include "proj/comp/context/src/render.h"

#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/utf8.h"

namespace clada::context::internal {
namespace {

int Digits(size_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

}  // namespace

std::string EscapeInvalidUtf8(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t n = core::Utf8SequenceLength(text, i);
    if (n == 0) {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned char>(text[i]));
      ++i;
    } else {
      out.append(text.data() + i, n);
      i += n;
    }
  }
  return out;
}

bool LooksBinary(absl::string_view content) {
  return std::memchr(content.data(), '\0', content.size()) != nullptr ||
         !core::IsValidUtf8(content);
}

std::string NumberLines(absl::string_view content) {
  if (content.empty()) return "";
  std::vector<absl::string_view> lines = absl::StrSplit(content, '\n');
  if (lines.back().empty()) lines.pop_back();
  const int width = Digits(lines.size());
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StrAppendFormat(&out, "%*d: %s\n", width, i + 1, lines[i]);
  }
  return out;
}

ShowResult RenderShow(const std::vector<EntryInfo>& entries,
                      const ShowOptions& options) {
  ShowResult result;
  std::string body;
  size_t files = 0;
  size_t not_shown = 0;
  absl::flat_hash_set<std::string> seen;

  for (const EntryInfo& entry : entries) {
    if (entry.kind == EntryKind::kMissing) {
      result.notes.push_back(
          absl::StrCat("'", entry.stored,
                       "' is in the context but does not exist any more; "
                       "`clada context prune` drops it"));
    } else if (entry.kind == EntryKind::kRefused) {
      result.notes.push_back(
          absl::StrCat("'", entry.stored, "' is left out: ", entry.problem));
    }
    for (const std::string& warning : entry.warnings)
      result.notes.push_back(warning);

    for (const FileInfo& file : entry.files) {
      if (!seen.insert(file.path).second) continue;
      ++files;
      if (!body.empty()) body += "\n";
      absl::StrAppend(&body, "=== START FILE: ", file.display, " ===\n");
      absl::StatusOr<std::string> content =
          core::ReadFileToString(file.path, options.max_file_bytes);
      if (!content.ok()) {
        ++not_shown;
        if (options.max_file_bytes >= 0 && file.size > options.max_file_bytes) {
          absl::StrAppend(&body, "[not shown: ", file.size,
                          " bytes, over the limit of ", options.max_file_bytes,
                          " bytes]\n");
        } else {
          absl::StrAppend(&body, "[not shown: cannot be read]\n");
          result.notes.push_back(
              absl::StrCat("'", file.display,
                           "' cannot be read: ", content.status().message()));
        }
      } else if (LooksBinary(*content)) {
        ++not_shown;
        absl::StrAppend(&body, "[binary file, ", content->size(),
                        " bytes, not shown]\n");
      } else if (options.numbered) {
        body += NumberLines(*content);
      } else {
        body += *content;
        if (!content->empty() && content->back() != '\n') body += "\n";
      }
      absl::StrAppend(&body, "=== END FILE: ", file.display, " ===\n");
    }
  }

  result.text =
      absl::StrCat("# Context: ", files, files == 1 ? " file" : " files");
  if (not_shown > 0)
    absl::StrAppend(&result.text, " (", not_shown, " not shown)");
  absl::StrAppend(&result.text, ", ", body.size(), " bytes, ~", body.size() / 4,
                  " tokens\n");
  if (!body.empty()) absl::StrAppend(&result.text, "\n", body);
  return result;
}

}  // namespace clada::context::internal
