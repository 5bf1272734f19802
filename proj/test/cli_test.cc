// Drives the real `clada` binary: arguments, stdin, exit codes, files.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/test/test_util.h"

namespace {

using clada::testing::ReadAll;
using clada::testing::ShellQuote;

// Runs `cmd` with `sh -c`, its stdin the terminal side of a new pty (its
// own session, so the pty is its controlling terminal) into which one
// Ctrl-D has been typed: a read of it ends at once. Returns the wait status
// (-1 when no pty could be made).
int RunWithTerminalStdin(const std::string& cmd) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return -1;
  const std::string slave = ::ptsname(master);
  // Typed before the command reads: the line discipline keeps it.
  if (::write(master, "\x04", 1) != 1) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    const int fd = ::open(slave.c_str(), O_RDWR);
    if (fd < 0) ::_exit(127);
    ::dup2(fd, 0);
    if (fd > 2) ::close(fd);
    ::close(master);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = -1;
  // Drain the echo so the child never blocks on a full pty.
  std::thread drain([master] {
    char buf[256];
    while (::read(master, buf, sizeof buf) > 0) {
    }
  });
  ::waitpid(pid, &status, 0);
  ::close(master);
  drain.join();
  return status;
}

class CliCase : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(CliCase, Behaves) {
  const nlohmann::json& c = GetParam();
  std::string dir = clada::testing::MakeTempDir("clada_cli_");
  ASSERT_FALSE(dir.empty());
  std::string binary = clada::testing::CladaBinary();
  if (c.contains("setup")) {
    for (auto& [path, content] : c["setup"].items()) {
      std::string full = absl::StrCat(dir, "/", path);
      ASSERT_EQ(std::system(absl::StrCat("mkdir -p ", ShellQuote(full.substr(0, full.rfind('/')))).c_str()), 0);
      std::ofstream(full, std::ios::binary) << content.get<std::string>();
    }
  }
  // Shell commands that prepare the directory (a repository, earlier runs);
  // `clada` in them is the binary under test.
  const std::string prelude = absl::StrCat("cd ", ShellQuote(dir), " && clada() { ", ShellQuote(binary),
                                           " \"$@\"; } && ");
  for (const auto& step : c.value("before", nlohmann::json::array())) {
    ASSERT_EQ(std::system(absl::StrCat(prelude, "{ ", step.get<std::string>(), "; } >/dev/null 2>&1").c_str()), 0)
        << step;
  }
  std::ofstream(dir + "/.stdin", std::ios::binary) << c.value("stdin", "");
  std::string cmd = absl::StrCat("cd ", ShellQuote(dir), " && BUILD_WORKING_DIRECTORY=", ShellQuote(dir), " ",
                                 ShellQuote(binary));
  for (const auto& a : c["args"]) absl::StrAppend(&cmd, " ", ShellQuote(a.get<std::string>()));
  int status = 0;
  if (c.value("stdin_tty", false)) {
    // stdin a terminal: a new pty whose input is one Ctrl-D (end of input).
    absl::StrAppend(&cmd, " >.stdout 2>.stderr");
    status = RunWithTerminalStdin(cmd);
  } else {
    absl::StrAppend(&cmd, " <.stdin >.stdout 2>.stderr");
    status = std::system(cmd.c_str());
  }
  ASSERT_TRUE(WIFEXITED(status));
  std::string out = ReadAll(dir + "/.stdout"), err = ReadAll(dir + "/.stderr");
  // "exit" is a code, or the codes a case accepts (with a "note" saying why).
  nlohmann::json exits = c["exit"].is_array() ? c["exit"] : nlohmann::json::array({c["exit"]});
  EXPECT_NE(std::find(exits.begin(), exits.end(), WEXITSTATUS(status)), exits.end())
      << "exit " << WEXITSTATUS(status) << ", expected " << exits << "\nstdout:\n" << out << "\nstderr:\n" << err;
  for (const auto& s : c.value("stdout", nlohmann::json::array())) {
    EXPECT_NE(out.find(s.get<std::string>()), std::string::npos) << "stdout lacks: " << s << "\n" << out;
  }
  for (const auto& s : c.value("stderr", nlohmann::json::array())) {
    EXPECT_NE(err.find(s.get<std::string>()), std::string::npos) << "stderr lacks: " << s << "\n" << err;
  }
  for (const auto& s : c.value("stderr_lacks", nlohmann::json::array())) {
    EXPECT_EQ(err.find(s.get<std::string>()), std::string::npos) << "stderr has: " << s << "\n" << err;
  }
  for (const auto& s : c.value("stdout_lacks", nlohmann::json::array())) {
    EXPECT_EQ(out.find(s.get<std::string>()), std::string::npos) << "stdout has: " << s << "\n" << out;
  }
  // "after": a shell command run afterwards; its stdout must equal "after_stdout".
  if (c.contains("after")) {
    ASSERT_EQ(std::system(absl::StrCat(prelude, "{ ", c["after"].get<std::string>(), "; } >.after 2>&1").c_str()),
              0);
    EXPECT_EQ(ReadAll(dir + "/.after"), c["after_stdout"].get<std::string>()) << c["after"];
  }
  const nlohmann::json files = c.value("files", nlohmann::json::object());
  for (auto& [path, content] : files.items()) {
    EXPECT_EQ(ReadAll(absl::StrCat(dir, "/", path)), content.get<std::string>()) << path;
  }
  for (const auto& path : c.value("absent", nlohmann::json::array())) {
    std::ifstream f(absl::StrCat(dir, "/", path.get<std::string>()));
    EXPECT_FALSE(f.good()) << path << " should not exist";
  }
}

std::vector<nlohmann::json> LoadCases() {
  std::ifstream in("proj/test-data/cli/cases.json");
  return nlohmann::json::parse(in)["cases"].get<std::vector<nlohmann::json>>();
}

INSTANTIATE_TEST_SUITE_P(Cases, CliCase, ::testing::ValuesIn(LoadCases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

// Runs the binary with `args` (shell words) in a fresh directory; returns
// the exit code and fills stdout and stderr.
int RunClada(const std::string& args, std::string* out, std::string* err) {
  const std::string dir = clada::testing::MakeTempDir("clada_help_");
  const int status = clada::testing::Sh(absl::StrCat("cd ", ShellQuote(dir), " && ", ShellQuote(clada::testing::CladaBinary()),
                                                     " ", args, " </dev/null >.stdout 2>.stderr"));
  *out = ReadAll(dir + "/.stdout");
  *err = ReadAll(dir + "/.stderr");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Every command the binary itself lists (in its unknown-command message)
// has help of its own, under `clada CMD --help`, `clada CMD -h` and
// `clada help CMD`, that names the command and is not the global help;
// the global help names every command and every dialect's marker.
TEST(Help, EveryCommandHasItsOwn) {
  std::string out, err;
  ASSERT_EQ(RunClada("no-such-command", &out, &err), 2);
  const size_t at = err.find("\ncommands: ");
  ASSERT_NE(at, std::string::npos) << err;
  const std::string list = err.substr(at + 11, err.find(" (see", at) - at - 11);
  std::vector<std::string> commands;
  for (size_t start = 0; start < list.size();) {
    size_t comma = list.find(", ", start);
    if (comma == std::string::npos) comma = list.size();
    commands.push_back(list.substr(start, comma - start));
    start = comma + 2;
  }
  ASSERT_GE(commands.size(), 17u) << list;
  std::string global;
  ASSERT_EQ(RunClada("--help", &global, &err), 0);
  for (const char* marker : {"#!SHAM", "#!NESL", "<tasks>", "<---WRITE--->", "<<<FILE>>>", "<<<<<<< SEARCH",
                             "diff -u", "*** Begin Patch"}) {
    EXPECT_NE(global.find(marker), std::string::npos) << "global help lacks the dialect marker " << marker;
  }
  for (const std::string& command : commands) {
    EXPECT_TRUE(global.find(absl::StrCat("\n  ", command, " ")) != std::string::npos ||
                global.find(absl::StrCat(" | ", command, " ")) != std::string::npos)
        << "global help lacks command " << command;
    std::string help;
    ASSERT_EQ(RunClada(absl::StrCat(command, " --help"), &help, &err), 0) << command << ": " << err;
    EXPECT_EQ(help.rfind(absl::StrCat("usage: clada ", command), 0), 0u) << help;
    EXPECT_NE(help, global) << command;
    std::string same;
    EXPECT_EQ(RunClada(absl::StrCat(command, " -h"), &same, &err), 0);
    EXPECT_EQ(same, help) << command << " -h";
    EXPECT_EQ(RunClada(absl::StrCat("help ", command), &same, &err), 0);
    EXPECT_EQ(same, help) << "help " << command;
  }
  EXPECT_EQ(RunClada("help no-such-command", &out, &err), 2);
  EXPECT_NE(err.find("no command 'no-such-command'"), std::string::npos) << err;
}

// A command's help lists the flags its parser accepts.
TEST(Help, NamesTheFlagsTheCommandTakes) {
  std::string out, err;
  ASSERT_EQ(RunClada("log --help", &out, &err), 0);
  EXPECT_NE(out.find("clada log takes: -n N, --json, --root DIR"), std::string::npos) << out;
  ASSERT_EQ(RunClada("context --help", &out, &err), 0);
  EXPECT_NE(out.find("clada context show [--numbered]"), std::string::npos) << out;
  EXPECT_EQ(out.find("Commands:"), std::string::npos) << out;
}

}  // namespace
