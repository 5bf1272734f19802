// Drives a real `clada listen FILE --root DIR` process through the cases of
// proj/test-data/listen/process_cases.json: the test saves FILE the way a
// person or an editor does and waits for the listener's write-back.
//
// Every wait polls for a condition with a bounded deadline (kWaitLimit);
// nothing asserts speed. A case that expects runs ends by appending one more
// block (the sentinel) and waiting for its results: a block run twice, or a
// run caused by the listener's own write-back, would have happened before
// it, so the final checks (file contents, the count of "ran" lines on
// stderr) see it. Then SIGINT, and the listener must exit 0.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/test/test_util.h"

namespace {

using clada::testing::ReadAll;
using clada::testing::ShellQuote;
using Json = nlohmann::json;

constexpr auto kWaitLimit = std::chrono::seconds(10);
constexpr char kResultsMarker[] = "=== CLADA RESULTS ===";
constexpr char kEndMarker[] = "=== END ===";
constexpr char kOutputFile[] = ".clada-output-latest.txt";
constexpr char kRanLine[] = " clada listen: ran ";

// Polls `condition` until it holds or kWaitLimit passes.
bool WaitFor(const std::function<bool()>& condition) {
  auto deadline = std::chrono::steady_clock::now() + kWaitLimit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// A string as is; an array of strings joined, each followed by '\n'.
std::string TextOf(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  std::string out;
  for (const Json& line : value) absl::StrAppend(&out, line.get<std::string>(), "\n");
  return out;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

void WriteFile(const std::string& path, const std::string& text, std::ios::openmode mode = std::ios::trunc) {
  std::ofstream out(path, std::ios::binary | mode);
  out << text;
  out.close();
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// The listener's section at the top of FILE (marker through END), or "".
std::string TopSection(const std::string& text) {
  if (!absl::StartsWith(text, absl::StrCat(kResultsMarker, "\nclada listen "))) return "";
  size_t end = text.find(absl::StrCat("\n", kEndMarker, "\n"));
  return end == std::string::npos ? "" : text.substr(0, end + 1);
}

// The summary's first line: "clada listen HH:MM:SS: ran ...; full output in ...".
std::string SummaryHead(const std::string& text) {
  std::string section = TopSection(text);
  if (section.empty()) return "";
  size_t start = section.find('\n') + 1;
  return section.substr(start, section.find('\n', start) - start);
}

// One `clada` process: stdout and stderr appended to files, its own
// environment, killed if the test ends while it still runs.
class CladaProcess {
 public:
  CladaProcess() = default;
  CladaProcess(const CladaProcess&) = delete;
  CladaProcess& operator=(const CladaProcess&) = delete;
  ~CladaProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  // fork + exec; the child only calls async-signal-safe functions.
  bool Start(const std::vector<std::string>& args, const std::vector<std::string>& env, const std::string& cwd,
             const std::string& stdout_path, const std::string& stderr_path) {
    std::vector<char*> argv, envp;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      int in = ::open("/dev/null", O_RDONLY);
      int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 ||
          ::chdir(cwd.c_str()) != 0) {
        ::_exit(127);
      }
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    return true;
  }

  bool running() const { return pid_ > 0; }

  // Waits (bounded) for the process to exit on its own; its exit status, or
  // nullopt when it is still running or died of a signal.
  std::optional<int> WaitExit() {
    int status = 0;
    bool exited = WaitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; });
    if (!exited) return std::nullopt;
    pid_ = -1;
    if (!WIFEXITED(status)) return std::nullopt;
    return WEXITSTATUS(status);
  }

  std::optional<int> Interrupt() {
    if (::kill(pid_, SIGINT) != 0) return std::nullopt;
    return WaitExit();
  }

 private:
  pid_t pid_ = -1;
};

class ListenProcessTest : public ::testing::TestWithParam<Json> {
 protected:
  void SetUp() override {
    tmp_ = clada::testing::MakeTempDir("clada_listen_process_");
    ASSERT_FALSE(tmp_.empty());
    root_ = tmp_ + "/root";
    outside_ = tmp_ + "/outside";
    bin_ = tmp_ + "/bin";
    home_ = tmp_ + "/home";
    for (const std::string& dir : {root_, outside_, bin_, home_}) ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0) << dir;
    stdout_ = tmp_ + "/listen.stdout";
    stderr_ = tmp_ + "/listen.stderr";
  }
  void TearDown() override {
    process_.reset();
    std::error_code ec;
    if (!tmp_.empty()) std::filesystem::remove_all(tmp_, ec);
  }

  std::string Expand(const std::string& s) const {
    return absl::StrReplaceAll(s, {{"{root}", root_}, {"{outside}", outside_}, {"{file}", file_}});
  }
  std::string Stderr() const { return ReadAll(stderr_); }

  void Start(const Json& c) {
    std::vector<std::string> args = {clada::testing::CladaBinary(), "listen", file_, "--root", root_};
    if (!c.value("git", false)) args.push_back("--no-git");
    for (const Json& a : c.value("extraArgs", Json::array())) args.push_back(Expand(a.get<std::string>()));

    std::string path = "/usr/local/bin:/usr/bin:/bin";
    const std::string path_kind = c.value("path", "");
    if (path_kind == "empty") path = bin_;  // no wl-copy, xclip, xsel or pbcopy
    if (path_kind == "fakePbcopy") {
      WriteFile(bin_ + "/pbcopy", absl::StrCat("#!/bin/sh\n/bin/cat > ", ShellQuote(tmp_ + "/clipboard"), "\n"));
      ASSERT_EQ(::chmod((bin_ + "/pbcopy").c_str(), 0755), 0);
      path = bin_;
    }
    // No DISPLAY or WAYLAND_DISPLAY: the machine's own clipboard never takes part.
    const std::vector<std::string> env = {"PATH=" + path, "HOME=" + home_, "LANG=C.UTF-8"};
    process_ = std::make_unique<CladaProcess>();
    ASSERT_TRUE(process_->Start(args, env, root_, stdout_, stderr_));
  }

  // Waits until the listener says it is watching (or has exited).
  void WaitWatching() {
    const int starts = ++starts_;
    ASSERT_TRUE(WaitFor([&] { return CountOccurrences(Stderr(), "clada listen: watching ") >= starts; }))
        << "the listener did not start; stderr:\n"
        << Stderr();
  }

  void Stop() {
    std::optional<int> code = process_->Interrupt();
    ASSERT_TRUE(code.has_value()) << "no clean exit after SIGINT; stderr:\n" << Stderr();
    EXPECT_EQ(*code, 0) << Stderr();
    process_.reset();
  }

  void Save(const std::string& text, const std::string& how) {
    if (how == "truncate") {
      WriteFile(file_, text);
    } else if (how == "append") {
      WriteFile(file_, text, std::ios::app);
    } else if (how == "rename") {  // vim, JetBrains: write a temp file, rename it over FILE
      const std::string tmp = root_ + "/.answer.md.swp";
      WriteFile(tmp, text);
      ASSERT_EQ(::rename(tmp.c_str(), file_.c_str()), 0);
    } else {
      FAIL() << "unknown save style " << how;
    }
  }

  // Waits until the summary at the top of FILE reports `line` and the full
  // report beside FILE does too, then checks the write-back's shape.
  void WaitRun(const std::string& line) {
    const std::string output = root_ + "/" + kOutputFile;
    ASSERT_TRUE(WaitFor([&] {
      return absl::StrContains(TopSection(ReadAll(file_)), line) && absl::StrContains(ReadAll(output), line);
    })) << "no write-back with '"
        << line << "'; FILE:\n"
        << ReadAll(file_) << "\n"
        << kOutputFile << ":\n"
        << ReadAll(output) << "\nstderr:\n"
        << Stderr();
    const std::string text = ReadAll(file_);
    EXPECT_EQ(CountOccurrences(text, kResultsMarker), 1) << "summaries stacked:\n" << text;
    const std::string head = SummaryHead(text);
    EXPECT_TRUE(absl::StrContains(head, ": ran ")) << head;
    EXPECT_TRUE(absl::StrContains(head, "full output in .clada-output-latest.txt")) << head;
    // One report, or several (earlier runs nobody could see yet), each under
    // its heading; blocks the answer has not finished named before them.
    EXPECT_TRUE(absl::StartsWith(ReadAll(output), kResultsMarker) ||
                absl::StartsWith(ReadAll(output), "--- run 1 of ") ||
                absl::StartsWith(ReadAll(output), "unfinished, not run: "))
        << ReadAll(output);
  }

  void RunStep(const Json& step) {
    const std::string output = root_ + "/" + kOutputFile;
    if (step.contains("save")) {
      Save(TextOf(step.at("save")), step.at("how").get<std::string>());
    } else if (step.contains("saveGenerated")) {  // head lines, `each` with {n} = 1..count, tail lines
      const Json& g = step.at("saveGenerated");
      std::string text = TextOf(g.value("head", Json::array()));
      const std::string each = g.at("each").get<std::string>();
      for (int n = 1; n <= g.at("count").get<int>(); ++n) {
        absl::StrAppend(&text, absl::StrReplaceAll(each, {{"{n}", absl::StrCat(n)}}), "\n");
      }
      absl::StrAppend(&text, TextOf(g.value("tail", Json::array())));
      Save(text, step.at("how").get<std::string>());
    } else if (step.contains("expectSummaryAtMostBytes")) {
      const std::string section = TopSection(ReadAll(file_));
      EXPECT_LE(static_cast<int64_t>(section.size()), step.at("expectSummaryAtMostBytes").get<int64_t>())
          << section.substr(0, 2000);
    } else if (step.contains("expectOutputAtMostBytes")) {
      const std::string out = ReadAll(output);
      EXPECT_LE(static_cast<int64_t>(out.size()), step.at("expectOutputAtMostBytes").get<int64_t>())
          << out.substr(0, 2000);
    } else if (step.contains("waitRun")) {
      WaitRun(step.at("waitRun").get<std::string>());
    } else if (step.contains("expectFile")) {
      EXPECT_EQ(ReadAll(root_ + "/" + step.at("expectFile").get<std::string>()), step.at("content").get<std::string>());
    } else if (step.contains("expectFileContains")) {
      const std::string want = step.at("expectFileContains").get<std::string>();
      EXPECT_TRUE(WaitFor([&] { return absl::StrContains(ReadAll(file_), want); }))
          << "FILE never contained '" << want << "':\n"
          << ReadAll(file_);
    } else if (step.contains("waitFileExists")) {  // what a running exec creates
      const std::string path = root_ + "/" + step.at("waitFileExists").get<std::string>();
      EXPECT_TRUE(WaitFor([&] { return Exists(path); })) << path << " never appeared; stderr:\n" << Stderr();
    } else if (step.contains("expectOutputLacks")) {
      EXPECT_FALSE(absl::StrContains(ReadAll(output), step.at("expectOutputLacks").get<std::string>()))
          << ReadAll(output);
    } else if (step.contains("expectOutputContains")) {
      EXPECT_TRUE(absl::StrContains(ReadAll(output), step.at("expectOutputContains").get<std::string>()))
          << ReadAll(output);
    } else if (step.contains("waitSummary")) {  // a write-back that ran nothing (an acknowledgement)
      const std::string want = step.at("waitSummary").get<std::string>();
      ASSERT_TRUE(WaitFor([&] { return absl::StrContains(TopSection(ReadAll(file_)), want); }))
          << "the top of FILE never said '" << want << "':\n"
          << ReadAll(file_) << "\nstderr:\n"
          << Stderr();
    } else if (step.contains("edit")) {  // [from, to]: the person edits FILE in place and saves
      std::string text = ReadAll(file_);
      const std::string from = step.at("edit")[0].get<std::string>();
      const size_t at = text.find(from);
      ASSERT_NE(at, std::string::npos) << "no '" << from << "' in:\n" << text;
      text.replace(at, from.size(), step.at("edit")[1].get<std::string>());
      Save(text, "truncate");
    } else if (step.contains("expectSummaryHead")) {
      const std::string head = SummaryHead(ReadAll(file_));
      EXPECT_TRUE(absl::StrContains(head, step.at("expectSummaryHead").get<std::string>())) << head;
    } else if (step.contains("expectSummaryLacks")) {
      const std::string section = TopSection(ReadAll(file_));
      EXPECT_FALSE(absl::StrContains(section, step.at("expectSummaryLacks").get<std::string>())) << section;
    } else if (step.contains("expectClipboardContains")) {
      const std::string clipboard = ReadAll(tmp_ + "/clipboard");
      EXPECT_TRUE(absl::StrContains(clipboard, step.at("expectClipboardContains").get<std::string>())) << clipboard;
      EXPECT_EQ(clipboard, ReadAll(output));
    } else if (step.contains("expectStderr")) {
      const std::string want = step.at("expectStderr").get<std::string>();
      EXPECT_TRUE(WaitFor([&] { return absl::StrContains(Stderr(), want); })) << "stderr never said '" << want << "':\n"
                                                                              << Stderr();
    } else if (step.contains("expectGitLogContains")) {
      const std::string log = tmp_ + "/git.log";
      ASSERT_EQ(clada::testing::Sh(
                    absl::StrCat("git -C ", ShellQuote(root_), " log --name-only >", ShellQuote(log), " 2>&1")),
                0)
          << ReadAll(log);
      EXPECT_TRUE(absl::StrContains(ReadAll(log), step.at("expectGitLogContains").get<std::string>())) << ReadAll(log);
    } else if (step.contains("stop")) {
      Stop();
    } else if (step.contains("start")) {
      Start(current_case_);
      if (HasFatalFailure()) return;
      WaitWatching();
    } else {
      FAIL() << "unknown step " << step.dump();
    }
  }

  std::string tmp_, root_, outside_, bin_, home_, stdout_, stderr_, file_;
  Json current_case_;
  int starts_ = 0;
  std::unique_ptr<CladaProcess> process_;
};

TEST_P(ListenProcessTest, RunsPastedBlocksOnceAndWritesBack) {
  const Json& c = GetParam();
  current_case_ = c;
  file_ = Expand(c.value("file", std::string("{root}/answer.md")));
  if (c.value("git", false)) {
    ASSERT_EQ(clada::testing::Sh(absl::StrCat("git init -q ", ShellQuote(root_))), 0);
  }
  if (!c.contains("initial")) {
    WriteFile(file_, "");
  } else if (!c.at("initial").is_null()) {
    WriteFile(file_, TextOf(c.at("initial")));
  }

  Start(c);
  if (HasFatalFailure()) return;

  if (c.contains("expectExit")) {  // refused before listening
    std::optional<int> code = process_->WaitExit();
    ASSERT_TRUE(code.has_value()) << "still running or killed; stderr:\n" << Stderr();
    EXPECT_EQ(*code, c.at("expectExit").get<int>()) << Stderr();
    EXPECT_TRUE(absl::StrContains(Stderr(), c.at("expectStderr").get<std::string>())) << Stderr();
    if (c.contains("expectAbsent")) {
      EXPECT_FALSE(Exists(Expand(c.at("expectAbsent").get<std::string>()))) << c.at("expectAbsent");
    }
    return;
  }

  WaitWatching();
  if (HasFatalFailure()) return;
  for (const Json& step : c.at("steps")) {
    SCOPED_TRACE(step.dump());
    RunStep(step);
    if (HasFatalFailure()) return;
  }

  // The sentinel: one more block, whose results come after anything that
  // should not have run.
  Save(
      "\n#!SHAM [@three-char-SHA-256: z99]\naction = \"file_write\"\npath = \"sentinel.txt\"\n"
      "content = \"done\"\n#!END_SHAM_z99\n",
      "append");
  WaitRun("z99 ✅ file_write sentinel.txt");
  if (HasFatalFailure()) return;
  Stop();
  if (HasFatalFailure()) return;

  const Json final_files = c.value("expectFinal", Json::object());
  for (const auto& [path, content] : final_files.items()) {
    if (content.is_null()) {
      EXPECT_FALSE(Exists(root_ + "/" + path)) << path << " should not exist:\n" << ReadAll(root_ + "/" + path);
    } else {
      EXPECT_EQ(ReadAll(root_ + "/" + path), content.get<std::string>()) << path;
    }
  }
  const std::string err = Stderr();
  EXPECT_EQ(CountOccurrences(err, kRanLine), c.at("runs").get<int>() + 1) << "runs (with the sentinel):\n" << err;
}

std::vector<Json> LoadCases() {
  std::ifstream in("proj/test-data/listen/process_cases.json");
  if (!in) {
    ADD_FAILURE() << "cannot open proj/test-data/listen/process_cases.json";
    return {};
  }
  return Json::parse(in).at("cases").get<std::vector<Json>>();
}

INSTANTIATE_TEST_SUITE_P(Cases, ListenProcessTest, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

}  // namespace
