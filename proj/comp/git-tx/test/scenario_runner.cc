#include "proj/comp/git-tx/test/scenario_runner.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/git-tx/src/git_tx.h"

namespace clada::git_tx::testing {
namespace {

using nlohmann::json;

// Every regular file and symlink under `dir` (".git" skipped): relative
// path -> mode + bytes.
void CollectTree(const std::string& dir, const std::string& rel,
                 std::map<std::string, std::string>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || (rel.empty() && name == ".git"))
      continue;
    std::string path = dir + "/" + name;
    std::string key = rel.empty() ? name : rel + "/" + name;
    // The run lock the commands take (hidden from git) is clada's state,
    // not the user's tree.
    if (key == ".clada/lock" || key == ".clada/.gitignore") continue;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      CollectTree(path, key, out);
    } else if (S_ISLNK(st.st_mode)) {
      char buf[PATH_MAX];
      ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
      (*out)[key] = absl::StrCat("link:", std::string(buf, n > 0 ? n : 0));
    } else {
      absl::StatusOr<std::string> bytes = core::ReadFileToString(path);
      (*out)[key] = absl::StrCat("mode:", st.st_mode & 0777, ":",
                                 bytes.ok() ? *bytes : "?");
    }
  }
  ::closedir(d);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view l : absl::StrSplit(text, '\n', absl::SkipEmpty()))
    out.emplace_back(l);
  return out;
}

GitOptions::Mode ParseMode(const std::string& mode) {
  if (mode == "off") return GitOptions::Mode::kOff;
  if (mode == "require") return GitOptions::Mode::kRequire;
  return GitOptions::Mode::kAuto;
}

// True when every key of `want` is in `got` with an equal value
// (recursively for objects).
bool ContainsSubset(const json& got, const json& want) {
  if (!want.is_object()) return got == want;
  if (!got.is_object()) return false;
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (!got.contains(it.key()) || !ContainsSubset(got[it.key()], it.value()))
      return false;
  }
  return true;
}

class Scenario {
 public:
  explicit Scenario(const json& c) : case_(c) {
    std::string base = MakeTempDir();
    repo_ = base + "/repo";
    EXPECT_TRUE(core::CreateDirectories(repo_).ok());
    char buf[PATH_MAX];
    repo_ = ::realpath(repo_.c_str(), buf);
    std::string rel = c.value("root", std::string("."));
    root_ = rel == "." ? repo_ : repo_ + "/" + rel;
    EXPECT_TRUE(core::CreateDirectories(root_).ok());
  }

  void Run() {
    int index = 0;
    for (const json& step : case_["steps"]) {
      SCOPED_TRACE(absl::StrCat("step ", index++, ": ", step.dump()));
      RunStep(step);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

 private:
  std::string Abs(const std::string& rel) const {
    return rel == "." ? root_ : root_ + "/" + rel;
  }

  std::string Git(const std::string& args) {
    int code = 0;
    std::string out = RunShell(repo_, "git " + args, &code);
    EXPECT_EQ(code, 0) << "git " << args << ":\n" << out;
    return out;
  }

  void RunStep(const json& step) {
    if (step.contains("sh")) return Shell(step);
    if (step.contains("write")) {
      ASSERT_TRUE(
          core::CreateDirectories(
              Abs(step["write"]).substr(0, Abs(step["write"]).rfind('/')))
              .ok());
      ASSERT_TRUE(core::WriteFileAtomic(Abs(step["write"]),
                                        step["content"].get<std::string>())
                      .ok());
      return;
    }
    if (step.contains("begin")) return Begin(step);
    if (step.contains("exclude")) {
      std::vector<std::string> paths;
      for (const json& f : step["exclude"]) paths.push_back(Abs(f.get<std::string>()));
      absl::StatusOr<std::vector<std::string>> listed = ExcludeFromCommits(root_, paths, GitOptions());
      ASSERT_TRUE(listed.ok()) << listed.status();
      EXPECT_EQ(*listed, step.value("listed", std::vector<std::string>{}));
      return;
    }
    if (step.contains("finish")) return Finish(step);
    if (step.contains("abandon")) {  // a clada killed mid-batch
      tx_.reset();
      return;
    }
    if (step.contains("command")) return Command(step);
    if (step.contains("action")) return Action(step);
    if (step.contains("log")) return ExpectLog(step);
    if (step.contains("status")) {
      EXPECT_EQ(Lines(Git("status --porcelain")),
                step["status"].get<std::vector<std::string>>());
      return;
    }
    if (step.contains("show")) {
      std::vector<std::string> files = Lines(
          Git("show --name-only --format= " + step["show"].get<std::string>()));
      std::sort(files.begin(), files.end());
      EXPECT_EQ(files, step["files"].get<std::vector<std::string>>());
      return;
    }
    if (step.contains("message")) {
      std::string msg =
          Git("log -1 --format=%B " + step["message"].get<std::string>());
      for (const std::string& s :
           step.value("contains", std::vector<std::string>{})) {
        EXPECT_TRUE(absl::StrContains(msg, s))
            << "message lacks '" << s << "':\n"
            << msg;
      }
      for (const std::string& s :
           step.value("lacks", std::vector<std::string>{})) {
        EXPECT_FALSE(absl::StrContains(msg, s))
            << "message has '" << s << "':\n"
            << msg;
      }
      return;
    }
    if (step.contains("head")) {
      int code = 0;
      std::string branch =
          RunShell(repo_, "git symbolic-ref --short -q HEAD", &code);
      EXPECT_EQ(code == 0 ? Lines(branch).at(0) : "detached",
                step["head"].get<std::string>());
      return;
    }
    if (step.contains("file")) {
      absl::StatusOr<std::string> got =
          core::ReadFileToString(Abs(step["file"]));
      if (step.value("absent", false)) {
        EXPECT_FALSE(got.ok()) << step["file"] << " exists";
      } else {
        ASSERT_TRUE(got.ok()) << got.status();
        EXPECT_EQ(*got, step["content"].get<std::string>());
      }
      return;
    }
    if (step.contains("save_tree")) {
      CollectTree(repo_, "", &trees_[step["save_tree"]]);
      return;
    }
    if (step.contains("same_tree")) {
      std::map<std::string, std::string> now;
      CollectTree(repo_, "", &now);
      const auto& saved = trees_[step["same_tree"]];
      EXPECT_EQ(now.size(), saved.size());
      for (const auto& [path, bytes] : saved) {
        auto it = now.find(path);
        if (it == now.end()) {
          ADD_FAILURE() << path << " is gone";
        } else {
          EXPECT_EQ(it->second, bytes) << path << " differs";
        }
      }
      for (const auto& [path, bytes] : now) {
        EXPECT_TRUE(saved.count(path)) << path << " is new";
      }
      return;
    }
    FAIL() << "unknown step";
  }

  void Shell(const json& step) {
    int code = 0;
    std::string out = RunShell(repo_, step["sh"], &code);
    EXPECT_EQ(code, step.value("exit", 0)) << out;
  }

  void Begin(const json& step) {
    GitOptions options;
    options.mode = ParseMode(step["begin"].value("mode", std::string("auto")));
    if (step["begin"].contains("author"))
      options.author_name = step["begin"]["author"];
    BatchPlan plan;
    for (const std::string& rel :
         step["begin"].value("plan", std::vector<std::string>{})) {
      plan.paths.push_back(Abs(rel));
    }
    // "plan_relative": paths as given, relative to the root (as clada plans
    // what is below it).
    for (const std::string& rel : step["begin"].value("plan_relative", std::vector<std::string>{}))
      plan.paths.push_back(rel);
    // "plan_many": {"count": N, "prefix": P}: N paths P0, P1, ... (a batch
    // too large to spell out).
    if (step["begin"].contains("plan_many")) {
      const json& many = step["begin"]["plan_many"];
      const std::string prefix = Abs(many["prefix"].get<std::string>());
      for (int64_t i = 0; i < many["count"].get<int64_t>(); ++i)
        plan.paths.push_back(absl::StrCat(prefix, i));
    }
    plan.has_exec = step["begin"].value("exec", false);
    absl::StatusOr<std::unique_ptr<BatchTransaction>> tx =
        BeginBatch(root_, options, plan);
    if (step.contains("error")) {
      ASSERT_FALSE(tx.ok()) << "BeginBatch succeeded";
      EXPECT_TRUE(absl::StrContains(tx.status().message(),
                                    step["error"].get<std::string>()))
          << tx.status();
      return;
    }
    ASSERT_TRUE(tx.ok()) << tx.status();
    tx_ = std::move(*tx);
    if (step.contains("active")) {
      EXPECT_EQ(tx_->active(), step["active"].get<bool>());
    }
    ExpectSnapshotAndNotes(step);
  }

  // The optional "snapshot" and "note" expectations of a begin or finish
  // step.
  void ExpectSnapshotAndNotes(const json& step) {
    if (step.contains("snapshot")) {
      EXPECT_EQ(tx_->snapshot_commit().has_value(),
                step["snapshot"].get<bool>());
    }
    if (step.contains("note")) {
      std::string notes;
      for (const std::string& n : tx_->notes())
        absl::StrAppend(&notes, n, "\n");
      EXPECT_TRUE(absl::StrContains(notes, step["note"].get<std::string>()))
          << notes;
    }
  }

  void Finish(const json& step) {
    ASSERT_NE(tx_, nullptr) << "finish without begin";
    std::vector<ActionRecord> records;
    for (const json& r : step["finish"]) {
      // "repeat": N makes N records, "{n}" (1..N) in target and touched.
      const int repeat = r.value("repeat", 1);
      for (int n = 1; n <= repeat; ++n) {
        auto expand = [&](std::string s) {
          return absl::StrReplaceAll(s, {{"{n}", std::to_string(n)}});
        };
        ActionRecord rec;
        rec.block_id = r.value(
            "block", std::string("b") + std::to_string(records.size() + 1));
        rec.action = r["action"];
        rec.target = r.contains("target") ? Abs(expand(r["target"])) : "";
        rec.success = r.value("ok", true);
        rec.explanation.mut() = r.value("explanation", "");
        for (const std::string& t :
             r.value("touched", std::vector<std::string>{})) {
          rec.touched_paths.mut().push_back(Abs(expand(t)));
        }
        rec.touches_anything = r.value("anything", false);
        records.push_back(rec);
      }
    }
    absl::StatusOr<BatchCommitResult> result = tx_->Finish(records);
    if (step.contains("error")) {
      ASSERT_FALSE(result.ok()) << "Finish succeeded";
      EXPECT_TRUE(absl::StrContains(result.status().message(),
                                    step["error"].get<std::string>()))
          << result.status();
      return;
    }
    ASSERT_TRUE(result.ok()) << result.status();
    ExpectSnapshotAndNotes(step);
    if (step.contains("commit")) {
      EXPECT_EQ(result->commit_id.has_value(), step["commit"].get<bool>())
          << result->summary;
      if (result->commit_id) {
        EXPECT_EQ(*result->commit_id, Lines(Git("rev-parse HEAD")).at(0));
      }
    }
    if (step.contains("summary")) {
      EXPECT_EQ(result->summary, step["summary"].get<std::string>());
    }
    if (step.contains("foreign")) {
      std::vector<std::string> want;
      for (const json& f : step["foreign"])
        want.push_back(Abs(f.get<std::string>()));
      EXPECT_EQ(result->foreign_changes, want);
    }
    if (step.contains("head_moved")) {
      EXPECT_EQ(!result->head_moved.empty(), step["head_moved"].get<bool>()) << result->head_moved;
    }
    if (step.contains("exec_ignored")) {
      std::vector<std::string> want;
      for (const json& f : step["exec_ignored"]) want.push_back(Abs(f.get<std::string>()));
      EXPECT_EQ(result->exec_changed_ignored, want);
    }
    if (step.contains("unattributed")) {
      std::vector<std::string> want;
      for (const json& f : step["unattributed"])
        want.push_back(Abs(f.get<std::string>()));
      EXPECT_EQ(result->unattributed_changes, want);
    }
  }

  void Command(const json& step) {
    std::ostringstream out, err;
    GitOptions options;
    if (step.contains("mode")) options.mode = ParseMode(step["mode"]);
    int code = RunGitCommand(step["command"],
                             step.value("args", std::vector<std::string>{}),
                             root_, options, out, err);
    EXPECT_EQ(code, step.value("exit", 0))
        << "out: " << out.str() << "\nerr: " << err.str();
    if (step.contains("out")) {
      EXPECT_TRUE(absl::StrContains(out.str(), step["out"].get<std::string>()))
          << out.str();
    }
    if (step.contains("out_lacks")) {
      EXPECT_FALSE(
          absl::StrContains(out.str(), step["out_lacks"].get<std::string>()))
          << out.str();
    }
    if (step.contains("err")) {
      EXPECT_TRUE(absl::StrContains(err.str(), step["err"].get<std::string>()))
          << err.str();
    }
  }

  void Action(const json& step) {
    core::Action action;
    action.name = step["action"];
    if (step.contains("params"))
      action.params = core::Json::parse(step["params"].dump());
    absl::StatusOr<core::PathPolicy> policy = core::MakePathPolicy(root_, {});
    ASSERT_TRUE(policy.ok()) << policy.status();
    core::ExecContext ctx;
    ctx.paths = *policy;
    core::ActionOutcome outcome = ExecuteGitAction(action, ctx);
    EXPECT_EQ(outcome.success, step.value("success", true)) << outcome.error;
    if (step.contains("error")) {
      EXPECT_TRUE(
          absl::StrContains(outcome.error, step["error"].get<std::string>()))
          << outcome.error;
    }
    if (step.contains("data")) {
      json got = json::parse(outcome.data.dump());
      EXPECT_TRUE(ContainsSubset(got, step["data"])) << got.dump();
    }
  }

  void ExpectLog(const json& step) {
    std::vector<std::string> subjects =
        Lines(Git("log --first-parent --format=%s"));
    std::vector<std::string> want = step["log"].get<std::vector<std::string>>();
    ASSERT_EQ(subjects.size(), want.size())
        << Git("log --first-parent --format=%s");
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(std::regex_match(subjects[i], std::regex(want[i])))
          << "commit " << i << ": '" << subjects[i] << "' !~ '" << want[i]
          << "'";
    }
  }

  json case_;
  std::string repo_;
  std::string root_;
  std::unique_ptr<BatchTransaction> tx_;
  std::map<std::string, std::map<std::string, std::string>> trees_;
};

}  // namespace

void IsolateGitEnvironment() {
  static const bool done = [] {
    std::string home = MakeTempDir();
    ::setenv("HOME", home.c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", home.c_str(), 1);
    ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    ::setenv("GIT_AUTHOR_NAME", "Tester", 1);
    ::setenv("GIT_AUTHOR_EMAIL", "tester@example.com", 1);
    ::setenv("GIT_COMMITTER_NAME", "Tester", 1);
    ::setenv("GIT_COMMITTER_EMAIL", "tester@example.com", 1);
    ::setenv("GIT_MERGE_AUTOEDIT", "no", 1);
    ::unsetenv("GIT_DIR");
    ::unsetenv("GIT_WORK_TREE");
    return true;
  }();
  (void)done;
}

std::vector<nlohmann::json> LoadScenarios(const std::string& file) {
  std::ifstream in("proj/comp/git-tx/test-data/" + file);
  nlohmann::json doc = nlohmann::json::parse(in);
  return doc["cases"].get<std::vector<nlohmann::json>>();
}

std::string ScenarioName(const nlohmann::json& scenario) {
  return scenario["name"];
}

void RunScenario(const nlohmann::json& scenario) {
  IsolateGitEnvironment();
  Scenario s(scenario);
  s.Run();
}

std::string MakeTempDir() {
  const char* base = ::getenv("TEST_TMPDIR");
  std::string tmpl = absl::StrCat(base ? base : "/tmp", "/gittx_XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* dir = ::mkdtemp(buf.data());
  return dir ? std::string(dir) : std::string();
}

std::string RunShell(const std::string& dir, const std::string& cmd,
                     int* exit_code) {
  std::string full = absl::StrCat("cd '", dir, "' && { ", cmd, "\n} 2>&1");
  FILE* p = ::popen(full.c_str(), "r");
  std::string out;
  if (p == nullptr) {
    *exit_code = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int status = ::pclose(p);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace clada::git_tx::testing
