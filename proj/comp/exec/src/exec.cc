#include "proj/comp/exec/src/exec.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/status_macros.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/exec/src/allowed_commands.h"
#include "proj/comp/exec/src/output_capture.h"
#include "proj/comp/exec/src/process_runner.h"
#include "proj/comp/exec/src/read_only.h"
#include "proj/comp/exec/src/sandbox.h"

extern char** environ;

namespace clada::exec {
namespace {

using core::ActionOutcome;
using core::Json;

// Longest code passed as a command-line argument; Linux caps a single
// argument at 128 KiB (MAX_ARG_STRLEN). Longer code goes through a file.
constexpr size_t kMaxInlineCode = 100'000;
constexpr int64_t kMaxTimeoutSeconds = 24 * 3600;
constexpr int kErrorTailLines = 5;
constexpr size_t kErrorTailBytes = 1000;

struct Language {
  absl::string_view lang;
  absl::string_view binary;
  absl::string_view inline_flag;  // followed by the code
  absl::string_view extension;    // of the temporary file
};

constexpr Language kLanguages[] = {
    {"bash", "bash", "-c", ".sh"},       {"sh", "sh", "-c", ".sh"},     {"python", "python3", "-c", ".py"},
    {"javascript", "node", "-e", ".js"}, {"ruby", "ruby", "-e", ".rb"},
};

const Language* FindLanguage(absl::string_view lang) {
  for (const Language& l : kLanguages) {
    if (l.lang == lang) return &l;
  }
  return nullptr;
}

std::string LanguageList() {
  std::vector<absl::string_view> names;
  for (const Language& l : kLanguages) names.push_back(l.lang);
  return absl::StrJoin(names, ", ");
}

// The error may quote the code, a path or output: keep it valid UTF-8 so
// the report always serialises. `code`: the error's (ActionOutcome::code).
ActionOutcome Fail(absl::string_view code, absl::string_view message, Json data = Json::object()) {
  return ActionOutcome::Failure(std::string(code), core::ToValidUtf8(absl::StrCat("exec: ", message)),
                                std::move(data));
}

// The absolute path of an executable `binary` in `path_list` (PATH syntax;
// relative entries count from our working directory, as execvp would).
std::optional<std::string> FindInPath(absl::string_view binary, absl::string_view path_list) {
  for (absl::string_view dir : absl::StrSplit(path_list, ':')) {
    std::string base(dir.empty() ? "." : dir);
    if (base.front() != '/') {
      char cwd[4096];
      if (::getcwd(cwd, sizeof cwd) == nullptr) continue;
      base = absl::StrCat(cwd, "/", base);
    }
    std::string candidate = absl::StrCat(base, "/", binary);
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

// A unique value for CLADA_EXEC_ID: this process, a counter and the clock.
std::string NewExecId() {
  static std::atomic<uint64_t> counter{0};
  return absl::StrCat(::getpid(), "-", counter.fetch_add(1) + 1, "-", absl::GetCurrentTimeNanos());
}

// `path` and `tmpdir`, when set, replace PATH and TMPDIR.
std::vector<std::string> ChildEnvironment(const std::string& root, const std::string& marker,
                                          const std::optional<std::string>& path, const std::string& tmpdir) {
  static constexpr absl::string_view kReplaced[] = {"PAGER", "GIT_TERMINAL_PROMPT", "CLADA_ROOT", "CLADA_EXEC_ID"};
  std::vector<std::string> env;
  bool has_ci = false, has_unbuffered = false;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    absl::string_view entry(*e);
    absl::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (absl::string_view r : kReplaced) replaced = replaced || key == r;
    replaced = replaced || (path && key == "PATH") || (!tmpdir.empty() && key == "TMPDIR");
    if (replaced) continue;
    has_ci = has_ci || key == "CI";
    has_unbuffered = has_unbuffered || key == "PYTHONUNBUFFERED";
    env.emplace_back(entry);
  }
  env.push_back("PAGER=cat");
  env.push_back("GIT_TERMINAL_PROMPT=0");
  env.push_back(absl::StrCat("CLADA_ROOT=", root));
  env.push_back(marker);
  if (path) env.push_back(absl::StrCat("PATH=", *path));
  if (!tmpdir.empty()) env.push_back(absl::StrCat("TMPDIR=", tmpdir));
  if (!has_ci) env.push_back("CI=1");
  if (!has_unbuffered) env.push_back("PYTHONUNBUFFERED=1");
  return env;
}

// A temporary file holding code too large (or with NUL bytes) for argv.
class TempCodeFile {
 public:
  ~TempCodeFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  absl::Status Create(absl::string_view code, absl::string_view extension) {
    const char* tmp = ::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/clada-exec-XXXXXX", extension);
    int fd = ::mkstemps(pattern.data(), static_cast<int>(extension.size()));
    if (fd < 0) return core::ErrnoStatus(errno, "cannot create a temporary file", pattern);
    path_ = pattern;
    ::close(fd);
    return core::WriteFileAtomic(path_, code);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The live echo on fd 2. Written whole despite EINTR and short writes; once
// a write fails (say stderr is a pipe whose reader has gone) the echo stops.
// SIGPIPE is blocked in this thread while the echo lives, and the one our
// own writes raised is taken back, so a closed stderr cannot kill the
// process in the middle of a snippet.
class StderrEcho {
 public:
  StderrEcho() {
    ::sigemptyset(&pipe_);
    ::sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    ::sigpending(&pending);
    was_pending_ = ::sigismember(&pending, SIGPIPE) == 1;
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_mask_);
  }
  StderrEcho(const StderrEcho&) = delete;
  StderrEcho& operator=(const StderrEcho&) = delete;
  ~StderrEcho() {
    if (broken_pipe_ && !was_pending_ && !::sigismember(&old_mask_, SIGPIPE)) {
      const struct timespec zero = {0, 0};
      ::sigtimedwait(&pipe_, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }

  void Write(absl::string_view text) {
    while (!failed_ && !text.empty()) {
      ssize_t n = ::write(2, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        broken_pipe_ = n < 0 && errno == EPIPE;
        return;
      }
      text.remove_prefix(static_cast<size_t>(n));
    }
  }

 private:
  sigset_t pipe_;
  sigset_t old_mask_;
  bool was_pending_ = false;
  bool failed_ = false;
  bool broken_pipe_ = false;
};

// Up to kErrorTailLines last non-blank lines of `text`, indented, at most
// kErrorTailBytes.
std::string LastLines(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  std::vector<std::string> kept;
  size_t bytes = 0;
  for (auto it = lines.rbegin(); it != lines.rend() && static_cast<int>(kept.size()) < kErrorTailLines; ++it) {
    absl::string_view line = absl::StripTrailingAsciiWhitespace(*it);
    if (line.empty()) continue;
    absl::string_view cut = "";
    if (bytes + line.size() > kErrorTailBytes) {
      if (!kept.empty()) break;
      line = line.substr(line.size() - kErrorTailBytes);
      // Step past a cut multi-byte character.
      while (!line.empty() && (static_cast<unsigned char>(line.front()) & 0xC0) == 0x80) line.remove_prefix(1);
      cut = "...";
    }
    bytes += line.size();
    kept.push_back(absl::StrCat("  ", cut, line));
  }
  std::reverse(kept.begin(), kept.end());
  return absl::StrJoin(kept, "\n");
}

// What the snippet said before it ended, for an error message.
std::string OutputTail(const internal::RunResult& r) {
  std::string err = LastLines(r.stderr_text);
  if (!err.empty()) return absl::StrCat("; last lines of stderr:\n", err);
  std::string out = LastLines(r.stdout_text);
  if (!out.empty()) return absl::StrCat("; stderr was empty; last lines of stdout:\n", out);
  return "; it printed nothing";
}

std::string FormatDuration(int64_t ms) {
  if (ms % 1000 == 0) return absl::StrCat(ms / 1000, " s");
  return absl::StrCat(ms, " ms");
}

absl::StatusOr<std::optional<int64_t>> TimeoutSecondsParam(const Json& params) {
  if (!params.contains("timeout") || params["timeout"].is_null()) return std::nullopt;
  const Json& v = params["timeout"];
  int64_t seconds = 0;
  bool ok = false;
  if (v.is_number_integer()) {
    seconds = v.get<int64_t>();
    ok = true;
  } else if (v.is_string()) {
    ok = absl::SimpleAtoi(v.get<std::string>(), &seconds);
  }
  if (!ok || seconds < 1 || seconds > kMaxTimeoutSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid_params: timeout must be a whole number of seconds from 1 to ", kMaxTimeoutSeconds,
                     ", got ", v.dump()));
  }
  return seconds;
}

absl::StatusOr<bool> ReturnOutputParam(const Json& params) {
  if (!params.contains("return_output") || params["return_output"].is_null()) return true;
  const Json& v = params["return_output"];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string() && (v == "true" || v == "false")) return v == "true";
  return absl::InvalidArgumentError(
      absl::StrCat("invalid_params: return_output must be true or false, got ", v.dump()));
}

// Refuses the code unless ctx.exec_policy lets it run; the message tells the
// LLM what a person can do about it. Under approve only ctx.approved_code
// counts, the list as read when the run started.
// The canonical directory a snippet asks to run in, or "" when it names
// none that resolves (the caller refuses it later with the reason).
std::string RequestedCwd(const core::ExecContext& ctx, const Json& params) {
  if (!params.contains("cwd") || !params["cwd"].is_string()) return ctx.paths.working_root;
  absl::StatusOr<std::string> resolved = core::ResolvePath(ctx.paths, params["cwd"].get<std::string>());
  return resolved.ok() ? *resolved : std::string();
}

std::optional<std::string> PolicyRefusal(const core::ExecContext& ctx, const std::string& lang,
                                         const std::string& code, const std::string& cwd, bool* read_only_tier) {
  *read_only_tier = false;
  switch (ctx.exec_policy) {
    case core::ExecPolicy::kAllow:
      return std::nullopt;
    case core::ExecPolicy::kDeny:
      return std::string(
          "command_not_allowed: exec is turned off for this project (setting exec: deny); nothing was run. "
          "Use the file actions instead, or ask the user to allow exec.");
    case core::ExecPolicy::kApprove: {
      if (!ctx.approvals_error.empty()) {
        return absl::StrCat("command_not_allowed: cannot read the list of approved code: ", ctx.approvals_error);
      }
      std::vector<std::string> other_langs;
      bool without_lang = false;
      for (const core::ApprovedCode& a : ctx.approved_code) {
        if (a.code != code) continue;
        if (a.lang == lang) return std::nullopt;
        if (a.lang.empty()) {
          without_lang = true;
        } else if (std::find(other_langs.begin(), other_langs.end(), a.lang) == other_langs.end()) {
          other_langs.push_back(a.lang);
        }
      }
      // A bash or sh snippet on the read-only list runs without approval.
      std::optional<std::string> not_read_only;
      if (lang == "bash" || lang == "sh") {
        not_read_only = cwd.empty() ? std::optional<std::string>("its cwd does not resolve")
                                    : internal::ReadOnlyRefusal(code, cwd, ctx.paths);
        if (!not_read_only) {
          *read_only_tier = true;
          return std::nullopt;
        }
      }
      std::string why;
      if (!other_langs.empty()) {
        why = absl::StrCat("this code is approved in .clada/allowed-commands.json for ", absl::StrJoin(other_langs, ", "),
                           " only, not for ", lang, " (setting exec: approve)");
      } else if (without_lang) {
        why =
            ".clada/allowed-commands.json lists this code without a language (an entry from an earlier clada), "
            "and such an entry approves nothing (setting exec: approve)";
      } else {
        why =
            "this code is not in .clada/allowed-commands.json (setting exec: approve; the list is read when a run "
            "starts)";
      }
      std::string read_only_note;
      if (not_read_only) {
        read_only_note = absl::StrCat(
            " Without approval only one read-only command runs (cat, head, tail, grep, find, ls, pwd, tree, wc, "
            "diff, file, stat, realpath, xxd or git status|diff|log|show|branch|ls-files, on paths inside the "
            "project, without shell characters); this is not one: ",
            *not_read_only, ".");
      }
      const std::string fallback =
          ctx.exec_policy_note.empty() ? "" : absl::StrCat(" (", ctx.exec_policy_note, ")");
      return absl::StrCat("command_not_allowed: ", why, fallback, ", so it was not run.", read_only_note,
                          " A person can approve exactly this code for ", lang, " with:\n",
                          internal::ApproveCommandLine(lang, code));
    }
  }
  return std::string("command_not_allowed: unknown exec policy");
}

// The sandbox one exec runs in, with its private TMPDIR (removed when this
// goes), or none.
struct RunContainment {
  std::unique_ptr<internal::Sandbox> box;
  std::string tmpdir;
  std::string description;  // for the report: which containment it ran under
  RunContainment() = default;
  RunContainment(RunContainment&& other) noexcept
      : box(std::move(other.box)), tmpdir(std::move(other.tmpdir)), description(std::move(other.description)) {
    other.tmpdir.clear();
  }
  RunContainment& operator=(RunContainment&&) = delete;
  ~RunContainment() {
    box.reset();
    if (!tmpdir.empty()) internal::RemoveTree(tmpdir);
  }
};

absl::StatusOr<RunContainment> Contain(const core::ExecContext& ctx, bool read_only_tier) {
  RunContainment c;
  if (ctx.sandbox == core::SandboxMode::kOff) {
    c.description = "none: the code ran unconfined, with all of the user's rights (setting sandbox: off)";
    return c;
  }
  const internal::SandboxSupport& support = internal::ProbeSandbox();
  if (ctx.sandbox == core::SandboxMode::kRequired && !support.Full()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "sandbox_unavailable: the setting sandbox: required asks for Landlock and user, mount and network "
        "namespaces, and this kernel offers ",
        internal::DescribeSupport(support, ctx.exec_network),
        "; nothing was run. Setting `sandbox: auto` runs code with what the kernel offers"));
  }
  if (!support.Any()) {
    c.description = absl::StrCat("none: the code ran unconfined; ", internal::DescribeSupport(support, false));
    return c;
  }
  internal::SandboxOptions o;
  o.roots = ctx.paths.allowed_roots;
  if (o.roots.empty()) o.roots.push_back(ctx.paths.working_root);
  o.read_only = read_only_tier;
  o.network = ctx.exec_network;
  o.read_only_files = ctx.paths.protected_files;
  if (const char* path = ::getenv("PATH"); path != nullptr) o.path = internal::CleanPath(path, o.roots);
  const char* home = ::getenv("HOME");
  if (home != nullptr) o.home = home;
  if (support.namespaces) {
    // A missing .clada/ could be created by the code, settings and all:
    // clada's state directory exists before the code runs, read-only. When
    // it cannot be made (a read-only root), the code cannot make it either.
    const std::string state = absl::StrCat(ctx.paths.working_root, "/.clada");
    struct stat st;
    if (::lstat(state.c_str(), &st) != 0) core::CreateStateDirectory(state).IgnoreError();
  }
  if (!read_only_tier) {
    ASSIGN_OR_RETURN(c.tmpdir, internal::MakePrivateTmpdir());
    o.tmpdir = c.tmpdir;
  }
  absl::StatusOr<std::unique_ptr<internal::Sandbox>> box = internal::Sandbox::Prepare(o, support);
  if (!box.ok()) {
    return absl::Status(box.status().code(),
                        absl::StrCat("sandbox_failed: ", box.status().message(),
                                     "; nothing was run. Setting `sandbox: off` runs code unconfined"));
  }
  c.box = *std::move(box);
  c.description = c.box->description();
  if (!support.Full()) {
    c.description = absl::StrCat(read_only_tier ? "read-only tier: " : "",
                                 internal::DescribeSupport(support, o.network));
  }
  return c;
}

ActionOutcome ExecuteCodeOrFail(const core::Action& action, const core::ExecContext& ctx) {
  if (action.name != "exec") return Fail("unknown_action", absl::StrCat("cannot run action '", action.name, "'"));
  const Json& params = action.params;
  if (!params.is_object()) return Fail("invalid_params", "invalid_params: params must be an object");
  if (!params.contains("code") || !params["code"].is_string()) {
    return Fail("invalid_params", "invalid_params: `code` (a string) is required");
  }
  if (!params.contains("lang") || !params["lang"].is_string()) {
    return Fail("invalid_params", absl::StrCat("invalid_params: `lang` is required: one of ", LanguageList()));
  }
  const std::string code = params["code"].get<std::string>();
  const std::string lang_name = params["lang"].get<std::string>();
  const Language* lang = FindLanguage(lang_name);
  if (lang == nullptr) {
    return Fail("invalid_params", absl::StrCat("invalid_params: unsupported lang '", lang_name, "'; use one of ", LanguageList()));
  }
  absl::StatusOr<std::optional<int64_t>> timeout_s = TimeoutSecondsParam(params);
  if (!timeout_s.ok()) return Fail(core::ErrorCode(timeout_s.status()), timeout_s.status().message());
  absl::StatusOr<bool> return_output = ReturnOutputParam(params);
  if (!return_output.ok()) return Fail(core::ErrorCode(return_output.status()), return_output.status().message());
  if (params.contains("cwd") && !params["cwd"].is_string() && !params["cwd"].is_null()) {
    return Fail("invalid_params", "invalid_params: `cwd` must be a string path");
  }

  bool read_only_tier = false;
  if (std::optional<std::string> refusal =
          PolicyRefusal(ctx, lang_name, code, RequestedCwd(ctx, params), &read_only_tier)) {
    return Fail("command_not_allowed", *refusal);
  }

  const std::string& root = ctx.paths.working_root;
  if (root.empty()) return Fail("no_working_root", "no working root is set");
  std::string cwd = root;
  if (params.contains("cwd") && params["cwd"].is_string()) {
    const std::string requested = params["cwd"].get<std::string>();
    absl::StatusOr<std::string> resolved = core::ResolvePath(ctx.paths, requested);
    if (!resolved.ok()) return Fail(core::ErrorCode(resolved.status()), resolved.status().message());
    struct stat st;
    if (::stat(resolved->c_str(), &st) != 0) {
      return Fail(errno == ENOENT ? "not_found" : "failed_precondition",
                  absl::StrCat("cwd '", requested, "' does not exist (", core::ErrnoName(errno), ")"));
    }
    if (!S_ISDIR(st.st_mode)) return Fail("not_a_directory", absl::StrCat("cwd '", requested, "' is not a directory"));
    cwd = *resolved;
  }

  const char* path_env = ::getenv("PATH");
  std::string path_list = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  absl::StatusOr<RunContainment> contained = Contain(ctx, read_only_tier);
  if (!contained.ok()) return Fail(core::ErrorCode(contained.status()), contained.status().message());
  RunContainment& containment = *contained;
  std::string path_note;
  if (containment.box) {
    const std::string cleaned = internal::CleanPath(path_list, ctx.paths.allowed_roots);
    if (cleaned != path_list) {
      path_note = absl::StrCat(" (PATH entries that are relative or inside the project are skipped under the sandbox: ",
                               path_list, " became '", cleaned, "')");
    }
    path_list = cleaned;
  }
  std::optional<std::string> interpreter = FindInPath(lang->binary, path_list);
  if (!interpreter) {
    std::string why =
        lang->binary == lang->lang ? "" : absl::StrCat(" (lang \"", lang->lang, "\" runs ", lang->binary, ")");
    return Fail("interpreter_not_found", absl::StrCat(lang->binary, " not found in PATH", why, path_note));
  }

  internal::RunSpec spec;
  TempCodeFile code_file;
  if (code.size() > kMaxInlineCode || code.find('\0') != std::string::npos) {
    absl::Status made = code_file.Create(code, lang->extension);
    if (!made.ok()) return Fail(core::ErrorCode(made), made.message());
    spec.argv = {*interpreter, code_file.path()};
  } else {
    spec.argv = {*interpreter, std::string(lang->inline_flag), code};
  }
  spec.marker = absl::StrCat("CLADA_EXEC_ID=", NewExecId());
  spec.env = ChildEnvironment(root, spec.marker,
                              containment.box ? std::optional<std::string>(path_list) : std::nullopt,
                              containment.tmpdir);
  spec.sandbox = containment.box.get();
  spec.cwd = cwd;
  // The user's limits bound the snippet; its own `timeout` may only lower them.
  const int64_t user_ms = ctx.limits.timeout_ms > 0 ? ctx.limits.timeout_ms : 30'000;
  int64_t timeout_ms = user_ms;
  absl::string_view limit_source = "the timeout";
  if (timeout_s->has_value() && **timeout_s * 1000 < user_ms) {
    timeout_ms = **timeout_s * 1000;
    limit_source = "its `timeout`";
  } else if (timeout_s->has_value() && **timeout_s * 1000 > user_ms) {
    limit_source = "the user's timeout; `timeout` can lower it, not raise it";
  }
  if (ctx.limits.deadline != absl::InfiniteFuture()) {
    const int64_t left_ms = absl::ToInt64Milliseconds(ctx.limits.deadline - absl::Now());
    if (left_ms <= 0) {
      return Fail(
          "total_timeout",
          "total_timeout: not run; the batch passed its total timeout (set by the user) before this action. "
          "Send it again in the next answer");
    }
    if (left_ms < timeout_ms) {
      timeout_ms = left_ms;
      limit_source = "what was left of the batch's total timeout, set by the user";
    }
  }
  spec.timeout = std::chrono::milliseconds(timeout_ms);
  spec.max_output_bytes = ctx.limits.max_output_bytes;

  std::optional<StderrEcho> stderr_echo;
  std::string buffered;  // output_mode: buffer: the echo, written when the snippet ends
  std::optional<internal::LineEcho> echo_out, echo_err;
  if (!ctx.quiet) {
    const std::string prefix =
        action.metadata.block_id.empty() ? "[exec] " : absl::StrCat("[", action.metadata.block_id, ":exec] ");
    stderr_echo.emplace();
    auto write = [&stderr_echo, &buffered, &ctx](absl::string_view text) {
      if (ctx.buffer_echo) {
        buffered.append(text.data(), text.size());
      } else {
        stderr_echo->Write(text);
      }
    };
    echo_out.emplace(prefix, write, ctx.limits.max_output_bytes, "stdout");
    echo_err.emplace(prefix, write, ctx.limits.max_output_bytes, "stderr");
    spec.on_output = [&](internal::Stream s, absl::string_view chunk) {
      (s == internal::Stream::kStdout ? *echo_out : *echo_err).Append(chunk);
    };
  }
  if (ctx.on_output) {
    auto echo = std::move(spec.on_output);
    spec.on_output = [echo, &ctx](internal::Stream s, absl::string_view chunk) {
      if (echo) echo(s, chunk);
      ctx.on_output(s == internal::Stream::kStdout ? "stdout" : "stderr", chunk);
    };
  }
  spec.cancel = ctx.cancel;
  absl::StatusOr<internal::RunResult> run = internal::RunProcess(spec);
  if (echo_out) echo_out->Flush();
  if (echo_err) echo_err->Flush();
  if (stderr_echo && !buffered.empty()) stderr_echo->Write(buffered);
  stderr_echo.reset();
  if (!run.ok()) return Fail(core::ErrorCode(run.status()), run.status().message());
  const internal::RunResult& r = *run;

  Json data = Json::object();
  if (*return_output) {
    data["stdout"] = r.stdout_text;
    data["stderr"] = r.stderr_text;
  }
  // -1: the snippet's end was not seen (its supervisor was lost).
  data["exit_code"] = r.supervisor_lost ? -1 : r.exited ? r.exit_code : 128 + r.term_signal;
  data["duration_ms"] = r.duration_ms;
  data["timed_out"] = r.timed_out;
  data["containment"] = containment.description;
  if (!r.exited && !r.supervisor_lost) data["signal"] = internal::SignalName(r.term_signal);

  std::vector<std::string> warnings;
  if (r.leftovers_killed > 0) {
    warnings.push_back(absl::StrCat("exec: killed ", r.leftovers_killed,
                                    " process(es) the snippet left running; nothing an exec starts outlives it"));
  }
  if (r.pipes_abandoned) {
    warnings.push_back(
        "exec: stopped reading output that a process outside the snippet's process group kept open; "
        "output may be incomplete");
  }

  const std::string stopped = absl::StrCat(
      "sent SIGTERM to its process group",
      r.sent_sigkill ? absl::StrCat(", then SIGKILL ", FormatDuration(spec.kill_grace.count()), " later") : "");
  ActionOutcome outcome;
  if (r.supervisor_lost) {
    // The snippet killed or stopped its $PPID, clada's supervisor; clada
    // then killed the snippet's processes itself (RunProcess).
    const std::string signal =
        r.supervisor_signal > 0 ? absl::StrCat(", with ", internal::SignalName(r.supervisor_signal)) : "";
    std::string how;
    if (!r.supervisor_stopped) {
      how = absl::StrCat("killed the process that supervised it (its $PPID", signal, ")");
    } else if (r.supervisor_signal > 0) {
      how = absl::StrCat("stopped the process that supervised it (its $PPID", signal, "), which clada then killed");
    } else {
      how = "left the process that supervised it (its $PPID) unable to answer, and clada killed it";
    }
    outcome =
        Fail("exec_failed", absl::StrCat("exec_failed: ", lang->binary, " ", how,
                          ", so how it ended is unknown; every process it had started was killed (", r.leftovers_killed,
                          "). Never signal $PPID: it is clada's supervisor, not a process of the code", OutputTail(r)),
             std::move(data));
  } else if (r.interrupted_by != 0) {
    outcome = Fail("interrupted", absl::StrCat("interrupted: clada received ", internal::SignalName(r.interrupted_by), " while ",
                                lang->binary, " was running; ", stopped, OutputTail(r)),
                   std::move(data));
  } else if (r.cancelled) {
    outcome = Fail("cancelled", absl::StrCat("cancelled: the client cancelled the call while ", lang->binary, " was running; ",
                                stopped, OutputTail(r)),
                   std::move(data));
  } else if (r.timed_out) {
    const bool own_limit = limit_source == "its `timeout`";
    outcome = Fail("exec_timeout", absl::StrCat("exec_timeout: ", lang->binary, " was still running after ", FormatDuration(timeout_ms),
                                " (", limit_source, "); ", stopped, ". ",
                                own_limit ? absl::StrCat("Raise `timeout` (seconds, up to ", user_ms / 1000,
                                                         ") or make the code finish sooner")
                                          : "Make the code finish sooner, or split it into shorter steps",
                                OutputTail(r)),
                   std::move(data));
  } else if (!r.exited) {
    outcome = Fail("exec_failed", absl::StrCat("exec_failed: ", lang->binary, " was killed by ", internal::SignalName(r.term_signal),
                                " (signal ", r.term_signal, ")", OutputTail(r)),
                   std::move(data));
  } else if (r.exit_code != 0) {
    // Not a classification of the output: a reminder of the limits, on
    // every failed sandboxed exec.
    const std::string hint =
        containment.box ? absl::StrCat("\n  hint: ", containment.box->limits()) : std::string();
    outcome = Fail(
        "exec_failed", absl::StrCat("exec_failed: ", lang->binary, " exited with code ", r.exit_code, OutputTail(r), hint),
        std::move(data));
  } else {
    outcome = ActionOutcome::Ok(std::move(data));
  }
  outcome.warnings = std::move(warnings);
  return outcome;
}

}  // namespace

ActionOutcome ExecuteCode(const core::Action& action, const core::ExecContext& ctx) {
  try {
    return ExecuteCodeOrFail(action, ctx);
  } catch (const std::exception& e) {
    return Fail("internal", absl::StrCat("internal error: ", e.what()));
  }
}

Containment DescribeContainment(core::SandboxMode mode, bool network) {
  Containment c;
  if (mode == core::SandboxMode::kOff) {
    c.text = "none: exec code runs unconfined, with all of your rights (sandbox: off)";
    return c;
  }
  const internal::SandboxSupport& support = internal::ProbeSandbox();
  c.sandboxed = support.Any();
  c.full = support.Full();
  const std::string what = internal::DescribeSupport(support, network);
  if (mode == core::SandboxMode::kRequired) {
    c.text = c.full ? absl::StrCat(what, " (sandbox: required)")
                    : absl::StrCat("exec refused: sandbox: required, and this kernel offers ", what);
    if (!c.full) c.sandboxed = false;
  } else if (c.sandboxed) {
    c.text = absl::StrCat(what, " (sandbox: auto, the strongest this kernel offers)");
  } else {
    c.text = absl::StrCat(what, " (sandbox: auto; the default exec: allow becomes approve)");
  }
  return c;
}

void ApplySandboxFallback(core::ExecContext* ctx, bool exec_policy_is_default) {
  ctx->exec_policy_note.clear();
  if (ctx->sandbox != core::SandboxMode::kAuto || !exec_policy_is_default ||
      ctx->exec_policy != core::ExecPolicy::kAllow || internal::ProbeSandbox().Any()) {
    return;
  }
  ctx->exec_policy = core::ExecPolicy::kApprove;
  ctx->exec_policy_note = absl::StrCat(
      "exec: approve in force instead of the default allow, because no sandbox is available: ",
      internal::DescribeSupport(internal::ProbeSandbox(), ctx->exec_network),
      "; setting `exec: allow` runs code unconfined");
}

const std::vector<std::string>& ExecActionNames() {
  static const std::vector<std::string>* const kNames = new std::vector<std::string>{"exec"};
  return *kNames;
}

void LoadApprovedCode(core::ExecContext* ctx) {
  ctx->approved_code.clear();
  ctx->approvals_error.clear();
  if (ctx->exec_policy != core::ExecPolicy::kApprove) return;
  if (ctx->paths.working_root.empty()) {
    ctx->approvals_error = "no working root is set";
    return;
  }
  try {
    absl::StatusOr<std::vector<core::ApprovedCode>> loaded = internal::LoadAllowedCommands(ctx->paths.working_root);
    if (loaded.ok()) {
      ctx->approved_code = *std::move(loaded);
    } else {
      ctx->approvals_error = std::string(loaded.status().message());
    }
  } catch (const std::exception& e) {
    ctx->approved_code.clear();
    ctx->approvals_error = absl::StrCat("internal error: ", e.what());
  }
}

int RunApproveCommand(const std::vector<std::string>& args, const core::ExecContext& ctx, std::ostream& out,
                      std::ostream& err) {
  static constexpr absl::string_view kUsage =
      "usage: clada approve [--lang LANG] [--] '<code>'\n"
      "Adds <code> (exactly as the exec action gives it) for the language LANG (bash, sh, python,\n"
      "javascript or ruby; default bash) to .clada/allowed-commands.json, the list that setting\n"
      "exec: approve accepts. The code runs only in that language; a run reads the list when it starts.\n";
  try {
    if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
      out << kUsage;
      return 0;
    }
    std::string lang = "bash";
    std::vector<std::string> rest;
    bool only_code = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (!only_code && a == "--") {
        only_code = true;
      } else if (!only_code && a == "--lang") {
        if (i + 1 >= args.size()) {
          err << "clada approve: --lang needs a language: one of " << LanguageList() << "\n" << kUsage;
          return 2;
        }
        lang = args[++i];
      } else if (!only_code && absl::StartsWith(a, "--lang=")) {
        lang = a.substr(7);
      } else {
        rest.push_back(a);
      }
    }
    if (FindLanguage(lang) == nullptr) {
      err << "clada approve: unknown language '" << lang << "'; use one of " << LanguageList() << "\n" << kUsage;
      return 2;
    }
    if (rest.size() != 1 || rest[0].empty()) {
      err << (rest.size() > 1 ? "clada approve: give the code as one quoted argument\n"
                              : "clada approve: no code given\n")
          << kUsage;
      return 2;
    }
    const std::string& code = rest[0];
    if (ctx.paths.working_root.empty()) {
      err << "clada approve: no working root is set\n";
      return 1;
    }
    absl::StatusOr<bool> added = internal::AddAllowedCommand(ctx.paths.working_root, lang, code, absl::Now());
    if (!added.ok()) {
      err << "clada approve: " << added.status().message() << "\n";
      return 1;
    }
    out << (*added ? "approved for " : "already approved for ") << lang << ": " << internal::ShellQuote(code)
        << "\n  in " << internal::AllowedCommandsPath(ctx.paths.working_root) << "\n";
    if (ctx.exec_policy != core::ExecPolicy::kApprove) {
      out << "note: the list is consulted only under the setting exec: approve\n";
    }
    return 0;
  } catch (const std::exception& e) {
    err << "clada approve: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace clada::exec
