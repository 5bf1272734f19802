// MCP's stdio transport: one JSON-RPC message per line, UTF-8, read from a
// file descriptor (stdin) and written to another (stdout), which carries
// nothing else.
//
// Example:
//   Server server(info, std::move(tools), FdWriter(STDOUT_FILENO));
//   ServeLines(STDIN_FILENO, 64 << 20, server);  // returns at end of input
#ifndef CLADA_PROJ_COMP_MCP_SRC_STDIO_TRANSPORT_H_
#define CLADA_PROJ_COMP_MCP_SRC_STDIO_TRANSPORT_H_

#include <cstddef>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proj/comp/mcp/src/json_rpc.h"
#include "proj/comp/mcp/src/server.h"

namespace clada::mcp {

// Writes each message and a newline to `fd`, whole despite short writes and
// EINTR. Once a write fails (the reader has gone), later messages are
// dropped. SIGPIPE is the caller's to ignore.
Dispatcher::WriteFunction FdWriter(int fd);

// Splits what `fd` gives into lines (without "\n" or a trailing "\r") and
// calls `on_line` with each, until end of input. A line longer than
// `max_line_bytes` is skipped whole and `on_too_long` is called with its
// length so far. A last line without a newline is still delivered.
// Errors: Internal when read(2) fails with anything but EINTR.
absl::Status ReadLines(int fd, size_t max_line_bytes, const std::function<void(absl::string_view)>& on_line,
                       const std::function<void(size_t)>& on_too_long);

// Feeds `server` every line from `fd`, in order, then shuts it down (every
// call received runs and is answered before it returns). Two threads take
// turns at reading: a tools/call runs on the thread that read it while the
// other reads on (Server::RunCallsOnCallerThreads). Returns what ReadLines
// would return.
absl::Status ServeLines(int fd, size_t max_line_bytes, Server& server);

}  // namespace clada::mcp

#endif  // CLADA_PROJ_COMP_MCP_SRC_STDIO_TRANSPORT_H_
