#include "proj/comp/listener/src/internal/clipboard.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace clada::listener::internal {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> FindOnPath(absl::string_view path_env, absl::string_view name) {
  for (absl::string_view dir : absl::StrSplit(path_env, ':')) {
    if (dir.empty()) continue;  // an empty entry would mean the current directory: not trusted
    std::string candidate = absl::StrCat(dir, "/", name);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

bool EnvSet(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0';
}

}  // namespace

ClipboardEnv CurrentClipboardEnv() {
  ClipboardEnv env;
  const char* path = std::getenv("PATH");
  env.path = path != nullptr ? path : "";
  env.wayland = EnvSet("WAYLAND_DISPLAY");
  env.x11 = EnvSet("DISPLAY");
  return env;
}

std::optional<ClipboardTool> FindClipboardTool(const ClipboardEnv& env) {
  struct Candidate {
    const char* name;
    std::vector<std::string> args;
    bool usable;
  };
  const Candidate candidates[] = {
      {"wl-copy", {}, env.wayland},
      {"xclip", {"-selection", "clipboard"}, env.x11},
      {"xsel", {"--clipboard", "--input"}, env.x11},
      {"pbcopy", {}, true},
  };
  for (const Candidate& c : candidates) {
    if (!c.usable) continue;
    std::optional<std::string> path = FindOnPath(env.path, c.name);
    if (!path) continue;
    ClipboardTool tool{c.name, *path, {c.name}};
    tool.argv.insert(tool.argv.end(), c.args.begin(), c.args.end());
    return tool;
  }
  return std::nullopt;
}

absl::Status CopyFileToClipboard(const ClipboardTool& tool, const std::string& file, int timeout_ms) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : tool.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int err = posix_spawn(&pid, tool.path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return absl::InternalError(absl::StrCat("cannot start ", tool.name, ": ", std::strerror(err)));

  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto pause = std::chrono::microseconds(200);
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("cannot wait for ", tool.name, ": ", std::strerror(errno)));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return absl::DeadlineExceededError(absl::StrCat(tool.name, " did not finish within ", timeout_ms, " ms"));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  if (WIFEXITED(status))
    return absl::InternalError(absl::StrCat(tool.name, " exited with status ", WEXITSTATUS(status)));
  return absl::InternalError(absl::StrCat(tool.name, " was killed by signal ", WTERMSIG(status)));
}

}  // namespace clada::listener::internal
