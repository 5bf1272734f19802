#include "proj/comp/context/src/render.h"

#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/file_io.h"

namespace clada::context::internal {
namespace {

// The length of the UTF-8 sequence at p, or 0 when it is invalid there
// (a stray continuation byte, 0xF8..0xFF, truncated, overlong, a surrogate,
// above U+10FFFF).
size_t Utf8SequenceLength(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = *p;
  if (c < 0x80) return 1;
  size_t extra;
  uint32_t cp;
  uint32_t min;
  if ((c & 0xE0) == 0xC0) {
    extra = 1, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    extra = 2, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    extra = 3, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (static_cast<size_t>(end - p) <= extra) return 0;
  for (size_t i = 1; i <= extra; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return extra + 1;
}

int Digits(size_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

}  // namespace

bool IsValidUtf8(absl::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    size_t n = Utf8SequenceLength(p, end);
    if (n == 0) return false;
    p += n;
  }
  return true;
}

std::string EscapeInvalidUtf8(absl::string_view text) {
  std::string out;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    size_t n = Utf8SequenceLength(p, end);
    if (n == 0) {
      absl::StrAppendFormat(&out, "\\x%02x", *p);
      ++p;
    } else {
      out.append(reinterpret_cast<const char*>(p), n);
      p += n;
    }
  }
  return out;
}

bool LooksBinary(absl::string_view content) {
  return std::memchr(content.data(), '\0', content.size()) != nullptr ||
         !IsValidUtf8(content);
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
