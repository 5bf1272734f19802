// Drives a real listener (Listen on a thread, inotify on a temp directory)
// through the scenarios of test-data/listen_scenarios.json, with a fake
// callback that records the text it is given and returns a canned report.
// Every wait is bounded and polls for a condition; nothing asserts speed.
//
// After its steps, each scenario appends one more block and expects the next
// run to hold exactly that block: any run that should not have happened
// (a block run twice, a run caused by the listener's own write-back) would
// come before it and fail the check. Saved after the last write-back, its
// results are shown alone: nothing is carried past a quiet moment.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/listener/test/test_support.h"

namespace clada::listener {
namespace {

using testing::BlockIds;
using testing::CaseName;
using testing::Json;
using testing::LoadCases;
using testing::ReadFileOrEmpty;
using testing::TempDir;
using testing::TextOf;
using testing::WriteFileOrDie;

constexpr auto kWaitLimit = std::chrono::seconds(10);
constexpr char kSentinelId[] = "zz99";

// Polls `condition` until it holds or kWaitLimit passes.
bool WaitFor(const std::function<bool()>& condition) {
  auto deadline = std::chrono::steady_clock::now() + kWaitLimit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

std::string Summary(int run) { return absl::StrCat("=== CLADA RESULTS ===\nfake ✅ run ", run, "\n"); }
std::string FullReport(int run) {
  return absl::StrCat(Summary(run), "=== OUTPUTS ===\noutput of run ", run, "\n=== END ===\n");
}

// The fake RunBlocksFn: records texts, optionally holds each run until
// released (all of them, or one at a time).
class FakeRunner {
 public:
  RunReport Run(const std::string& text, int64_t answer) {
    std::unique_lock<std::mutex> lock(mu_);
    texts_.push_back(text);
    answers_.push_back(answer);
    int run = static_cast<int>(texts_.size());
    ++started_;
    cv_.wait(lock, [&] { return !hold_ || run <= released_; });
    RunReport report;
    report.summary = Summary(run) + summary_tail_;
    report.full_report = FullReport(run);
    report.stderr_line = absl::StrCat(BlockIds(text).size(), " succeeded, 0 failed, 0 skipped");
    return report;
  }
  // Lines every later summary ends with (what a run printed, say).
  void SetSummaryTail(const std::string& tail) {
    std::lock_guard<std::mutex> lock(mu_);
    summary_tail_ = tail;
  }
  void SetHold(bool hold) {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = hold;
    cv_.notify_all();
  }
  // Lets run number `run` (1-based) and those before it finish while later
  // ones stay held.
  void Release(int run) {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = std::max(released_, run);
    cv_.notify_all();
  }
  int started() {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }
  std::vector<std::string> texts() {
    std::lock_guard<std::mutex> lock(mu_);
    return texts_;
  }
  // The answer number each run was given.
  std::vector<int64_t> answers() {
    std::lock_guard<std::mutex> lock(mu_);
    return answers_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false;
  int released_ = 0;
  std::string summary_tail_;
  int started_ = 0;
  std::vector<std::string> texts_;
  std::vector<int64_t> answers_;
};

// Sets environment variables for one scenario and restores them after.
class ScopedEnv {
 public:
  void Set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = getenv(name.c_str());
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Listen on a thread.
class RunningListener {
 public:
  RunningListener(ListenOptions options, FakeRunner* runner) : options_(std::move(options)) {
    options_.should_stop = [this] { return stop_.load(); };
    options_.on_ready = [this] { ready_ = true; };
    thread_ = std::thread([this, runner] {
      status_ = Listen(options_,
                       [runner](const std::string& text, int64_t answer) { return runner->Run(text, answer); });
      done_ = true;
    });
  }
  ~RunningListener() { Stop().IgnoreError(); }
  bool WaitReady() {
    return WaitFor([this] { return ready_.load() || done_.load(); }) && ready_;
  }
  bool WaitDone() {
    return WaitFor([this] { return done_.load(); });
  }
  absl::Status Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return status_;
  }

 private:
  ListenOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ready_{false};
  std::atomic<bool> done_{false};
  absl::Status status_;
  std::thread thread_;
};

void WriteFd(int fd, const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    ASSERT_GT(n, 0);
    off += static_cast<size_t>(n);
  }
}

// Saves `text` into `file` the way different editors do.
void Save(const std::string& file, const std::string& text, const std::string& how) {
  if (how == "truncate" || how == "pieces" || how == "recreate") {
    if (how == "recreate") {
      ASSERT_EQ(::unlink(file.c_str()), 0);
    }
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    if (how == "pieces") {
      WriteFd(fd, text.substr(0, text.size() / 2));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      WriteFd(fd, text.substr(text.size() / 2));
    } else {
      WriteFd(fd, text);
    }
    ASSERT_EQ(::close(fd), 0);
  } else if (how == "rename") {
    std::filesystem::path p(file);
    std::string tmp = (p.parent_path() / ("." + p.filename().string() + ".swp")).string();
    WriteFileOrDie(tmp, text);
    ASSERT_EQ(::rename(tmp.c_str(), file.c_str()), 0);
  } else if (how == "append") {
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ASSERT_GE(fd, 0);
    WriteFd(fd, text);
    ASSERT_EQ(::close(fd), 0);
  } else {
    FAIL() << "unknown save style " << how;
  }
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

class ListenScenarioTest : public ::testing::TestWithParam<Json> {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/root";
    bin_ = tmp_.path() + "/bin";
    ASSERT_EQ(::mkdir(root_.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(bin_.c_str(), 0755), 0);
    file_ = root_ + "/answer.md";
    output_ = root_ + "/" + kOutputFileName;
    options_.file = file_;
    options_.state_dir = root_ + "/.clada";
    options_.log = &log_;
  }

  void Start() {
    listener_ = std::make_unique<RunningListener>(options_, &runner_);
    ASSERT_TRUE(listener_->WaitReady()) << "listener did not start: " << listener_->Stop();
  }
  void StopListener() {
    absl::Status s = listener_->Stop();
    EXPECT_TRUE(s.ok()) << s;
    listener_.reset();
  }

  // Waits for run number `run` (1-based), checks the blocks it was given,
  // then waits for its write-back (or a later run's).
  void ExpectRun(int run, const std::vector<std::string>& ids) {
    ASSERT_TRUE(WaitFor([&] { return static_cast<int>(runner_.texts().size()) >= run; }))
        << "run " << run << " with " << absl::StrJoin(ids, ",") << " never came";
    std::vector<std::string> texts = runner_.texts();
    EXPECT_EQ(BlockIds(texts[run - 1]), ids) << "run " << run << " was given:\n" << texts[run - 1];

    auto written_back = [&] {
      std::string text = ReadFileOrEmpty(file_);
      std::string out = ReadFileOrEmpty(output_);
      int runs = static_cast<int>(runner_.texts().size());
      for (int k = run; k <= runs; ++k) {
        // Ends with: earlier runs nobody could see may come before it.
        if (absl::StrContains(text, absl::StrCat("✅ run ", k, "\n")) && absl::EndsWith(out, FullReport(k))) {
          return true;
        }
      }
      return false;
    };
    ASSERT_TRUE(WaitFor(written_back)) << "no write-back for run " << run << "; file:\n"
                                       << ReadFileOrEmpty(file_) << "\noutput file:\n"
                                       << ReadFileOrEmpty(output_);
    std::string text = ReadFileOrEmpty(file_);
    EXPECT_TRUE(absl::StartsWith(text, absl::StrCat(kResultsMarker, "\n", kSummaryPrefix))) << text;
    EXPECT_EQ(CountOccurrences(text, kResultsMarker), 1) << "summaries stacked:\n" << text;
    std::string head = text.substr(0, text.find('\n', text.find('\n') + 1));
    EXPECT_TRUE(absl::StrContains(head, "full output in .clada-output-latest.txt")) << head;
    EXPECT_TRUE(absl::StrContains(head, " succeeded, 0 failed, 0 skipped")) << head;
  }

  // The latest write-back shows the results of exactly the runs `shown`
  // (1-based), earlier first: in the one section at the top of FILE, which
  // the next write-back still replaces whole, and as full reports, each under
  // its own heading, in the output file.
  void ExpectShown(const std::vector<int>& shown) {
    const std::string text = ReadFileOrEmpty(file_);
    const std::string out = ReadFileOrEmpty(output_);
    const size_t end = text.find(absl::StrCat("\n", kEndMarker, "\n"));
    ASSERT_NE(end, std::string::npos) << text;
    const std::string section = text.substr(0, end + 1);
    const int runs = static_cast<int>(runner_.texts().size());
    for (int k = 1; k <= runs; ++k) {
      const bool want = std::find(shown.begin(), shown.end(), k) != shown.end();
      EXPECT_EQ(absl::StrContains(section, absl::StrCat("fake ✅ run ", k, "\n")), want)
          << "run " << k << (want ? " missing from" : " should not be in") << " the summary:\n"
          << section;
      EXPECT_EQ(absl::StrContains(out, FullReport(k)), want)
          << "run " << k << (want ? " missing from" : " should not be in") << " the output file:\n"
          << out;
    }
    size_t in_section = 0, in_out = 0;
    for (int k : shown) {
      const size_t s = section.find(absl::StrCat("fake ✅ run ", k, "\n"), in_section);
      EXPECT_NE(s, std::string::npos) << "run " << k << " out of order in the summary:\n" << section;
      const size_t o = out.find(FullReport(k), in_out);
      EXPECT_NE(o, std::string::npos) << "run " << k << " out of order in the output file:\n" << out;
      if (s == std::string::npos || o == std::string::npos) return;
      in_section = s;
      in_out = o;
    }
    if (shown.size() == 1) {
      EXPECT_EQ(out, FullReport(shown[0]));
    } else {
      for (size_t i = 0; i < shown.size(); ++i) {
        EXPECT_TRUE(absl::StrContains(out, absl::StrCat("--- run ", i + 1, " of ", shown.size(), ", "))) << out;
      }
    }
    // Still one section of the listener's, skipped by the scanner and
    // replaced whole by the next summary.
    EXPECT_EQ(CountOccurrences(text, kResultsMarker), 1) << text;
    EXPECT_FALSE(absl::StrContains(StripResultsSections(text), "✅ run")) << text;
    EXPECT_FALSE(absl::StrContains(InsertSummary(text, FormatSummarySection("clada listen later", "")), "✅ run"))
        << text;
  }

  void CheckClipboard(const Json& expect, const Json& tools) {
    std::string text = ReadFileOrEmpty(file_);
    std::string head = text.substr(0, text.find('\n', text.find('\n') + 1));
    int runs = static_cast<int>(runner_.texts().size());
    if (expect.is_null()) {
      EXPECT_FALSE(absl::StrContains(head, "on the clipboard (")) << head;
      for (const Json& tool : tools) {
        EXPECT_FALSE(std::filesystem::exists(bin_ + "/" + tool.get<std::string>() + ".out")) << tool;
      }
      return;
    }
    const std::string name = expect.get<std::string>();
    EXPECT_TRUE(absl::StrContains(head, absl::StrCat("on the clipboard (", name, ")"))) << head;
    EXPECT_TRUE(absl::EndsWith(ReadFileOrEmpty(bin_ + "/" + name + ".out"), FullReport(runs)));
    EXPECT_EQ(ReadFileOrEmpty(bin_ + "/" + name + ".out"), ReadFileOrEmpty(output_));
    for (const Json& tool : tools) {
      if (tool.get<std::string>() == name) continue;
      EXPECT_FALSE(std::filesystem::exists(bin_ + "/" + tool.get<std::string>() + ".out")) << tool;
    }
  }

  TempDir tmp_;
  std::string root_, bin_, file_, output_;
  std::ostringstream log_;
  ListenOptions options_;
  FakeRunner runner_;
  ScopedEnv env_;  // restored after listener_ has stopped
  std::unique_ptr<RunningListener> listener_;
};

TEST_P(ListenScenarioTest, RunsEachNewBlockOnceAndWritesBack) {
  const Json& c = GetParam();

  // Clipboard tools: none by default, so the machine's own never interfere.
  ScopedEnv& env = env_;
  env.Set("PATH", bin_);
  env.Set("DISPLAY", std::nullopt);
  env.Set("WAYLAND_DISPLAY", std::nullopt);
  if (c.contains("env")) {
    for (const auto& [name, value] : c.at("env").items()) {
      env.Set(name, value.is_null() ? std::nullopt : std::optional<std::string>(value.get<std::string>()));
    }
  }
  const Json tools = c.value("fakeTools", Json::array());
  for (const Json& tool : tools) {
    const std::string name = tool.get<std::string>();
    const std::string script = c.value("failingTools", false)
                                   ? "#!/bin/sh\n/bin/cat > /dev/null\nexit 3\n"
                                   : absl::StrCat("#!/bin/sh\n/bin/cat > '", bin_, "/", name, ".out'\n");
    WriteFileOrDie(bin_ + "/" + name, script);
    ASSERT_EQ(::chmod((bin_ + "/" + name).c_str(), 0755), 0);
  }

  if (c.value("symlink", false)) {  // FILE is a relative symlink into real/
    ASSERT_EQ(::mkdir((root_ + "/real").c_str(), 0755), 0);
    ASSERT_EQ(::symlink("real/answer.md", file_.c_str()), 0);
  }
  if (c.contains("initialState")) {  // "{file}" is FILE as the listener names it (canonical)
    ASSERT_EQ(::mkdir(options_.state_dir.c_str(), 0755), 0);
    const std::string canonical = std::filesystem::weakly_canonical(file_).string();
    WriteFileOrDie(options_.state_dir + "/" + kStateFileName,
                   absl::StrReplaceAll(c.at("initialState").dump(), {{"{file}", canonical}}));
  }
  if (!c.contains("initial")) {
    WriteFileOrDie(file_, "");
  } else if (!c.at("initial").is_null()) {
    WriteFileOrDie(file_, TextOf(c.at("initial")));
  }

  if (c.contains("summaryTail")) runner_.SetSummaryTail(TextOf(c.at("summaryTail")));
  Start();
  int runs_expected = 0;
  for (const Json& step : c.at("steps")) {
    SCOPED_TRACE(step.dump());
    if (step.contains("save")) {
      Save(file_, TextOf(step.at("save")), step.at("how").get<std::string>());
    } else if (step.contains("saveMany")) {  // N blocks m100000, m100001, ...
      std::string text;
      for (int i = 0; i < step.at("saveMany").get<int>(); ++i) {
        absl::StrAppend(&text, "#!SHAM [@three-char-SHA-256: m", 100000 + i, "]\naction = \"ls\"\n#!END_SHAM_m",
                        100000 + i, "\n");
      }
      Save(file_, text, step.at("how").get<std::string>());
    } else if (step.contains("expectRunMany")) {
      std::vector<std::string> ids;
      for (int i = 0; i < step.at("expectRunMany").get<int>(); ++i) ids.push_back(absl::StrCat("m", 100000 + i));
      ExpectRun(++runs_expected, ids);
    } else if (step.contains("expectRun")) {
      ExpectRun(++runs_expected, step.at("expectRun").get<std::vector<std::string>>());
      if (step.contains("answer")) {  // the answer's number, the same for the batches of one answer
        EXPECT_EQ(runner_.answers().at(runs_expected - 1), step.at("answer").get<int64_t>());
      }
    } else if (step.contains("expectFileContains")) {
      const std::string want = step.at("expectFileContains").get<std::string>();
      EXPECT_TRUE(WaitFor([&] { return absl::StrContains(ReadFileOrEmpty(file_), want); }))
          << "file never contained '" << want << "':\n"
          << ReadFileOrEmpty(file_);
    } else if (step.contains("expectSymlink")) {
      EXPECT_TRUE(std::filesystem::is_symlink(file_));
      EXPECT_FALSE(std::filesystem::exists(root_ + "/real/" + kOutputFileName));
    } else if (step.contains("stop")) {
      StopListener();
    } else if (step.contains("start")) {
      Start();
    } else if (step.contains("holdRuns")) {
      runner_.SetHold(true);
    } else if (step.contains("releaseRuns")) {
      runner_.SetHold(false);
    } else if (step.contains("releaseRun")) {
      runner_.Release(step.at("releaseRun").get<int>());
    } else if (step.contains("expectShown")) {
      ExpectShown(step.at("expectShown").get<std::vector<int>>());
    } else if (step.contains("edit")) {  // [from, to]: a person edits FILE and saves it
      const std::string from = step.at("edit")[0].get<std::string>();
      std::string text = ReadFileOrEmpty(file_);
      const size_t at = text.find(from);
      ASSERT_NE(at, std::string::npos) << "no '" << from << "' to edit in:\n" << text;
      text.replace(at, from.size(), step.at("edit")[1].get<std::string>());
      Save(file_, text, "truncate");
    } else if (step.contains("pauseMs")) {  // let the listener read a save that changes nothing
      std::this_thread::sleep_for(std::chrono::milliseconds(step.at("pauseMs").get<int>()));
    } else if (step.contains("waitRunStarted")) {
      int n = step.at("waitRunStarted").get<int>();
      ASSERT_TRUE(WaitFor([&] { return runner_.started() >= n; }));
    } else {
      FAIL() << "unknown step";
    }
    if (HasFatalFailure()) return;
  }
  if (c.contains("expectClipboard")) CheckClipboard(c.at("expectClipboard"), tools);

  // The sentinel: the next run holds exactly one new block.
  Save(file_,
       absl::StrCat("#!SHAM [@three-char-SHA-256: ", kSentinelId, "]\naction = \"ls\"\n#!END_SHAM_", kSentinelId, "\n"),
       "append");
  ExpectRun(++runs_expected, {kSentinelId});
  // Saved after the last write-back: its results are shown alone.
  ExpectShown({runs_expected});
  StopListener();
  EXPECT_EQ(static_cast<int>(runner_.texts().size()), runs_expected);

  const std::string log = log_.str();
  EXPECT_EQ(CountOccurrences(log, " clada listen: ran "), runs_expected) << log;
  if (c.contains("expectLog")) {
    EXPECT_TRUE(absl::StrContains(log, c.at("expectLog").get<std::string>())) << log;
  }
  if (c.contains("expectLogOnce")) {
    EXPECT_EQ(CountOccurrences(log, c.at("expectLogOnce").get<std::string>()), 1) << log;
  }
  if (c.contains("expectLogLacks")) {
    EXPECT_FALSE(absl::StrContains(log, c.at("expectLogLacks").get<std::string>())) << log;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ListenScenarioTest, ::testing::ValuesIn(LoadCases("listen_scenarios.json")),
                         CaseName);

TEST(ListenLog, ShowsAHostileFileNameEscaped) {
  // The terminal line names FILE: an OSC 52 sequence (which sets the
  // clipboard) and U+202E in its name are shown as escapes, never raw.
  TempDir tmp;
  ListenOptions options;
  options.file = tmp.path() + "/chat\x1b]52;c;Zm9v\x07\xE2\x80\xAE.md";
  options.state_dir = tmp.path() + "/.clada";
  std::ostringstream log;
  options.log = &log;
  FakeRunner runner;
  {
    RunningListener listener(options, &runner);
    ASSERT_TRUE(listener.WaitReady()) << "listener did not start: " << listener.Stop();
    EXPECT_TRUE(listener.Stop().ok());
  }
  const std::string text = log.str();
  EXPECT_TRUE(absl::StrContains(text, "chat\\x1b]52;c;Zm9v\\x07\\u202e.md")) << text;
  EXPECT_FALSE(absl::StrContains(text, "\x1b")) << text;
  EXPECT_FALSE(absl::StrContains(text, "\xE2\x80\xAE")) << text;
}

class ListenErrorTest : public ::testing::TestWithParam<Json> {};

TEST_P(ListenErrorTest, RefusesWithAClearError) {
  const Json& c = GetParam();
  TempDir tmp;
  const std::string dir = tmp.path() + "/root";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ListenOptions options;
  options.file = absl::StrReplaceAll(c.value("file", std::string("{dir}/answer.md")), {{"{dir}", dir}});
  options.state_dir = c.value("stateDir", tmp.path() + "/state");
  options.debounce_ms = c.value("debounceMs", 30);
  if (c.contains("mkdir")) {
    ASSERT_EQ(::mkdir((dir + "/" + c.at("mkdir").get<std::string>()).c_str(), 0755), 0);
  }
  if (c.contains("stateFile")) {
    ASSERT_EQ(::mkdir(options.state_dir.c_str(), 0755), 0);
    WriteFileOrDie(options.state_dir + "/" + kStateFileName, c.at("stateFile").get<std::string>());
  }
  int lock_fd = -1;
  if (c.value("holdLock", false)) {
    ASSERT_EQ(::mkdir(options.state_dir.c_str(), 0755), 0);
    lock_fd = ::open((options.state_dir + "/" + kLockFileName).c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(lock_fd, 0);
    ASSERT_EQ(::flock(lock_fd, LOCK_EX | LOCK_NB), 0);
  }
  RunBlocksFn run;
  if (!c.value("noCallback", false)) run = [](const std::string&, int64_t) { return RunReport(); };

  absl::Status status;
  if (c.value("removeDirAfterStart", false)) {
    FakeRunner runner;
    RunningListener listener(options, &runner);
    ASSERT_TRUE(listener.WaitReady());
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(listener.WaitDone()) << "listener kept going after its directory was removed";
    status = listener.Stop();
  } else {
    options.should_stop = [] { return true; };  // without the error, Listen returns OK at once
    status = Listen(options, run);
  }
  if (lock_fd >= 0) ::close(lock_fd);

  EXPECT_EQ(absl::StatusCodeToString(status.code()), c.at("expectCode").get<std::string>()) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), c.at("expectMessage").get<std::string>())) << status;
}

INSTANTIATE_TEST_SUITE_P(Cases, ListenErrorTest, ::testing::ValuesIn(LoadCases("listen_errors.json")), CaseName);

}  // namespace
}  // namespace clada::listener
