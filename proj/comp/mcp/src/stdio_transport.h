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
#include "absl/time/time.h"
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
// A call stuck for good (an open that never returns) must not keep the
// process alive once the client has gone: when `fd` hangs up (the client
// closed its end of the pipe) and the serving has not ended `stuck_grace`
// later, every call is cancelled (exec kills its process group), and if it
// still has not ended two seconds after that, the process exits (status 1,
// one line on stderr). Errors: Internal when read(2) or pipe(2) fails.
absl::Status ServeLines(int fd, size_t max_line_bytes, Server& server,
                        absl::Duration stuck_grace = absl::Seconds(10));

}  // namespace clada::mcp

#endif  // CLADA_PROJ_COMP_MCP_SRC_STDIO_TRANSPORT_H_
