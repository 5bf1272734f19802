#include "proj/comp/exec/src/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "proj/comp/core/src/path_policy.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

namespace clada::exec::internal {
namespace {

// Landlock's ABI (include/uapi/linux/landlock.h), declared here so that an
// older header still builds every field up to ABI 6.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};
constexpr uint32_t kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;
constexpr uint64_t kExecute = 1ULL << 0;
constexpr uint64_t kWriteFile = 1ULL << 1;
constexpr uint64_t kReadFile = 1ULL << 2;
constexpr uint64_t kReadDir = 1ULL << 3;
constexpr uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kNetBindTcp = 1ULL << 0;
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ULL << 1;              // ABI 6

constexpr uint64_t kRead = kReadFile | kReadDir | kExecute;
// The rights a rule on a file (not a directory) may carry.
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate;

// Every file system right of `abi` but IOCTL_DEV (left unhandled: ioctls on
// devices the code may open stay as they were).
uint64_t HandledFs(int abi) {
  uint64_t rights = (1ULL << 13) - 1;  // EXECUTE .. MAKE_SYM
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  return rights;
}

int LandlockAbi() {
  const long v = ::syscall(__NR_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return v > 0 ? static_cast<int>(v) : 0;
}

// Writes `text` to the file at `path` (a /proc file): only system calls.
int WriteProcFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

// The locked flags of the mount holding `path`: a bind mount's read-only
// remount inside a user namespace must keep them.
unsigned long MountFlagsOf(const std::string& path) {
  struct statvfs st;
  if (::statvfs(path.c_str(), &st) != 0) return 0;
  unsigned long flags = 0;
  if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

std::string Canonical(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return "";
  return buf;
}

bool WithinAny(const std::string& path, const std::vector<std::string>& roots) {
  for (const std::string& r : roots) {
    if (core::IsWithin(path, r)) return true;
  }
  return false;
}

// The user's secrets outside the project: covered whenever they exist.
// (Under a masked home they matter where a root holds the home, or a
// toolchain's folder bound back holds them: ~/.cargo's credentials.)
constexpr const char* kSecretDirs[] = {".ssh",   ".aws",   ".config/gh", ".gnupg", ".config/gcloud", ".kube",
                                       ".docker", ".azure", ".password-store", ".codex", ".claude",
                                       ".config/github-copilot"};
constexpr const char* kSecretFiles[] = {".netrc",  ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".vault-token",
                                        ".cargo/credentials.toml", ".cargo/credentials", ".claude.json"};

// The first line of the file at `path` after `prefix` ("gitdir: "), or the
// whole first line when `prefix` is empty; "" when unreadable.
std::string FirstLineOf(const std::string& path, absl::string_view prefix) {
  char buf[PATH_MAX + 16];
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return "";
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return "";
  absl::string_view line(buf, static_cast<size_t>(n));
  line = line.substr(0, line.find('\n'));
  if (!absl::ConsumePrefix(&line, prefix)) return "";
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return std::string(line);
}

// `path` canonical, relative to `dir` when not absolute; "" when missing.
std::string CanonicalFrom(const std::string& dir, const std::string& path) {
  if (path.empty()) return "";
  return Canonical(path.front() == '/' ? path : absl::StrCat(dir, "/", path));
}

// The `.clada` folders sandboxes of this process made, with how many live
// sandboxes hold each: parallel execs share one, and the last removes it.
std::mutex g_state_dirs_mu;
std::map<std::string, int>* StateDirHolders() {
  static auto* const holders = new std::map<std::string, int>;
  return holders;
}

// Makes `dir` (absent) or joins the sandboxes holding it; false when it
// cannot be made (a read-only root: then the code cannot make it either).
bool HoldStateDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_state_dirs_mu);
  auto it = StateDirHolders()->find(dir);
  if (it != StateDirHolders()->end()) return ++it->second, true;
  if (::mkdir(dir.c_str(), 0755) != 0) return false;
  (*StateDirHolders())[dir] = 1;
  return true;
}

void ReleaseStateDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_state_dirs_mu);
  auto it = StateDirHolders()->find(dir);
  if (it == StateDirHolders()->end() || --it->second > 0) return;
  StateDirHolders()->erase(it);
  ::rmdir(dir.c_str());  // fails, keeping it, when clada put something in it meanwhile
}

// What in the git dir `dir` may hold a remote's URL with its token: the
// config files and FETCH_HEAD (each as /dev/null), the reflog (an empty
// tmpfs); then the same in each submodule's git dir under modules/ (a
// name with slashes is a path of folders there) and each worktree's under
// worktrees/, down to 6 folders below `dir` and 200 per folder. git
// status, diff and log need none of them.
void HideGitSecrets(const std::string& dir, int depth, std::vector<std::string>* dirs,
                    std::vector<std::string>* files) {
  struct stat st;
  for (const char* name : {"config", "config.worktree", "FETCH_HEAD"}) {
    const std::string p = absl::StrCat(dir, "/", name);
    if (::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) files->push_back(p);
  }
  const std::string logs = dir + "/logs";
  if (::lstat(logs.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) dirs->push_back(logs);
  if (depth >= 6) return;
  // A git dir (it has HEAD) holds submodules and worktrees in these; a
  // folder of a submodule's name holds git dirs or more of the name.
  const bool git_dir = ::lstat((dir + "/HEAD").c_str(), &st) == 0;
  for (const char* sub : git_dir ? std::vector<const char*>{"/modules", "/worktrees"} : std::vector<const char*>{""}) {
    const std::string parent = absl::StrCat(dir, sub);
    DIR* d = ::opendir(parent.c_str());
    if (d == nullptr) continue;
    int seen = 0;
    while (const struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' || ++seen > 200) continue;
      const std::string child = absl::StrCat(parent, "/", e->d_name);
      if (::lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) HideGitSecrets(child, depth + 1, dirs, files);
    }
    ::closedir(d);
  }
}

}  // namespace

std::vector<std::string> GitDirsOf(const std::string& root) {
  std::vector<std::string> out;
  // The repository's `.git` at the root or, for a root inside a repository,
  // at its nearest ancestor that has one (git finds it there too).
  std::string dir = root;
  while (true) {
    const std::string p = dir == "/" ? "/.git" : dir + "/.git";
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      // A `.git` symlink (`ln -s .realgit .git`): git follows it, so its
      // target is the git dir to protect.
      const std::string target = Canonical(p);
      struct stat tst;
      if (!target.empty() && ::stat(target.c_str(), &tst) == 0 && S_ISDIR(tst.st_mode)) {
        out.push_back(target);
        break;
      }
    } else if (::lstat(p.c_str(), &st) == 0) {
      out.push_back(p);
      if (S_ISREG(st.st_mode)) {
        // A worktree's or submodule's `.git` file: the git dir it names, and
        // that one's common dir (hooks and config live there).
        const std::string gitdir = CanonicalFrom(dir, FirstLineOf(p, "gitdir: "));
        if (!gitdir.empty()) {
          out.push_back(gitdir);
          const std::string common = CanonicalFrom(gitdir, FirstLineOf(gitdir + "/commondir", ""));
          if (!common.empty() && common != gitdir) out.push_back(common);
        }
      }
      break;
    }
    if (dir == "/" || dir.empty()) break;
    const size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return out;
}

std::vector<std::string> NestedGitDirs(const std::string& root, int max_depth, int max_dirs, bool* complete) {
  std::vector<std::string> out;
  *complete = true;
  std::vector<std::pair<std::string, int>> queue = {{root, 0}};  // breadth first
  int read = 0;
  for (size_t next = 0; next < queue.size(); ++next) {
    if (read >= max_dirs) {
      *complete = false;
      break;
    }
    const std::string dir = queue[next].first;
    const int depth = queue[next].second;
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      ::close(fd);
      continue;
    }
    ++read;
    while (const struct dirent* e = ::readdir(d)) {
      const absl::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      const std::string path = absl::StrCat(dir == "/" ? "" : dir, "/", name);
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
      }
      if (name == ".git") {
        if (depth > 0) {  // the root's own: GitDirsOf
          for (std::string& g : GitDirsOf(dir)) out.push_back(std::move(g));
        }
        continue;  // nothing below a git dir is a work tree
      }
      // node_modules: often thousands of folders, seldom a repository.
      if (type == DT_DIR && depth < max_depth && name != "node_modules") queue.emplace_back(path, depth + 1);
    }
    ::closedir(d);
  }
  return out;
}

namespace {

constexpr uint32_t kX32 = 0x40000000;  // __X32_SYSCALL_BIT

// x86-64 (arch/x86/entry/syscalls/syscall_64.tbl; x32 calls are the same
// numbers with the x32 bit) and i386 (syscall_32.tbl).
constexpr SeccompRow kX86_64Rows[] = {
    {AUDIT_ARCH_X86_64, 425, SeccompRule::kIoUring, "io_uring_setup"},
    {AUDIT_ARCH_X86_64, 426, SeccompRule::kIoUring, "io_uring_enter"},
    {AUDIT_ARCH_X86_64, 427, SeccompRule::kIoUring, "io_uring_register"},
    {AUDIT_ARCH_X86_64, 425 | kX32, SeccompRule::kIoUring, "io_uring_setup (x32)"},
    {AUDIT_ARCH_X86_64, 426 | kX32, SeccompRule::kIoUring, "io_uring_enter (x32)"},
    {AUDIT_ARCH_X86_64, 427 | kX32, SeccompRule::kIoUring, "io_uring_register (x32)"},
    {AUDIT_ARCH_X86_64, 41, SeccompRule::kSocketInet, "socket"},
    {AUDIT_ARCH_X86_64, 41 | kX32, SeccompRule::kSocketInet, "socket (x32)"},
    {AUDIT_ARCH_I386, 425, SeccompRule::kIoUring, "io_uring_setup"},
    {AUDIT_ARCH_I386, 426, SeccompRule::kIoUring, "io_uring_enter"},
    {AUDIT_ARCH_I386, 427, SeccompRule::kIoUring, "io_uring_register"},
    {AUDIT_ARCH_I386, 102, SeccompRule::kSocketWhole, "socketcall"},
    {AUDIT_ARCH_I386, 359, SeccompRule::kSocketWhole, "socket"},
};

// aarch64 (include/uapi/asm-generic/unistd.h) and its 32-bit ARM EABI
// compat calls (arch/arm/tools/syscall.tbl; EABI has no socketcall).
constexpr SeccompRow kAarch64Rows[] = {
    {AUDIT_ARCH_AARCH64, 425, SeccompRule::kIoUring, "io_uring_setup"},
    {AUDIT_ARCH_AARCH64, 426, SeccompRule::kIoUring, "io_uring_enter"},
    {AUDIT_ARCH_AARCH64, 427, SeccompRule::kIoUring, "io_uring_register"},
    {AUDIT_ARCH_AARCH64, 198, SeccompRule::kSocketInet, "socket"},
    {AUDIT_ARCH_ARM, 425, SeccompRule::kIoUring, "io_uring_setup"},
    {AUDIT_ARCH_ARM, 426, SeccompRule::kIoUring, "io_uring_enter"},
    {AUDIT_ARCH_ARM, 427, SeccompRule::kIoUring, "io_uring_register"},
    {AUDIT_ARCH_ARM, 281, SeccompRule::kSocketInet, "socket"},
};

}  // namespace

absl::Span<const SeccompRow> SeccompRowsX86_64() { return kX86_64Rows; }
absl::Span<const SeccompRow> SeccompRowsAarch64() { return kAarch64Rows; }

absl::Span<const SeccompRow> NativeSeccompRows() {
#if defined(__x86_64__)
  return kX86_64Rows;
#elif defined(__aarch64__) && defined(__AARCH64EL__)
  return kAarch64Rows;
#else
  return {};
#endif
}

std::vector<struct sock_filter> SeccompFilter(absl::Span<const SeccompRow> rows, bool refuse_inet) {
  // Jumps go to labels: kAllow.. below, or kArch + i, the i-th arch's block.
  enum Label : int { kNext = -1, kEperm, kEafnosupport, kFamily, kArch };
  struct Insn {
    struct sock_filter f;
    int jt = kNext, jf = kNext;
  };
  std::vector<uint32_t> arches;
  for (const SeccompRow& r : rows) {
    if (std::find(arches.begin(), arches.end(), r.audit_arch) == arches.end()) arches.push_back(r.audit_arch);
  }
  const bool inet = refuse_inet && std::any_of(rows.begin(), rows.end(),
                                               [](const SeccompRow& r) { return r.rule != SeccompRule::kIoUring; });
  const uint32_t nr_off = offsetof(struct seccomp_data, nr);
  const uint32_t arch_off = offsetof(struct seccomp_data, arch);
  // socket()'s family, an int: the low half of args[0].
  const uint32_t family_off = offsetof(struct seccomp_data, args[0]) + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0);
#ifdef SECCOMP_RET_KILL_PROCESS
  constexpr uint32_t kKill = SECCOMP_RET_KILL_PROCESS;
#else
  constexpr uint32_t kKill = SECCOMP_RET_KILL;
#endif
  auto load = [](uint32_t off) { return Insn{BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off)}; };
  auto ret = [](uint32_t k) { return Insn{BPF_STMT(BPF_RET | BPF_K, k)}; };
  auto jeq = [](uint32_t k, int to) { return Insn{BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0), to, kNext}; };

  std::vector<Insn> prog;
  std::vector<size_t> at(kArch + arches.size(), 0);  // each label's instruction
  prog.push_back(load(arch_off));
  for (size_t i = 0; i < arches.size(); ++i) prog.push_back(jeq(arches[i], kArch + static_cast<int>(i)));
  prog.push_back(ret(kKill));
  for (size_t i = 0; i < arches.size(); ++i) {
    at[kArch + i] = prog.size();
    prog.push_back(load(nr_off));
    for (const SeccompRow& r : rows) {
      if (r.audit_arch != arches[i]) continue;
      if (r.rule == SeccompRule::kIoUring) {
        prog.push_back(jeq(r.nr, kEperm));
      } else if (inet) {
        prog.push_back(jeq(r.nr, r.rule == SeccompRule::kSocketInet ? kFamily : kEafnosupport));
      }
    }
    prog.push_back(ret(SECCOMP_RET_ALLOW));
  }
  if (inet) {
    at[kFamily] = prog.size();
    prog.push_back(load(family_off));
    prog.push_back(jeq(AF_INET, kEafnosupport));
    prog.push_back(jeq(AF_INET6, kEafnosupport));
    prog.push_back(ret(SECCOMP_RET_ALLOW));
    at[kEafnosupport] = prog.size();
    prog.push_back(ret(SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA)));
  }
  at[kEperm] = prog.size();
  prog.push_back(ret(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));

  std::vector<struct sock_filter> out;
  for (size_t pc = 0; pc < prog.size(); ++pc) {
    struct sock_filter f = prog[pc].f;
    for (auto [label, field] : {std::pair{prog[pc].jt, &f.jt}, std::pair{prog[pc].jf, &f.jf}}) {
      if (label == kNext) continue;
      const size_t offset = at[label] - pc - 1;  // every jump goes forward
      if (at[label] <= pc || offset > 255) return {};
      *field = static_cast<uint8_t>(offset);
    }
    out.push_back(f);
  }
  return out;
}

namespace {

// Whether the kernel takes seccomp filters: PR_SET_SECCOMP with no program
// fails with EFAULT where it does, EINVAL where it does not.
std::string ProbeSeccomp() {
  if (NativeSeccompRows().empty()) {
    return "clada has no seccomp table for this architecture (x86-64 and aarch64 only)";
  }
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, nullptr, 0, 0) == 0 || errno != EFAULT) {
    return "this kernel takes no seccomp filter (CONFIG_SECCOMP_FILTER)";
  }
  return "";
}

// Namespaces: a forked child enters them as the supervisor will.
std::string ProbeNamespaces() {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  const std::string uid_map = absl::StrCat(uid, " ", uid, " 1\n");
  const std::string gid_map = absl::StrCat(gid, " ", gid, " 1\n");
  const pid_t pid = ::fork();
  if (pid < 0) return absl::StrCat("fork failed: ", ::strerror(errno));
  if (pid == 0) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) != 0) ::_exit(10);
    if (WriteProcFile("/proc/self/setgroups", "deny") != 0) ::_exit(11);
    if (WriteProcFile("/proc/self/uid_map", uid_map) != 0) ::_exit(12);
    if (WriteProcFile("/proc/self/gid_map", gid_map) != 0) ::_exit(13);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(14);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  switch (WIFEXITED(status) ? WEXITSTATUS(status) : -1) {
    case 10:
      return "unshare(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWNET) is refused (unprivileged user namespaces off?)";
    case 11:
    case 12:
    case 13:
      return "the user namespace's uid/gid map cannot be written";
    case 14:
      return "mounts cannot be made private in a new mount namespace";
    default:
      return "the probe process failed";
  }
}

}  // namespace

namespace {
const SandboxSupport* g_support_override = nullptr;
}  // namespace

void OverrideSandboxSupportForTesting(const SandboxSupport* support) { g_support_override = support; }

const SandboxSupport& ProbeSandbox() {
  if (g_support_override != nullptr) return *g_support_override;
  static const SandboxSupport* const kSupport = [] {
    auto* s = new SandboxSupport;
    s->landlock_abi = LandlockAbi();
    if (s->landlock_abi == 0) {
      s->landlock_why_not = errno == EOPNOTSUPP ? "Landlock is built in but disabled (boot option lsm=)"
                                                : "this kernel has no Landlock (Linux 5.13+)";
    }
    s->namespaces_why_not = ProbeNamespaces();
    s->namespaces = s->namespaces_why_not.empty();
    s->seccomp_why_not = ProbeSeccomp();
    s->seccomp = s->seccomp_why_not.empty();
    return s;
  }();
  return *kSupport;
}

std::string DescribeSupport(const SandboxSupport& support, bool network) {
  std::vector<std::string> parts;
  if (support.landlock_abi > 0) parts.push_back(absl::StrCat("Landlock ABI ", support.landlock_abi));
  if (support.namespaces) {
    parts.push_back(network ? "user and mount namespaces" : "user, mount and network namespaces");
  }
  if (parts.empty()) {
    return absl::StrCat("none: ", support.landlock_why_not, "; ", support.namespaces_why_not);
  }
  if (support.seccomp) parts.push_back("io_uring refused by seccomp");
  std::string text = absl::StrJoin(parts, " + ");
  if (!support.landlock_abi) {
    absl::StrAppend(&text, " (partial: no Landlock, so writes outside the project are not blocked: ",
                    support.landlock_why_not, ")");
  } else if (!support.namespaces) {
    absl::StrAppend(&text, " (partial: no namespaces, so .git/, .clada/ and the home (~/.ssh, tokens) are not protected",
                    network                     ? ""
                    : support.seccomp           ? " and of the network only IPv4 and IPv6 sockets are refused (seccomp)"
                    : support.landlock_abi >= 4 ? " and only TCP is blocked"
                                                : " and the network is not blocked",
                    ": ", support.namespaces_why_not, ")");
  }
  if (!support.seccomp) absl::StrAppend(&text, "; io_uring not refused: ", support.seccomp_why_not);
  if (network) absl::StrAppend(&text, "; network allowed (exec_network: allow)");
  return text;
}

void Sandbox::PlanMasks(const SandboxOptions& o, const std::vector<std::string>& roots, Sandbox* box) {
  // The homes: the user's, /root, and each folder of /home this user can
  // enter; none that a root lies in or below (then the home is the project).
  std::vector<std::string> masks;
  auto add_mask = [&](const std::string& dir) {
    struct stat st;
    if (dir.empty() || dir == "/" || ::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        ::access(dir.c_str(), X_OK) != 0) {
      return;
    }
    for (const std::string& r : roots) {
      if (core::IsWithin(dir, r)) return;
    }
    for (const std::string& m : masks) {
      if (core::IsWithin(dir, m) || core::IsWithin(m, dir)) return;
    }
    masks.push_back(dir);
  };
  if (!o.home.empty()) add_mask(Canonical(o.home));
  add_mask(Canonical("/root"));
  if (DIR* d = ::opendir("/home")) {
    int seen = 0;
    while (const struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' || ++seen > 256) continue;
      add_mask(Canonical(absl::StrCat("/home/", e->d_name)));
    }
    ::closedir(d);
  }
  if (masks.empty()) return;
  // What is bound back: the roots, their git dirs and the private TMPDIR as
  // they are; clada's TMPDIR (the code file of a long snippet) and the
  // PATH's toolchains read-only.
  std::vector<std::pair<std::string, bool>> wanted;  // path, read-only
  for (const std::string& r : roots) {
    wanted.emplace_back(r, false);
    for (const std::string& g : GitDirsOf(r)) wanted.emplace_back(g, true);
  }
  if (const char* tmp = ::getenv("TMPDIR"); tmp != nullptr && tmp[0] == '/') wanted.emplace_back(Canonical(tmp), true);
  if (!o.tmpdir.empty()) wanted.emplace_back(Canonical(o.tmpdir), false);
  for (absl::string_view entry : absl::StrSplit(o.path, ':')) {
    if (entry.empty() || entry.front() != '/') continue;
    std::string dir = Canonical(std::string(entry));
    if (absl::EndsWith(dir, "/bin")) {
      // ~/.cargo/bin: ~/.cargo (its lib, its toolchains); ~/bin stays ~/bin.
      const std::string parent = dir.substr(0, dir.size() - 4);
      if (std::find(masks.begin(), masks.end(), parent) == masks.end() && !parent.empty()) dir = parent;
    }
    wanted.emplace_back(dir, true);
  }
  std::stable_sort(wanted.begin(), wanted.end(),
                   [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
  for (const auto& [path, read_only] : wanted) {
    if (path.empty() || box->bind_backs_.size() >= kMaxBindBacks) continue;
    const std::string* mask = nullptr;
    for (const std::string& m : masks) {
      if (core::IsWithin(path, m) && path != m) mask = &m;
    }
    if (mask == nullptr) continue;
    bool dup = false;
    for (const BindBack& b : box->bind_backs_) dup = dup || b.path == path;
    struct stat st;
    if (dup || ::stat(path.c_str(), &st) != 0) continue;
    BindBack b;
    b.path = path;
    b.is_file = !S_ISDIR(st.st_mode);
    b.read_only = read_only;
    b.remount_flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MountFlagsOf(path);
    // The folders between the mask and the path, outermost first.
    for (size_t at = mask->size() + 1; at <= path.size(); ++at) {
      if (at == path.size() ? !b.is_file : path[at] == '/') b.make.push_back(path.substr(0, at));
    }
    box->bind_backs_.push_back(std::move(b));
  }
  for (std::string& m : masks) box->masks_.push_back({std::move(m)});
}

absl::StatusOr<std::unique_ptr<Sandbox>> Sandbox::Prepare(const SandboxOptions& o, const SandboxSupport& support) {
  std::unique_ptr<Sandbox> box(new Sandbox);
  std::vector<std::string> roots;
  for (const std::string& r : o.roots) {
    std::string c = Canonical(r);
    if (!c.empty()) roots.push_back(c);
  }
  std::vector<std::string> protected_paths;  // read-only over themselves
  std::vector<std::string> hidden_dirs, hidden_files;
  std::vector<std::string> git_dirs_inside;  // the roots' git dirs the read-only tier can read
  for (const std::string& root : roots) {
    std::vector<std::string> git_dirs = GitDirsOf(root);
    if (support.namespaces) {
      // Repositories nested in the project (a vendored checkout, `git init
      // sub`): their hooks and config are as dangerous as the root's.
      bool complete = true;
      for (std::string& p : NestedGitDirs(root, kNestedGitDepth, kNestedGitDirs, &complete)) {
        git_dirs.push_back(std::move(p));
      }
    }
    for (std::string& p : git_dirs) {
      if (WithinAny(p, roots)) git_dirs_inside.push_back(p);
      if (std::find(protected_paths.begin(), protected_paths.end(), p) == protected_paths.end()) {
        protected_paths.push_back(std::move(p));
      }
    }
    // clada's settings live in <root>/.clada: read-only for every root, and
    // made (then removed, if still empty) where a root has none, so that
    // the code cannot create one either.
    const std::string state = root + "/.clada";
    struct stat st;
    if (::lstat(state.c_str(), &st) != 0 && errno == ENOENT && support.namespaces && HoldStateDir(state)) {
      box->made_state_dirs_.push_back(state);
    }
    const std::string target = Canonical(state);
    if (!target.empty() && ::stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
        std::find(protected_paths.begin(), protected_paths.end(), target) == protected_paths.end()) {
      protected_paths.push_back(target);
    }
  }
  for (const std::string& f : o.read_only_files) {
    const std::string p = Canonical(f);
    struct stat st;
    if (!p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) protected_paths.push_back(p);
  }
  if (!o.home.empty()) {
    for (const char* name : kSecretDirs) {
      const std::string p = Canonical(absl::StrCat(o.home, "/", name));
      struct stat st;
      if (p.empty() || ::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
      bool holds_root = false;
      for (const std::string& r : roots) holds_root = holds_root || core::IsWithin(r, p);
      if (!holds_root) hidden_dirs.push_back(p);
    }
    for (const char* name : kSecretFiles) {
      const std::string p = Canonical(absl::StrCat(o.home, "/", name));
      struct stat st;
      if (!p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) hidden_files.push_back(p);
    }
  }
  if (o.read_only) {
    // The read-only tier reads the project but not the tokens a remote's
    // URL may hold, nor clada's state.
    for (const std::string& git_dir : git_dirs_inside) HideGitSecrets(git_dir, 0, &hidden_dirs, &hidden_files);
    for (const std::string& root : roots) {
      struct stat st;
      const std::string state = root + "/.clada";
      if (::lstat(state.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) hidden_dirs.push_back(state);
    }
  }

  if (support.namespaces) PlanMasks(o, roots, box.get());
  // A mount whose target a mask hides (and nothing binds back) is left out:
  // the code cannot reach it anyway.
  auto reachable = [&box](const std::string& p) {
    bool masked = false;
    for (const Mask& m : box->masks_) masked = masked || core::IsWithin(p, m.dir);
    if (!masked) return true;
    for (const BindBack& b : box->bind_backs_) {
      if (core::IsWithin(p, b.path)) return true;
    }
    return false;
  };
  for (auto* list : {&protected_paths, &hidden_dirs, &hidden_files}) {
    list->erase(std::remove_if(list->begin(), list->end(), [&](const std::string& p) { return !reachable(p); }),
                list->end());
  }

  std::vector<std::string> parts;
  if (support.namespaces) {
    box->namespaces_ = true;
    box->unshare_flags_ = CLONE_NEWUSER | CLONE_NEWNS | (o.network ? 0 : CLONE_NEWNET);
    box->uid_map_ = absl::StrCat(::geteuid(), " ", ::geteuid(), " 1\n");
    box->gid_map_ = absl::StrCat(::getegid(), " ", ::getegid(), " 1\n");
    for (const std::string& p : protected_paths) {
      box->mounts_.push_back({p, p, "", "", MS_BIND | MS_REC, MS_BIND | MS_REMOUNT | MS_RDONLY | MountFlagsOf(p)});
    }
    for (const std::string& p : hidden_dirs) {
      box->mounts_.push_back(
          {"tmpfs", p, "tmpfs", "size=4k,nr_inodes=4,mode=0500", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, 0});
    }
    for (const std::string& p : hidden_files) box->mounts_.push_back({"/dev/null", p, "", "", MS_BIND, 0});
    parts.push_back(o.network ? "user and mount namespaces" : "user, mount and network namespaces");
  }

  if (support.landlock_abi > 0) {
    const int abi = support.landlock_abi;
    const uint64_t handled = HandledFs(abi);
    RulesetAttr attr = {handled, 0, 0};
    size_t attr_size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
      attr_size = offsetof(RulesetAttr, scoped);
      if (!o.network) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // no rule: no TCP at all
    }
    if (abi >= 6) {
      // No signal to a process outside the sandbox (clada, the user's other
      // programs), no connection to an abstract unix socket bound outside it
      // (a session bus, X11): neither is network, so exec_network: allow
      // leaves both scoped.
      attr_size = sizeof attr;
      attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    }
    const long fd = ::syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
    if (fd < 0) return absl::InternalError(absl::StrCat("landlock_create_ruleset failed: ", ::strerror(errno)));
    box->ruleset_fd_ = static_cast<int>(fd);
    auto add = [&](const std::string& path, uint64_t rights, bool must_exist) -> absl::Status {
      const int pfd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
      if (pfd < 0) {
        if (!must_exist && (errno == ENOENT || errno == ENOTDIR || errno == EACCES)) return absl::OkStatus();
        return absl::InternalError(absl::StrCat("cannot open '", path, "' for the sandbox: ", ::strerror(errno)));
      }
      struct stat st;
      const bool is_dir = ::fstat(pfd, &st) == 0 && S_ISDIR(st.st_mode);
      PathBeneathAttr rule = {rights & handled & (is_dir ? ~0ULL : kFileRights), pfd};
      const long rc = ::syscall(__NR_landlock_add_rule, box->ruleset_fd_, kRulePathBeneath, &rule, 0);
      const int err = errno;
      ::close(pfd);
      if (rc != 0) {
        return absl::InternalError(absl::StrCat("landlock_add_rule for '", path, "' failed: ", ::strerror(err)));
      }
      return absl::OkStatus();
    };
    absl::Status added;
    auto keep = [&added](absl::Status s) {
      if (added.ok() && !s.ok()) added = s;
    };
    const uint64_t device = kReadFile | kWriteFile | kTruncate;
    if (o.read_only) {
      for (const std::string& r : roots) keep(add(r, kRead, true));
      for (const char* p : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache",
                            "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/gitconfig", "/etc/passwd",
                            "/etc/group", "/etc/nsswitch.conf", "/proc",
                            "/dev/urandom"}) {
        keep(add(p, kRead, false));
      }
      if (!o.home.empty()) {
        keep(add(o.home + "/.gitconfig", kReadFile, false));
        keep(add(o.home + "/.config/git", kRead, false));
      }
    } else {
      keep(add("/", kRead, true));
      for (const std::string& r : roots) keep(add(r, handled, true));
      if (!o.tmpdir.empty()) keep(add(o.tmpdir, handled, true));
    }
    for (const char* p : {"/dev/null", "/dev/zero", "/dev/full"}) keep(add(p, device, false));
    if (!added.ok()) return added;
    parts.insert(parts.begin(), absl::StrCat("Landlock ABI ", abi));
  }
  if (parts.empty()) return absl::FailedPreconditionError(DescribeSupport(support, o.network));
  if (support.seccomp) {
    // io_uring refused always; without a network namespace to cut the
    // network off, IP sockets too.
    const bool inet = !o.network && !support.namespaces;
    box->seccomp_filter_ = SeccompFilter(NativeSeccompRows(), inet);
    if (box->seccomp_filter_.empty()) return absl::InternalError("the seccomp filter could not be built");
    parts.push_back(inet ? "seccomp (no io_uring, no IPv4 or IPv6 socket)" : "io_uring refused by seccomp");
  }

  box->description_ = absl::StrJoin(parts, " + ");
  if (!support.seccomp) absl::StrAppend(&box->description_, "; io_uring not refused: ", support.seccomp_why_not);
  if (o.read_only) box->description_ = absl::StrCat("read-only tier: ", box->description_);
  if (o.network) absl::StrAppend(&box->description_, "; network allowed");
  std::vector<std::string> limits;
  if (support.landlock_abi > 0) {
    limits.push_back(o.read_only ? "writes nothing and reads only the project and the system's programs"
                                 : "writes only in the project (its roots) and $TMPDIR");
  }
  if (support.namespaces) {
    limits.push_back("keeps .git/ and .clada/ read-only");
    limits.push_back("hides the home outside the project (~/.ssh, tokens; PATH's toolchains stay readable)");
  }
  if (!o.network) limits.push_back("has no network, loopback included (setting exec_network: allow allows it)");
  box->limits_ = absl::StrCat("the sandbox (", box->description_, ") ", absl::StrJoin(limits, ", "),
                              "; setting `sandbox: off` runs code unconfined");
  return box;
}

Sandbox::~Sandbox() {
  if (ruleset_fd_ >= 0) ::close(ruleset_fd_);
  for (const std::string& dir : made_state_dirs_) ReleaseStateDir(dir);
}

// Steps: 0 unshare, 1 setgroups, 2 uid_map, 3 gid_map, 4 private mounts,
// 100 + i mount i (200 + i its remount), 1000 no_new_privs, 1001 Landlock,
// 1002 the seccomp filter.
int Sandbox::Enter(int* step) const {
  auto fail = [step](int s) {
    *step = s;
    return errno != 0 ? errno : EIO;
  };
  if (namespaces_) {
    if (::unshare(unshare_flags_) != 0) return fail(0);
    int err = WriteProcFile("/proc/self/setgroups", "deny");
    if (err != 0 && err != ENOENT) return errno = err, fail(1);
    if ((err = WriteProcFile("/proc/self/uid_map", uid_map_)) != 0) return errno = err, fail(2);
    if ((err = WriteProcFile("/proc/self/gid_map", gid_map_)) != 0) return errno = err, fail(3);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return fail(4);
    if (!masks_.empty()) {
      // Opened before the homes are covered (a bind's source must be in
      // this mount namespace, and reachable).
      int fds[kMaxBindBacks];
      for (size_t j = 0; j < bind_backs_.size(); ++j) {
        fds[j] = ::open(bind_backs_[j].path.c_str(), O_PATH | O_CLOEXEC);
        if (fds[j] < 0) return fail(500 + static_cast<int>(j));
      }
      for (size_t i = 0; i < masks_.size(); ++i) {
        if (::mount("tmpfs", masks_[i].dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                    "size=64k,nr_inodes=4096,mode=0755") != 0) {
          return fail(300 + static_cast<int>(i));
        }
      }
      for (size_t j = 0; j < bind_backs_.size(); ++j) {
        const BindBack& b = bind_backs_[j];
        for (const std::string& dir : b.make) {
          if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return fail(400 + static_cast<int>(j));
        }
        if (b.is_file) {
          const int fd = ::open(b.path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
          if (fd < 0) return fail(400 + static_cast<int>(j));
          ::close(fd);
        }
        char source[32] = "/proc/self/fd/";
        char digits[12];
        int n = 0;
        for (int v = fds[j]; n == 0 || v > 0; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
        size_t at = 14;
        while (n > 0) source[at++] = digits[--n];
        source[at] = '\0';
        if (::mount(source, b.path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
          return fail(400 + static_cast<int>(j));
        }
        if (b.read_only && ::mount(nullptr, b.path.c_str(), nullptr, b.remount_flags, nullptr) != 0) {
          return fail(400 + static_cast<int>(j));
        }
        ::close(fds[j]);
      }
      for (size_t i = 0; i < masks_.size(); ++i) {
        if (::mount(nullptr, masks_[i].dir.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
                    nullptr) != 0) {
          return fail(300 + static_cast<int>(i));
        }
      }
    }
    for (size_t i = 0; i < mounts_.size(); ++i) {
      const Mount& m = mounts_[i];
      if (::mount(m.source.c_str(), m.target.c_str(), m.fstype.empty() ? nullptr : m.fstype.c_str(), m.flags,
                  m.data.empty() ? nullptr : m.data.c_str()) != 0) {
        return fail(100 + static_cast<int>(i));
      }
      if (m.remount_flags != 0 && ::mount(nullptr, m.target.c_str(), nullptr, m.remount_flags, nullptr) != 0) {
        return fail(200 + static_cast<int>(i));
      }
    }
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(1000);
  if (!seccomp_filter_.empty()) {
    struct sock_fprog prog = {static_cast<unsigned short>(seccomp_filter_.size()),
                              const_cast<struct sock_filter*>(seccomp_filter_.data())};
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return fail(1002);
  }
  if (ruleset_fd_ >= 0) {
    if (::syscall(__NR_landlock_restrict_self, ruleset_fd_, 0) != 0) return fail(1001);
    ::close(ruleset_fd_);
  }
  return 0;
}

std::string Sandbox::StepName(int step) const {
  switch (step) {
    case 0:
      return "unshare";
    case 1:
      return "setgroups";
    case 2:
      return "uid_map";
    case 3:
      return "gid_map";
    case 4:
      return "private mounts";
    case 1000:
      return "no_new_privs";
    case 1001:
      return "landlock_restrict_self";
    case 1002:
      return "seccomp filter";
  }
  const size_t i = static_cast<size_t>(step % 100);
  if (step >= 300 && step < 400 && i < masks_.size()) return absl::StrCat("tmpfs over ", masks_[i].dir);
  if (step >= 400 && step < 600 && i < bind_backs_.size()) {
    return absl::StrCat(step >= 500 ? "open " : "bind back ", bind_backs_[i].path);
  }
  if (step >= 100 && step < 300 && i < mounts_.size()) {
    return absl::StrCat(step >= 200 ? "read-only remount of " : "mount over ", mounts_[i].target);
  }
  return absl::StrCat("step ", step);
}

std::string CleanPath(const std::string& path, const std::vector<std::string>& roots) {
  std::vector<std::string> kept;
  for (absl::string_view entry : absl::StrSplit(path, ':')) {
    if (entry.empty() || entry.front() != '/') continue;
    std::string canonical = Canonical(std::string(entry));
    const std::string& checked = canonical.empty() ? core::NormalizeAbsolutePath(entry) : canonical;
    if (WithinAny(checked, roots) || WithinAny(core::NormalizeAbsolutePath(entry), roots)) continue;
    kept.emplace_back(entry);
  }
  return absl::StrJoin(kept, ":");
}

void SweepStaleTmpdirs(const std::string& parent) {
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  while (const struct dirent* e = ::readdir(dir)) {
    absl::string_view name = e->d_name;
    if (!absl::ConsumePrefix(&name, "clada-tmp-")) continue;
    const size_t dash = name.find('-');
    int pid = 0;
    if (dash == absl::string_view::npos || !absl::SimpleAtoi(name.substr(0, dash), &pid) || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // its clada may still run
    const std::string path = absl::StrCat(parent, "/", e->d_name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
    stale.push_back(path);
  }
  ::closedir(dir);
  for (const std::string& path : stale) RemoveTree(path);
}

absl::StatusOr<std::string> MakePrivateTmpdir() {
  const char* tmp = ::getenv("TMPDIR");
  const std::string parent = tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp";
  SweepStaleTmpdirs(parent);
  std::string pattern = absl::StrCat(parent, "/clada-tmp-", ::getpid(), "-XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a private TMPDIR in ", pattern, ": ", ::strerror(errno)));
  }
  return pattern;
}

void RemoveTree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace clada::exec::internal
