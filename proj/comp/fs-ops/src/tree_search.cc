#include "proj/comp/fs-ops/src/tree_search.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/fs-ops/src/utf8.h"
#include "re2/re2.h"

namespace clada::fs_ops::internal {
namespace {

bool IsSkippedName(absl::string_view name) { return name == ".git" || name == ".ssh"; }

std::string Iso8601(const struct timespec& ts) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromTimeT(ts.tv_sec), absl::UTCTimeZone());
}

std::string Join(const std::string& dir, absl::string_view name) {
  return dir == "/" ? absl::StrCat("/", name) : absl::StrCat(dir, "/", name);
}

enum class EntryKind { kFile, kDir, kLink, kOther };

struct WalkEntry {
  std::string path;  // absolute
  std::string rel;   // relative to the walk's root
  EntryKind kind;
};

// Depth-first walk below `root`, never following symlinks. `descend` is
// asked for each directory (relative path); `visit` gets every non-directory.
void Walk(const std::string& root, const GitIgnore& ignore, const std::function<bool(absl::string_view)>& descend,
          const std::function<void(WalkEntry&&)>& visit) {
  struct Pending {
    std::string path;
    std::string rel;
  };
  std::vector<Pending> stack;
  stack.push_back({root, ""});
  while (!stack.empty()) {
    Pending dir = std::move(stack.back());
    stack.pop_back();
    int fd = ::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      ::close(fd);
      continue;
    }
    while (struct dirent* e = ::readdir(d)) {
      absl::string_view name = e->d_name;
      if (name == "." || name == ".." || IsSkippedName(name)) continue;
      EntryKind kind = EntryKind::kOther;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
      }
      if (type == DT_DIR) kind = EntryKind::kDir;
      if (type == DT_REG) kind = EntryKind::kFile;
      if (type == DT_LNK) kind = EntryKind::kLink;
      std::string path = Join(dir.path, name);
      std::string rel = dir.rel.empty() ? std::string(name) : absl::StrCat(dir.rel, "/", name);
      if (ignore.active() && ignore.IsIgnored(path, kind == EntryKind::kDir)) continue;
      if (kind == EntryKind::kDir) {
        if (descend(rel)) stack.push_back({std::move(path), std::move(rel)});
      } else {
        visit({std::move(path), std::move(rel), kind});
      }
    }
    ::closedir(d);
  }
}

absl::string_view BaseName(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

bool HasRegexSyntax(absl::string_view pattern) {
  return pattern.find_first_of("\\^$.|?*+()[]{}") != absl::string_view::npos;
}

// Reads a regular file into `buf`; false when it cannot be read.
enum class ReadResult { kOk, kLarge, kUnreadable };
ReadResult ReadWhole(const std::string& path, int64_t max_bytes, std::string* buf) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return ReadResult::kUnreadable;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return ReadResult::kUnreadable;
  }
  if (max_bytes >= 0 && st.st_size > max_bytes) {
    ::close(fd);
    return ReadResult::kLarge;
  }
  size_t want = static_cast<size_t>(st.st_size);
  buf->resize(want);
  size_t got = 0;
  while (got < want) {
    ssize_t n = ::read(fd, buf->data() + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  buf->resize(got);
  return ReadResult::kOk;
}

struct FileHits {
  std::vector<std::pair<int64_t, std::string>> lines;
  int64_t count = 0;
};

std::string CleanLine(absl::string_view line, size_t max_bytes) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  absl::string_view cut = Utf8Prefix(line, max_bytes);
  std::string out = ToValidUtf8(cut);
  if (cut.size() < line.size()) absl::StrAppend(&out, " [line cut at ", max_bytes, " bytes]");
  return out;
}

}  // namespace

absl::StatusOr<Listing> ListDirectory(const std::string& dir, const GitIgnore& ignore) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return core::ErrnoStatus(errno, "cannot list", dir);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("'", dir, "' is not a directory"));
  }
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return core::ErrnoStatus(errno, "cannot list", dir);
  bool filter = ignore.active() && !ignore.IsIgnored(dir, true);
  Listing out;
  while (struct dirent* e = ::readdir(d)) {
    absl::string_view name = e->d_name;
    if (name == "." || name == ".." || IsSkippedName(name)) continue;
    std::string path = Join(dir, name);
    struct stat es;
    if (::lstat(path.c_str(), &es) != 0) continue;
    ListedEntry entry;
    entry.name = ToValidUtf8(name);
    if (S_ISDIR(es.st_mode)) {
      entry.type = "directory";
    } else if (S_ISREG(es.st_mode)) {
      entry.type = "file";
      entry.size = es.st_size;
    } else if (S_ISLNK(es.st_mode)) {
      entry.type = "symlink";
      entry.size = es.st_size;
      char target[4096];
      ssize_t n = ::readlink(path.c_str(), target, sizeof target);
      if (n > 0) entry.target = ToValidUtf8(absl::string_view(target, static_cast<size_t>(n)));
    } else {
      entry.type = "other";
    }
    if (filter && ignore.IsIgnored(path, S_ISDIR(es.st_mode))) {
      ++out.ignored;
      continue;
    }
    entry.modified = Iso8601(es.st_mtim);
    out.entries.push_back(std::move(entry));
  }
  ::closedir(d);
  std::sort(out.entries.begin(), out.entries.end(),
            [](const ListedEntry& a, const ListedEntry& b) { return a.name < b.name; });
  return out;
}

GrepQuery::~GrepQuery() = default;

absl::StatusOr<std::unique_ptr<GrepQuery>> GrepQuery::Create(absl::string_view pattern) {
  std::unique_ptr<GrepQuery> q(new GrepQuery());
  if (pattern.empty()) {
    return absl::InvalidArgumentError("the pattern is empty; give a regular expression (RE2 syntax) or a word");
  }
  if (pattern.find('\n') != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        "the pattern contains a line break, but grep matches one line at a time; search for one line of the text");
  }
  if (!HasRegexSyntax(pattern)) {
    q->is_literal_ = true;
    q->literal_ = std::string(pattern);
    return q;
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_never_nl(true);
  q->re_ = std::make_unique<RE2>(absl::StrCat("(?m)", pattern), options);
  if (!q->re_->ok()) {
    // Report RE2's own diagnosis against the pattern as given.
    RE2 plain(re2::StringPiece(pattern.data(), pattern.size()), options);
    return absl::InvalidArgumentError(absl::StrCat("the pattern is not a valid RE2 regular expression (",
                                                   plain.ok() ? q->re_->error() : plain.error(),
                                                   "). RE2 has no backreferences or lookaround; escape literal "
                                                   "characters such as ( [ . * with a backslash"));
  }
  return q;
}

int64_t GrepQuery::SearchText(absl::string_view text, std::vector<std::pair<int64_t, absl::string_view>>* out) const {
  int64_t count = 0;
  int64_t line_no = 1;
  size_t counted_to = 0;
  size_t pos = 0;
  const char* data = text.data();
  while (pos < text.size()) {
    size_t mb, me;
    if (is_literal_) {
      const void* hit = memmem(data + pos, text.size() - pos, literal_.data(), literal_.size());
      if (hit == nullptr) break;
      mb = static_cast<size_t>(static_cast<const char*>(hit) - data);
      me = mb + literal_.size();
    } else {
      re2::StringPiece m;
      if (!re_->Match(re2::StringPiece(text.data(), text.size()), pos, text.size(), RE2::UNANCHORED, &m, 1)) break;
      mb = static_cast<size_t>(m.data() - data);
      me = mb + m.size();
    }
    const void* prev_nl = mb > pos ? memrchr(data + pos, '\n', mb - pos) : nullptr;
    size_t line_begin = prev_nl == nullptr ? pos : static_cast<size_t>(static_cast<const char*>(prev_nl) - data) + 1;
    const void* next_nl = memchr(data + mb, '\n', text.size() - mb);
    size_t line_end = next_nl == nullptr ? text.size() : static_cast<size_t>(static_cast<const char*>(next_nl) - data);
    if (mb == line_end && line_end < text.size() && me > mb) {
      // The match begins at a line break: it belongs to the next line.
      pos = line_end + 1;
      continue;
    }
    absl::string_view line = text.substr(line_begin, line_end - line_begin);
    bool ok = true;
    if (!is_literal_ && me > line_end) ok = RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re_);  // spans lines: check the line alone
    if (ok) {
      line_no += std::count(data + counted_to, data + line_begin, '\n');
      counted_to = line_begin;
      ++count;
      if (out != nullptr) out->emplace_back(line_no, line);
    }
    pos = line_end + 1;
  }
  return count;
}

absl::StatusOr<GrepOutcome> Grep(const std::string& root, const GrepQuery& query, const GlobPattern* include,
                                 const GitIgnore& ignore, const SearchLimits& limits) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) return core::ErrnoStatus(errno, "cannot search", root);
  std::vector<std::string> files;
  if (S_ISDIR(st.st_mode)) {
    Walk(
        root, ignore, [](absl::string_view) { return true; },
        [&](WalkEntry&& e) {
          if (e.kind != EntryKind::kFile) return;
          if (include != nullptr && !include->Matches(include->NameOnly() ? BaseName(e.rel) : e.rel)) return;
          files.push_back(std::move(e.path));
        });
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(root);
  }

  GrepOutcome out;
  std::vector<FileHits> hits(files.size());
  std::vector<char> status(files.size(), 0);  // 0 ok, 1 binary, 2 large, 3 unreadable
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::string buf;
    std::vector<std::pair<int64_t, absl::string_view>> found;
    while (true) {
      size_t i = next.fetch_add(1);
      if (i >= files.size()) break;
      ReadResult r = ReadWhole(files[i], limits.max_file_bytes, &buf);
      if (r != ReadResult::kOk) {
        status[i] = r == ReadResult::kLarge ? 2 : 3;
        continue;
      }
      if (memchr(buf.data(), '\0', buf.size()) != nullptr) {
        status[i] = 1;
        continue;
      }
      found.clear();
      hits[i].count = query.SearchText(buf, &found);
      size_t keep = std::min(found.size(), limits.max_matches);
      hits[i].lines.reserve(keep);
      for (size_t k = 0; k < keep; ++k) {
        hits[i].lines.emplace_back(found[k].first, CleanLine(found[k].second, limits.max_line_bytes));
      }
    }
  };
  int threads = limits.threads > 0 ? limits.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, 16));
  if (files.size() < 64) threads = 1;
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();

  for (size_t i = 0; i < files.size(); ++i) {
    switch (status[i]) {
      case 1: ++out.binary_skipped; continue;
      case 2: ++out.large_skipped; continue;
      case 3: ++out.unreadable; continue;
      default: break;
    }
    ++out.files_searched;
    out.total_matches += hits[i].count;
    for (auto& [line_no, line] : hits[i].lines) {
      if (out.matches.size() >= limits.max_matches) break;
      out.matches.push_back({files[i], line_no, std::move(line)});
    }
  }
  out.truncated = out.total_matches > static_cast<int64_t>(out.matches.size());
  return out;
}

absl::StatusOr<GlobOutcome> Glob(const std::string& base, const GlobPattern& pattern, const GitIgnore& ignore,
                                 const SearchLimits& limits) {
  struct stat st;
  if (::stat(base.c_str(), &st) != 0) return core::ErrnoStatus(errno, "cannot search", base);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("'", base, "' is not a directory"));
  }
  GlobOutcome out;
  Walk(
      base, ignore, [&](absl::string_view rel) { return pattern.CouldMatchBelow(rel); },
      [&](WalkEntry&& e) {
        if (e.kind != EntryKind::kFile && e.kind != EntryKind::kLink) return;
        if (pattern.Matches(e.rel)) out.paths.push_back(std::move(e.path));
      });
  std::sort(out.paths.begin(), out.paths.end());
  out.total = static_cast<int64_t>(out.paths.size());
  if (out.paths.size() > limits.max_glob_matches) {
    out.paths.resize(limits.max_glob_matches);
    out.truncated = true;
  }
  return out;
}

}  // namespace clada::fs_ops::internal
