// The kernel sandbox of `exec`: every guarantee is checked twice, with the
// default `sandbox: auto` (the attack is contained) and with `sandbox: off`
// (the same attack works, so the check can fail). Where the kernel lacks a
// mechanism the test is skipped with the reason, unless the environment
// says CLADA_SANDBOX_REQUIRED=1 (CI), where it fails instead.
// CLADA_TEST_SANDBOX=off runs the contained half unconfined too: every test
// but the ones that only check sandbox: off must then fail.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/test/test_dir.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/exec/src/process_runner.h"
#include "proj/comp/exec/src/sandbox.h"

namespace clada::exec {
namespace {

using core::SandboxMode;

// This binary doubles as a helper the snippets run: with
// CLADA_SANDBOX_TEST_CONNECT=<name> in its environment it connects to the
// abstract unix socket <name>, prints "connected" and exits 0 (else exits 3)
// before any test starts.
const int kHelper = [] {
  const char* name = ::getenv("CLADA_SANDBOX_TEST_CONNECT");
  if (name == nullptr) return 0;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  const size_t n = std::min(std::strlen(name), sizeof addr.sun_path - 1);
  std::memcpy(addr.sun_path + 1, name, n);  // sun_path[0] == 0: abstract
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0) {
    std::printf("connected\n");
    std::fflush(stdout);
    ::_exit(0);
  }
  std::perror("connect");
  ::_exit(3);
}();

// With CLADA_SANDBOX_TEST_IO_URING=1 it calls io_uring_setup(2) for a ring
// of one entry and prints "io_uring_setup: ok" (exit 0) or
// "io_uring_setup: errno N" (exit 3).
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
// io_uring_setup(1, params) in this process: the ring's fd (closed), or -errno.
int TryIoUringSetup() {
  unsigned char params[256] = {};  // struct io_uring_params (120 bytes), all zero
  const long fd = ::syscall(__NR_io_uring_setup, 1, params);
  if (fd < 0) return -errno;
  ::close(static_cast<int>(fd));
  return 0;
}
const int kIoUringHelper = [] {
  if (::getenv("CLADA_SANDBOX_TEST_IO_URING") == nullptr) return 0;
  const int rc = TryIoUringSetup();
  if (rc == 0) {
    std::printf("io_uring_setup: ok\n");
  } else {
    std::printf("io_uring_setup: errno %d\n", -rc);
  }
  std::fflush(stdout);
  ::_exit(rc == 0 ? 0 : 3);
}();

std::string SelfPath() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, n) : "";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The mode the "contained" half runs under: auto, or off to show that the
// tests fail without the sandbox.
SandboxMode ContainedMode() {
  const char* v = ::getenv("CLADA_TEST_SANDBOX");
  return v != nullptr && std::string(v) == "off" ? SandboxMode::kOff : SandboxMode::kAuto;
}

bool Required() {
  const char* v = ::getenv("CLADA_SANDBOX_REQUIRED");
  return v != nullptr && std::string(v) == "1";
}

// Skips (or, under CLADA_SANDBOX_REQUIRED=1, fails) when the kernel lacks a
// mechanism the guarantee rests on.
#define NEEDS(need_ll, need_ns)                                                                     \
  do {                                                                                                  \
    const internal::SandboxSupport& s = internal::ProbeSandbox();                                       \
    std::string missing;                                                                                \
    if ((need_ll) && s.landlock_abi == 0) missing = s.landlock_why_not;                                \
    if ((need_ns) && !s.namespaces) missing += (missing.empty() ? "" : "; ") + s.namespaces_why_not; \
    if (!missing.empty()) {                                                                             \
      if (Required()) FAIL() << "CLADA_SANDBOX_REQUIRED=1 and the kernel lacks: " << missing;           \
      GTEST_SKIP() << "this kernel lacks a mechanism of the sandbox: " << missing;                      \
    }                                                                                                   \
  } while (0)

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = core::testing::MakeTestDir("sandbox-");
    ASSERT_FALSE(base_.empty());
    root_ = base_ + "/proj";
    outside_ = base_ + "/outside";
    home_ = base_ + "/home";
    for (const std::string& d : {root_, outside_, home_, home_ + "/.ssh"}) ASSERT_EQ(::mkdir(d.c_str(), 0755), 0) << d;
    WriteFile(home_ + "/.ssh/id_rsa", "PRIVATE-KEY-SECRET\n");
    WriteFile(home_ + "/.netrc", "machine example.com password NETRC-SECRET\n");
    WriteFile(root_ + "/a.txt", "one\n");
    old_home_ = ::getenv("HOME") != nullptr ? ::getenv("HOME") : "";
    ::setenv("HOME", home_.c_str(), 1);
    // A repository with one commit, made here, unconfined.
    Sh("git init -q && git config user.email t@e && git config user.name t && "
       "git config remote.origin.url https://user:GIT-TOKEN-SECRET@example.com/r.git && "
       "git add a.txt && git commit -q -m init");
  }
  void TearDown() override {
    if (old_home_.empty()) {
      ::unsetenv("HOME");
    } else {
      ::setenv("HOME", old_home_.c_str(), 1);
    }
  }

  void Sh(const std::string& code) {
    const std::string cmd = absl::StrCat("cd '", root_, "' && ", code, " >/dev/null 2>&1");
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }

  core::ExecContext Context(SandboxMode mode) {
    core::ExecContext ctx;
    ctx.paths = *core::MakePathPolicy(root_, {});
    ctx.quiet = true;
    ctx.sandbox = mode;
    return ctx;
  }

  core::ActionOutcome Run(const std::string& code, SandboxMode mode, core::ExecContext* given = nullptr) {
    core::ExecContext ctx = given != nullptr ? *given : Context(mode);
    ctx.sandbox = mode;
    core::Action a;
    a.name = "exec";
    a.params = {{"code", code}, {"lang", "bash"}};
    return ExecuteCode(a, ctx);
  }

  static std::string Out(const core::ActionOutcome& o) {
    return o.data.value("stdout", std::string()) + o.data.value("stderr", std::string());
  }

  std::string base_, root_, outside_, home_, old_home_;
};

TEST_F(SandboxTest, WriteOutsideTheRootsFails) {
  NEEDS(true, false);
  const std::string target = outside_ + "/planted";
  core::ActionOutcome off = Run(absl::StrCat("echo x > '", target, "'"), SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  ASSERT_TRUE(Exists(target));
  ::unlink(target.c_str());
  core::ActionOutcome on = Run(absl::StrCat("echo x > '", target, "'"), ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(Exists(target));
  // Inside the project, writing works.
  core::ActionOutcome inside = Run("echo y > b.txt && mkdir -p d && mv b.txt d/", ContainedMode());
  EXPECT_TRUE(inside.success) << inside.error;
  EXPECT_EQ(ReadFile(root_ + "/d/b.txt"), "y\n");
}

TEST_F(SandboxTest, WritingAGitHookFails) {
  NEEDS(false, true);
  const std::string hook = root_ + "/.git/hooks/pre-commit";
  core::ActionOutcome on = Run("printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit", ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(Exists(hook));
  core::ActionOutcome off = Run("printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit", SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_TRUE(Exists(hook));
}

// A working root inside a repository (not its top), and a worktree whose
// hooks live in the main repository's git dir: the exec cannot plant a hook
// there either, even without Landlock (which keeps every write outside the
// roots out on its own): the repository's git dirs are mounted read-only
// wherever they are.
TEST_F(SandboxTest, WritingAGitHookAboveARootInsideTheRepositoryFails) {
  NEEDS(false, true);
  Sh("mkdir -p sub && git worktree add -q ../wt");
  const std::string hook = root_ + "/.git/hooks/pre-commit";
  const std::string plant = "printf '#!/bin/sh\\necho owned\\n' > \"$(git rev-parse --git-common-dir)/hooks/pre-commit\"";
  auto run_in = [&](const std::string& root, SandboxMode mode) {
    core::ExecContext ctx = Context(mode);
    ctx.paths = *core::MakePathPolicy(root, {});
    return Run(plant, mode, &ctx);
  };
  EXPECT_EQ(internal::GitDirsOf(root_ + "/sub"), std::vector<std::string>{root_ + "/.git"});
  // Namespaces alone (as on a kernel without Landlock), then the whole sandbox.
  internal::SandboxSupport only = internal::ProbeSandbox();
  only.landlock_abi = 0;
  only.landlock_why_not = "Landlock left out by the test";
  const internal::SandboxSupport* whole = &internal::ProbeSandbox();
  const internal::SandboxSupport* partial = &only;
  for (const internal::SandboxSupport* support : {partial, whole}) {
    internal::OverrideSandboxSupportForTesting(support);
    core::ActionOutcome sub = run_in(root_ + "/sub", ContainedMode());
    core::ActionOutcome wt = run_in(base_ + "/wt", ContainedMode());
    internal::OverrideSandboxSupportForTesting(nullptr);
    EXPECT_FALSE(sub.success) << Out(sub);
    EXPECT_FALSE(wt.success) << Out(wt);
    EXPECT_FALSE(Exists(hook)) << (support == partial ? "namespaces only" : "whole sandbox");
    ::unlink(hook.c_str());
  }
  core::ActionOutcome off = run_in(root_ + "/sub", SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_TRUE(Exists(hook));
  ::unlink(hook.c_str());
  core::ActionOutcome off_wt = run_in(base_ + "/wt", SandboxMode::kOff);
  EXPECT_TRUE(off_wt.success) << off_wt.error;
  EXPECT_TRUE(Exists(hook));
}

// A `.git` that is a symlink to the real git dir: the target is protected.
TEST_F(SandboxTest, WritingAGitHookThroughASymlinkedGitDirFails) {
  NEEDS(false, true);
  Sh("mv .git .realgit && ln -s .realgit .git");
  const std::string code = "echo x > .git/hooks/pre-commit; echo y > .realgit/hooks/post-commit";
  core::ActionOutcome on = Run(code, ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(Exists(root_ + "/.realgit/hooks/pre-commit"));
  EXPECT_FALSE(Exists(root_ + "/.realgit/hooks/post-commit"));
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_TRUE(Exists(root_ + "/.realgit/hooks/pre-commit"));
  EXPECT_TRUE(Exists(root_ + "/.realgit/hooks/post-commit"));
}

// A repository nested inside the project (`git init nested`, a vendored
// checkout): its `.git` is read-only too.
TEST_F(SandboxTest, WritingAGitHookOfANestedRepositoryFails) {
  NEEDS(false, true);
  Sh("mkdir -p vendor/lib && git init -q vendor/lib/nested && git init -q .hidden");
  const std::string code =
      "echo x > vendor/lib/nested/.git/hooks/pre-commit; echo y > .hidden/.git/hooks/pre-commit; "
      "git -C vendor/lib/nested config core.hooksPath /tmp/evil";
  const std::string before = ReadFile(root_ + "/vendor/lib/nested/.git/config");
  core::ActionOutcome on = Run(code, ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(Exists(root_ + "/vendor/lib/nested/.git/hooks/pre-commit"));
  EXPECT_FALSE(Exists(root_ + "/.hidden/.git/hooks/pre-commit"));
  EXPECT_EQ(ReadFile(root_ + "/vendor/lib/nested/.git/config"), before);
  // Writing in the nested work tree still works.
  core::ActionOutcome work = Run("echo w > vendor/lib/nested/w.txt", ContainedMode());
  EXPECT_TRUE(work.success) << work.error;
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_TRUE(Exists(root_ + "/vendor/lib/nested/.git/hooks/pre-commit"));
  EXPECT_TRUE(Exists(root_ + "/.hidden/.git/hooks/pre-commit"));
}

TEST_F(SandboxTest, ChangingGitConfigFails) {
  NEEDS(false, true);
  const std::string config = root_ + "/.git/config";
  const std::string before = ReadFile(config);
  core::ActionOutcome on = Run("git config core.hooksPath /tmp/evil", ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_EQ(ReadFile(config), before);
  core::ActionOutcome off = Run("git config core.hooksPath /tmp/evil", SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_NE(ReadFile(config), before);
}

TEST_F(SandboxTest, ChangingCladaStateFails) {
  NEEDS(false, true);
  // No .clada/ yet: the code must not be able to create one with settings.
  ASSERT_FALSE(Exists(root_ + "/.clada"));
  core::ActionOutcome on =
      Run("mkdir -p .clada && echo 'sandbox: off' > .clada/config.yaml", ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(Exists(root_ + "/.clada/config.yaml"));
  // An existing one stays as it is.
  WriteFile(root_ + "/.clada/config.yaml", "timeout: 5s\n");
  on = Run("echo 'sandbox: off' > .clada/config.yaml; rm -f .clada/config.yaml; echo x > .clada/new",
           ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_EQ(ReadFile(root_ + "/.clada/config.yaml"), "timeout: 5s\n");
  EXPECT_FALSE(Exists(root_ + "/.clada/new"));
  core::ActionOutcome off = Run("echo 'sandbox: off' > .clada/config.yaml", SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_EQ(ReadFile(root_ + "/.clada/config.yaml"), "sandbox: off\n");
}

// An allowed root without a .clada/ of its own: the code cannot create its
// settings file there either, and clada leaves no .clada/ behind.
TEST_F(SandboxTest, ChangingCladaStateOfAnAllowedRootFails) {
  NEEDS(false, true);
  const std::string other = base_ + "/other";
  ASSERT_EQ(::mkdir(other.c_str(), 0755), 0);
  const std::string code = absl::StrCat("mkdir -p '", other, "/.clada' && echo 'sandbox: off' > '", other,
                                        "/.clada/config.yaml'");
  auto run = [&](SandboxMode mode) {
    core::ExecContext ctx = Context(mode);
    ctx.paths = *core::MakePathPolicy(root_, {other});
    return Run(code, mode, &ctx);
  };
  core::ActionOutcome on = run(ContainedMode());
  EXPECT_FALSE(on.success) << Out(on);
  EXPECT_FALSE(Exists(other + "/.clada/config.yaml"));
  EXPECT_FALSE(Exists(other + "/.clada")) << "the sandbox's own .clada/ is removed after the exec";
  core::ActionOutcome off = run(SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_EQ(ReadFile(other + "/.clada/config.yaml"), "sandbox: off\n");
}

// The files clada keeps during a run (under `clada listen`: the chat file
// and its report; the lock file) are read-only to the code: an exec that
// appended blocks to the chat file would have them run with no one pasting
// them.
TEST_F(SandboxTest, ProtectedFilesAreReadOnly) {
  NEEDS(false, true);
  const std::string chat = root_ + "/chat.md";
  WriteFile(chat, "the chat\n");
  const std::string code = "printf 'appended block\\n' >> chat.md";
  auto run = [&](SandboxMode mode) {
    core::ExecContext ctx = Context(mode);
    ctx.paths.protected_files = {chat};
    return Run(code, mode, &ctx);
  };
  core::ActionOutcome on = run(ContainedMode());
  EXPECT_FALSE(on.success) << Out(on);
  EXPECT_EQ(ReadFile(chat), "the chat\n");
  core::ActionOutcome off = run(SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_EQ(ReadFile(chat), "the chat\nappended block\n");
}

TEST_F(SandboxTest, GitReadsWorkAndCommitFails) {
  NEEDS(false, true);
  WriteFile(root_ + "/a.txt", "two\n");
  core::ActionOutcome reads = Run("git status --short && git diff && git log --oneline", ContainedMode());
  EXPECT_TRUE(reads.success) << reads.error;
  EXPECT_TRUE(absl::StrContains(Out(reads), "M a.txt")) << Out(reads);
  EXPECT_TRUE(absl::StrContains(Out(reads), "+two")) << Out(reads);
  EXPECT_TRUE(absl::StrContains(Out(reads), "init")) << Out(reads);
  const std::string head = ReadFile(root_ + "/.git/refs/heads/master") + ReadFile(root_ + "/.git/refs/heads/main");
  core::ActionOutcome commit = Run("git commit -qam sneaky", ContainedMode());
  EXPECT_FALSE(commit.success);
  EXPECT_EQ(ReadFile(root_ + "/.git/refs/heads/master") + ReadFile(root_ + "/.git/refs/heads/main"), head);
  core::ActionOutcome off = Run("git commit -qam sneaky", SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_NE(ReadFile(root_ + "/.git/refs/heads/master") + ReadFile(root_ + "/.git/refs/heads/main"), head);
}

TEST_F(SandboxTest, SecretsUnderHomeAreUnreadable) {
  NEEDS(false, true);
  const std::string code = "cat \"$HOME/.ssh/id_rsa\"; cat \"$HOME/.netrc\"; ls -a \"$HOME/.ssh\"";
  core::ActionOutcome on = Run(code, ContainedMode());
  EXPECT_FALSE(absl::StrContains(Out(on), "PRIVATE-KEY-SECRET")) << Out(on);
  EXPECT_FALSE(absl::StrContains(Out(on), "NETRC-SECRET")) << Out(on);
  EXPECT_FALSE(absl::StrContains(Out(on), "id_rsa\n")) << Out(on);
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(absl::StrContains(Out(off), "PRIVATE-KEY-SECRET")) << Out(off);
  EXPECT_TRUE(absl::StrContains(Out(off), "NETRC-SECRET")) << Out(off);
}

// Everything in the user's home outside the project is hidden, not only
// the credential stores clada knows by name (~/.codex/auth.json,
// ~/.claude/.credentials.json, ~/.vault-token, ...).
TEST_F(SandboxTest, HomeOutsideTheProjectIsHidden) {
  NEEDS(false, true);
  for (const std::string& d : {home_ + "/.codex", home_ + "/.claude"}) ASSERT_EQ(::mkdir(d.c_str(), 0755), 0);
  WriteFile(home_ + "/.codex/auth.json", "CODEX-SECRET\n");
  WriteFile(home_ + "/.claude/.credentials.json", "CLAUDE-SECRET\n");
  WriteFile(home_ + "/.vault-token", "VAULT-SECRET\n");
  const std::string code =
      "cat \"$HOME/.codex/auth.json\" \"$HOME/.claude/.credentials.json\" \"$HOME/.vault-token\"; ls -a \"$HOME\" | sed 's/^/LS:/'";
  core::ActionOutcome on = Run(code, ContainedMode());
  for (const char* secret : {"CODEX-SECRET", "CLAUDE-SECRET", "VAULT-SECRET", "LS:.vault-token"}) {
    EXPECT_FALSE(absl::StrContains(Out(on), secret)) << Out(on);
  }
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  for (const char* secret : {"CODEX-SECRET", "CLAUDE-SECRET", "VAULT-SECRET", "LS:.vault-token"}) {
    EXPECT_TRUE(absl::StrContains(Out(off), secret)) << Out(off);
  }
}

// A project inside the home keeps working (written, git read), and a
// toolchain on PATH under the home (~/.cargo/bin) still runs, while the
// rest of the home stays hidden.
TEST_F(SandboxTest, ProjectAndToolchainsUnderHomeStillWork) {
  NEEDS(false, true);
  const std::string proj = home_ + "/code/proj";
  const std::string tools = home_ + "/.cargo/bin";
  ASSERT_EQ(std::system(absl::StrCat("mkdir -p '", proj, "' '", tools, "' && cd '", proj,
                                     "' && git init -q && echo a > a.txt && git add a.txt && "
                                     "git -c user.name=t -c user.email=t@e commit -qm init")
                            .c_str()),
            0);
  WriteFile(tools + "/mytool", "#!/bin/sh\necho TOOL-RAN\n");
  ASSERT_EQ(::chmod((tools + "/mytool").c_str(), 0755), 0);
  WriteFile(home_ + "/.vault-token", "VAULT-SECRET\n");
  WriteFile(home_ + "/.cargo/credentials.toml", "CARGO-SECRET\n");
  ASSERT_EQ(::mkdir((home_ + "/bin").c_str(), 0755), 0);
  WriteFile(home_ + "/bin/histool", "#!/bin/sh\necho HISTOOL-RAN\n");
  ASSERT_EQ(::chmod((home_ + "/bin/histool").c_str(), 0755), 0);
  const std::string old_path = ::getenv("PATH") != nullptr ? ::getenv("PATH") : "/usr/bin:/bin";
  ::setenv("PATH", (tools + ":" + home_ + "/bin:" + old_path).c_str(), 1);
  const std::string code =
      "echo b > b.txt && git status --short && mytool && histool; cat \"$HOME/.vault-token\" "
      "\"$HOME/.cargo/credentials.toml\"";
  auto run = [&](SandboxMode mode) {
    core::ExecContext ctx = Context(mode);
    ctx.paths = *core::MakePathPolicy(proj, {});
    return Run(code, mode, &ctx);
  };
  core::ActionOutcome on = run(ContainedMode());
  core::ActionOutcome off = run(SandboxMode::kOff);
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_EQ(ReadFile(proj + "/b.txt"), "b\n");
  EXPECT_TRUE(absl::StrContains(Out(on), "?? b.txt")) << Out(on);
  EXPECT_TRUE(absl::StrContains(Out(on), "TOOL-RAN")) << Out(on);
  EXPECT_TRUE(absl::StrContains(Out(on), "HISTOOL-RAN")) << Out(on);
  EXPECT_FALSE(absl::StrContains(Out(on), "VAULT-SECRET")) << Out(on);
  EXPECT_FALSE(absl::StrContains(Out(on), "CARGO-SECRET")) << Out(on);
  EXPECT_TRUE(absl::StrContains(Out(off), "VAULT-SECRET")) << Out(off);
  EXPECT_TRUE(absl::StrContains(Out(off), "CARGO-SECRET")) << Out(off);
}

// Landlock's signal scope (ABI 6): the code cannot signal a process outside
// the sandbox: not clada (this test process), not another of the user's.
TEST_F(SandboxTest, NoSignalToProcessesOutside) {
  NEEDS(true, false);
  if (internal::ProbeSandbox().landlock_abi < 6) {
    if (Required()) FAIL() << "Landlock ABI " << internal::ProbeSandbox().landlock_abi << " has no scopes (ABI 6)";
    GTEST_SKIP() << "Landlock ABI " << internal::ProbeSandbox().landlock_abi << " has no signal scope (ABI 6)";
  }
  auto start_victim = [] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (;;) ::pause();
    }
    return pid;
  };
  auto alive = [](pid_t pid) {
    int status = 0;
    return ::waitpid(pid, &status, WNOHANG) == 0;
  };
  auto end_victim = [](pid_t pid) {
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  };
  const pid_t victim = start_victim();
  ASSERT_GT(victim, 0);
  // kill -0 only asks whether a signal would be allowed: safe on clada itself.
  const std::string code = absl::StrCat("kill -0 ", ::getpid(), "; a=$?; kill -TERM ", victim, "; b=$?; ",
                                        "echo \"clada=$a other=$b\"; [ $a = 0 ] || [ $b = 0 ]");
  core::ActionOutcome on = Run(code, ContainedMode());
  EXPECT_FALSE(on.success) << Out(on);
  EXPECT_TRUE(absl::StrContains(Out(on), "clada=1 other=1")) << Out(on);
  EXPECT_TRUE(alive(victim));
  end_victim(victim);
  // Network allowed: still scoped.
  const pid_t victim2 = start_victim();
  ASSERT_GT(victim2, 0);
  core::ExecContext allowed = Context(ContainedMode());
  allowed.exec_network = true;
  const std::string code2 = absl::StrCat("kill -TERM ", victim2);
  core::ActionOutcome net = Run(code2, ContainedMode(), &allowed);
  EXPECT_FALSE(net.success) << Out(net);
  EXPECT_TRUE(alive(victim2));
  end_victim(victim2);
  // Unconfined, the same signals land.
  const pid_t victim3 = start_victim();
  ASSERT_GT(victim3, 0);
  core::ActionOutcome off = Run(absl::StrCat("kill -0 ", ::getpid(), " && kill -TERM ", victim3), SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  int status = 0;
  ASSERT_EQ(::waitpid(victim3, &status, 0), victim3);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

// Landlock's abstract unix socket scope (ABI 6): the code cannot connect to
// an abstract socket bound outside the sandbox (a session bus, X11), even
// with exec_network: allow (no network namespace of its own then).
TEST_F(SandboxTest, NoConnectionToAbstractUnixSocketsOutside) {
  NEEDS(true, false);
  if (internal::ProbeSandbox().landlock_abi < 6) {
    if (Required()) FAIL() << "Landlock ABI " << internal::ProbeSandbox().landlock_abi << " has no scopes (ABI 6)";
    GTEST_SKIP() << "Landlock ABI " << internal::ProbeSandbox().landlock_abi << " has no abstract socket scope (ABI 6)";
  }
  const std::string name = absl::StrCat("clada-sandbox-test-", ::getpid());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0) << std::strerror(errno);
  ASSERT_EQ(::listen(fd, 16), 0);
  const std::string self = SelfPath();
  ASSERT_FALSE(self.empty());
  const std::string code = absl::StrCat("CLADA_SANDBOX_TEST_CONNECT='", name, "' '", self, "'");
  core::ActionOutcome on = Run(code, ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(absl::StrContains(Out(on), "connected")) << Out(on);
  core::ExecContext allowed = Context(ContainedMode());
  allowed.exec_network = true;
  core::ActionOutcome net = Run(code, ContainedMode(), &allowed);
  EXPECT_FALSE(net.success);
  EXPECT_FALSE(absl::StrContains(Out(net), "connected")) << Out(net);
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_TRUE(absl::StrContains(Out(off), "connected")) << Out(off);
  ::close(fd);
}

// A listener on 127.0.0.1 in this process; the port it got.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 16);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST_F(SandboxTest, NoConnectionToLoopback) {
  NEEDS(false, false);
  const internal::SandboxSupport& s = internal::ProbeSandbox();
  if (!s.namespaces && s.landlock_abi < 4) {
    if (Required()) FAIL() << "no network namespace and no Landlock TCP rules (ABI 4)";
    GTEST_SKIP() << "this kernel has neither network namespaces nor Landlock TCP rules (ABI 4): "
                 << s.namespaces_why_not;
  }
  Listener listener;
  ASSERT_GT(listener.port(), 0);
  const std::string code = absl::StrCat("exec 3<>/dev/tcp/127.0.0.1/", listener.port(), " && echo connected");
  core::ActionOutcome on = Run(code, ContainedMode());
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(absl::StrContains(Out(on), "connected"));
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  // exec_network: allow lets it connect inside the sandbox.
  core::ExecContext allowed = Context(ContainedMode());
  allowed.exec_network = true;
  core::ActionOutcome net = Run(code, ContainedMode(), &allowed);
  EXPECT_TRUE(net.success) << net.error;
}

TEST_F(SandboxTest, TmpdirIsPrivateAndRemovedAfter) {
  NEEDS(true, false);
  const char* outer = ::getenv("TMPDIR");
  core::ActionOutcome on = Run("echo \"$TMPDIR\"; echo data > \"$TMPDIR/f\" && cat \"$TMPDIR/f\"", ContainedMode());
  ASSERT_TRUE(on.success) << on.error;
  const std::string out = on.data.value("stdout", std::string());
  const std::string tmpdir = out.substr(0, out.find('\n'));
  EXPECT_TRUE(absl::StrContains(tmpdir, "/clada-tmp-")) << tmpdir;
  EXPECT_NE(tmpdir, outer != nullptr ? outer : "");
  EXPECT_TRUE(absl::StrContains(out, "data\n"));
  EXPECT_FALSE(Exists(tmpdir)) << tmpdir;  // removed after the exec
  // The shared temporary directory is not writable from inside.
  const std::string shared = absl::StrCat(outer != nullptr ? outer : "/tmp", "/clada-shared-", ::getpid());
  core::ActionOutcome shared_write = Run(absl::StrCat("echo x > '", shared, "'"), ContainedMode());
  EXPECT_FALSE(shared_write.success);
  EXPECT_FALSE(Exists(shared));
  ::unlink(shared.c_str());
}

// The private TMPDIR of a clada killed mid-exec (SIGKILL: nothing ran its
// cleanup) is removed by the next exec's, found by the pid in its name;
// a running clada's, another user's, a link and an older name are kept.
TEST(PrivateTmpdir, ThoseOfACladaThatIsGoneAreRemoved) {
  const std::string parent = core::testing::MakeTestDir("tmpdirs-");
  ASSERT_FALSE(parent.empty());
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // a pid that is gone
  const std::string gone = absl::StrCat(parent, "/clada-tmp-", child, "-aB3dE9");
  const std::string mine = absl::StrCat(parent, "/clada-tmp-", ::getpid(), "-fG5hI7");
  const std::string older = absl::StrCat(parent, "/clada-tmp-Qx81Lm");
  const std::string target = absl::StrCat(parent, "/kept");
  const std::string link = absl::StrCat(parent, "/clada-tmp-", child, "-link");
  for (const std::string& d : {gone, mine, older, target}) ASSERT_EQ(::mkdir(d.c_str(), 0700), 0) << d;
  for (const std::string& d : {gone, target}) std::ofstream(d + "/f") << "data\n";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  internal::SweepStaleTmpdirs(parent);
  EXPECT_FALSE(Exists(gone));
  EXPECT_TRUE(Exists(mine));
  EXPECT_TRUE(Exists(older));
  EXPECT_TRUE(Exists(link));
  EXPECT_TRUE(Exists(target + "/f"));  // never followed through the link
  // A new private TMPDIR names its clada's pid.
  absl::StatusOr<std::string> made = internal::MakePrivateTmpdir();
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_TRUE(absl::StrContains(*made, absl::StrCat("/clada-tmp-", ::getpid(), "-"))) << *made;
  internal::RemoveTree(*made);
}

TEST_F(SandboxTest, PlantedInterpreterOnPathNeverRuns) {
  NEEDS(false, false);
  if (!internal::ProbeSandbox().Any()) GTEST_SKIP() << "no sandbox on this kernel";
  // An activated virtualenv inside the project, first on PATH, with a bash
  // and a pwd an answer planted.
  const std::string bin = root_ + "/.venv/bin";
  Sh("mkdir -p .venv/bin");
  const std::string marker = root_ + "/planted-ran";
  for (const char* name : {"bash", "pwd", "cat"}) {
    WriteFile(bin + "/" + name, absl::StrCat("#!/bin/sh\necho PLANTED; touch '", marker, "'\n"));
    ::chmod((bin + "/" + name).c_str(), 0755);
  }
  const std::string old_path = ::getenv("PATH") != nullptr ? ::getenv("PATH") : "/usr/bin:/bin";
  ::setenv("PATH", absl::StrCat(bin, ":.:", old_path).c_str(), 1);
  core::ActionOutcome on = Run("pwd; cat a.txt", ContainedMode());
  core::ExecContext approve = Context(ContainedMode());
  approve.exec_policy = core::ExecPolicy::kApprove;
  core::ActionOutcome read_only = Run("pwd", ContainedMode(), &approve);
  const bool on_ran = Exists(marker);
  ::unlink(marker.c_str());
  core::ActionOutcome off = Run("pwd", SandboxMode::kOff);
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_TRUE(on.success) << on.error;
  EXPECT_TRUE(read_only.success) << read_only.error;
  EXPECT_FALSE(absl::StrContains(Out(on) + Out(read_only), "PLANTED")) << Out(on) << Out(read_only);
  EXPECT_FALSE(on_ran);
  EXPECT_TRUE(absl::StrContains(Out(off), "PLANTED")) << Out(off);
}

// The read-only tier (`exec: approve`, code on the read-only list): what it
// reads is what the kernel allows, whatever the words say.
class ReadOnlyTierTest : public SandboxTest {
 protected:
  void SetUp() override {
    SandboxTest::SetUp();
    if (HasFatalFailure()) return;
    WriteFile(outside_ + "/secret.txt", "OUTSIDE-SECRET\n");
    ASSERT_EQ(::mkdir((outside_ + "/sub").c_str(), 0755), 0);
    ASSERT_EQ(::symlink((outside_ + "/sub").c_str(), (root_ + "/link").c_str()), 0);
  }
  core::ActionOutcome RunReadOnly(const std::string& code, SandboxMode mode) {
    core::ExecContext ctx = Context(mode);
    ctx.exec_policy = core::ExecPolicy::kApprove;
    core::ActionOutcome o = Run(code, mode, &ctx);
    EXPECT_FALSE(absl::StrContains(o.error, "command_not_allowed")) << "not on the read-only list: " << o.error;
    return o;
  }
};

TEST_F(ReadOnlyTierTest, GrepDoesNotReadGitConfigTokens) {
  NEEDS(false, true);
  EXPECT_FALSE(absl::StrContains(Out(RunReadOnly("grep -r SECRET .", ContainedMode())), "GIT-TOKEN-SECRET"));
  EXPECT_TRUE(absl::StrContains(Out(RunReadOnly("grep -r SECRET .", SandboxMode::kOff)), "GIT-TOKEN-SECRET"));
}

// Every git config and FETCH_HEAD the tier could reach: a submodule's
// config under .git/modules, FETCH_HEAD (a fetch from a URL with a token),
// a worktree's config.worktree, the reflog, a nested repository's config.
// git status, diff and log still work.
TEST_F(ReadOnlyTierTest, GrepDoesNotReadAnyGitConfigOrFetchHeadTokens) {
  NEEDS(false, true);
  Sh("mkdir -p .git/modules/lib/sub && : > .git/modules/lib/sub/HEAD && "
     "printf '[remote \\\"origin\\\"]\\n\\turl = https://u:MODULE-TOKEN-SECRET@h/r\\n' > "
     ".git/modules/lib/sub/config && "
     "printf 'abc\\t\\tbranch main of https://u:FETCH-TOKEN-SECRET@h/r\\n' > .git/FETCH_HEAD && "
     "printf '[x]\\n\\ty = WORKTREE-TOKEN-SECRET\\n' > .git/config.worktree && "
     "printf 'pull https://u:LOG-TOKEN-SECRET@h/r: Fast-forward\\n' >> .git/logs/HEAD && "
     "git init -q nested && git -C nested config remote.origin.url https://u:NESTED-TOKEN-SECRET@h/r");
  WriteFile(root_ + "/a.txt", "two\n");
  const std::string code = "grep -r TOKEN-SECRET .";
  const std::string on = Out(RunReadOnly(code, ContainedMode()));
  for (const char* token : {"GIT-TOKEN-SECRET", "MODULE-TOKEN-SECRET", "FETCH-TOKEN-SECRET", "WORKTREE-TOKEN-SECRET",
                            "LOG-TOKEN-SECRET", "NESTED-TOKEN-SECRET"}) {
    EXPECT_FALSE(absl::StrContains(on, token)) << token << " in:\n" << on;
  }
  const std::string off = Out(RunReadOnly(code, SandboxMode::kOff));
  for (const char* token : {"MODULE-TOKEN-SECRET", "FETCH-TOKEN-SECRET", "WORKTREE-TOKEN-SECRET", "LOG-TOKEN-SECRET",
                            "NESTED-TOKEN-SECRET"}) {
    EXPECT_TRUE(absl::StrContains(off, token)) << token << " not in:\n" << off;
  }
  core::ActionOutcome status = RunReadOnly("git status --short", ContainedMode());
  EXPECT_TRUE(status.success) << status.error << Out(status);
  EXPECT_TRUE(absl::StrContains(Out(status), "M a.txt")) << Out(status);
  core::ActionOutcome diff = RunReadOnly("git diff", ContainedMode());
  EXPECT_TRUE(absl::StrContains(Out(diff), "+two")) << Out(diff);
  core::ActionOutcome log = RunReadOnly("git log --oneline", ContainedMode());
  EXPECT_TRUE(absl::StrContains(Out(log), "init")) << Out(log);
}

TEST_F(ReadOnlyTierTest, GitDiffNoIndexDoesNotReadGitConfigTokens) {
  NEEDS(false, true);
  ASSERT_EQ(::mkdir((root_ + "/empty").c_str(), 0755), 0);
  const std::string code = "git diff --no-index empty .";
  EXPECT_FALSE(absl::StrContains(Out(RunReadOnly(code, ContainedMode())), "GIT-TOKEN-SECRET"));
  EXPECT_TRUE(absl::StrContains(Out(RunReadOnly(code, SandboxMode::kOff)), "GIT-TOKEN-SECRET"));
}

TEST_F(ReadOnlyTierTest, FindFilesFromListsNothingOutside) {
  NEEDS(true, false);
  WriteFile(root_ + "/list", outside_ + std::string(1, '\0'));
  const std::string code = "find -files0-from list";
  EXPECT_FALSE(absl::StrContains(Out(RunReadOnly(code, ContainedMode())), "secret.txt"));
  EXPECT_TRUE(absl::StrContains(Out(RunReadOnly(code, SandboxMode::kOff)), "secret.txt"));
}

TEST_F(ReadOnlyTierTest, CatThroughALinkDoesNotReadOutside) {
  NEEDS(true, false);
  const std::string code = "cat link/../secret.txt";
  EXPECT_FALSE(absl::StrContains(Out(RunReadOnly(code, ContainedMode())), "OUTSIDE-SECRET"));
  EXPECT_TRUE(absl::StrContains(Out(RunReadOnly(code, SandboxMode::kOff)), "OUTSIDE-SECRET"));
}

// The read-only tier has no write access at all, even inside the project
// (checked on the sandbox itself: no command of the list writes).
TEST_F(ReadOnlyTierTest, NoWriteAtAll) {
  NEEDS(true, false);
  internal::SandboxOptions o;
  o.roots = {root_};
  o.home = home_;
  o.read_only = true;
  absl::StatusOr<std::unique_ptr<internal::Sandbox>> box = internal::Sandbox::Prepare(o, internal::ProbeSandbox());
  ASSERT_TRUE(box.ok()) << box.status();
  internal::RunSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo x > inside; cat a.txt"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.cwd = root_;
  spec.sandbox = ContainedMode() == SandboxMode::kOff ? nullptr : box->get();
  absl::StatusOr<internal::RunResult> r = internal::RunProcess(spec);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(Exists(root_ + "/inside"));
  EXPECT_EQ(r->stdout_text, "one\n");  // reading the project works
}

TEST_F(SandboxTest, ReportSaysWhichContainment) {
  core::ActionOutcome off = Run("true", SandboxMode::kOff);
  EXPECT_TRUE(absl::StrContains(off.data.value("containment", std::string()), "unconfined"));
  core::ActionOutcome on = Run("true", SandboxMode::kAuto);
  const std::string expected = internal::ProbeSandbox().landlock_abi > 0
                                   ? absl::StrCat("Landlock ABI ", internal::ProbeSandbox().landlock_abi)
                                   : "none";
  EXPECT_TRUE(absl::StrContains(on.data.value("containment", std::string()), expected))
      << on.data.value("containment", std::string());
  // A failed contained exec names the sandbox's limits and the settings.
  core::ActionOutcome failed = Run("exit 3", SandboxMode::kAuto);
  if (internal::ProbeSandbox().Any()) {
    EXPECT_TRUE(absl::StrContains(failed.error, "sandbox: off")) << failed.error;
    EXPECT_TRUE(absl::StrContains(failed.error, "exec_network: allow")) << failed.error;
  }
}

TEST_F(SandboxTest, RequiredRefusesWithoutTheFullSandbox) {
  core::ActionOutcome o = Run("echo ran", SandboxMode::kRequired);
  if (internal::ProbeSandbox().Full()) {
    EXPECT_TRUE(o.success) << o.error;
  } else {
    EXPECT_FALSE(o.success);
    EXPECT_TRUE(absl::StartsWith(o.error, "exec: sandbox_unavailable:")) << o.error;
    EXPECT_FALSE(absl::StrContains(Out(o), "ran"));
  }
}

// A kernel with nothing: the default exec: allow becomes approve, and the
// refusal says why; required refuses; auto runs unconfined and says so.
TEST_F(SandboxTest, FallbackOnlyWithoutASandbox) {
  internal::SandboxSupport none;
  none.landlock_why_not = "no Landlock here";
  none.namespaces_why_not = "no namespaces here";
  internal::OverrideSandboxSupportForTesting(&none);
  core::ExecContext ctx = Context(SandboxMode::kAuto);
  ApplySandboxFallback(&ctx, /*exec_policy_is_default=*/true);
  EXPECT_EQ(ctx.exec_policy, core::ExecPolicy::kApprove);
  core::ActionOutcome refused = Run("touch x", SandboxMode::kAuto, &ctx);
  EXPECT_FALSE(refused.success);
  EXPECT_TRUE(absl::StrContains(refused.error, "no sandbox is available")) << refused.error;
  EXPECT_FALSE(Exists(root_ + "/x"));
  core::ExecContext explicit_allow = Context(SandboxMode::kAuto);
  ApplySandboxFallback(&explicit_allow, /*exec_policy_is_default=*/false);
  EXPECT_EQ(explicit_allow.exec_policy, core::ExecPolicy::kAllow);
  core::ActionOutcome unconfined = Run("true", SandboxMode::kAuto, &explicit_allow);
  EXPECT_TRUE(unconfined.success) << unconfined.error;
  EXPECT_TRUE(absl::StrContains(unconfined.data.value("containment", std::string()), "unconfined"));
  core::ActionOutcome required = Run("touch y", SandboxMode::kRequired, &explicit_allow);
  EXPECT_TRUE(absl::StartsWith(required.error, "exec: sandbox_unavailable:")) << required.error;
  EXPECT_FALSE(Exists(root_ + "/y"));
  const Containment config = DescribeContainment(SandboxMode::kAuto, false);
  EXPECT_FALSE(config.sandboxed);
  EXPECT_TRUE(absl::StrContains(config.text, "becomes approve")) << config.text;
  internal::OverrideSandboxSupportForTesting(nullptr);
  // With a sandbox, nothing falls back.
  if (internal::ProbeSandbox().Any()) {
    core::ExecContext with = Context(SandboxMode::kAuto);
    ApplySandboxFallback(&with, true);
    EXPECT_EQ(with.exec_policy, core::ExecPolicy::kAllow);
  }
}

// Part of the sandbox, as on a kernel with one mechanism only: what there
// is still holds, and the report says what is missing.
TEST_F(SandboxTest, LandlockOnlyStillBlocksWritesOutside) {
  NEEDS(true, false);
  internal::SandboxSupport only = internal::ProbeSandbox();
  only.namespaces = false;
  only.namespaces_why_not = "namespaces left out by the test";
  internal::OverrideSandboxSupportForTesting(&only);
  const std::string target = outside_ + "/planted";
  core::ActionOutcome o = Run(absl::StrCat("echo x > '", target, "'"), SandboxMode::kAuto);
  core::ActionOutcome required = Run("true", SandboxMode::kRequired);
  const std::string text = DescribeContainment(SandboxMode::kAuto, false).text;
  internal::OverrideSandboxSupportForTesting(nullptr);
  EXPECT_FALSE(o.success);
  EXPECT_FALSE(Exists(target));
  const std::string containment = o.data.value("containment", std::string());
  EXPECT_TRUE(absl::StrContains(containment, "partial: no namespaces")) << containment;
  EXPECT_TRUE(absl::StartsWith(required.error, "exec: sandbox_unavailable:")) << required.error;
  EXPECT_TRUE(absl::StrContains(text, "only IPv4 and IPv6 sockets are refused (seccomp)")) << text;
}

// Without a network namespace (as on a kernel without unprivileged user
// namespaces), a seccomp filter refuses IPv4 and IPv6 sockets: UDP, which
// Landlock does not handle, included.
TEST_F(SandboxTest, NoInternetSocketWithoutANetworkNamespace) {
  NEEDS(true, false);
  internal::SandboxSupport only = internal::ProbeSandbox();
  only.namespaces = false;
  only.namespaces_why_not = "namespaces left out by the test";
  internal::OverrideSandboxSupportForTesting(&only);
  const std::string code = "exec 3<>/dev/udp/127.0.0.1/9 && echo opened";
  core::ActionOutcome on = Run(code, ContainedMode());
  core::ExecContext allowed = Context(ContainedMode());
  allowed.exec_network = true;
  core::ActionOutcome net = Run(code, ContainedMode(), &allowed);
  internal::OverrideSandboxSupportForTesting(nullptr);
  EXPECT_FALSE(on.success);
  EXPECT_FALSE(absl::StrContains(Out(on), "opened")) << Out(on);
  if (ContainedMode() != SandboxMode::kOff) {
    EXPECT_TRUE(absl::StrContains(on.data.value("containment", std::string()), "seccomp"))
        << on.data.value("containment", std::string());
  }
  EXPECT_TRUE(net.success) << net.error;  // exec_network: allow: no filter
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(off.success) << off.error;
  EXPECT_TRUE(absl::StrContains(Out(off), "opened")) << Out(off);
}

// io_uring (whose operations, IORING_OP_SOCKET among them, pass no system
// call a filter sees, and a large kernel surface) is refused with EPERM in
// every sandbox: the whole one, with exec_network: allow, and each part
// alone. The test binary itself is the program that calls io_uring_setup.
TEST_F(SandboxTest, IoUringIsRefused) {
  NEEDS(false, false);
  const internal::SandboxSupport& support = internal::ProbeSandbox();
  if (!support.Any() || !support.seccomp) {
    const std::string why = !support.Any() ? "no sandbox on this kernel" : support.seccomp_why_not;
    if (Required()) FAIL() << "CLADA_SANDBOX_REQUIRED=1 and io_uring is not refused: " << why;
    GTEST_SKIP() << "io_uring is not refused here: " << why;
  }
  const int here = TryIoUringSetup();
  if (here != 0) {
    GTEST_SKIP() << "io_uring_setup fails outside the sandbox already (errno " << -here
                 << ": a kernel without io_uring, or /proc/sys/kernel/io_uring_disabled)";
  }
  const std::string self = SelfPath();
  ASSERT_FALSE(self.empty());
  const std::string code = absl::StrCat("CLADA_SANDBOX_TEST_IO_URING=1 '", self, "'");
  core::ActionOutcome off = Run(code, SandboxMode::kOff);
  EXPECT_TRUE(off.success) << Out(off);
  EXPECT_TRUE(absl::StrContains(Out(off), "io_uring_setup: ok")) << Out(off);
  const std::string refused = absl::StrCat("io_uring_setup: errno ", EPERM, "\n");
  core::ActionOutcome whole = Run(code, ContainedMode());
  EXPECT_FALSE(whole.success) << Out(whole);
  EXPECT_TRUE(absl::StrContains(Out(whole), refused)) << Out(whole);
  core::ExecContext allowed = Context(ContainedMode());
  allowed.exec_network = true;
  core::ActionOutcome net = Run(code, ContainedMode(), &allowed);
  EXPECT_FALSE(net.success) << Out(net);
  EXPECT_TRUE(absl::StrContains(Out(net), refused)) << Out(net);
  internal::SandboxSupport landlock_only = support;
  landlock_only.namespaces = false;
  landlock_only.namespaces_why_not = "namespaces left out by the test";
  internal::SandboxSupport namespaces_only = support;
  namespaces_only.landlock_abi = 0;
  namespaces_only.landlock_why_not = "Landlock left out by the test";
  for (const internal::SandboxSupport* part : {&landlock_only, &namespaces_only}) {
    if (!part->Any()) continue;
    internal::OverrideSandboxSupportForTesting(part);
    core::ActionOutcome o = Run(code, ContainedMode());
    internal::OverrideSandboxSupportForTesting(nullptr);
    const char* which = part == &landlock_only ? "Landlock only" : "namespaces only";
    EXPECT_FALSE(o.success) << which << ": " << Out(o);
    EXPECT_TRUE(absl::StrContains(Out(o), refused)) << which << ": " << Out(o);
    if (ContainedMode() != SandboxMode::kOff) {
      EXPECT_TRUE(absl::StrContains(o.data.value("containment", std::string()), "seccomp"))
          << which << ": " << o.data.value("containment", std::string());
    }
  }
  if (ContainedMode() != SandboxMode::kOff) {
    EXPECT_TRUE(absl::StrContains(whole.data.value("containment", std::string()), "io_uring refused by seccomp"))
        << whole.data.value("containment", std::string());
  }
}

// Where there is no filter (an architecture without a table, a kernel
// without seccomp filters), the report says io_uring is not refused.
TEST_F(SandboxTest, ContainmentSaysWhenIoUringIsNotRefused) {
  NEEDS(false, false);
  if (!internal::ProbeSandbox().Any()) GTEST_SKIP() << "no sandbox on this kernel";
  internal::SandboxSupport without = internal::ProbeSandbox();
  without.seccomp = false;
  without.seccomp_why_not = "seccomp left out by the test";
  internal::OverrideSandboxSupportForTesting(&without);
  core::ActionOutcome o = Run("true", SandboxMode::kAuto);
  const std::string config = DescribeContainment(SandboxMode::kAuto, false).text;
  internal::OverrideSandboxSupportForTesting(nullptr);
  EXPECT_TRUE(o.success) << o.error;
  const std::string containment = o.data.value("containment", std::string());
  EXPECT_TRUE(absl::StrContains(containment, "io_uring not refused: seccomp left out by the test")) << containment;
  EXPECT_FALSE(absl::StrContains(containment, "io_uring refused")) << containment;
  EXPECT_TRUE(absl::StrContains(config, "io_uring not refused: seccomp left out by the test")) << config;
}

// A classic BPF interpreter for the instructions SeccompFilter emits (load a
// word of seccomp_data, jump if equal, return): what the kernel would
// decide for one call, so that a table is checked on any machine.
uint32_t Decide(const std::vector<struct sock_filter>& prog, uint32_t arch, uint32_t nr, uint64_t arg0) {
  struct seccomp_data d = {};
  d.arch = arch;
  d.nr = static_cast<int>(nr);
  d.args[0] = arg0;
  uint32_t acc = 0;
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    const struct sock_filter& f = prog[pc];
    if (f.code == (BPF_LD | BPF_W | BPF_ABS) && f.k + sizeof acc <= sizeof d && f.k % 4 == 0) {
      std::memcpy(&acc, reinterpret_cast<const char*>(&d) + f.k, sizeof acc);
    } else if (f.code == (BPF_JMP | BPF_JEQ | BPF_K)) {
      pc += acc == f.k ? f.jt : f.jf;
    } else if (f.code == (BPF_RET | BPF_K)) {
      return f.k;
    } else {
      ADD_FAILURE() << "instruction " << pc << ": code " << f.code << " k " << f.k;
      return 0xdeadbeef;
    }
  }
  ADD_FAILURE() << "the program runs off its end";
  return 0xdeadbeef;
}

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kEperm = SECCOMP_RET_ERRNO | EPERM;
constexpr uint32_t kNoInet = SECCOMP_RET_ERRNO | EAFNOSUPPORT;
#ifdef SECCOMP_RET_KILL_PROCESS
constexpr uint32_t kKill = SECCOMP_RET_KILL_PROCESS;
#else
constexpr uint32_t kKill = SECCOMP_RET_KILL;
#endif

// aarch64's table, checked here on any machine: the numbers are those of
// include/uapi/asm-generic/unistd.h (socket 198, io_uring_setup 425) and,
// for 32-bit ARM programs, arch/arm/tools/syscall.tbl (socket 281).
TEST(SeccompFilterTest, Aarch64Table) {
  const std::vector<struct sock_filter> net = internal::SeccompFilter(internal::SeccompRowsAarch64(), true);
  const std::vector<struct sock_filter> io = internal::SeccompFilter(internal::SeccompRowsAarch64(), false);
  ASSERT_FALSE(net.empty());
  ASSERT_FALSE(io.empty());
  EXPECT_LT(io.size(), net.size());  // no socket rules without refuse_inet
  for (uint32_t arch : {uint32_t{AUDIT_ARCH_AARCH64}, uint32_t{AUDIT_ARCH_ARM}}) {
    const uint32_t socket = arch == AUDIT_ARCH_AARCH64 ? 198 : 281;
    for (const std::vector<struct sock_filter>* p : {&net, &io}) {
      EXPECT_EQ(Decide(*p, arch, 425, 0), kEperm) << arch;  // io_uring_setup
      EXPECT_EQ(Decide(*p, arch, 426, 0), kEperm) << arch;  // io_uring_enter
      EXPECT_EQ(Decide(*p, arch, 427, 0), kEperm) << arch;  // io_uring_register
      EXPECT_EQ(Decide(*p, arch, socket, AF_UNIX), kAllow) << arch;
      EXPECT_EQ(Decide(*p, arch, 63, 0), kAllow) << arch;  // read on aarch64
      EXPECT_EQ(Decide(*p, arch, 41, AF_INET), kAllow) << arch;  // x86-64's socket: not aarch64's
    }
    EXPECT_EQ(Decide(net, arch, socket, AF_INET), kNoInet) << arch;
    EXPECT_EQ(Decide(net, arch, socket, AF_INET6), kNoInet) << arch;
    EXPECT_EQ(Decide(io, arch, socket, AF_INET), kAllow) << arch;
  }
  // A call reported under another arch is killed (the kernel reports none).
  EXPECT_EQ(Decide(net, AUDIT_ARCH_X86_64, 198, AF_INET), kKill);
  EXPECT_EQ(Decide(io, AUDIT_ARCH_X86_64, 0, 0), kKill);
}

TEST(SeccompFilterTest, X86_64Table) {
  const std::vector<struct sock_filter> net = internal::SeccompFilter(internal::SeccompRowsX86_64(), true);
  const std::vector<struct sock_filter> io = internal::SeccompFilter(internal::SeccompRowsX86_64(), false);
  ASSERT_FALSE(net.empty());
  constexpr uint32_t kX32 = 0x40000000;
  for (uint32_t nr : {425u, 426u, 427u, 425u | kX32, 426u | kX32, 427u | kX32}) {
    EXPECT_EQ(Decide(net, AUDIT_ARCH_X86_64, nr, 0), kEperm) << nr;
    EXPECT_EQ(Decide(io, AUDIT_ARCH_X86_64, nr, 0), kEperm) << nr;
    EXPECT_EQ(Decide(io, AUDIT_ARCH_I386, nr & ~kX32, 0), kEperm) << nr;
  }
  for (uint32_t socket : {41u, 41u | kX32}) {
    EXPECT_EQ(Decide(net, AUDIT_ARCH_X86_64, socket, AF_INET6), kNoInet);
    EXPECT_EQ(Decide(net, AUDIT_ARCH_X86_64, socket, AF_UNIX), kAllow);
    EXPECT_EQ(Decide(io, AUDIT_ARCH_X86_64, socket, AF_INET), kAllow);
  }
  // i386: socketcall and socket refused whole without a network namespace.
  EXPECT_EQ(Decide(net, AUDIT_ARCH_I386, 102, AF_UNIX), kNoInet);
  EXPECT_EQ(Decide(net, AUDIT_ARCH_I386, 359, AF_UNIX), kNoInet);
  EXPECT_EQ(Decide(io, AUDIT_ARCH_I386, 102, 0), kAllow);
  EXPECT_EQ(Decide(net, AUDIT_ARCH_X86_64, 0, 0), kAllow);  // read
  EXPECT_EQ(Decide(net, AUDIT_ARCH_AARCH64, 0, 0), kKill);
}

// This build's table agrees with the system's own headers.
TEST(SeccompFilterTest, NativeTableMatchesTheSystemHeaders) {
  const absl::Span<const internal::SeccompRow> rows = internal::NativeSeccompRows();
#if defined(__x86_64__)
  const uint32_t native = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__) && defined(__AARCH64EL__)
  const uint32_t native = AUDIT_ARCH_AARCH64;
#else
  EXPECT_TRUE(rows.empty());
  GTEST_SKIP() << "no seccomp table for this architecture";
  const uint32_t native = 0;
#endif
  bool socket = false;
  bool setup = false;
  for (const internal::SeccompRow& r : rows) {
    if (r.audit_arch != native) continue;
    if (r.nr == static_cast<uint32_t>(__NR_socket)) socket = r.rule == internal::SeccompRule::kSocketInet;
#ifdef __NR_io_uring_setup
    if (r.nr == static_cast<uint32_t>(__NR_io_uring_setup)) setup = r.rule == internal::SeccompRule::kIoUring;
#endif
  }
  EXPECT_TRUE(socket) << "__NR_socket " << __NR_socket;
  EXPECT_TRUE(setup) << "__NR_io_uring_setup";
}

TEST_F(SandboxTest, NamespacesOnlyStillProtectGitAndSecrets) {
  NEEDS(false, true);
  internal::SandboxSupport only = internal::ProbeSandbox();
  only.landlock_abi = 0;
  only.landlock_why_not = "Landlock left out by the test";
  internal::OverrideSandboxSupportForTesting(&only);
  core::ActionOutcome hook = Run("echo x > .git/hooks/pre-commit", SandboxMode::kAuto);
  core::ActionOutcome key = Run("cat \"$HOME/.ssh/id_rsa\"", SandboxMode::kAuto);
  internal::OverrideSandboxSupportForTesting(nullptr);
  EXPECT_FALSE(hook.success);
  EXPECT_FALSE(Exists(root_ + "/.git/hooks/pre-commit"));
  EXPECT_FALSE(absl::StrContains(Out(key), "PRIVATE-KEY-SECRET")) << Out(key);
  const std::string containment = hook.data.value("containment", std::string());
  EXPECT_TRUE(absl::StrContains(containment, "partial: no Landlock")) << containment;
}

TEST_F(SandboxTest, ConfigLineSaysWhichContainment) {
  EXPECT_TRUE(absl::StrContains(DescribeContainment(SandboxMode::kOff, false).text, "unconfined"));
  const Containment autod = DescribeContainment(SandboxMode::kAuto, false);
  EXPECT_EQ(autod.sandboxed, internal::ProbeSandbox().Any());
  if (internal::ProbeSandbox().Full()) {
    EXPECT_TRUE(autod.full);
    EXPECT_TRUE(absl::StrContains(autod.text, internal::ProbeSandbox().seccomp
                                                  ? "network namespaces + io_uring refused by seccomp (sandbox: auto"
                                                  : "network namespaces; io_uring not refused: "))
        << autod.text;
    EXPECT_TRUE(absl::StrContains(DescribeContainment(SandboxMode::kAuto, true).text, "network allowed"));
  }
}

}  // namespace
}  // namespace clada::exec
