#include "proj/comp/fs-ops/src/tree_search.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/fs-ops/src/text_edit.h"
#include "proj/comp/fs-ops/src/utf8.h"
#include "re2/re2.h"

namespace clada::fs_ops::internal {
namespace {

// Entries no action may read, so no walk shows them: git internals, keys,
// and clada's own state (.clada).
bool IsSkippedName(absl::string_view name) { return name == ".git" || name == ".ssh" || name == ".clada"; }

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
bool Walk(const std::string& root, const GitIgnore& ignore, absl::Time deadline,
          const std::function<bool(absl::string_view)>& descend, const std::function<void(WalkEntry&&)>& visit) {
  struct Pending {
    std::string path;
    std::string rel;
    std::shared_ptr<const IgnoreNameFilter> filter;  // rules in effect above this directory
  };
  struct Entry {
    std::string name;
    EntryKind kind;
  };
  std::vector<Pending> stack;
  stack.push_back({root, "", ignore.FilterAbove(root)});
  std::vector<Entry> entries;
  while (!stack.empty()) {
    if (deadline != absl::InfiniteFuture() && absl::Now() >= deadline) return false;
    Pending dir = std::move(stack.back());
    stack.pop_back();
    int fd = ::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      ::close(fd);
      continue;
    }
    entries.clear();
    bool has_gitignore = false;
    while (struct dirent* e = ::readdir(d)) {
      absl::string_view name = e->d_name;
      if (name == "." || name == ".." || IsSkippedName(name)) continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
      }
      EntryKind kind = type == DT_DIR   ? EntryKind::kDir
                       : type == DT_REG ? EntryKind::kFile
                       : type == DT_LNK ? EntryKind::kLink
                                        : EntryKind::kOther;
      if (name == ".gitignore" && kind == EntryKind::kFile) has_gitignore = true;
      entries.push_back({std::string(name), kind});
    }
    ::closedir(d);
    std::shared_ptr<const IgnoreNameFilter> filter = dir.filter;
    if (has_gitignore && filter != nullptr) filter = filter->WithFile(Join(dir.path, ".gitignore"));
    for (Entry& e : entries) {
      std::string path = Join(dir.path, e.name);
      if (ignore.active() && ignore.IsIgnored(path, e.kind == EntryKind::kDir, filter.get())) continue;
      std::string rel = dir.rel.empty() ? std::move(e.name) : absl::StrCat(dir.rel, "/", e.name);
      if (e.kind == EntryKind::kDir) {
        if (descend(rel)) stack.push_back({std::move(path), std::move(rel), filter});
      } else {
        visit({std::move(path), std::move(rel), e.kind});
      }
    }
  }
  return true;
}

bool HasRegexSyntax(absl::string_view pattern) {
  return pattern.find_first_of("\\^$.|?*+()[]{}") != absl::string_view::npos;
}

// Reads the regular file `name` of directory `dirfd` into `buf`, without
// following a symlink.
// O_NONBLOCK: a FIFO (or device) put there since the listing is opened
// without waiting for a writer, and fstat refuses it.
enum class ReadResult { kOk, kLarge, kUnreadable, kSpecial };
ReadResult ReadWhole(int dirfd, const char* name, int64_t max_bytes, std::string* buf) {
  int fd = ::openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return ReadResult::kUnreadable;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return ReadResult::kUnreadable;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return ReadResult::kSpecial;
  }
  if (max_bytes >= 0 && st.st_size > max_bytes) {
    ::close(fd);
    return ReadResult::kLarge;
  }
  size_t want = static_cast<size_t>(st.st_size);
  if (buf->size() < want) buf->resize(want);
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
    if (!is_literal_ && me > line_end)
      ok = RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re_);  // spans lines: check the line alone
    if (ok) {
      line_no += CountNewlines(text.substr(counted_to, line_begin - counted_to));
      counted_to = line_begin;
      ++count;
      if (out != nullptr) out->emplace_back(line_no, line);
    }
    pos = line_end + 1;
  }
  return count;
}

namespace {

// Orders matches by path, then line.
struct MatchLess {
  bool operator()(const GrepMatch& a, const GrepMatch& b) const {
    return a.path != b.path ? a.path < b.path : a.line_number < b.line_number;
  }
};

// One grep: workers take directories from a shared queue, list them, queue
// their subdirectories and search their files (opened relative to the
// directory). Each worker keeps the first max_matches matches in path order
// in a bounded heap, so memory stays bounded whatever the pattern.
class ParallelGrep {
 public:
  ParallelGrep(const GrepQuery& query, const GlobPattern* include, const GitIgnore& ignore, const SearchLimits& limits)
      : query_(query), include_(include), ignore_(ignore), limits_(limits) {}

  GrepOutcome RunOnTree(const std::string& root, int threads) {
    queue_.push_back({root, "", ignore_.FilterAbove(root)});
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back([this] { Work(); });
    Work();
    for (std::thread& t : pool) t.join();
    return Merge();
  }

  GrepOutcome RunOnFile(const std::string& path) {
    size_t slash = path.rfind('/');
    std::string dir = slash == 0 ? "/" : path.substr(0, slash);
    int dirfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    Worker w;
    if (dirfd >= 0) {
      SearchFile(dirfd, path.substr(slash + 1), path, &w);
      ::close(dirfd);
    } else {
      ++w.out.unreadable;
    }
    workers_.push_back(std::move(w));
    return Merge();
  }

 private:
  struct Pending {
    std::string path;
    std::string rel;
    std::shared_ptr<const IgnoreNameFilter> filter;
  };
  struct Worker {
    GrepOutcome out;              // counters; matches unused
    std::vector<GrepMatch> heap;  // max-heap by MatchLess, at most max_matches
    std::string buf;
    std::vector<std::pair<int64_t, absl::string_view>> found;
  };

  void Work() {
    Worker w;
    while (true) {
      Pending dir;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty() || active_ == 0; });
        if (queue_.empty()) break;  // and nobody is listing: done
        if (PastDeadline()) {       // the rest of the queue is left unsearched
          timed_out_ = true;
          queue_.clear();
          break;
        }
        dir = std::move(queue_.back());
        queue_.pop_back();
        ++active_;
      }
      ListAndSearch(dir, &w);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --active_;
      }
      cv_.notify_all();
    }
    cv_.notify_all();
    std::lock_guard<std::mutex> lock(mu_);
    workers_.push_back(std::move(w));
  }

  bool PastDeadline() const { return limits_.deadline != absl::InfiniteFuture() && absl::Now() >= limits_.deadline; }

  void ListAndSearch(const Pending& dir, Worker* w) {
    int fd = ::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    int list_fd = ::dup(fd);
    DIR* d = list_fd < 0 ? nullptr : ::fdopendir(list_fd);
    if (d == nullptr) {
      if (list_fd >= 0) ::close(list_fd);
      ::close(fd);
      return;
    }
    std::vector<std::pair<std::string, unsigned char>> entries;
    bool has_gitignore = false;
    while (struct dirent* e = ::readdir(d)) {
      absl::string_view name = e->d_name;
      if (name == "." || name == ".." || IsSkippedName(name)) continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
      }
      if (type != DT_DIR && type != DT_REG) {  // symlinks and specials are never searched
        if (type != DT_LNK) ++w->out.special_skipped;
        continue;
      }
      if (name == ".gitignore") has_gitignore = true;
      entries.emplace_back(std::string(name), type);
    }
    ::closedir(d);
    std::shared_ptr<const IgnoreNameFilter> filter = dir.filter;
    if (has_gitignore && filter != nullptr) filter = filter->WithFile(Join(dir.path, ".gitignore"));
    std::vector<Pending> subdirs;
    for (auto& [name, type] : entries) {
      std::string path = Join(dir.path, name);
      if (ignore_.active() && ignore_.IsIgnored(path, type == DT_DIR, filter.get())) continue;
      std::string rel = dir.rel.empty() ? name : absl::StrCat(dir.rel, "/", name);
      if (type == DT_DIR) {
        if (include_ == nullptr || include_->NameOnly() || include_->CouldMatchBelow(rel)) {
          subdirs.push_back({std::move(path), std::move(rel), filter});
        }
        continue;
      }
      if (include_ != nullptr && !include_->Matches(include_->NameOnly() ? absl::string_view(name) : rel)) continue;
      SearchFile(fd, name, path, w);
    }
    ::close(fd);
    if (!subdirs.empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (Pending& p : subdirs) queue_.push_back(std::move(p));
      }
      cv_.notify_all();
    }
  }

  void SearchFile(int dirfd, const std::string& name, const std::string& path, Worker* w) {
    ReadResult r = ReadWhole(dirfd, name.c_str(), limits_.max_file_bytes, &w->buf);
    if (r == ReadResult::kLarge) {
      ++w->out.large_skipped;
      return;
    }
    if (r == ReadResult::kUnreadable) {
      ++w->out.unreadable;
      return;
    }
    if (r == ReadResult::kSpecial) {
      ++w->out.special_skipped;
      return;
    }
    if (memchr(w->buf.data(), '\0', w->buf.size()) != nullptr) {
      ++w->out.binary_skipped;
      return;
    }
    ++w->out.files_searched;
    w->found.clear();
    w->out.total_matches += query_.SearchText(w->buf, &w->found);
    MatchLess less;
    for (const auto& [line_no, line] : w->found) {
      if (limits_.max_matches == 0) break;
      if (w->heap.size() >= limits_.max_matches) {
        // Later lines of this file, and this file's path, only sort later.
        const GrepMatch& worst = w->heap.front();
        if (!(path < worst.path || (path == worst.path && line_no < worst.line_number))) break;
        std::pop_heap(w->heap.begin(), w->heap.end(), less);
        w->heap.pop_back();
      }
      w->heap.push_back({path, line_no, CleanLine(line, limits_.max_line_bytes)});
      std::push_heap(w->heap.begin(), w->heap.end(), less);
    }
  }

  GrepOutcome Merge() {
    GrepOutcome out;
    for (Worker& w : workers_) {
      out.total_matches += w.out.total_matches;
      out.files_searched += w.out.files_searched;
      out.binary_skipped += w.out.binary_skipped;
      out.large_skipped += w.out.large_skipped;
      out.unreadable += w.out.unreadable;
      out.special_skipped += w.out.special_skipped;
      for (GrepMatch& m : w.heap) out.matches.push_back(std::move(m));
    }
    std::sort(out.matches.begin(), out.matches.end(), MatchLess());
    if (out.matches.size() > limits_.max_matches) out.matches.resize(limits_.max_matches);
    out.truncated = out.total_matches > static_cast<int64_t>(out.matches.size());
    out.timed_out = timed_out_;
    return out;
  }

  const GrepQuery& query_;
  const GlobPattern* include_;
  const GitIgnore& ignore_;
  const SearchLimits& limits_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Pending> queue_;
  int active_ = 0;
  bool timed_out_ = false;  // under mu_
  std::vector<Worker> workers_;
};

}  // namespace

absl::StatusOr<GrepOutcome> Grep(const std::string& root, const GrepQuery& query, const GlobPattern* include,
                                 const GitIgnore& ignore, const SearchLimits& limits) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) return core::ErrnoStatus(errno, "cannot search", root);
  ParallelGrep grep(query, include, ignore, limits);
  if (!S_ISDIR(st.st_mode)) return grep.RunOnFile(root);
  int threads = limits.threads > 0 ? limits.threads : static_cast<int>(std::thread::hardware_concurrency());
  return grep.RunOnTree(root, std::max(1, std::min(threads, 16)));
}

absl::StatusOr<GlobOutcome> Glob(const std::string& base, const GlobPattern& pattern, const GitIgnore& ignore,
                                 const SearchLimits& limits) {
  struct stat st;
  if (::stat(base.c_str(), &st) != 0) return core::ErrnoStatus(errno, "cannot search", base);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("'", base, "' is not a directory"));
  }
  GlobOutcome out;
  out.timed_out = !Walk(
      base, ignore, limits.deadline, [&](absl::string_view rel) { return pattern.CouldMatchBelow(rel); },
      [&](WalkEntry&& e) {
        if (e.kind != EntryKind::kFile && e.kind != EntryKind::kLink) {
          if (pattern.Matches(e.rel)) ++out.special_skipped;
          return;
        }
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
