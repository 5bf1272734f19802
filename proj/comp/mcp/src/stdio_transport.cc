#include "proj/comp/mcp/src/stdio_transport.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"

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

absl::Status ReadLines(int fd, size_t max_line_bytes, const std::function<void(absl::string_view)>& on_line,
                       const std::function<void(size_t)>& on_too_long) {
  std::string line;
  bool skipping = false;  // inside a line already over the limit
  size_t skipped = 0;
  char buf[1 << 16];
  auto deliver = [&](absl::string_view piece, bool ends) {
    if (!skipping && line.size() + piece.size() > max_line_bytes) {
      skipping = true;
      skipped = line.size();
      line.clear();
      line.shrink_to_fit();
    }
    if (skipping) {
      skipped += piece.size();
    } else {
      line.append(piece.data(), piece.size());
    }
    if (!ends) return;
    if (skipping) {
      on_too_long(skipped);
    } else {
      absl::string_view text = line;
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      on_line(text);
    }
    line.clear();
    skipping = false;
    skipped = 0;
  };
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("reading the input: ", ::strerror(errno)));
    if (n == 0) break;
    absl::string_view chunk(buf, static_cast<size_t>(n));
    while (!chunk.empty()) {
      const size_t nl = chunk.find('\n');
      if (nl == absl::string_view::npos) {
        deliver(chunk, false);
        break;
      }
      deliver(chunk.substr(0, nl), true);
      chunk.remove_prefix(nl + 1);
    }
  }
  if (!line.empty() || skipping) deliver("", true);
  return absl::OkStatus();
}

absl::Status ServeLines(int fd, size_t max_line_bytes, Server& server) {
  absl::Status status = ReadLines(
      fd, max_line_bytes, [&server](absl::string_view line) { server.HandleMessage(line); },
      [&server, max_line_bytes](size_t size) {
        server.RejectMessage(absl::StrCat("a message of ", size, " bytes or more is over the limit of ",
                                          max_line_bytes, " bytes (max_input)"));
      });
  server.Shutdown();
  return status;
}

}  // namespace clada::mcp
