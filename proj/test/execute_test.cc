// Runs every case in proj/test-data/execute/*.md (one case a file) and
// proj/test-data/security/*.cases.md (several a file): set up a scratch
// project (and a directory outside it), execute the answer, compare the
// result JSON, the report, the files inside and the files outside.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/src/clada.h"
#include "proj/src/cml_report.h"
#include "proj/src/csl_report.h"
#include "proj/src/report.h"
#include "proj/test/case_file.h"
#include "proj/test/test_util.h"

namespace clada {
namespace {

using testing::CaseEntry;
using testing::CaseFile;
using testing::ReadAll;

constexpr char kNoFinalNewline[] = " (no final newline)";

std::string MakeTempDir() { return testing::MakeTempDir("clada_execute_"); }

// `count` SHAM blocks, ids `prefix`10000, `prefix`10001, ..., each holding
// `body` (whole lines, or "" for an empty block).
std::string ShamBlocks(absl::string_view prefix, int count, absl::string_view body) {
  std::string answer;
  for (int i = 0; i < count; ++i) {
    const std::string id = absl::StrCat(prefix, 10000 + i);
    absl::StrAppend(&answer, "#!SHAM [@three-char-SHA-256: ", id, "]\n", body, "#!END_SHAM_", id, "\n");
  }
  return answer;
}

struct Dirs {
  std::string root;     // the working root
  std::string outside;  // beside it, outside every allowed root
  std::string Expand(absl::string_view text) const {
    return absl::StrReplaceAll(text, {{"$ROOT", root}, {"$OUTSIDE", outside}});
  }
};

// A fenced body is a file's lines; the file ends with a newline unless the
// entry's title says "(no final newline)". Returns the name and the bytes.
std::pair<std::string, std::string> FileOf(const CaseEntry& e) {
  std::string title = e.title;
  size_t cut = title.find(kNoFinalNewline);
  if (cut != std::string::npos) return {title.substr(0, cut), e.body.value_or("")};
  return {title, absl::StrCat(e.body.value_or(""), "\n")};
}

void WriteFile(const std::string& path, const std::string& bytes) {
  ASSERT_TRUE(core::CreateDirectories(path.substr(0, path.rfind('/'))).ok()) << path;
  ASSERT_TRUE(core::WriteFileAtomic(path, bytes).ok()) << path;
}

// Setup entries: `### path` + fence (a file in the root), `### outside path`
// + fence (a file in $OUTSIDE), `### symlink path -> target`,
// `### hardlink path -> target`, `### dir path`.
void WriteSetup(const CaseFile& c, const Dirs& d) {
  auto it = c.sections.find("Setup");
  if (it == c.sections.end()) return;
  for (const CaseEntry& e : it->second) {
    std::vector<std::string> words = absl::StrSplit(e.title, absl::MaxSplits(' ', 1));
    if (words[0] == "symlink" || words[0] == "hardlink") {
      std::vector<std::string> parts = absl::StrSplit(words[1], " -> ");
      ASSERT_EQ(parts.size(), 2u) << e.title;
      std::string link = absl::StrCat(d.root, "/", parts[0]);
      std::string target = d.Expand(parts[1]);
      ASSERT_TRUE(core::CreateDirectories(link.substr(0, link.rfind('/'))).ok());
      int rc = words[0] == "symlink" ? ::symlink(target.c_str(), link.c_str()) : ::link(target.c_str(), link.c_str());
      ASSERT_EQ(rc, 0) << e.title;
    } else if (words[0] == "dir") {
      ASSERT_TRUE(core::CreateDirectories(absl::StrCat(d.root, "/", words[1])).ok());
    } else if (words[0] == "outside") {
      CaseEntry inner{words[1], e.body};
      auto [name, bytes] = FileOf(inner);
      WriteFile(absl::StrCat(d.outside, "/", name), bytes);
    } else {
      auto [name, bytes] = FileOf(e);
      WriteFile(absl::StrCat(d.root, "/", name), bytes);
    }
  }
}

void CheckFiles(const CaseFile& c, const std::string& section, const std::string& dir) {
  auto files = c.sections.find(section);
  if (files == c.sections.end()) return;
  for (const CaseEntry& e : files->second) {
    auto [name, bytes] = FileOf(e);
    std::string path = absl::StrCat(dir, "/", name);
    struct stat st;
    if (!e.body) {
      EXPECT_NE(::lstat(path.c_str(), &st), 0) << section << ": " << name << " should not exist";
      continue;
    }
    absl::StatusOr<std::string> got = core::ReadFileToString(path);
    ASSERT_TRUE(got.ok()) << section << ": " << name << ": " << got.status();
    EXPECT_EQ(*got, bytes) << section << ": " << name;
  }
}

struct NamedCase {
  std::string name;
  CaseFile file;
};

class ExecuteCase : public ::testing::TestWithParam<NamedCase> {};

TEST_P(ExecuteCase, MatchesExpectations) {
  const CaseFile& c = GetParam().file;
  ASSERT_TRUE(c.Has("Input")) << GetParam().name << " has no ## Input section";
  Dirs d{MakeTempDir(), MakeTempDir()};
  ASSERT_FALSE(d.root.empty());
  ASSERT_FALSE(d.outside.empty());
  WriteSetup(c, d);

  nlohmann::ordered_json options = c.Has("Options") ? nlohmann::ordered_json::parse(d.Expand(c.Body("Options")))
                                                    : nlohmann::ordered_json::object();
  CladaOptions clada_options;
  clada_options.working_root = d.root;
  clada_options.settings.quiet = true;
  clada_options.settings.git = git_tx::GitOptions::Mode::kOff;
  clada_options.dry_run = options.value("dryRun", false);
  if (options.contains("allow")) clada_options.settings.allow = options["allow"].get<std::vector<std::string>>();
  if (options.contains("timeoutMs")) clada_options.settings.timeout_ms = options["timeoutMs"].get<int64_t>();
  if (options.value("exec", "") == "deny") clada_options.settings.exec = core::ExecPolicy::kDeny;
  if (options.contains("report")) clada_options.settings.report = options["report"].get<std::string>();
  if (options.contains("cslStart")) clada_options.settings.csl_start = options["cslStart"].get<std::string>();
  if (options.contains("cslEnd")) clada_options.settings.csl_end = options["cslEnd"].get<std::string>();
  if (options.contains("maxOutputBytes")) {
    clada_options.settings.max_output_bytes = options["maxOutputBytes"].get<int64_t>();
  }
  if (options.value("git", false)) {
    clada_options.settings.git = git_tx::GitOptions::Mode::kRequire;
    std::string cmd = absl::StrCat("cd '", d.root,
                                   "' && git init -q && git -c user.name=t -c user.email=t@t add -A && "
                                   "git -c user.name=t -c user.email=t@t commit -qm init");
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  // "runs": the answer runs that many times in the same tree (a model
  // re-sending it); what is expected is of the last run.
  const int runs = options.value("runs", 1);
  ExecutionResult result;
  for (int run = 0; run < runs; ++run) result = Clada(clada_options).Execute(d.Expand(c.Body("Input")));
  if (options.contains("commit")) {
    EXPECT_EQ(result.git.ai_commit.has_value(), options["commit"].get<bool>()) << "whether the last run committed";
  }
  nlohmann::ordered_json actual = ExecutionResultToJson(result);
  // The form `clada run` prints: the seeds' when every block is CSL or CML.
  std::string report = FormatTextReport(result, clada_options.settings.report_budget_bytes);

  if (c.Has("Expected")) {
    nlohmann::ordered_json expected = nlohmann::ordered_json::parse(d.Expand(c.Body("Expected")));
    EXPECT_EQ(testing::JsonSubsetMismatch(expected, actual), "") << actual.dump(2);
  }
  if (c.Has("Expected report")) {
    EXPECT_EQ(testing::LinesInOrderMismatch(d.Expand(c.Body("Expected report")), report), "");
  }
  CheckFiles(c, "Expected files", d.root);
  CheckFiles(c, "Expected outside", d.outside);
}

std::string GTestName(absl::string_view text) {
  std::string name;
  bool upper = true;
  for (char ch : text) {
    if (!isalnum(static_cast<unsigned char>(ch))) {
      upper = true;
    } else {
      name += upper ? static_cast<char>(toupper(ch)) : ch;
      upper = false;
    }
  }
  return name;
}

std::vector<NamedCase> ExecuteCases() {
  std::vector<NamedCase> out;
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/execute")) {
    std::string base = path.substr(path.rfind('/') + 1);
    out.push_back({GTestName(base.substr(0, base.size() - 3)), testing::LoadCaseFile(path)});
  }
  return out;
}

std::vector<NamedCase> SecurityCases() {
  std::vector<NamedCase> out;
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/security", ".cases.md")) {
    for (CaseFile& c : testing::LoadCasesFile(path)) out.push_back({GTestName(c.name), std::move(c)});
  }
  return out;
}

std::string CaseName(const ::testing::TestParamInfo<NamedCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Execute, ExecuteCase, ::testing::ValuesIn(ExecuteCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Security, ExecuteCase, ::testing::ValuesIn(SecurityCases()), CaseName);

// The corpus must not shrink unnoticed: the report counts it.
TEST(SecurityCorpus, IsThereAndCounted) {
  std::vector<NamedCase> cases = SecurityCases();
  size_t n = cases.size();
  for (const NamedCase& c : cases) std::cout << "  " << c.name << "\n";
  std::cout << "security corpus: " << n << " attack cases, each refused or contained\n";
  EXPECT_GE(n, 20u);
}

// issue 18: an answer with a 7 MB exec output and a 2 MB read gives a text
// report under the default budget (100 KB), each output cut to its head and
// tail with a marker that says exactly what was left out; and the batch
// keeps in memory only what the report shows.
std::string LineAfter(const std::string& text, size_t pos) {
  size_t start = text.find('\n', pos) + 1;
  return text.substr(start, text.find('\n', start) - start);
}

std::string LineBefore(const std::string& text, size_t pos) {
  size_t end = text.rfind('\n', pos - 1);
  size_t start = text.rfind('\n', end - 1) + 1;
  return text.substr(start, end - start);
}

constexpr char kBigOutputsAnswer[] =
    "#!SHAM [@three-char-SHA-256: b01]\naction = \"exec\"\nlang = \"bash\"\ncode = \"seq 1 1000000\"\n"
    "#!END_SHAM_b01\n"
    "#!SHAM [@three-char-SHA-256: b02]\naction = \"file_read\"\npath = \"big.txt\"\n#!END_SHAM_b02\n";

std::string WriteBigFile(const std::string& root) {
  std::string big;
  for (int i = 1; i <= 75000; ++i) big += absl::StrFormat("line %06d of the big file\n", i);  // 2.1 MB
  WriteFile(root + "/big.txt", big);
  return big;
}

TEST(ReportBudget, BigExecAndBigReadFitTheDefaultBudget) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  options.settings.quiet = true;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  WriteBigFile(options.working_root);
  ExecutionResult result = Clada(options).Execute(kBigOutputsAnswer);
  ASSERT_TRUE(result.success) << FormatReport(result, 0);
  const std::string report = FormatReport(result, options.settings.report_budget_bytes);
  EXPECT_LT(report.size(), 100u * 1024) << report.substr(0, 2000);

  // exec: the last number before the marker and the first after it; what
  // the marker counts (exec's own cut at --max-output included) is exactly
  // the numbers between them.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      report, m,
      std::regex(R"(\[output truncated: (?:(\d+) lines \((\d+) bytes\)|(\d+) bytes \(more than (\d+) lines\)) of stdout left out here; )")))
      << report;
  size_t at = static_cast<size_t>(m.position(0));
  const bool exact_lines = m[1].matched;
  const int64_t lines = std::stoll(exact_lines ? m[1] : m[4]), bytes = std::stoll(exact_lines ? m[2] : m[3]);
  const int64_t before = std::stoll(LineBefore(report, at)), after = std::stoll(LineAfter(report, at));
  int64_t expected_bytes = 0;
  for (int64_t n = before + 1; n < after; ++n) expected_bytes += static_cast<int64_t>(std::to_string(n).size()) + 1;
  EXPECT_EQ(bytes, expected_bytes);
  if (exact_lines) {
    EXPECT_EQ(lines, after - before - 1);
  } else {
    EXPECT_LT(lines, after - before - 1);
  }
  EXPECT_NE(report.find("--- stdout ---\n1\n2\n"), std::string::npos);
  EXPECT_NE(report.find("\n1000000\n"), std::string::npos);

  // file_read: the exact range, and the action that shows it.
  ASSERT_TRUE(std::regex_search(
      report, m,
      std::regex(R"re(\[output truncated: lines (\d+)-(\d+) \((\d+) bytes\) left out here; file_read_numbered with path = "big.txt" and lines = "(\d+)-(\d+)" shows them\])re")))
      << report;
  at = static_cast<size_t>(m.position(0));
  const int64_t first = std::stoll(m[1]), last = std::stoll(m[2]);
  EXPECT_EQ(m[4], m[1]);
  EXPECT_EQ(m[5], m[2]);
  EXPECT_EQ(LineBefore(report, at), absl::StrFormat("line %06d of the big file", first - 1));
  EXPECT_EQ(LineAfter(report, at), absl::StrFormat("line %06d of the big file", last + 1));
  EXPECT_EQ(std::stoll(m[3]), (last - first + 1) * 28);
  EXPECT_NE(report.find("=== START FILE: big.txt ===\nline 000001 of the big file\n"), std::string::npos);
  EXPECT_NE(report.find("line 075000 of the big file\n=== END FILE: big.txt ==="), std::string::npos);

  // What the batch kept is what the report shows, not 9 MB of outputs.
  size_t kept = 0;
  for (const ActionResult& r : result.results) kept += r.data.dump().size();
  EXPECT_LT(kept, 100u * 1024);
}

// --json keeps more (each output up to max_output, 2 x max_output in all).
TEST(ReportBudget, FullOutputsKeepWhatFitsMaxOutput) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  options.settings.quiet = true;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  options.full_outputs = true;
  const std::string big = WriteBigFile(options.working_root);
  ExecutionResult result = Clada(options).Execute(kBigOutputsAnswer);
  ASSERT_EQ(result.results.size(), 2u);
  // exec's stream as exec captured it (its own cut, under max_output), not cut again.
  const std::string stdout_text = result.results[0].data["stdout"].get<std::string>();
  EXPECT_EQ(stdout_text.size(), 6888896u);
  EXPECT_TRUE(absl::EndsWith(stdout_text, "\n1000000\n"));
  EXPECT_EQ(stdout_text.find("left out here"), std::string::npos);
  EXPECT_EQ(result.results[1].data["content"].get<std::string>(), big);

  options.settings.max_output_bytes = 1 << 20;
  result = Clada(options).Execute(kBigOutputsAnswer);
  ASSERT_EQ(result.results.size(), 2u);
  EXPECT_LE(result.results[0].data["stdout"].get<std::string>().size(), 1u << 20);
  EXPECT_LE(result.results[1].data["content"].get<std::string>().size(), 1u << 20);
  EXPECT_NE(result.results[1].data["content"].get<std::string>().find("file_read_numbered with path = \"big.txt\""),
            std::string::npos);
}

// Issue 17 #9: the results section of a huge batch is cut while it is
// built (head and tail kept, the middle only counted); the marker still
// counts exactly what the whole section would have had between them.
TEST(ReportBudget, HugeResultsSectionIsCutWithExactCounts) {
  ExecutionResult result;
  for (int i = 0; i < 200000; ++i) {
    ActionResult r;
    r.seq = i + 1;
    r.block_id = absl::StrCat("b", i);
    r.action = "file_read";
    r.params = {{"path", absl::StrCat("dir/file", i, ".txt")}};
    r.success = i % 7 != 0;
    if (!r.success) r.error = absl::StrCat("file_read: 'dir/file", i, ".txt' does not exist\nsecond line");
    result.results.push_back(std::move(r));
  }
  const std::string full = FormatResultsSection(result);
  const std::string report = FormatReport(result, 100 * 1024);
  EXPECT_LT(report.size(), 100u * 1024);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(report, m, std::regex(R"(\[results truncated: (\d+) lines \((\d+) bytes\) left out)")))
      << report.substr(0, 3000);
  const size_t marker_at = static_cast<size_t>(m.position(0));
  const size_t marker_end = report.find('\n', marker_at) + 1;
  const std::string head = report.substr(0, marker_at);
  const size_t end_of_results = report.find("=== END ===", marker_end);
  ASSERT_NE(end_of_results, std::string::npos);
  const std::string tail = report.substr(marker_end, end_of_results - marker_end);
  ASSERT_TRUE(absl::StartsWith(full, head));
  ASSERT_TRUE(absl::EndsWith(full, tail)) << tail.substr(0, 500);
  const std::string middle = full.substr(head.size(), full.size() - head.size() - tail.size());
  EXPECT_EQ(std::stoll(m[2]), static_cast<long long>(middle.size()));
  EXPECT_EQ(std::stoll(m[1]), std::count(middle.begin(), middle.end(), '\n'));
}

// Issue 17 #9: a text report's batch keeps the results its report shows,
// not one ActionResult per action: the head and tail are kept, the middle
// counted, and the report (results, outputs, counts) is the one every
// result gives.
TEST(ReportBudget, ResultKeeperKeepsHeadAndTailWithExactCounts) {
  ExecutionResult all, kept;
  ResultKeeper keeper(100 * 1024);
  for (int i = 0; i < 20000; ++i) {
    ActionResult r;
    r.seq = i + 1;
    r.block_id = absl::StrCat("b", 100000 + i);
    r.action = "file_read";
    r.params = {{"path", "s.txt"}};
    r.success = i % 7 != 0;
    if (r.success) {
      r.data = {{"path", "s.txt"}, {"content", "small\n"}};
    } else {
      r.error = "file_read: 's.txt' does not exist\nsecond line";
    }
    if (i % 1000 == 3) r.warnings.push_back("a warning\x1b[2J");
    all.results.push_back(r);
    keeper.Add(std::move(r));
  }
  std::move(keeper).MoveInto(kept);
  EXPECT_LT(kept.results.size(), 20000u / 2);
  EXPECT_EQ(kept.results.size() + static_cast<size_t>(kept.left_out.count), 20000u);
  EXPECT_GT(kept.left_out.outputs, 0);
  EXPECT_EQ(kept.results.front().block_id, "b100000");
  EXPECT_EQ(kept.results.back().block_id, "b119999");
  EXPECT_EQ(FormatReport(kept, 100 * 1024), FormatReport(all, 100 * 1024));
  EXPECT_EQ(FormatSummaryLine(kept), FormatSummaryLine(all));
  EXPECT_EQ(CountSkippedBlocks(kept), CountSkippedBlocks(all));
  // Without a budget, every result is kept.
  ResultKeeper every(0);
  for (const ActionResult& r : all.results) every.Add(r);
  ExecutionResult whole;
  std::move(every).MoveInto(whole);
  EXPECT_EQ(whole.results.size(), 20000u);
  EXPECT_EQ(whole.left_out.count, 0);
}

// Issue 17 #9: results without an output (300,000 CML deletes of missing
// files) were all kept in the head, which waited for the outputs to fill
// the budget: 150 MB of results for a report of 25 KB. The head now stops
// too once it holds a few times what the section shows.
TEST(ReportBudget, ResultKeeperBoundsResultsWithoutOutputs) {
  ExecutionResult all, kept;
  ResultKeeper keeper(100 * 1024);
  for (int i = 0; i < 100000; ++i) {
    ActionResult r;
    r.seq = i + 1;
    r.block_id = absl::StrCat("task-", i + 1);
    r.action = "file_delete";
    r.dialect = "cml";
    r.params = {{"path", absl::StrCat("no", i)}};
    r.error = absl::StrCat("file_delete: 'no", i, "' does not exist, so there is nothing to delete");
    all.results.push_back(r);
    keeper.Add(std::move(r));
  }
  std::move(keeper).MoveInto(kept);
  EXPECT_LT(kept.results.size(), 10000u);
  EXPECT_EQ(kept.results.size() + static_cast<size_t>(kept.left_out.count), 100000u);
  EXPECT_EQ(kept.results.back().block_id, "task-100000");
  EXPECT_EQ(FormatReport(kept, 100 * 1024), FormatReport(all, 100 * 1024));
  EXPECT_EQ(FormatSummaryLine(kept), FormatSummaryLine(all));
}

// The same through a run: thousands of blocks keep a bounded number of
// results for the text report, every one of them for --json.
TEST(Execute, ManyBlocksKeepWhatTheTextReportShows) {
  const std::string root = MakeTempDir();
  WriteFile(root + "/s", "small\n");
  const std::string answer = ShamBlocks("k", 6000, "action = \"file_read\"\npath = \"s\"\n");
  CladaOptions options;
  options.working_root = root;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  ExecutionResult text = Clada(options).Execute(answer);
  EXPECT_TRUE(text.success);
  EXPECT_LT(text.results.size(), 6000u);
  EXPECT_EQ(text.results.size() + static_cast<size_t>(text.left_out.count), 6000u);
  EXPECT_EQ(text.left_out.succeeded, text.left_out.count);
  EXPECT_EQ(text.executed_actions, 6000);
  EXPECT_TRUE(absl::StartsWith(FormatSummaryLine(text), "6000 succeeded, 0 failed, 0 skipped"));
  const std::string report = FormatReport(text, options.settings.report_budget_bytes);
  EXPECT_NE(report.find("6000 succeeded, 0 failed, 0 skipped in all"), std::string::npos) << report.substr(0, 2000);
  options.full_outputs = true;
  ExecutionResult json = Clada(options).Execute(answer);
  EXPECT_EQ(json.results.size(), 6000u);
  EXPECT_EQ(json.left_out.count, 0);
}

// Issue 17 #9: the listener's output file kept every result and every
// refused block's errors (full_outputs): an answer of thousands of blocks
// held them all. With full_report_budget_bytes the outputs are still kept
// whole, but only the results and errors a report of that size shows.
TEST(Execute, FullReportBudgetKeepsWholeOutputsButNotEveryResult) {
  const std::string root = MakeTempDir();
  WriteFile(root + "/s", "small\n");
  const std::string answer = ShamBlocks("k", 6000, "action = \"file_read\"\npath = \"s\"\n") +
                             ShamBlocks("r", 6000, "action = \"file_reed\"\n");
  CladaOptions options;
  options.working_root = root;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  options.full_outputs = true;
  options.full_report_budget_bytes = 100 * 1024;
  ExecutionResult r = Clada(options).Execute(answer);
  EXPECT_LT(r.results.size(), 6000u);
  EXPECT_EQ(r.results.size() + static_cast<size_t>(r.left_out.count), 6000u);
  EXPECT_LT(r.parse_errors.size(), 6000u);
  EXPECT_EQ(CountSkippedBlocks(r), 6000);
  EXPECT_TRUE(absl::StartsWith(FormatSummaryLine(r), "6000 succeeded, 0 failed, 6000 skipped")) << FormatSummaryLine(r);
  const std::string report = FormatReport(r, 0);
  EXPECT_NE(report.find("[results left out: "), std::string::npos) << report.substr(0, 1000);
  // The outputs are kept as --json keeps them: the first read's whole.
  EXPECT_NE(report.find("small"), std::string::npos);
}

// Issue 17 #9: a million refused blocks (48 MB) peaked at 1.3 GB: every
// refused block kept its errors (about a kilobyte: the fix lists every
// action) until the report was written. A text report's run keeps those of
// the blocks its report shows and counts the others, and its report is the
// one every error gives, for each error detail.
TEST(Execute, ManyRefusedBlocksKeepWhatTheTextReportShows) {
  const std::string root = MakeTempDir();
  WriteFile(root + "/s", "small\n");
  std::string answer;
  const int kBlocks = 20000;
  for (int i = 0; i < kBlocks; ++i) {
    const std::string id = absl::StrCat("k", 10000 + i);
    absl::StrAppend(&answer, "#!SHAM [@three-char-SHA-256: ", id, "]\n");
    if (i == 0 || i == kBlocks / 2 || i == kBlocks - 1) {
      absl::StrAppend(&answer, "action = \"file_read\"\npath = \"s\"\n");
    } else if (i % 3 == 1) {
      absl::StrAppend(&answer, "action = \"file_reed\"\n");
    } else if (i % 3 == 2) {
      absl::StrAppend(&answer, "action = \"file_read\"\n");
    }
    absl::StrAppend(&answer, "#!END_SHAM_", id, "\n");
  }
  for (const char* detail : {"minimal", "full", "debug"}) {
    CladaOptions options;
    options.working_root = root;
    options.settings.git = git_tx::GitOptions::Mode::kOff;
    options.settings.error_detail = detail;
    ExecutionResult text = Clada(options).Execute(answer);
    EXPECT_LT(text.parse_errors.size(), static_cast<size_t>(kBlocks) / 2) << detail;
    EXPECT_EQ(CountSkippedBlocks(text), kBlocks - 3) << detail;
    EXPECT_FALSE(text.success);
    options.full_outputs = true;  // --json: every error kept
    ExecutionResult every = Clada(options).Execute(answer);
    EXPECT_EQ(every.parse_errors.size(), static_cast<size_t>(kBlocks - 3)) << detail;
    const std::regex elapsed(R"(\(\d+ ms\))");
    const std::string kept_report =
        std::regex_replace(FormatReport(text, options.settings.report_budget_bytes), elapsed, "");
    const std::string every_report =
        std::regex_replace(FormatReport(every, options.settings.report_budget_bytes), elapsed, "");
    EXPECT_EQ(kept_report, every_report) << detail;
    EXPECT_NE(kept_report.find("3 succeeded, 0 failed, 19997 skipped"), std::string::npos) << detail;
  }
}

// How many lines of `text` start with `prefix`.
int LinesStartingWith(const std::string& text, absl::string_view prefix) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) ++n;
  }
  return n;
}

// The sums of the numbers each group of `pattern` captures, over its matches in `text`.
std::vector<int64_t> SumsOfMatches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  std::vector<int64_t> sums(re.mark_count(), 0);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    for (size_t g = 0; g < sums.size(); ++g) sums[g] += std::stoll((*it)[g + 1]);
  }
  return sums;
}

// The first match of `pattern` in `text`, or "".
std::string FirstMatch(const std::string& text, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m.str(0) : "";
}

// `answer` run in `root` for a text report within `budget_bytes` (0: no
// cap), with exec turned off; the report as `clada run` prints it.
std::pair<ExecutionResult, std::string> RunForTextReport(const std::string& root, const std::string& answer,
                                                         int64_t budget_bytes) {
  CladaOptions options;
  options.working_root = root;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  options.settings.exec = core::ExecPolicy::kDeny;
  options.settings.report_budget_bytes = budget_bytes;
  ExecutionResult result = Clada(options).Execute(answer);
  std::string report = FormatTextReport(result, budget_bytes);
  return {std::move(result), std::move(report)};
}

// Issue 17 #9: with --report cml or csl every refused SHAM block's errors
// were kept (200,000 empty blocks, 10 MB: 303 MB); they are counted as for
// clada's form, and the forms' counts stay those of every error.
TEST(Execute, SeedsFormsCountRefusedBlocksTheyDoNotKeep) {
  const std::string root = MakeTempDir();
  const int kBlocks = 20000;
  const std::string answer = "<remove path=\"gone.txt\"/>\n" + ShamBlocks("k", kBlocks, "");
  auto header = [](const std::string& report, const std::string& from) {
    const size_t at = report.find(from);
    return at == std::string::npos ? std::string() : report.substr(at, report.find('\n', at) - at);
  };
  for (const char* form : {"cml", "csl"}) {
    CladaOptions options;
    options.working_root = root;
    options.settings.git = git_tx::GitOptions::Mode::kOff;
    options.settings.report = form;
    ExecutionResult kept = Clada(options).Execute(answer);
    EXPECT_LT(kept.parse_errors.size(), static_cast<size_t>(kBlocks) / 2) << form;
    EXPECT_EQ(CountSkippedBlocks(kept), kBlocks) << form;
    options.full_outputs = true;  // every error kept
    ExecutionResult every = Clada(options).Execute(answer);
    ASSERT_EQ(every.parse_errors.size(), static_cast<size_t>(kBlocks)) << form;
    const std::string report = FormatTextReport(kept, options.settings.report_budget_bytes);
    const std::string full = FormatTextReport(every, 0);
    EXPECT_LT(report.size(), static_cast<size_t>(options.settings.report_budget_bytes)) << form;
    const std::string summary = std::string(form) == "cml" ? "<result " : "20001 operations:";
    EXPECT_FALSE(header(full, summary).empty()) << full.substr(full.size() - 2000);
    EXPECT_EQ(header(report, summary), header(full, summary)) << form;
    EXPECT_NE(report.find("refused blocks left out"), std::string::npos) << report.substr(0, 3000);
  }
}

// Issue 17 #9: the seeds' report forms kept every result and printed every
// task (300,000 CML removes: 110 MB of report, 644 MB peak). They keep to
// the report budget as clada's form does: the head and tail tasks are kept
// and shown, the others counted, and every count the form prints is the
// batch's: the <result> header, each <block> shown, the blocks left out.
TEST(Execute, ManyCmlTasksKeepTheReportWithinItsBudget) {
  const int kTasks = 20000;
  // A root in which one in a thousand of the files the answer removes are
  // there.
  auto make_root = [] {
    const std::string root = MakeTempDir();
    for (int i = 0; i < kTasks; i += 1000) WriteFile(absl::StrCat(root, "/f", i), "x\n");
    return root;
  };
  std::string answer;
  for (int i = 0; i < kTasks; ++i) {
    absl::StrAppend(&answer, "<remove path=\"f", i, "\"/>\n");
    // Among the tasks left out: a malformed task of its own, and a <tasks>
    // block that fails, holds a malformed task and stops.
    if (i == kTasks / 2) {
      absl::StrAppend(&answer,
                      "<remove/>\n<tasks>\n<remove path=\"f1\"/>\n<remove/>\n<remove path=\"f2\"/>\n</tasks>\n");
    }
  }
  const int64_t kBudget = 100 * 1024;
  auto [text, report] = RunForTextReport(make_root(), answer, kBudget);
  EXPECT_TRUE(UsesCmlReport(text));
  EXPECT_LT(text.results.size(), static_cast<size_t>(kTasks) / 2);
  EXPECT_LE(report.size(), static_cast<size_t>(kBudget)) << report.substr(0, 2000);
  const std::string header = FirstMatch(report, "<result [^>]*>");
  // 20,000 removes, of which 20 succeed, and the four tasks between: the
  // block of three is one.
  EXPECT_EQ(header, R"(<result blocks="20002" tasks="20004" succeeded="20" failed="19983" skipped="1">)");
  EXPECT_NE(report.find("[task-1] Success: removed f0\n"), std::string::npos);
  EXPECT_NE(report.find("[task-20004] Error: file_not_found in f19999 "), std::string::npos);
  // The tasks shown and those counted make every task, by outcome.
  const std::vector<int64_t> left = SumsOfMatches(
      report,
      R"(\[results truncated: (\d+) tasks left out here to keep the report within its budget \((\d+) succeeded, (\d+) failed, (\d+) skipped\); --json or a larger --report-budget shows them all\])");
  ASSERT_EQ(left.size(), 4u);
  EXPECT_GT(left[0], kTasks / 2);
  EXPECT_EQ(LinesStartingWith(report, "[task-") + left[0], 20004);
  EXPECT_EQ(left[1] + left[2] + left[3], left[0]);
  int shown_ok = 0;
  for (absl::string_view line : absl::StrSplit(report, '\n')) shown_ok += absl::StrContains(line, "] Success: ");
  EXPECT_EQ(shown_ok + left[1], 20);
  // The blocks shown and those counted make every block.
  const int shown_blocks = LinesStartingWith(report, "  <block ");
  int shown_failed = 0;
  for (absl::string_view line : absl::StrSplit(report, '\n')) {
    shown_failed += absl::StartsWith(line, "  <block ") && absl::StrContains(line, "status=\"failed\"");
  }
  const std::vector<int64_t> blocks_left =
      SumsOfMatches(report, R"(  <!-- (\d+) blocks? left out here \((\d+) failed\) -->)");
  EXPECT_EQ(shown_blocks + blocks_left[0], 20002);
  EXPECT_EQ(shown_failed + blocks_left[1], 19982);  // all but the 20 removes that succeeded
  EXPECT_NE(report.find(R"(  <block index="20001" status="failed" tasks="1">)"), std::string::npos);

  // Without a cap, every task and the same counts.
  auto [every, full] = RunForTextReport(make_root(), answer, 0);
  EXPECT_EQ(every.results.size(), static_cast<size_t>(kTasks + 2));  // and two malformed tasks
  EXPECT_EQ(every.left_out.count, 0);
  EXPECT_EQ(full.find("truncated"), std::string::npos);
  EXPECT_EQ(LinesStartingWith(full, "[task-"), 20004);
  EXPECT_EQ(FirstMatch(full, "<result [^>]*>"), header);
  EXPECT_EQ(full, FormatCmlReport(every));
}

// A <tasks> block of thousands that stops at its first failure straddles
// both cuts: its <block> still says its true count and status.
TEST(Execute, ACmlTasksBlockOfThousandsKeepsItsTrueCount) {
  const std::string root = MakeTempDir();
  const int kStopped = 20000;
  std::string answer = "<tasks>\n<write path=\"a.txt\">x</write>\n<remove path=\"missing\"/>\n";
  for (int i = 0; i < kStopped; ++i) absl::StrAppend(&answer, "<remove path=\"n", i, "\"/>\n");
  absl::StrAppend(&answer, "</tasks>\n<write path=\"b.txt\">y</write>\n");
  const int64_t kBudget = 100 * 1024;
  auto [text, report] = RunForTextReport(root, answer, kBudget);
  EXPECT_TRUE(UsesCmlReport(text));
  EXPECT_GT(text.left_out.count, 0);
  EXPECT_LE(report.size(), static_cast<size_t>(kBudget)) << report.substr(0, 2000);
  EXPECT_NE(report.find(R"(<result blocks="2" tasks="20003" succeeded="2" failed="1" skipped="20000">)"),
            std::string::npos)
      << report.substr(0, 2000);
  EXPECT_NE(report.find(R"(  <block index="0" status="failed" tasks="20002">)"), std::string::npos);
  EXPECT_NE(report.find(R"(  <block index="1" status="success" tasks="1"/>)"), std::string::npos);
  const std::vector<int64_t> left =
      SumsOfMatches(report, R"(    <!-- (\d+) tasks left out here \(0 succeeded, 0 failed, (\d+) skipped\) -->)");
  EXPECT_GT(left[0], 0);
  EXPECT_EQ(left[0], left[1]);
  int shown_skipped = 0;
  for (absl::string_view line : absl::StrSplit(report, '\n'))
    shown_skipped += absl::StrContains(line, "status=\"skipped\"");
  EXPECT_EQ(shown_skipped + left[0], kStopped);
  EXPECT_NE(report.find("[task-2] Error: file_not_found in missing "), std::string::npos);
  EXPECT_NE(report.find("[task-20003] Success: created b.txt\n"), std::string::npos);

  auto [every, full] = RunForTextReport(MakeTempDir(), answer, 0);
  EXPECT_EQ(every.results.size(), static_cast<size_t>(kStopped + 3));
  EXPECT_EQ(full.find("left out"), std::string::npos);
  EXPECT_EQ(LinesStartingWith(full, "[task-"), kStopped + 3);
  EXPECT_EQ(full, FormatCmlReport(every));
}

// The answer of issue 17 #9's size: 300,000 CML tasks, in one <tasks>
// block that stops at its first task (so that the test runs one), give a
// report within the default budget that still counts every one.
TEST(Execute, ThreeHundredThousandCmlTasksReportWithinTheBudget) {
  const int kTasks = 300000;
  std::string answer = "<tasks>\n";
  for (int i = 0; i < kTasks; ++i) absl::StrAppend(&answer, "<remove path=\"no", i, "\"/>\n");
  absl::StrAppend(&answer, "</tasks>\n");
  const int64_t kBudget = Settings().report_budget_bytes;
  auto [text, report] = RunForTextReport(MakeTempDir(), answer, kBudget);
  EXPECT_TRUE(UsesCmlReport(text));
  EXPECT_LT(text.results.size(), 10000u);  // what the report can show, not 300,000
  EXPECT_LE(report.size(), static_cast<size_t>(kBudget));
  EXPECT_NE(report.find(R"(<result blocks="1" tasks="300000" succeeded="0" failed="1" skipped="299999">)"),
            std::string::npos);
  EXPECT_NE(report.find(R"(  <block index="0" status="failed" tasks="300000">)"), std::string::npos);
  EXPECT_NE(report.find("[task-300000] Skipped: not run: task 1 failed"), std::string::npos);
}

// The same for the CSL form: its summary line counts every operation.
TEST(Execute, ManyCslOperationsKeepTheReportWithinItsBudget) {
  const std::string root = MakeTempDir();
  const int kEach = 10000;
  std::string answer;
  for (int i = 0; i < kEach; ++i) absl::StrAppend(&answer, "<---RUN--->\nrm n", i, "\n<---END--->\n");
  absl::StrAppend(&answer, "<---TASKS--->\n<---WRITE file=\"a.txt\"--->\nx\n<---END--->\n",
                  "<---SEARCH file=\"a.txt\"--->\nabsent\n<---REPLACE--->\ny\n<---END--->\n");
  for (int i = 0; i < kEach; ++i) absl::StrAppend(&answer, "<---WRITE file=\"w", i, "\"--->\nw\n<---END--->\n");
  absl::StrAppend(&answer, "<---END--->\n<---WRITE file=\"b.txt\"--->\nb\n<---END--->\n");
  const int64_t kBudget = 100 * 1024;
  auto [text, report] = RunForTextReport(root, answer, kBudget);
  EXPECT_TRUE(UsesCslReport(text));
  EXPECT_GT(text.left_out.count, 0);
  EXPECT_LE(report.size(), static_cast<size_t>(kBudget)) << report.substr(0, 2000);
  const std::string summary = "\n20003 operations: 2 succeeded, 10001 failed, 10000 skipped\n";
  EXPECT_NE(report.find(summary), std::string::npos)
      << report.substr(report.size() - std::min<size_t>(report.size(), 2000));
  const std::vector<int64_t> left = SumsOfMatches(
      report,
      R"(\[results truncated: (\d+) operations left out here to keep the report within its budget \((\d+) succeeded, (\d+) failed, (\d+) skipped\); --json or a larger --report-budget shows them all\])");
  ASSERT_EQ(left.size(), 4u);
  EXPECT_EQ(LinesStartingWith(report, "[task-") + left[0], 20003);
  EXPECT_EQ(left[1] + left[2] + left[3], left[0]);
  EXPECT_NE(report.find("[task-1] ERROR: RUN - command_not_allowed: "), std::string::npos);
  EXPECT_NE(report.find("[task-10002] SUCCESS: WRITE - b.txt"), std::string::npos);

  auto [every, full] = RunForTextReport(MakeTempDir(), answer, 0);
  EXPECT_EQ(every.left_out.count, 0);
  EXPECT_EQ(full.find("left out"), std::string::npos);
  EXPECT_EQ(LinesStartingWith(full, "[task-"), 20003);
  EXPECT_NE(full.find(summary), std::string::npos);
  EXPECT_EQ(full, FormatCslReport(every));
}

// The seeds' forms show the outputs of the tasks they show while they fit
// and name the others, so that their report keeps to the budget too.
TEST(ReportBudget, SeedsFormsNameTheOutputsThatDoNotFit) {
  for (const char* dialect : {"cml", "csl"}) {
    ExecutionResult result;
    result.report_form = dialect;
    const int kTasks = 2000;
    for (int i = 0; i < kTasks; ++i) {
      ActionResult r;
      r.seq = i + 1;
      r.block_id = absl::StrCat("task-", i + 1);
      r.action = "exec";
      r.params = {{"lang", "bash"}, {"code", "echo"}};
      r.success = true;
      r.data = {{"stdout", std::string(200, 'o') + "\n"}, {"stderr", ""}, {"exit_code", 0}};
      r.dialect = dialect;
      r.group = i;
      r.start_line = i + 1;
      result.results.push_back(std::move(r));
    }
    const int64_t kBudget = 64 * 1024;
    const std::string report = FormatTextReport(result, kBudget);
    EXPECT_LE(report.size(), static_cast<size_t>(kBudget)) << dialect;
    const std::vector<int64_t> named = SumsOfMatches(
        report,
        R"(\[output truncated: the outputs of (\d+) (?:tasks|operations) \(task-\d+, [^)]*\) left out: the report budget is spent; read them in a later answer\])");
    ASSERT_EQ(named.size(), 1u);
    int outputs = 0;
    for (absl::string_view line : absl::StrSplit(report, '\n')) outputs += absl::StrContains(line, ":exec] ");
    EXPECT_GT(outputs, 0) << dialect;
    EXPECT_EQ(outputs + named[0], kTasks) << dialect;
    // No cap: every output.
    const std::string whole = FormatTextReport(result, 0);
    EXPECT_EQ(whole.find("truncated"), std::string::npos) << dialect;
  }
}

// `auto` takes a dialect's form from the results left out too: a report of
// thousands of CML tasks is still in CML's form, but not when SHAM's
// actions were among those left out.
TEST(ReportBudget, AutoFormCountsTheDialectsLeftOut) {
  ExecutionResult result;
  result.report_form = "auto";
  ActionResult r;
  r.dialect = "cml";
  result.results = {r, r};
  result.left_out.after = 1;
  result.left_out.count = 5000;
  result.left_out.dialects = {"cml"};
  EXPECT_TRUE(UsesCmlReport(result));
  EXPECT_FALSE(UsesCslReport(result));
  result.left_out.dialects = {"cml", "sham"};
  EXPECT_FALSE(UsesCmlReport(result));
}

// `answer` run as --json in a new root holding a.txt (`a_txt`), its results
// spilled or not (CladaOptions::spill_results), and the document printed.
struct JsonRun {
  ExecutionResult result;
  std::string document;
};
JsonRun RunAsJson(const std::string& answer, const std::string& a_txt, bool spill) {
  const std::string root = MakeTempDir();
  WriteFile(root + "/a.txt", a_txt);
  CladaOptions options;
  options.working_root = root;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  options.full_outputs = true;
  options.spill_results = spill;
  JsonRun run;
  run.result = Clada(options).Execute(answer);
  std::ostringstream out;
  WriteExecutionResultJson(run.result, out);
  run.document = out.str();
  return run;
}

// A block ID that ends inside a character (E2 82) once made dump() throw
// nlohmann's type_error 316 and `clada run --json` abort: the document
// shows U+FFFD for each bad byte, spilled or not.
TEST(Execute, JsonDocumentRepairsABlockIdOfInvalidUtf8) {
  for (bool spill : {false, true}) {
    JsonRun run = RunAsJson("#!nesl [@three-char-SHA-256: app\xe2\x82]\ncontent = <<'EOT_app'\n", "a\n", spill);
    const core::Json doc = core::Json::parse(run.document);
    ASSERT_FALSE(doc["parseErrors"].empty()) << run.document;
    EXPECT_EQ(doc["parseErrors"][0]["label"], "app\xEF\xBF\xBD\xEF\xBF\xBD") << run.document;
  }
}

// Issue 17 #9: a --json run of 600,000 small blocks peaked at 1.97 GB: it
// kept every result, then built the whole document. With spill_results
// each result is written to a temporary file as it finishes, and
// WriteExecutionResultJson prints the very document the kept results give.
TEST(Execute, SpilledJsonResultsPrintTheSameDocument) {
  std::string answer = "Some prose first.\n";
  for (int i = 0; i < 40; ++i) {
    const std::string id = absl::StrCat("s", 100 + i);
    absl::StrAppend(&answer, "#!SHAM [@three-char-SHA-256: ", id, "]\n");
    switch (i % 4) {
      case 0:
        absl::StrAppend(&answer, "action = \"file_read\"\npath = \"a.txt\"\n");
        break;
      case 1:
        absl::StrAppend(&answer, "action = \"file_write\"\npath = \"out/", i, ".txt\"\ncontent = <<'EOT_SHAM_", id,
                        "'\nline \u00e9 ", i, "\nEOT_SHAM_", id, "\n");
        break;
      case 2:
        absl::StrAppend(&answer, "action = \"file_read\"\npath = \"missing.txt\"\n");  // fails
        break;
      default:
        absl::StrAppend(&answer, "action = \"file_reed\"\n");  // refused
        break;
    }
    absl::StrAppend(&answer, "#!END_SHAM_", id, "\n");
  }
  std::string documents[2];
  std::string summaries[2];
  for (int spill = 0; spill < 2; ++spill) {
    JsonRun run = RunAsJson(answer, "alpha\nbeta \"quoted\"\n", spill == 1);
    const ExecutionResult& result = run.result;
    if (spill == 1) {
      EXPECT_TRUE(result.results.empty());
      EXPECT_EQ(result.spilled.count, 30);
      EXPECT_EQ(result.spilled.succeeded, 20);
    }
    documents[spill] = run.document;
    summaries[spill] = std::regex_replace(FormatSummaryLine(result), std::regex(R"(\(\d+ ms\))"), "");
    EXPECT_FALSE(result.success);
  }
  EXPECT_EQ(documents[1], documents[0]);
  EXPECT_EQ(summaries[1], summaries[0]);
  EXPECT_NE(summaries[0].find("20 succeeded, 10 failed, 10 skipped"), std::string::npos) << summaries[0];
  EXPECT_TRUE(nlohmann::ordered_json::accept(documents[1]));
}

// Issue 17 #9: a --json run of a million empty blocks peaked at 3 GB (every
// error kept, then the whole document built). Past the first and last
// thousand refused blocks, their errors go to a temporary file as they are
// read, and the document printed is the same.
TEST(Execute, SpilledJsonParseErrorsPrintTheSameDocument) {
  std::string answer;
  const int kBlocks = 2600;
  for (int i = 0; i < kBlocks; ++i) {
    const std::string id = absl::StrCat("e", 10000 + i);
    absl::StrAppend(&answer, "#!SHAM [@three-char-SHA-256: ", id, "]\n");
    if (i % 1000 == 500) {
      absl::StrAppend(&answer, "action = \"file_read\"\npath = \"", i == 1500 ? "missing.txt" : "a.txt", "\"\n");
    } else if (i % 7 == 3) {
      absl::StrAppend(&answer, "action = \"file_reed\"\n");
    }
    absl::StrAppend(&answer, "#!END_SHAM_", id, "\n");
  }
  std::string documents[2];
  for (int spill = 0; spill < 2; ++spill) {
    JsonRun run = RunAsJson(answer, "alpha\n", spill == 1);
    const ExecutionResult& result = run.result;
    EXPECT_EQ(CountSkippedBlocks(result), kBlocks - 3);
    EXPECT_EQ(result.results.size() + static_cast<size_t>(result.spilled.count), 3u);
    if (spill == 1) {
      EXPECT_LT(result.parse_errors.size(), static_cast<size_t>(kBlocks) - 100);
      EXPECT_GT(result.left_out_skipped.spans.size(), 100u);
    }
    documents[spill] = run.document;
  }
  EXPECT_EQ(documents[1], documents[0]);
  EXPECT_TRUE(nlohmann::ordered_json::accept(documents[1]));
}

TEST(Execute, RefusesInputOverLimit) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  options.settings.max_input_bytes = 10;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  ExecutionResult result = Clada(options).Execute("01234567890123456789");
  ASSERT_TRUE(result.fatal_error.has_value());
  EXPECT_NE(result.fatal_error->find("input_too_large"), std::string::npos);
}

// Issue 17 #17: the block parser refused any answer over its own 50 MiB,
// whatever --max-input said; a run's limit is --max-input alone.
TEST(Execute, InputLimitIsMaxInputNotTheParsersOwn) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  options.settings.quiet = true;
  options.settings.max_input_bytes = 64 << 20;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  std::string answer(51 << 20, 'x');
  answer += "\n#!SHAM [@three-char-SHA-256: big]\naction = \"file_write\"\npath = \"after.txt\"\ncontent = \"ok\"\n"
            "#!END_SHAM_big\n";
  ExecutionResult result = Clada(options).Execute(answer);
  ASSERT_FALSE(result.fatal_error.has_value()) << *result.fatal_error;
  ASSERT_EQ(result.results.size(), 1u) << FormatReport(result, 0).substr(0, 2000);
  EXPECT_TRUE(result.results[0].success);
  EXPECT_EQ(ReadAll(options.working_root + "/after.txt"), "ok");

  options.settings.max_input_bytes = 50 << 20;  // under the answer: refused whole, as before
  ExecutionResult refused = Clada(options).Execute(answer);
  ASSERT_TRUE(refused.fatal_error.has_value());
  EXPECT_NE(refused.fatal_error->find("input_too_large"), std::string::npos);
}

core::Action MakeAction(const std::string& name, core::Json params) {
  core::Action a;
  a.name = name;
  a.params = std::move(params);
  return a;
}

// The seam `clada mcp` runs through: actions already built run as one
// batch, each its own group (a failure does not stop the next), a path
// outside the root refused by the same policy as an answer's.
TEST(ExecuteActions, RunsEachActionAndRefusesEscapes) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  const std::string outside = MakeTempDir();
  options.settings.quiet = true;
  options.settings.git = git_tx::GitOptions::Mode::kOff;
  std::vector<core::Action> actions;
  actions.push_back(MakeAction("file_write", {{"path", "a.txt"}, {"content", "one"}}));
  actions.push_back(MakeAction("file_write", {{"path", outside + "/x.txt"}, {"content", "no"}}));
  actions.push_back(MakeAction("file_read", {{"path", "a.txt"}}));
  actions.push_back(MakeAction("no_such_action", core::Json::object()));
  ExecutionResult result = Clada(options).ExecuteActions(std::move(actions), "mcp");
  ASSERT_FALSE(result.fatal_error.has_value()) << *result.fatal_error;
  ASSERT_EQ(result.results.size(), 4u);
  EXPECT_TRUE(result.results[0].success) << result.results[0].error;
  EXPECT_FALSE(result.results[1].success);
  EXPECT_NE(result.results[1].error.find("path_escape"), std::string::npos) << result.results[1].error;
  EXPECT_TRUE(result.results[2].success) << result.results[2].error;
  EXPECT_EQ(result.results[2].data.value("content", ""), "one");
  EXPECT_FALSE(result.results[3].success);
  EXPECT_NE(result.results[3].error.find("Unknown action"), std::string::npos);
  EXPECT_NE(result.results[0].group, result.results[2].group);
  EXPECT_EQ(result.results[0].dialect, "mcp");
  EXPECT_FALSE(result.success);
  EXPECT_EQ(ReadAll(options.working_root + "/a.txt"), "one");
  EXPECT_EQ(ReadAll(outside + "/x.txt"), "");
}

// One call is one batch: one AI commit over a snapshot, as `clada run`.
TEST(ExecuteActions, CommitsTheBatchOnce) {
  CladaOptions options;
  options.working_root = MakeTempDir();
  options.settings.quiet = true;
  options.settings.git = git_tx::GitOptions::Mode::kRequire;
  const std::string git = absl::StrCat("cd '", options.working_root, "' && git -c user.name=t -c user.email=t@t ");
  ASSERT_EQ(std::system(absl::StrCat(git, "init -q && echo x > seed && ", git, "add -A && ", git,
                                     "commit -qm init").c_str()),
            0);
  std::vector<core::Action> actions;
  actions.push_back(MakeAction("file_write", {{"path", "b.txt"}, {"content", "two"}}));
  actions.push_back(MakeAction("file_write", {{"path", "c.txt"}, {"content", "three"}}));
  ExecutionResult result = Clada(options).ExecuteActions(std::move(actions), "mcp");
  ASSERT_FALSE(result.fatal_error.has_value()) << *result.fatal_error;
  EXPECT_TRUE(result.success);
  ASSERT_TRUE(result.git.ai_commit.has_value());
  const std::string log = options.working_root + "/.log";
  ASSERT_EQ(std::system(absl::StrCat("cd '", options.working_root, "' && git log --format=%s > '", log, "'").c_str()), 0);
  std::string subjects = ReadAll(log);
  EXPECT_EQ(std::count(subjects.begin(), subjects.end(), '\n'), 2) << subjects;  // init + one AI commit
}

TEST(Execute, MissingRootIsFatal) {
  CladaOptions options;
  options.working_root = "/definitely/not/a/dir";
  ExecutionResult result = Clada(options).Execute("text");
  EXPECT_TRUE(result.fatal_error.has_value());
  EXPECT_FALSE(result.success);
}

}  // namespace
}  // namespace clada
