// Runs every case in test-data/integration/exec_*.cases.md (format in that
// directory's README.md): each case's SHAM block goes through the real action
// parser, then ExecuteCode, in a fresh working root.
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/exec/src/output_capture.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

namespace clada::exec {
namespace {

using core::Json;

constexpr char kCaseDir[] = "proj/comp/exec/test-data/integration";

struct Case {
  std::string name;  // <File><Case>, e.g. BashEchoesToStdout
  std::string file;
  std::string sham;
  std::string json;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "exec_javascript.cases.md" -> "Javascript".
std::string FilePrefix(absl::string_view file) {
  absl::string_view stem = file;
  absl::ConsumePrefix(&stem, "exec_");
  absl::ConsumeSuffix(&stem, ".cases.md");
  std::string out(stem);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// Splits a file into `## Name` sections and takes the first ```sham and
// ```json fence of each.
std::vector<Case> ParseCaseFile(const std::string& file, const std::string& text) {
  std::vector<Case> cases;
  std::string fence, lang, body;
  bool in_fence = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (in_fence) {
      if (absl::StripTrailingAsciiWhitespace(line) == fence) {
        in_fence = false;
        if (!cases.empty() && lang == "sham" && cases.back().sham.empty()) cases.back().sham = body;
        if (!cases.empty() && lang == "json" && cases.back().json.empty()) cases.back().json = body;
        continue;
      }
      absl::StrAppend(&body, line, "\n");
      continue;
    }
    if (absl::StartsWith(line, "## ")) {
      cases.push_back({absl::StrCat(FilePrefix(file), absl::StripAsciiWhitespace(line.substr(3))), file, "", ""});
      continue;
    }
    if (absl::StartsWith(line, "```")) {
      size_t n = 0;
      while (n < line.size() && line[n] == '`') ++n;
      fence = std::string(line.substr(0, n));
      lang = std::string(absl::StripAsciiWhitespace(line.substr(n)));
      body.clear();
      in_fence = true;
    }
  }
  return cases;
}

std::vector<Case> LoadCases() {
  std::vector<std::string> files;
  if (DIR* dir = ::opendir(kCaseDir)) {
    while (struct dirent* e = ::readdir(dir)) {
      absl::string_view name(e->d_name);
      if (absl::StartsWith(name, "exec_") && absl::EndsWith(name, ".cases.md")) files.emplace_back(name);
    }
    ::closedir(dir);
  }
  std::sort(files.begin(), files.end());
  std::vector<Case> cases;
  for (const std::string& f : files) {
    for (Case& c : ParseCaseFile(f, ReadFile(absl::StrCat(kCaseDir, "/", f)))) cases.push_back(std::move(c));
  }
  return cases;
}

// Sets environment variables for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (const auto& [name, old] : saved_) {
      if (old)
        ::setenv(name.c_str(), old->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }
  void Set(const std::string& name, const std::optional<std::string>& value) {
    if (saved_.count(name) == 0) {
      const char* old = ::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

bool OnPath(const std::string& binary) {
  const char* path = ::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "", ':')) {
    std::string candidate = absl::StrCat(dir, "/", binary);
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

// True when `pid` runs no more: gone, or a zombie waiting for its reaper.
bool ProcessIsDead(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  size_t close = stat.rfind(')');
  if (stat.empty() || close == std::string::npos || close + 2 >= stat.size()) return true;
  return stat[close + 2] == 'Z' || stat[close + 2] == 'X';
}

// Every process whose parent is `parent` (zombies included), from /proc.
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return out;
  while (struct dirent* e = ::readdir(dir)) {
    int pid = 0;
    if (!absl::SimpleAtoi(e->d_name, &pid)) continue;
    const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(stat.substr(close + 2), ' ');
    int ppid = 0;
    if (fields.size() > 1 && absl::SimpleAtoi(fields[1], &ppid) && ppid == parent) out.push_back(pid);
  }
  ::closedir(dir);
  return out;
}

volatile sig_atomic_t g_caught[NSIG];

void CountSignal(int sig) { g_caught[sig] = g_caught[sig] + 1; }

int SignalNumber(const std::string& name) {
  for (int sig = 1; sig < NSIG; ++sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    if (abbrev != nullptr && name == absl::StrCat("SIG", abbrev)) return sig;
  }
  return 0;
}

// Gives signals a counting handler or SIG_IGN for the life of the object.
class ScopedSignals {
 public:
  ScopedSignals(const Json& catch_names, const Json& ignore_names) {
    for (const Json& n : catch_names) Install(SignalNumber(n.get<std::string>()), CountSignal);
    for (const Json& n : ignore_names) Install(SignalNumber(n.get<std::string>()), SIG_IGN);
  }
  ~ScopedSignals() {
    for (const auto& [sig, old] : saved_) ::sigaction(sig, &old, nullptr);
  }

 private:
  void Install(int sig, void (*handler)(int)) {
    g_caught[sig] = 0;
    struct sigaction action = {};
    action.sa_handler = handler;
    ::sigemptyset(&action.sa_mask);
    struct sigaction old;
    ::sigaction(sig, &action, &old);
    saved_.emplace_back(sig, old);
  }
  std::vector<std::pair<int, struct sigaction>> saved_;
};

// Points fd 2 at a pipe whose reader is closed, for the life of the object.
class BrokenStderr {
 public:
  BrokenStderr() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    ::close(fds[0]);
    saved_ = ::dup(2);
    ::dup2(fds[1], 2);
    ::close(fds[1]);
  }
  ~BrokenStderr() {
    if (saved_ < 0) return;
    ::dup2(saved_, 2);
    ::close(saved_);
  }

 private:
  int saved_ = -1;
};

std::string Segments(const Json& segments) {
  std::string out;
  for (const Json& s : segments) {
    if (s.is_string()) {
      out += s.get<std::string>();
    } else {
      for (int i = 0; i < s["count"].get<int>(); ++i) out += s["repeat"].get<std::string>();
    }
  }
  return out;
}

std::string MakeRoot() {
  const char* tmp = ::getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(tmp ? tmp : "/tmp", "/exec-case-XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) return "";
  char real[PATH_MAX];
  return ::realpath(pattern.c_str(), real) ? real : "";
}

// Names the case instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.file << ": " << c.name; }

class ExecCaseTest : public ::testing::TestWithParam<Case> {};

TEST_P(ExecCaseTest, Run) {
  const Case& c = GetParam();
  ASSERT_FALSE(c.sham.empty()) << c.file << ": case " << c.name << " has no ```sham fence";
  ASSERT_FALSE(c.json.empty()) << c.file << ": case " << c.name << " has no ```json fence";
  const std::string root = MakeRoot();
  ASSERT_FALSE(root.empty());
  const Json spec = Json::parse(absl::StrReplaceAll(c.json, {{"{root}", root}}));
  const Json setup = spec.value("setup", Json::object());
  const Json expect = spec.at("expect");

  for (const Json& bin : setup.value("requires", Json::array())) {
    if (!OnPath(bin.get<std::string>())) GTEST_SKIP() << bin.get<std::string>() << " is not on PATH";
  }
  for (const Json& d : setup.value("dirs", Json::array())) {
    ASSERT_TRUE(core::CreateDirectories(absl::StrCat(root, "/", d.get<std::string>())).ok());
  }
  const Json files = setup.value("files", Json::object());
  for (const auto& [path, content] : files.items()) {
    const std::string full = absl::StrCat(root, "/", path);
    ASSERT_TRUE(core::CreateDirectories(full.substr(0, full.rfind('/'))).ok());
    ASSERT_TRUE(core::WriteFileAtomic(full, content.get<std::string>()).ok());
  }
  for (const Json& f : setup.value("chmod_x", Json::array())) {
    ASSERT_EQ(::chmod(absl::StrCat(root, "/", f.get<std::string>()).c_str(), 0755), 0);
  }
  if (setup.contains("allowed_file")) {
    ASSERT_TRUE(core::CreateDirectories(absl::StrCat(root, "/.clada")).ok());
    ASSERT_TRUE(core::WriteFileAtomic(absl::StrCat(root, "/.clada/allowed-commands.json"),
                                      setup["allowed_file"].get<std::string>())
                    .ok());
  }

  // The block, through the real parser.
  sham_action_parser::ActionParseResult parsed =
      sham_action_parser::ParseShamResponse(absl::StrReplaceAll(c.sham, {{"{root}", root}}));
  ASSERT_TRUE(parsed.errors.empty()) << sham_action_parser::ActionParseErrorToJson(parsed.errors[0]).dump(2);
  // Several blocks run in order as one batch; `expect` is about the last.
  ASSERT_GE(parsed.actions.size(), 1u);
  core::Action action = parsed.actions.back();
  if (setup.contains("code_prefix")) {
    std::string prefix;
    for (int i = 0; i < setup["code_prefix"]["count"].get<int>(); ++i) {
      prefix += setup["code_prefix"]["text"].get<std::string>();
    }
    action.params["code"] = prefix + action.params["code"].get<std::string>();
  }

  absl::StatusOr<core::PathPolicy> paths = core::MakePathPolicy(root, {});
  ASSERT_TRUE(paths.ok()) << paths.status();
  core::ExecContext ctx;
  ctx.paths = *paths;
  ctx.quiet = setup.value("quiet", true);
  ctx.limits.timeout_ms = setup.value("timeout_ms", int64_t{20'000});
  ctx.limits.max_output_bytes = setup.value("max_output_bytes", ctx.limits.max_output_bytes);
  if (setup.contains("deadline_in_ms")) {
    ctx.limits.deadline = absl::Now() + absl::Milliseconds(setup["deadline_in_ms"].get<int64_t>());
  }
  const std::string policy = setup.value("policy", "allow");
  ctx.exec_policy = policy == "deny"      ? core::ExecPolicy::kDeny
                    : policy == "approve" ? core::ExecPolicy::kApprove
                                          : core::ExecPolicy::kAllow;
  const std::string sandbox = setup.value("sandbox", "auto");
  ctx.sandbox = sandbox == "off" ? core::SandboxMode::kOff : core::SandboxMode::kAuto;
  if (setup.value("approve_block_code", false)) {
    std::ostringstream out, err;
    ASSERT_EQ(RunApproveCommand(
                  {"--lang", action.params["lang"].get<std::string>(), action.params["code"].get<std::string>()}, ctx,
                  out, err),
              0)
        << err.str();
  }
  for (const Json& args : setup.value("approve", Json::array())) {
    std::ostringstream out, err;
    ASSERT_EQ(RunApproveCommand(args.get<std::vector<std::string>>(), ctx, out, err), 0) << err.str();
  }
  // The run starts: the approvals are read now, once, as the orchestrator does.
  LoadApprovedCode(&ctx);

  core::ActionOutcome outcome;
  std::string echo;
  {
    ScopedEnv env;
    const Json env_changes = setup.value("env", Json::object());
    for (const auto& [name, value] : env_changes.items()) {
      env.Set(name, value.is_null() ? std::nullopt : std::optional<std::string>(value.get<std::string>()));
    }
    if (setup.contains("path")) env.Set("PATH", setup["path"].get<std::string>());
    ScopedSignals signals(setup.value("catch_signals", Json::array()), setup.value("ignore_signals", Json::array()));
    const bool broken_stderr = setup.value("stderr", "") == "broken_pipe";
    for (size_t i = 0; i + 1 < parsed.actions.size(); ++i) {
      core::ActionOutcome earlier = ExecuteCode(parsed.actions[i], ctx);
      if (expect.value("earlier_succeed", false)) {
        EXPECT_TRUE(earlier.success) << "block " << i + 1 << ": " << earlier.error;
      }
    }
    if (broken_stderr) {
      BrokenStderr broken;
      outcome = ExecuteCode(action, ctx);
    } else {
      if (!ctx.quiet) ::testing::internal::CaptureStderr();
      outcome = ExecuteCode(action, ctx);
      if (!ctx.quiet) echo = ::testing::internal::GetCapturedStderr();
    }
  }
  const std::string shown =
      absl::StrCat("error: ", outcome.error,
                   "\ndata: ", outcome.data.dump(2, ' ', false, Json::error_handler_t::replace).substr(0, 3000));

  // Whatever else, the data must serialise.
  EXPECT_NO_THROW(outcome.data.dump());
  if (expect.contains("success")) {
    EXPECT_EQ(outcome.success, expect["success"].get<bool>()) << shown;
  }
  if (outcome.success) {
    EXPECT_TRUE(outcome.error.empty()) << shown;
  }
  EXPECT_TRUE(outcome.touched_paths.empty());
  if (expect.contains("error")) {
    EXPECT_EQ(outcome.error, expect["error"].get<std::string>()) << shown;
  }
  for (const Json& s : expect.value("error_contains", Json::array())) {
    EXPECT_TRUE(absl::StrContains(outcome.error, s.get<std::string>())) << "wanted: " << s << "\n" << shown;
  }
  for (const Json& s : expect.value("error_lacks", Json::array())) {
    EXPECT_FALSE(absl::StrContains(outcome.error, s.get<std::string>())) << "unwanted: " << s << "\n" << shown;
  }
  const Json data_subset = expect.value("data", Json::object());
  for (const auto& [key, value] : data_subset.items()) {
    ASSERT_TRUE(outcome.data.contains(key)) << "data lacks " << key << "\n" << shown;
    EXPECT_EQ(outcome.data[key], value) << "data." << key << "\n" << shown;
  }
  if (expect.contains("data") && expect["data"].empty()) {
    EXPECT_TRUE(outcome.data.empty()) << shown;
  }
  for (const Json& key : expect.value("data_absent", Json::array())) {
    EXPECT_FALSE(outcome.data.contains(key.get<std::string>())) << key << "\n" << shown;
  }
  const std::string stdout_text = outcome.data.value("stdout", "");
  const std::string stderr_text = outcome.data.value("stderr", "");
  for (const Json& s : expect.value("stdout_contains", Json::array())) {
    EXPECT_TRUE(absl::StrContains(stdout_text, s.get<std::string>())) << s << "\n" << shown;
  }
  for (const Json& s : expect.value("stdout_lacks", Json::array())) {
    EXPECT_FALSE(absl::StrContains(stdout_text, s.get<std::string>())) << s << "\n" << shown;
  }
  for (const Json& s : expect.value("stderr_contains", Json::array())) {
    EXPECT_TRUE(absl::StrContains(stderr_text, s.get<std::string>())) << s << "\n" << shown;
  }
  if (expect.contains("stdout_segments")) {
    const std::string want = Segments(expect["stdout_segments"]);
    EXPECT_EQ(stdout_text.size(), want.size());
    EXPECT_TRUE(stdout_text == want) << "stdout differs from stdout_segments\n" << shown;
  }
  for (const Json& s : expect.value("echo_lines", Json::array())) {
    std::vector<std::string> lines = absl::StrSplit(echo, '\n');
    EXPECT_NE(std::find(lines.begin(), lines.end(), s.get<std::string>()), lines.end())
        << "echo lacks the line " << s << "; echo was:\n"
        << echo;
  }
  if (expect.contains("stdout_max_bytes")) {
    EXPECT_LE(stdout_text.size(), expect["stdout_max_bytes"].get<size_t>()) << "stdout is over its bound";
  }
  if (expect.contains("stdout_shown_max_bytes")) {
    // As --json shows it (the string's escapes, without its quotes; its
    // two-byte escapes of ordinary text, `\n`, `\t`, `\"` and `\\`, count
    // one) and as the text report and the echo show it (control characters
    // escaped).
    const size_t ordinary = std::count_if(stdout_text.begin(), stdout_text.end(),
                                          [](char ch) { return ch == '\n' || ch == '\t' || ch == '"' || ch == '\\'; });
    const size_t as_json = Json(stdout_text).dump().size() - 2 - ordinary;
    const size_t as_text = core::EscapeForTerminal(stdout_text).size();
    EXPECT_LE(as_json, expect["stdout_shown_max_bytes"].get<size_t>()) << "stdout in JSON is over its bound";
    EXPECT_LE(as_text, expect["stdout_shown_max_bytes"].get<size_t>()) << "stdout shown escaped is over its bound";
  }
  if (expect.contains("echo_max_bytes")) {
    EXPECT_LE(echo.size(), expect["echo_max_bytes"].get<size_t>()) << "the live echo is over its bound";
  }
  for (const Json& s : expect.value("echo_lacks", Json::array())) {
    EXPECT_FALSE(absl::StrContains(echo, s.get<std::string>())) << "echo holds " << s << "; echo was:\n" << echo;
  }
  for (const Json& s : expect.value("warnings_contain", Json::array())) {
    bool found = false;
    for (const std::string& w : outcome.warnings) found = found || absl::StrContains(w, s.get<std::string>());
    EXPECT_TRUE(found) << "no warning holds " << s << "\n" << shown;
  }
  for (const Json& f : expect.value("dead_pids_in", Json::array())) {
    const std::string text = ReadFile(absl::StrCat(root, "/", f.get<std::string>()));
    std::vector<absl::string_view> pids = absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty());
    ASSERT_FALSE(pids.empty()) << f << " holds no pid\n" << shown;
    for (absl::string_view p : pids) {
      int pid = 0;
      ASSERT_TRUE(absl::SimpleAtoi(p, &pid)) << p;
      EXPECT_TRUE(ProcessIsDead(pid)) << "pid " << pid << " from " << f << " is still running";
      if (!ProcessIsDead(pid)) ::kill(pid, SIGKILL);  // do not leave it behind the test
    }
  }
  if (expect.value("no_children_left", false)) {
    // Whatever re-parented to this process (the caller of ExecuteCode) was
    // killed and reaped: no child, not even a zombie, is left.
    std::vector<pid_t> children = ChildrenOf(::getpid());
    EXPECT_TRUE(children.empty()) << children.size() << " child(ren) left, the first " << children[0];
    for (pid_t pid : children) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  const Json caught = expect.value("signals_caught", Json::object());
  for (const auto& [name, count] : caught.items()) {
    EXPECT_EQ(g_caught[SignalNumber(name)], count.get<int>()) << name << " handler calls";
  }
  if (expect.value("no_pending_sigpipe", false)) {
    sigset_t pending;
    ::sigpending(&pending);
    EXPECT_EQ(::sigismember(&pending, SIGPIPE), 0) << "SIGPIPE is pending";
  }
  for (const Json& f : expect.value("files_absent", Json::array())) {
    struct stat st;
    EXPECT_NE(::stat(absl::StrCat(root, "/", f.get<std::string>()).c_str(), &st), 0) << f << " exists";
  }
  for (const Json& f : expect.value("files_present", Json::array())) {
    struct stat st;
    EXPECT_EQ(::stat(absl::StrCat(root, "/", f.get<std::string>()).c_str(), &st), 0) << f << " is gone";
  }
  if (expect.contains("allowed_commands")) {
    Json list = Json::parse(ReadFile(absl::StrCat(root, "/.clada/allowed-commands.json")));
    // The entries without their timestamps.
    for (Json& entry : list["commands"]) {
      if (entry.is_object()) entry.erase("added");
    }
    EXPECT_EQ(list["commands"], expect["allowed_commands"]);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ExecCaseTest, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace clada::exec
