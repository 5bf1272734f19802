#include "proj/comp/context/test/case_runner.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "git2.h"
#include "nlohmann/json.hpp"
#include "proj/comp/context/src/context.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"

namespace clada::context::testing {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void Malformed(const std::string& file, int line,
                            const std::string& what) {
  std::fprintf(stderr, "%s:%d: %s\n", file.c_str(), line, what.c_str());
  std::abort();
}

bool IsCaseName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The scratch tree of one case: ROOT is the working root, OUTSIDE a
// directory beside it that is not an allowed root unless a case allows it.
struct Sandbox {
  std::string root;
  std::string outside;

  static Sandbox Make() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string tmpl =
        absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/clada_context_XXXXXX");
    char* made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr);
    std::string base = std::filesystem::canonical(tmpl).string();
    Sandbox s{base + "/root", base + "/outside"};
    EXPECT_TRUE(core::CreateDirectories(s.root).ok());
    EXPECT_TRUE(core::CreateDirectories(s.outside).ok());
    return s;
  }

  // Case text -> real text: the tokens ROOT and OUTSIDE become the paths.
  std::string Expand(absl::string_view text) const {
    return absl::StrReplaceAll(text, {{"OUTSIDE", outside}, {"ROOT", root}});
  }

  // A path in a case: absolute after expansion, or relative to ROOT.
  std::string PathOf(absl::string_view path) const {
    std::string expanded = Expand(path);
    return absl::StartsWith(expanded, "/") ? expanded
                                           : absl::StrCat(root, "/", expanded);
  }
};

std::vector<std::string> Lines(absl::string_view body) {
  std::vector<std::string> lines;
  for (absl::string_view line :
       absl::StrSplit(body, '\n', absl::SkipWhitespace())) {
    lines.emplace_back(absl::StripAsciiWhitespace(line));
  }
  return lines;
}

Json ParseJson(const Block& block, const Case& c) {
  try {
    return Json::parse(block.body);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << c.file << ":" << block.line
                  << ": invalid JSON: " << e.what();
    return Json();
  }
}

void WriteFile(const Block& block, const Sandbox& s) {
  ASSERT_FALSE(block.args.empty()) << "file block without a path";
  std::string content = block.body;
  for (size_t i = 1; i < block.args.size(); ++i) {
    const std::string& option = block.args[i];
    if (option == "noeol" || option == "escaped") {
      if (!content.empty() && content.back() == '\n') content.pop_back();
    }
    if (option == "escaped") {
      std::string raw;
      std::string error;
      ASSERT_TRUE(absl::CUnescape(content, &raw, &error)) << error;
      content = raw;
    } else if (option != "noeol") {
      FAIL() << "unknown file option '" << option << "'";
    }
  }
  std::string path = s.PathOf(block.args[0]);
  if (std::find(block.args.begin(), block.args.end(), "escaped") !=
      block.args.end()) {
    ASSERT_TRUE(absl::CUnescape(block.args[0], &path)) << block.args[0];
    path = s.PathOf(path);
  }
  ASSERT_TRUE(core::CreateDirectories(
                  std::filesystem::path(path).parent_path().string())
                  .ok());
  absl::Status written = core::WriteFileAtomic(path, content);
  ASSERT_TRUE(written.ok()) << written;
}

void InitGitRepository(const std::string& dir) {
  git_libgit2_init();
  git_repository* repo = nullptr;
  ASSERT_EQ(git_repository_init(&repo, dir.c_str(), 0), 0)
      << "git_repository_init " << dir;
  git_repository_free(repo);
  git_libgit2_shutdown();
}

void CheckOutcome(const core::ActionOutcome& got, const Json& want,
                  const Sandbox& s) {
  ASSERT_TRUE(want.contains("success")) << "outcome block without \"success\"";
  EXPECT_EQ(got.success, want["success"].get<bool>())
      << "error: " << got.error << "\ndata: " << got.data.dump();
  if (want.contains("error")) {
    EXPECT_EQ(got.error, s.Expand(want["error"].get<std::string>()));
  } else {
    EXPECT_EQ(got.error, "");
  }
  if (want.contains("data")) {
    Json expected = Json::parse(s.Expand(want["data"].dump()));
    EXPECT_EQ(got.data.dump(2), expected.dump(2));
  }
  std::vector<std::string> warnings;
  if (want.contains("warnings")) {
    for (const auto& w : want["warnings"])
      warnings.push_back(s.Expand(w.get<std::string>()));
  }
  EXPECT_EQ(got.warnings, warnings);
  EXPECT_TRUE(got.touched_paths.empty())
      << "touched_paths must stay empty for .clada/ state";
}

// The blocks that may follow a `command` block.
bool IsCommandOutput(const Block& b) {
  return b.kind == "stdout" || b.kind == "stderr";
}

}  // namespace

std::vector<Case> LoadCases(const std::string& path) {
  std::ifstream in(path);
  if (!in) Malformed(path, 0, "cannot open the cases file");
  std::vector<Case> cases;
  absl::flat_hash_set<std::string> names;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (absl::StartsWith(line, "## ")) {
      std::string name(absl::StripAsciiWhitespace(line.substr(3)));
      if (!IsCaseName(name))
        Malformed(path, number,
                  "a case name must be CamelCase letters and digits: " + name);
      if (!names.insert(name).second)
        Malformed(path, number, "duplicate case name " + name);
      cases.push_back({name, path, number, {}});
      continue;
    }
    if (!absl::StartsWith(line, "```")) continue;
    size_t ticks = line.find_first_not_of('`');
    const std::string fence =
        line.substr(0, ticks == std::string::npos ? line.size() : ticks);
    std::string info(absl::StripAsciiWhitespace(line.substr(fence.size())));
    if (info.empty())
      Malformed(path, number, "a fenced block needs a kind, e.g. ```action");
    if (cases.empty())
      Malformed(path, number, "a fenced block before the first ## case");
    Block block;
    block.line = number;
    std::vector<std::string> words =
        absl::StrSplit(info, ' ', absl::SkipEmpty());
    block.kind = words[0];
    block.args.assign(words.begin() + 1, words.end());
    bool closed = false;
    while (std::getline(in, line)) {
      ++number;
      if (line == fence) {
        closed = true;
        break;
      }
      absl::StrAppend(&block.body, line, "\n");
    }
    if (!closed) Malformed(path, block.line, "unclosed fenced block");
    cases.back().blocks.push_back(std::move(block));
  }
  if (cases.empty()) Malformed(path, number, "no cases");
  return cases;
}

void RunCase(const Case& c) {
  Sandbox s = Sandbox::Make();
  core::Limits limits;
  std::vector<std::string> allowed;
  bool without_root = false;  // an ExecContext whose paths were never set

  const std::vector<Block>& blocks = c.blocks;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    SCOPED_TRACE(absl::StrCat(c.file, ":", b.line, ": ```", b.kind));

    // Each action or command is a separate run: a fresh policy and context,
    // nothing carried over but the files on disk.
    auto fresh_context = [&]() {
      core::ExecContext ctx;
      if (without_root) return ctx;
      absl::StatusOr<core::PathPolicy> policy =
          core::MakePathPolicy(s.root, allowed);
      EXPECT_TRUE(policy.ok()) << policy.status();
      if (policy.ok()) ctx.paths = *policy;
      ctx.limits = limits;
      ctx.quiet = true;
      return ctx;
    };

    if (b.kind == "file") {
      WriteFile(b, s);
    } else if (b.kind == "mkdir") {
      for (const std::string& dir : Lines(b.body))
        ASSERT_TRUE(core::CreateDirectories(s.PathOf(dir)).ok());
    } else if (b.kind == "delete") {
      for (const std::string& p : Lines(b.body)) {
        ASSERT_GT(std::filesystem::remove_all(s.PathOf(p)), 0u)
            << "nothing to delete at " << p;
      }
    } else if (b.kind == "symlink") {
      ASSERT_EQ(b.args.size(), 1u) << "symlink LINK, body TARGET";
      std::string target = s.Expand(absl::StripAsciiWhitespace(b.body));
      ASSERT_EQ(::symlink(target.c_str(), s.PathOf(b.args[0]).c_str()), 0);
    } else if (b.kind == "fifo") {
      for (const std::string& p : Lines(b.body))
        ASSERT_EQ(::mkfifo(s.PathOf(p).c_str(), 0644), 0);
    } else if (b.kind == "git-init") {
      InitGitRepository(s.root);
    } else if (b.kind == "allow") {
      allowed.clear();
      for (const std::string& p : Lines(b.body)) allowed.push_back(s.PathOf(p));
    } else if (b.kind == "no-working-root") {
      without_root = true;
    } else if (b.kind == "limits") {
      Json j = ParseJson(b, c);
      limits.max_file_bytes = j.value("max_file_bytes", limits.max_file_bytes);
    } else if (b.kind == "action") {
      ASSERT_TRUE(i + 1 < blocks.size() && blocks[i + 1].kind == "outcome")
          << "an action needs an outcome block";
      Json j = ParseJson(b, c);
      core::Action action;
      action.name = j.value("name", "");
      action.params =
          Json::parse(s.Expand(j.value("params", Json::object()).dump()));
      for (const std::string& option : b.args) {
        ASSERT_EQ(option, "escaped") << "action takes only the option escaped";
        for (auto& [key, value] : action.params.items()) {
          std::string raw;
          if (value.is_string() &&
              absl::CUnescape(value.get<std::string>(), &raw))
            value = raw;
        }
      }
      core::ActionOutcome got = ExecuteContextAction(action, fresh_context());
      ++i;
      SCOPED_TRACE(absl::StrCat(c.file, ":", blocks[i].line, ": ```outcome"));
      CheckOutcome(got, ParseJson(blocks[i], c), s);
    } else if (b.kind == "command") {
      int want_exit = 0;
      for (const std::string& arg : b.args) {
        ASSERT_TRUE(absl::StartsWith(arg, "exit="))
            << "command takes only exit=N";
        want_exit = std::stoi(arg.substr(5));
      }
      std::vector<std::string> args = absl::StrSplit(
          s.Expand(absl::StripAsciiWhitespace(b.body)), ' ', absl::SkipEmpty());
      std::ostringstream out, err;
      int code = RunContextCommand(args, fresh_context(), out, err);
      std::string want_out, want_err;
      while (i + 1 < blocks.size() && IsCommandOutput(blocks[i + 1])) {
        ++i;
        (blocks[i].kind == "stdout" ? want_out : want_err) =
            s.Expand(blocks[i].body);
      }
      EXPECT_EQ(code, want_exit) << "stderr:\n" << err.str();
      EXPECT_EQ(out.str(), want_out);
      EXPECT_EQ(err.str(), want_err);
    } else if (b.kind == "expect-file") {
      ASSERT_EQ(b.args.size(), 1u) << "expect-file PATH";
      absl::StatusOr<std::string> content =
          core::ReadFileToString(s.PathOf(b.args[0]));
      ASSERT_TRUE(content.ok()) << content.status();
      EXPECT_EQ(*content, s.Expand(b.body));
    } else if (b.kind == "expect-missing") {
      for (const std::string& p : Lines(b.body)) {
        struct stat st;
        EXPECT_NE(::lstat(s.PathOf(p).c_str(), &st), 0) << p << " exists";
      }
    } else {
      FAIL() << "unknown block kind '" << b.kind << "'";
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name << " (" << c.file << ":" << c.line << ")";
}

}  // namespace clada::context::testing
