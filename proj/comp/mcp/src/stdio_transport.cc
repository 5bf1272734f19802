#include "proj/comp/mcp/src/stdio_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace clada::mcp {

Dispatcher::WriteFunction FdWriter(int fd) {
  auto broken = std::make_shared<bool>(false);
  return [fd, broken](absl::string_view message) {
    if (*broken) return;
    std::string line(message);
    line.push_back('\n');
    size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *broken = true;
        return;
      }
      done += static_cast<size_t>(n);
    }
  };
}

namespace {

// Pulls lines from a file descriptor one at a time (ReadLines' framing), so
// that whichever thread holds it reads the next line.
class LineReader {
 public:
  enum class Kind { kLine, kTooLong, kEnd };
  struct Item {
    Kind kind = Kind::kEnd;
    std::string text;  // kLine: the line, without "\n" or a trailing "\r"
    size_t size = 0;   // kTooLong: its length so far
  };

  LineReader(int fd, size_t max_line_bytes) : fd_(fd), max_(max_line_bytes) {}

  // The next line, a line over the limit, or the end of input. Errors:
  // Internal when read(2) fails with anything but EINTR.
  absl::StatusOr<Item> Next() {
    for (;;) {
      while (start_ < len_) {
        absl::string_view chunk(buf_.get() + start_, len_ - start_);
        const size_t nl = chunk.find('\n');
        const bool ends = nl != absl::string_view::npos;
        const absl::string_view piece = chunk.substr(0, ends ? nl : chunk.size());
        start_ += piece.size() + (ends ? 1 : 0);
        Append(piece);
        if (ends) return Deliver();
      }
      len_ = 0;
      start_ = 0;
      if (ended_) {
        if (!line_.empty() || skipping_) return Deliver();
        return Item{};
      }
      ssize_t n;
      do {
        n = ::read(fd_, buf_.get(), kBufferBytes);
      } while (n < 0 && errno == EINTR);
      if (n < 0) return absl::InternalError(absl::StrCat("reading the input: ", ::strerror(errno)));
      len_ = static_cast<size_t>(n);
      if (n == 0) ended_ = true;
    }
  }

 private:
  void Append(absl::string_view piece) {
    if (!skipping_ && line_.size() + piece.size() > max_) {
      skipping_ = true;
      skipped_ = line_.size();
      line_.clear();
      line_.shrink_to_fit();
    }
    if (skipping_) {
      skipped_ += piece.size();
    } else {
      line_.append(piece.data(), piece.size());
    }
  }

  Item Deliver() {
    Item item;
    if (skipping_) {
      item.kind = Kind::kTooLong;
      item.size = skipped_;
    } else {
      item.kind = Kind::kLine;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      item.text = std::move(line_);
    }
    line_.clear();
    skipping_ = false;
    skipped_ = 0;
    return item;
  }

  int fd_;
  size_t max_;
  // What read(2) gave, [start_, len_) not yet split. Allocated once and
  // never cleared: zeroing 64 KB before each read (a resize) was 2% of the
  // server's time for a stream of file_read calls (perf).
  static constexpr size_t kBufferBytes = 1 << 16;
  std::unique_ptr<char[]> buf_{new char[kBufferBytes]};
  size_t len_ = 0;
  size_t start_ = 0;
  bool ended_ = false;
  std::string line_;   // the line so far
  bool skipping_ = false;  // inside a line already over the limit
  size_t skipped_ = 0;
};

}  // namespace

absl::Status ReadLines(int fd, size_t max_line_bytes, const std::function<void(absl::string_view)>& on_line,
                       const std::function<void(size_t)>& on_too_long) {
  LineReader reader(fd, max_line_bytes);
  for (;;) {
    absl::StatusOr<LineReader::Item> item = reader.Next();
    if (!item.ok()) return item.status();
    switch (item->kind) {
      case LineReader::Kind::kEnd:
        return absl::OkStatus();
      case LineReader::Kind::kTooLong:
        on_too_long(item->size);
        break;
      case LineReader::Kind::kLine:
        on_line(item->text);
        break;
    }
  }
}

namespace {

// Waits until `fd` hangs up (the client closed its end) or `wake_fd` is
// readable (the serving ended); after a hang-up, gives the serving
// `stuck_grace` to end, then cancels every call, then exits the process.
void ExitIfStuckAfterHangUp(int fd, int wake_fd, Server& server, absl::Duration stuck_grace) {
  // events 0 on `fd`: poll(2) reports only POLLHUP, POLLERR and POLLNVAL,
  // so lines waiting to be read wake nothing (a regular file never hangs up).
  pollfd watched[2] = {{fd, 0, 0}, {wake_fd, POLLIN, 0}};
  for (;;) {
    const int n = ::poll(watched, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || watched[1].revents != 0) return;
    if (watched[0].revents != 0) break;
  }
  auto ended_within = [wake_fd](absl::Duration wait) {
    pollfd wake = {wake_fd, POLLIN, 0};
    const absl::Time until = absl::Now() + wait;
    for (;;) {
      const int64_t ms = std::max<int64_t>(absl::ToInt64Milliseconds(until - absl::Now()), 0);
      const int n = ::poll(&wake, 1, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
      if (n < 0 && errno == EINTR) continue;
      return n != 0;  // ready, or poll failed: do not exit on a guess
    }
  };
  if (ended_within(stuck_grace)) return;
  server.CancelAll();
  if (ended_within(absl::Seconds(2))) return;
  static constexpr char kMessage[] =
      "clada mcp: the client closed stdin while a call was still running and did not end when cancelled; "
      "exiting\n";
  (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(1);
}

}  // namespace

absl::Status ServeLines(int fd, size_t max_line_bytes, Server& server, absl::Duration stuck_grace) {
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe: ", ::strerror(errno)));
  std::thread watcher([&server, fd, wake_fd = wake[0], stuck_grace] {
    ExitIfStuckAfterHangUp(fd, wake_fd, server, stuck_grace);
  });
  // Two threads take turns at reading. The one that reads a line handles
  // it (in input order: the next line waits until it is handled), then lets
  // the other read while it runs the tools/calls queued, if no thread is
  // running them already. So a call starts on the thread that read it, with
  // no hand-off to a worker, while the other thread still answers ping and
  // notifications/cancelled. A quick call (Tool::quick: a bounded read) is
  // run before the reading is let go: the other thread sleeps on, and a
  // call costs no thread a wake-up (two context switches a call before).
  server.RunCallsOnCallerThreads();
  LineReader reader(fd, max_line_bytes);
  std::mutex reading;
  bool ended = false;
  absl::Status status;
  auto serve = [&] {
    std::unique_lock<std::mutex> lock(reading, std::defer_lock);
    for (;;) {
      if (!lock.owns_lock()) lock.lock();
      if (ended) return;
      absl::StatusOr<LineReader::Item> item = reader.Next();
      if (!item.ok() || item->kind == LineReader::Kind::kEnd) {
        ended = true;
        if (!item.ok()) status = item.status();
        return;
      }
      if (item->kind == LineReader::Kind::kTooLong) {
        server.RejectMessage(absl::StrCat("a message of ", item->size, " bytes or more is over the limit of ",
                                          max_line_bytes, " bytes (max_input)"));
      } else {
        server.HandleMessage(item->text);
      }
      if (server.RunQueuedQuickCalls()) continue;  // still reading: nobody was woken
      lock.unlock();
      server.RunQueuedCalls();
    }
  };
  std::thread other(serve);
  serve();
  other.join();
  server.Shutdown();
  const char done = 1;
  (void)!::write(wake[1], &done, 1);
  watcher.join();
  ::close(wake[0]);
  ::close(wake[1]);
  return status;
}

}  // namespace clada::mcp
