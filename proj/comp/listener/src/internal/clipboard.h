// Copying the full report to the clipboard with whichever tool is installed.
#ifndef CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_CLIPBOARD_H_
#define CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_CLIPBOARD_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace clada::listener::internal {

struct ClipboardTool {
  std::string name;               // e.g. "xclip"
  std::string path;               // absolute, found on PATH
  std::vector<std::string> argv;  // argv[0] is the name
};

struct ClipboardEnv {
  std::string path;      // $PATH
  bool wayland = false;  // $WAYLAND_DISPLAY set and non-empty
  bool x11 = false;      // $DISPLAY set and non-empty
};

// The process environment's PATH, WAYLAND_DISPLAY and DISPLAY.
ClipboardEnv CurrentClipboardEnv();

// The first of wl-copy (needs Wayland), `xclip -selection clipboard` and
// `xsel --clipboard --input` (need X11), pbcopy that is an executable on
// `env.path`; nullopt when none is usable.
std::optional<ClipboardTool> FindClipboardTool(const ClipboardEnv& env);

// Runs `tool` with `file` as its stdin (stdout and stderr to /dev/null) and
// waits up to `timeout_ms` for it to exit. Tools that fork to keep serving
// the selection (xclip, xsel, wl-copy) exit in the parent at once.
// Errors: Internal (spawn failed, nonzero exit, killed by a signal),
// DeadlineExceeded (still running after the timeout; it is killed).
absl::Status CopyFileToClipboard(const ClipboardTool& tool, const std::string& file, int timeout_ms = 2000);

}  // namespace clada::listener::internal

#endif  // CLADA_PROJ_COMP_LISTENER_SRC_INTERNAL_CLIPBOARD_H_
