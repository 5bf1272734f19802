// The kernel sandbox an exec runs in (Linux): a user namespace with a mount
// namespace and, unless the network is allowed, a network namespace of its
// own; `.git` and `.clada` of every root bind-mounted read-only over
// themselves; the user's secret directories (~/.ssh, ~/.aws, ...) covered by
// an empty tmpfs; a seccomp filter refusing io_uring (and IPv4 and IPv6
// sockets where no network namespace can be made); then Landlock: read and
// execute everywhere, write only under the roots and a private TMPDIR, no
// TCP connect or bind. The read-only
// tier gets no write access at all and reads only the roots and the system's
// programs and libraries.
//
// A Sandbox is prepared in clada's process (it allocates, opens paths and
// builds the Landlock ruleset); Enter() runs in the forked supervisor before
// it starts the snippet and makes only system calls (async-signal-safe).
//
// Example:
//   SandboxOptions o;
//   o.write_roots = ctx.paths.allowed_roots;
//   o.tmpdir = private_tmp;
//   ASSIGN_OR_RETURN(std::unique_ptr<Sandbox> box, Sandbox::Prepare(o, ProbeSandbox()));
//   spec.sandbox = box.get();  // the supervisor calls box->Enter()
#ifndef CLADA_PROJ_COMP_EXEC_SRC_SANDBOX_H_
#define CLADA_PROJ_COMP_EXEC_SRC_SANDBOX_H_

#include <linux/filter.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace clada::exec::internal {

// What the running kernel offers, probed once per process.
struct SandboxSupport {
  int landlock_abi = 0;     // 0: no Landlock
  bool namespaces = false;  // unprivileged user + mount + network namespaces
  bool seccomp = false;     // seccomp filters, and a table for this architecture
  std::string landlock_why_not;
  std::string namespaces_why_not;
  std::string seccomp_why_not;
  bool Full() const { return landlock_abi > 0 && namespaces; }
  bool Any() const { return landlock_abi > 0 || namespaces; }
};

// Probes the kernel (a Landlock version query; a forked child that enters a
// user, mount and network namespace), once; later calls return the result.
const SandboxSupport& ProbeSandbox();

// Tests only: ProbeSandbox() returns `support` from now on (nullptr: the
// kernel's again). Not thread-safe against a running exec.
void OverrideSandboxSupportForTesting(const SandboxSupport* support);

// One line saying which containment `support` gives, e.g. "Landlock ABI 7 +
// user, mount and network namespaces + io_uring refused by seccomp", or
// "none: <why>".
std::string DescribeSupport(const SandboxSupport& support, bool network);

// The seccomp filter, one row per system call it refuses, for a kernel of
// one architecture (its native calls and its 32-bit compat ones, each by the
// audit arch the kernel reports for them):
//   kIoUring:     refused with EPERM whenever the sandbox applies
//   kSocketInet:  socket(2), refused with EAFNOSUPPORT for AF_INET and
//                 AF_INET6, when the network is not allowed and no network
//                 namespace cuts it off
//   kSocketWhole: then refused whole (i386's socketcall, whose arguments the
//                 filter cannot read)
enum class SeccompRule { kIoUring, kSocketInet, kSocketWhole };
struct SeccompRow {
  uint32_t audit_arch;  // AUDIT_ARCH_*
  uint32_t nr;          // the system call's number under that arch
  SeccompRule rule;
  const char* name;
};
absl::Span<const SeccompRow> SeccompRowsX86_64();
absl::Span<const SeccompRow> SeccompRowsAarch64();
// This build's table, chosen at compile time: x86-64's or (little-endian)
// aarch64's; empty on any other architecture, where no filter is installed
// and the containment says io_uring is not refused.
absl::Span<const SeccompRow> NativeSeccompRows();
// The BPF program for `rows`: a call of an arch not in `rows` kills the
// process (a kernel reports no other); each row's call refused as its rule
// says (kSocket* rows only with `refuse_inet`); everything else allowed.
// Built for a little-endian machine (args[0]'s low half first).
std::vector<struct sock_filter> SeccompFilter(absl::Span<const SeccompRow> rows, bool refuse_inet);

struct SandboxOptions {
  std::vector<std::string> roots;  // canonical; writable unless read_only
  std::string tmpdir;              // a private directory, writable ("" for none)
  std::string home;                // the user's home, for the secret directories
  bool read_only = false;          // the read-only tier: no writes, reads only roots + system
  bool network = false;            // exec_network: allow
  // Files clada keeps during the run (the listened chat file and its
  // report, the lock file): bound read-only over themselves when they exist.
  std::vector<std::string> read_only_files;
  // The PATH the code gets (CleanPath's): an absolute entry inside a masked
  // home (a toolchain: ~/.cargo/bin, ~/.nvm/.../bin) is bound back
  // read-only, the entry's parent when the entry is named `bin`.
  std::string path;
};

class Sandbox {
 public:
  // Opens the paths and builds the Landlock ruleset (when the kernel has
  // Landlock) and the mount plan (when it has namespaces). Errors: Internal
  // naming the path or call that failed.
  static absl::StatusOr<std::unique_ptr<Sandbox>> Prepare(const SandboxOptions& options,
                                                          const SandboxSupport& support);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Enters the sandbox: this process and every process it starts from now
  // on. Only system calls; safe between fork() and exec in a child of a
  // multi-threaded process. Returns 0, or an errno with *step set to the
  // step that failed (StepName).
  int Enter(int* step) const;

  // Which containment this sandbox applies, one phrase ("Landlock ABI 7 +
  // user, mount and network namespaces").
  const std::string& description() const { return description_; }
  // The limits, in one sentence, for a hint on a failed exec.
  const std::string& limits() const { return limits_; }
  // The name of a step Enter() reported ("unshare", "mount /x/.git", ...).
  std::string StepName(int step) const;

 private:
  Sandbox() = default;
  struct Mount {
    std::string source, target, fstype, data;
    unsigned long flags = 0;
    unsigned long remount_flags = 0;  // != 0: a second, remounting call
  };
  bool namespaces_ = false;
  int unshare_flags_ = 0;
  std::string uid_map_, gid_map_;
  // Homes covered by an empty tmpfs (the user's, other users', /root), and
  // what is bound back inside them: the roots and the TMPDIR read-write,
  // the PATH's toolchains read-only; parents first.
  struct Mask {
    std::string dir;
  };
  struct BindBack {
    std::string path;
    std::vector<std::string> make;  // folders to make in the tmpfs, outermost first
    bool is_file = false;
    bool read_only = false;
    unsigned long remount_flags = 0;
  };
  static constexpr size_t kMaxBindBacks = 64;
  static void PlanMasks(const SandboxOptions& o, const std::vector<std::string>& roots, Sandbox* box);
  std::vector<Mask> masks_;
  std::vector<BindBack> bind_backs_;
  std::vector<Mount> mounts_;
  // `<root>/.clada` folders Prepare created to mount them read-only (a root
  // had none): removed when the last sandbox holding them goes, if empty.
  std::vector<std::string> made_state_dirs_;
  int ruleset_fd_ = -1;
  // The seccomp filter (SeccompFilter): io_uring refused, and IPv4 and IPv6
  // sockets when the network is not allowed and no network namespace can be
  // made (empty: none).
  std::vector<struct sock_filter> seccomp_filter_;
  std::string description_, limits_;
};

// PATH without relative entries, empty entries and entries inside any of
// `roots` (each entry canonicalised first), so that no file an exec writes
// can stand in for an interpreter or a command.
std::string CleanPath(const std::string& path, const std::vector<std::string>& roots);

// The git directories the exec must not change for a root (canonical): its
// `.git`, or the `.git` of the nearest ancestor that has one (a root inside
// a repository); for a `.git` file (a worktree, a submodule) also the git
// dir it names and that one's common dir.
std::vector<std::string> GitDirsOf(const std::string& root);

// The git dirs of repositories nested below `root` (canonical), each as
// GitDirsOf gives them: a breadth-first walk that follows no symlink,
// reads at most `max_dirs` directories down to `max_depth` levels below
// the root, and never descends into a `.git` or a `node_modules`. *complete is false when the
// bound cut the walk short.
std::vector<std::string> NestedGitDirs(const std::string& root, int max_depth, int max_dirs, bool* complete);
// The bounds an exec uses (cost measured in ARCH.md).
inline constexpr int kNestedGitDepth = 4;
inline constexpr int kNestedGitDirs = 300;

// mkdtemp under $TMPDIR (else /tmp): "clada-tmp-<pid>-XXXXXX", mode 0700,
// <pid> this process's. First removes the ones a clada that no longer runs
// left there (killed before it could remove them; SweepStaleTmpdirs).
absl::StatusOr<std::string> MakePrivateTmpdir();
// Removes each "clada-tmp-<pid>-*" directory of this user in `parent`
// whose process is gone. Older names without a pid are left alone.
void SweepStaleTmpdirs(const std::string& parent);
// Removes the directory and everything in it; does not follow links.
void RemoveTree(const std::string& dir);

}  // namespace clada::exec::internal

#endif  // CLADA_PROJ_COMP_EXEC_SRC_SANDBOX_H_
