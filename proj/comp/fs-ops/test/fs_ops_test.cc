// Runs every case of test-data/integration/*.cases.md (format:
// test-data/integration/README.md): sandbox set-up, a real SHAM block parsed
// by the action parser, ExecuteFileOperation, then the result and the files.
#include "proj/comp/fs-ops/src/fs_ops.h"

#include <dirent.h>
#include <ftw.h>
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/answer_lines.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/core/src/terms.h"
#include "proj/comp/fs-ops/src/file_store.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"

namespace clada::fs_ops {
namespace {

constexpr char kCaseDir[] = "proj/comp/fs-ops/test-data/integration";

using core::Json;

// One fenced block: its info string split into words, and its body.
struct Fence {
  std::vector<std::string> info;
  std::string body;  // lines joined with "\n", no final line break
};

struct Case {
  std::string file;    // e.g. "file_write.cases.md"
  std::string action;  // e.g. "file_write"
  std::string name;    // e.g. "CreatesParentDirs"
  int line = 0;        // of the "## " heading
  std::vector<Fence> fences;
};

std::string CamelCase(absl::string_view snake) {
  std::string out;
  bool up = true;
  for (char c : snake) {
    if (c == '_') {
      up = true;
      continue;
    }
    out.push_back(up ? static_cast<char>(toupper(c)) : c);
    up = false;
  }
  return out;
}

std::vector<Case> ParseCasesFile(const std::string& file, const std::string& text) {
  std::vector<Case> cases;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::string action(absl::StripSuffix(file, ".cases.md"));
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (absl::StartsWith(line, "## ")) {
      Case c;
      c.file = file;
      c.action = action;
      c.name = std::string(absl::StripAsciiWhitespace(line.substr(3)));
      c.line = static_cast<int>(i + 1);
      cases.push_back(std::move(c));
      continue;
    }
    if (!absl::StartsWith(line, "```")) continue;
    size_t ticks = line.find_first_not_of('`');
    if (ticks == std::string::npos) ticks = line.size();
    std::string fence_marker(ticks, '`');
    Fence f;
    f.info = absl::StrSplit(line.substr(ticks), ' ', absl::SkipEmpty());
    std::vector<std::string> body;
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      absl::string_view l = lines[j];
      if (absl::StripTrailingAsciiWhitespace(l) == fence_marker) break;
      body.push_back(lines[j]);
    }
    EXPECT_LT(j, lines.size()) << file << ":" << i + 1 << ": unclosed fence";
    f.body = absl::StrJoin(body, "\n");
    i = j;
    if (!cases.empty()) cases.back().fences.push_back(std::move(f));
  }
  return cases;
}

std::vector<Case> LoadAllCases() {
  std::vector<std::string> files;
  DIR* d = opendir(kCaseDir);
  EXPECT_NE(d, nullptr) << "cannot open " << kCaseDir;
  if (d == nullptr) return {};
  while (struct dirent* e = readdir(d)) {
    if (absl::EndsWith(e->d_name, ".cases.md")) files.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  std::vector<Case> all;
  for (const std::string& f : files) {
    std::ifstream in(absl::StrCat(kCaseDir, "/", f), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    for (Case& c : ParseCasesFile(f, ss.str())) all.push_back(std::move(c));
  }
  return all;
}

// Decodes \n \r \t \\ \xHH.
std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char n = s[++i];
    switch (n) {
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case 'x': {
        int v = 0;
        if (!absl::SimpleHexAtoi(s.substr(i + 1, 2), &v)) ADD_FAILURE() << "bad \\x escape in: " << s;
        out.push_back(static_cast<char>(v));
        i += 2;
        break;
      }
      default:
        out.push_back('\\');
        out.push_back(n);
    }
  }
  return out;
}

// The bytes a file/after block stands for, given its flags (info[2...]).
std::string Content(const Fence& f, size_t first_flag) {
  bool noeol = false, crlf = false, bom = false, escaped = false;
  int64_t size = -1;
  for (size_t i = first_flag; i < f.info.size(); ++i) {
    const std::string& flag = f.info[i];
    if (flag == "noeol")
      noeol = true;
    else if (flag == "crlf")
      crlf = true;
    else if (flag == "bom")
      bom = true;
    else if (flag == "escaped")
      escaped = true;
    else if (absl::StartsWith(flag, "size="))
      EXPECT_TRUE(absl::SimpleAtoi(flag.substr(5), &size));
    else
      ADD_FAILURE() << "unknown flag " << flag;
  }
  if (size >= 0) {
    std::string s;
    s.reserve(static_cast<size_t>(size));
    while (static_cast<int64_t>(s.size()) < size) s += "aaaaaaaaaaaaaaa\n";
    s.resize(static_cast<size_t>(size));
    return s;
  }
  std::string s = f.body;
  if (!noeol) s += "\n";
  if (crlf) s = absl::StrReplaceAll(s, {{"\n", "\r\n"}});
  if (escaped) s = Unescape(s);
  if (bom) s = "\xEF\xBB\xBF" + s;
  return s;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Printable form of bytes for failure messages.
std::string Show(const std::string& s) { return Json(s).dump(-1, ' ', true, Json::error_handler_t::replace); }

class Sandbox {
 public:
  Sandbox() {
    const char* tmp = getenv("TEST_TMPDIR");
    std::string tmpl = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/clada_fsops_XXXXXX");
    base_ = mkdtemp(tmpl.data());
    EXPECT_TRUE(core::CreateDirectories(base_ + "/root").ok());
    EXPECT_TRUE(core::CreateDirectories(base_ + "/outside").ok());
    char real[PATH_MAX];
    EXPECT_NE(realpath(base_.c_str(), real), nullptr);
    base_ = real;
  }
  ~Sandbox() {
    nftw(
        base_.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return remove(path); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }

  const std::string& base() const { return base_; }
  std::string root() const { return base_ + "/root"; }
  std::string outside() const { return base_ + "/outside"; }

  std::string Subst(absl::string_view s) const {
    return absl::StrReplaceAll(s, {{"$ROOT", root()}, {"$OUTSIDE", outside()}});
  }
  // A case path: relative to the root, or "$OUTSIDE/...".
  std::string Path(absl::string_view p) const {
    if (absl::StartsWith(p, "$")) return Subst(p);
    return absl::StrCat(root(), "/", p);
  }
  // A touched path in case form.
  std::string CaseForm(const std::string& canonical) const {
    if (canonical == root()) return ".";
    if (absl::StartsWith(canonical, root() + "/")) return canonical.substr(root().size() + 1);
    if (absl::StartsWith(canonical, outside() + "/")) return "$OUTSIDE/" + canonical.substr(outside().size() + 1);
    return canonical;
  }

 private:
  std::string base_;
};

// Every entry below `dir`, symlinks not followed: paths relative to `dir`,
// directories with a trailing "/", symlinks with " -> target".
void ListTree(const std::string& dir, const std::string& rel, std::set<std::string>* out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> names;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  for (const std::string& name : names) {
    std::string path = absl::StrCat(dir, "/", name);
    std::string shown = rel.empty() ? name : absl::StrCat(rel, "/", name);
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      out->insert(shown + "/");
      ListTree(path, shown, out);
    } else if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
      out->insert(absl::StrCat(shown, " -> ", n >= 0 ? std::string(target, static_cast<size_t>(n)) : "?"));
    } else {
      out->insert(shown);
    }
  }
}

void WriteSetupFile(const std::string& path, const std::string& bytes) {
  size_t slash = path.rfind('/');
  ASSERT_TRUE(core::CreateDirectories(path.substr(0, slash)).ok());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Matches `got` against the expectation subset `want`; appends problems.
void MatchJson(const Json& want, const Json& got, const std::string& where, const Sandbox& box,
               std::vector<std::string>* problems) {
  if (want.is_object() && want.contains("$any")) return;
  if (want.is_object() && want.contains("$contains")) {
    std::string needle = box.Subst(want["$contains"].get<std::string>());
    if (!got.is_string() || got.get<std::string>().find(needle) == std::string::npos) {
      problems->push_back(absl::StrCat(where, ": expected a string containing ", Show(needle), ", got ",
                                       got.dump(-1, ' ', false, Json::error_handler_t::replace)));
    }
    return;
  }
  if (want.is_object()) {
    if (!got.is_object()) {
      problems->push_back(absl::StrCat(where, ": expected an object, got ", got.dump()));
      return;
    }
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!got.contains(it.key())) {
        problems->push_back(absl::StrCat(where, ".", it.key(), ": missing"));
        continue;
      }
      MatchJson(it.value(), got[it.key()], absl::StrCat(where, ".", it.key()), box, problems);
    }
    return;
  }
  if (want.is_array()) {
    if (!got.is_array() || got.size() != want.size()) {
      problems->push_back(absl::StrCat(where, ": expected ", want.size(), " elements, got ",
                                       got.dump(-1, ' ', false, Json::error_handler_t::replace)));
      return;
    }
    for (size_t i = 0; i < want.size(); ++i) {
      MatchJson(want[i], got[i], absl::StrCat(where, "[", i, "]"), box, problems);
    }
    return;
  }
  Json expected = want.is_string() ? Json(box.Subst(want.get<std::string>())) : want;
  if (expected != got) {
    problems->push_back(absl::StrCat(where, ": expected ",
                                     expected.dump(-1, ' ', false, Json::error_handler_t::replace), ", got ",
                                     got.dump(-1, ' ', false, Json::error_handler_t::replace)));
  }
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.file << ":" << c.line << " " << c.name; }

class CasesMd : public ::testing::TestWithParam<Case> {};

TEST_P(CasesMd, Runs) {
  const Case& c = GetParam();
  SCOPED_TRACE(absl::StrCat(c.file, ":", c.line, " (", c.name, ")"));
  Sandbox box;
  core::Limits limits;
  std::vector<std::pair<std::string, std::string>> setup_files;  // path, bytes
  std::string sham;
  Json raw_action;  // an action the parser would refuse, given directly
  std::vector<std::string> line_params;  // `sham lines=content`: given as lines
  const Fence* expect = nullptr;
  std::vector<const Fence*> after;

  for (const Fence& f : c.fences) {
    ASSERT_FALSE(f.info.empty()) << "a fence without info string";
    const std::string& kind = f.info[0];
    if (kind == "file" || kind == "outside") {
      ASSERT_GE(f.info.size(), 2u);
      std::string path = kind == "file" ? box.Path(f.info[1]) : absl::StrCat(box.outside(), "/", f.info[1]);
      std::string bytes = Content(f, 2);
      WriteSetupFile(path, bytes);
      setup_files.emplace_back(path, bytes);
    } else if (kind == "fifo") {
      std::string path = box.Path(f.info.at(1));
      ASSERT_TRUE(core::CreateDirectories(path.substr(0, path.rfind('/'))).ok());
      ASSERT_EQ(mkfifo(path.c_str(), 0644), 0) << f.info[1];
    } else if (kind == "dir") {
      ASSERT_TRUE(core::CreateDirectories(box.Path(f.info.at(1))).ok());
    } else if (kind == "symlink") {
      ASSERT_EQ(f.info.size(), 4u) << "symlink PATH -> TARGET";
      std::string link = box.Path(f.info[1]);
      ASSERT_TRUE(core::CreateDirectories(link.substr(0, link.rfind('/'))).ok());
      ASSERT_EQ(symlink(box.Subst(f.info[3]).c_str(), link.c_str()), 0) << f.info[1];
    } else if (kind == "hardlink") {
      ASSERT_EQ(f.info.size(), 4u) << "hardlink PATH -> EXISTING";
      ASSERT_EQ(link(box.Path(f.info[3]).c_str(), box.Path(f.info[1]).c_str()), 0) << f.info[1];
    } else if (kind == "chmod") {
      ASSERT_EQ(chmod(box.Path(f.info.at(1)).c_str(), std::stoi(f.info.at(2), nullptr, 8)), 0);
    } else if (kind == "git") {
      git_libgit2_init();
      git_repository* repo = nullptr;
      ASSERT_EQ(git_repository_init(&repo, box.root().c_str(), 0), 0);
      git_repository_free(repo);
    } else if (kind == "limits") {
      Json l = Json::parse(f.body);
      if (l.contains("max_file_bytes")) limits.max_file_bytes = l["max_file_bytes"].get<int64_t>();
      if (l.value("deadline_passed", false)) limits.deadline = absl::Now() - absl::Seconds(1);
    } else if (kind == "sham") {
      sham = box.Subst(f.body) + "\n";
      for (size_t i = 1; i < f.info.size(); ++i) {
        ASSERT_TRUE(absl::StartsWith(f.info[i], "lines=")) << "sham takes lines=PARAM,... only";
        line_params = absl::StrSplit(f.info[i].substr(6), ',');
      }
    } else if (kind == "action") {
      raw_action = Json::parse(box.Subst(f.body));
    } else if (kind == "expect") {
      expect = &f;
    } else if (kind == "after" || kind == "absent" || kind == "isdir" || kind == "islink" || kind == "mode" ||
               kind == "unchanged") {
      after.push_back(&f);
    } else {
      FAIL() << "unknown block kind '" << kind << "'";
    }
  }
  ASSERT_NE(sham.empty(), raw_action.is_null()) << "give one ```sham block or one ```action block";
  ASSERT_NE(expect, nullptr) << "no ```expect block";

  sham_action_parser::ActionParseResult parsed;
  if (!sham.empty()) {
    parsed = sham_action_parser::ParseShamResponse(sham);
    for (const auto& e : parsed.errors) ADD_FAILURE() << "the SHAM block does not parse: " << e.message;
    ASSERT_FALSE(parsed.actions.empty());
    ASSERT_TRUE(parsed.errors.empty());
  } else {
    core::Action a;
    a.name = raw_action.at("name").get<std::string>();
    a.params = raw_action.at("params");
    if (raw_action.contains("line_params")) a.line_params = raw_action["line_params"].get<std::vector<std::string>>();
    for (const std::string& o : raw_action.value("edit_options", std::vector<std::string>{})) {
      if (o == "tolerant_match") {
        a.edit_options.tolerant_match = true;
      } else if (o == "find_file_by_name") {
        a.edit_options.find_file_by_name = true;
      } else if (o == "append_once") {
        a.edit_options.append_once = true;
      } else {
        ADD_FAILURE() << "unknown edit option " << o;
      }
    }
    a.warnings = raw_action.value("warnings", std::vector<std::string>{});
    parsed.actions.push_back(a);
  }
  // Heredoc parameters as the action parser marks them (`sham lines=...`
  // says so where the parser does not yet).
  for (core::Action& a : parsed.actions) {
    for (const std::string& p : line_params) {
      if (!a.IsLineParam(p)) a.line_params.push_back(p);
    }
  }

  absl::StatusOr<core::PathPolicy> policy = core::MakePathPolicy(box.root(), {});
  ASSERT_TRUE(policy.ok()) << policy.status();
  core::ExecContext ctx;
  ctx.paths = *policy;
  ctx.limits = limits;

  // The sandbox before the action, for `unchanged` (root and outside).
  std::set<std::string> entries_before;
  ListTree(box.base(), "", &entries_before);

  // The dry run first, over an in-memory view of the sandbox: it must
  // touch nothing, and predict the verdict of each action of the real run
  // below (the differential test of --dry-run).
  std::vector<core::ActionOutcome> predicted;
  {
    OverlayStore dry(DiskStore::Get());
    for (const core::Action& a : parsed.actions) predicted.push_back(ExecuteFileOperation(a, ctx, dry));
    std::set<std::string> entries_after_dry;
    ListTree(box.base(), "", &entries_after_dry);
    EXPECT_EQ(entries_after_dry, entries_before) << "the dry run changed the tree";
    for (const auto& [path, bytes] : setup_files) {
      EXPECT_EQ(Show(ReadAll(path)), Show(bytes)) << "the dry run changed " << path;
    }
  }

  core::ActionOutcome out;
  for (size_t i = 0; i < parsed.actions.size(); ++i) {
    ASSERT_EQ(parsed.actions[i].name, c.action) << "a case runs its file's action";
    out = ExecuteFileOperation(parsed.actions[i], ctx);
    // The schema's words in the message as SHAM says them: the cases are SHAM's.
    out.error = core::BareTerms(out.error);
    predicted[i].error = core::BareTerms(predicted[i].error);
    EXPECT_EQ(predicted[i].success, out.success)
        << "action " << i + 1 << ": the dry run predicted " << (predicted[i].success ? "success" : "failure")
        << " (" << predicted[i].error << "), the real run " << (out.success ? "succeeded" : "failed") << " ("
        << out.error << ")";
    if (!out.success && !predicted[i].success) {
      EXPECT_EQ(predicted[i].error, out.error) << "action " << i + 1 << ": the dry run's error differs";
    }
    if (i + 1 < parsed.actions.size()) {
      ASSERT_TRUE(out.success) << "action " << i + 1 << ": " << out.error;
    }
  }
  // The outcome always serialises (the orchestrator dumps it as JSON).
  EXPECT_NO_THROW(out.data.dump());

  Json want = Json::parse(expect->body);
  std::string report =
      absl::StrCat("\nerror: ", out.error, "\ndata: ", out.data.dump(2, ' ', false, Json::error_handler_t::replace),
                   "\nwarnings: ", absl::StrJoin(out.warnings, " | "));
  ASSERT_TRUE(want.contains("success")) << "expect needs \"success\"";
  EXPECT_EQ(out.success, want["success"].get<bool>()) << report;
  if (!out.success) {
    EXPECT_TRUE(absl::StartsWith(out.error, c.action + ": ")) << "errors start with the action name" << report;
  } else {
    EXPECT_TRUE(out.error.empty()) << report;
  }
  if (want.contains("code")) {
    EXPECT_EQ(out.code, want["code"].get<std::string>()) << report;
  }
  if (want.contains("error")) {
    for (const Json& s : want["error"]) {
      std::string needle = box.Subst(s.get<std::string>());
      EXPECT_NE(out.error.find(needle), std::string::npos) << "error lacks " << Show(needle) << report;
    }
  }
  if (want.contains("data")) {
    std::vector<std::string> problems;
    MatchJson(want["data"], out.data, "data", box, &problems);
    for (const std::string& p : problems) ADD_FAILURE() << p << report;
  }
  if (want.contains("data_absent")) {
    for (const Json& k : want["data_absent"]) {
      EXPECT_FALSE(out.data.contains(k.get<std::string>())) << "data has " << k << report;
    }
  }
  if (want.contains("warnings")) {
    for (const Json& s : want["warnings"]) {
      std::string needle = s.get<std::string>();
      bool found = std::any_of(out.warnings.begin(), out.warnings.end(),
                               [&](const std::string& w) { return w.find(needle) != std::string::npos; });
      EXPECT_TRUE(found) << "no warning contains " << Show(needle) << report;
    }
  }
  if (want.value("no_warnings", false)) {
    EXPECT_TRUE(out.warnings.empty()) << report;
  }
  if (want.contains("touched")) {
    std::vector<std::string> touched;
    for (const std::string& t : out.touched_paths) touched.push_back(box.CaseForm(t));
    EXPECT_EQ(Json(touched), want["touched"]) << report;
  }

  for (const Fence* f : after) {
    const std::string& kind = f->info[0];
    if (kind == "unchanged") {
      for (const auto& [path, bytes] : setup_files) {
        std::string now = ReadAll(path);
        if (now != bytes) ADD_FAILURE() << path << " changed: " << Show(now) << " instead of " << Show(bytes);
      }
      // Nothing appeared (a leftover temp file, a half-made directory) and
      // nothing went.
      std::set<std::string> entries_after;
      ListTree(box.base(), "", &entries_after);
      for (const std::string& e : entries_after) {
        if (entries_before.count(e) == 0) ADD_FAILURE() << "new entry after the action: " << e;
      }
      for (const std::string& e : entries_before) {
        if (entries_after.count(e) == 0) ADD_FAILURE() << "entry gone after the action: " << e;
      }
      continue;
    }
    ASSERT_GE(f->info.size(), 2u);
    std::string path = box.Path(f->info[1]);
    struct stat st;
    bool exists = lstat(path.c_str(), &st) == 0;
    if (kind == "after") {
      EXPECT_TRUE(exists) << f->info[1] << " does not exist";
      EXPECT_EQ(Show(ReadAll(path)), Show(Content(*f, 2))) << "content of " << f->info[1];
    } else if (kind == "absent") {
      EXPECT_FALSE(exists) << f->info[1] << " exists";
    } else if (kind == "isdir") {
      EXPECT_TRUE(exists && S_ISDIR(st.st_mode)) << f->info[1] << " is not a directory";
    } else if (kind == "islink") {
      EXPECT_TRUE(exists && S_ISLNK(st.st_mode)) << f->info[1] << " is not a symlink";
    } else if (kind == "mode") {
      ASSERT_TRUE(exists) << f->info[1];
      EXPECT_EQ(st.st_mode & 07777, static_cast<mode_t>(std::stoi(f->info.at(2), nullptr, 8))) << f->info[1];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Integration, CasesMd, ::testing::ValuesIn(LoadAllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrCat(CamelCase(info.param.action), "_", info.param.name);
                         });

TEST(CasesMd, EveryActionHasACasesFile) {
  std::vector<Case> all = LoadAllCases();
  for (const std::string& name : FsOpsActionNames()) {
    bool found = std::any_of(all.begin(), all.end(), [&](const Case& c) { return c.action == name; });
    EXPECT_TRUE(found) << "no cases in " << name << ".cases.md";
  }
}

// The schema's fs-ops actions and the executor's agree both ways.
TEST(FsOpsActionNames, MatchTheSchema) {
  std::vector<std::string> from_schema;
  for (const auto& a : sham_action_parser::LoadedSchema().actions) {
    if (a.executor == "fs-ops") from_schema.push_back(a.name);
  }
  EXPECT_EQ(from_schema, FsOpsActionNames());
}

TEST(ExecuteFileOperation, UnknownActionIsAnError) {
  core::Action action;
  action.name = "exec";
  core::ExecContext ctx;
  core::ActionOutcome out = ExecuteFileOperation(action, ctx);
  EXPECT_FALSE(out.success);
  EXPECT_TRUE(absl::StartsWith(out.error, "exec: fs-ops does not run this action")) << out.error;
}

TEST(ExecuteFileOperation, WrongParameterTypeIsAnError) {
  Sandbox box;
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(box.root(), {});
  core::Action action;
  action.name = "file_replace_all_text";
  action.params = {{"path", "a.txt"}, {"old_text", "a"}, {"new_text", "b"}, {"count", "three"}};
  core::ActionOutcome out = ExecuteFileOperation(action, ctx);
  EXPECT_FALSE(out.success);
  EXPECT_EQ(out.error, "file_replace_all_text: parameter 'count' must be an integer, not \"three\"");
  action.params = {{"path", 7}, {"content", "x"}};
  action.name = "file_write";
  out = ExecuteFileOperation(action, ctx);
  EXPECT_EQ(out.error, "file_write: parameter 'path' must be a string, not 7");
  action.params = {{"path", "a.txt"}};
  out = ExecuteFileOperation(action, ctx);
  EXPECT_EQ(out.error, "file_write: the required parameter 'content' is missing; add content = \"...\" to the block");
}

// The action parser already refuses an empty paths list; the executor does
// not rely on it.
TEST(ExecuteFileOperation, EmptyPathListIsAnError) {
  Sandbox box;
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(box.root(), {});
  core::Action action;
  for (const char* name : {"files_replace_all_text", "files_read"}) {
    action.name = name;
    action.params = {{"paths", "\n  \n"}, {"old_text", "a"}, {"new_text", "b"}};
    core::ActionOutcome out = ExecuteFileOperation(action, ctx);
    EXPECT_FALSE(out.success);
    EXPECT_EQ(out.error, absl::StrCat(name, ": paths names no file; give one path per line"));
  }
}

// A result's data is said by no dialect: the error of each file of
// files_replace_all_text names the schema's words bare, as the error does
// once the engine says it for SHAM (no term mark left in --json or MCP).
TEST(ExecuteFileOperation, DataNamesTheSchemasWordsBare) {
  Sandbox box;
  WriteSetupFile(box.root() + "/a.txt", "alpha\n");
  WriteSetupFile(box.root() + "/b.txt", "beta\n");
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(box.root(), {});
  core::Action action;
  action.name = "files_replace_all_text";
  action.params = {{"paths", "a.txt\nb.txt"}, {"old_text", "alpha"}, {"new_text", "gamma"}};
  core::ActionOutcome out = ExecuteFileOperation(action, ctx);
  ASSERT_FALSE(out.success);
  const std::string b_error = out.data["results"][1].value("error", "");
  EXPECT_TRUE(absl::StartsWith(b_error, "old_text was not found in 'b.txt'")) << b_error;
  EXPECT_EQ(out.data.dump().find("\\u001f"), std::string::npos) << out.data.dump();
}

TEST(ExecuteFileOperation, MissingParameterIsAnError) {
  Sandbox box;
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(box.root(), {});
  core::Action action;
  action.name = "file_write";
  action.params = {{"path", "a.txt"}};
  core::ActionOutcome out = ExecuteFileOperation(action, ctx);
  EXPECT_EQ(out.error, "file_write: the required parameter 'content' is missing; add content = \"...\" to the block");
}

// A replace-everywhere edit is written, recorded and diffed from its places
// (the result never built whole): on a 3 MB CRLF file with a BOM and
// 100,000 places whose new text has a line break, the file is the BOM and
// every place replaced with CRLF breaks (written a megabyte at a time); the
// answer's line record moves a later line by the lines added before it and
// refuses a line the edit changed; the diff is whole (one hunk of every
// line: DiffTexts gave this up as too different), kept past a small
// max_output for the report to cut (DiffSplices' own bound is tested in
// unified_diff_test).
TEST(ExecuteFileOperation, ReplaceEverywhereFromItsPlaces) {
  Sandbox box;
  std::string body;
  for (int i = 0; i < 100000; ++i) absl::StrAppend(&body, "value = compute(alpha, ", i, ");\r\n");
  absl::StrAppend(&body, "the last line\r\n");
  const std::string path = box.root() + "/big.txt";
  WriteSetupFile(path, absl::StrCat("\xEF\xBB\xBF", body));
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(box.root(), {});
  ctx.limits.max_output_bytes = 100000;
  core::AnswerLines lines;
  ctx.answer_lines = &lines;
  core::Action action;
  action.name = "file_replace_all_text";
  action.params = {{"path", "big.txt"}, {"old_text", "alpha"}, {"new_text", "alpha\nbeta"}};
  core::ActionOutcome out = ExecuteFileOperation(action, ctx);
  ASSERT_TRUE(out.success) << out.error;
  EXPECT_EQ(out.data["replacements_made"], 100000);
  EXPECT_TRUE(ReadAll(path) == absl::StrCat("\xEF\xBB\xBF", absl::StrReplaceAll(body, {{"alpha", "alpha\r\nbeta"}})));
  const core::AnswerLines::Mapped last = lines.Map(box.root() + "/big.txt", 100001, 100001);
  EXPECT_TRUE(last.ok);
  EXPECT_EQ(last.first, 200001);
  EXPECT_FALSE(lines.Map(box.root() + "/big.txt", 5, 5).ok);
  ASSERT_TRUE(out.data.contains("diff")) << out.data.dump().substr(0, 300);
  EXPECT_TRUE(absl::StartsWith(out.data["diff"].get<std::string>(),
                               "--- a/big.txt\n+++ b/big.txt\n@@ -1,100001 +1,200001 @@\n"
                               "-value = compute(alpha, 0);\r\n"));
  EXPECT_EQ(out.data["lines_added"], 200000);
  EXPECT_EQ(out.data["lines_removed"], 100000);

  // A few places within the bound: the diff whole.
  WriteSetupFile(path, "a\nalpha\nb\nc\nd\ne\nf\nalpha\n");
  ctx.answer_lines = nullptr;
  out = ExecuteFileOperation(action, ctx);
  ASSERT_TRUE(out.success) << out.error;
  EXPECT_EQ(out.data.value("diff", ""),
            "--- a/big.txt\n+++ b/big.txt\n@@ -1,4 +1,5 @@\n a\n alpha\n+beta\n b\n c\n"
            "@@ -7,2 +8,3 @@\n f\n alpha\n+beta\n");
  EXPECT_EQ(ReadAll(path), "a\nalpha\nbeta\nb\nc\nd\ne\nf\nalpha\nbeta\n");
}

// The placeholder check of a replace-everywhere edit reads the lines its
// places change: a placeholder one of them becomes is refused with its line
// in the result, one the file already holds on an unchanged line is not.
TEST(ExecuteFileOperation, ReplaceEverywherePlaceholderFromItsPlaces) {
  Sandbox box;
  const std::string path = box.root() + "/a.py";
  WriteSetupFile(path, "x = 1\n# STUB\ny = 2\n# STUB\n");
  core::ExecContext ctx;
  ctx.paths = *core::MakePathPolicy(box.root(), {});
  core::Action action;
  action.name = "file_replace_all_text";
  action.params = {{"path", "a.py"}, {"old_text", "STUB"}, {"new_text", "z = 0\n# ... rest of the code unchanged ..."}};
  core::ActionOutcome out = ExecuteFileOperation(action, ctx);
  EXPECT_FALSE(out.success);
  EXPECT_NE(out.error.find("line 3 of the edited file is a placeholder"), std::string::npos) << out.error;
  EXPECT_EQ(ReadAll(path), "x = 1\n# STUB\ny = 2\n# STUB\n");
  // The file holding the placeholder elsewhere covers nothing: only the
  // lines a place replaces do.
  WriteSetupFile(path, "# ... rest of the code unchanged ...\nSTUB\n");
  action.params = {{"path", "a.py"}, {"old_text", "STUB"}, {"new_text", "# ... rest of the code unchanged ..."}};
  out = ExecuteFileOperation(action, ctx);
  EXPECT_FALSE(out.success);
  EXPECT_EQ(ReadAll(path), "# ... rest of the code unchanged ...\nSTUB\n");
  WriteSetupFile(path, "v = 1\n# ... rest of the code unchanged ...\n");
  action.params = {{"path", "a.py"},
                   {"old_text", "v = 1\n# ... rest of the code unchanged ..."},
                   {"new_text", "v = 2\n# ... rest of the code unchanged ..."}};
  out = ExecuteFileOperation(action, ctx);
  EXPECT_TRUE(out.success) << out.error;
  EXPECT_EQ(ReadAll(path), "v = 2\n# ... rest of the code unchanged ...\n");
}

}  // namespace
}  // namespace clada::fs_ops
