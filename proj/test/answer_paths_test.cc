// The paths that read an answer agree: `clada validate` plans what a
// --dry-run plans (the same blocks, labels, actions and refused blocks),
// for every dialect, without touching a file.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/answer/src/segment.h"
#include "proj/comp/core/src/answer_lines.h"
#include "proj/comp/core/test/test_dir.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/readers/src/adapters.h"
#include "proj/comp/readers/src/all_readers.h"
#include "proj/comp/sham-action-parser/src/commands.h"
#include "proj/src/clada.h"
#include "proj/src/report.h"
#include "proj/test/case_file.h"

namespace clada {
namespace {

using Json = nlohmann::json;

Json ValidateJson(const std::string& answer, const std::string& csl_start = "<---",
                  const std::string& csl_end = "--->") {
  std::ostringstream out;
  RunValidateAnswer(answer, /*json=*/true, out, 50u << 20, csl_start, csl_end);
  return Json::parse(out.str());
}

std::string ValidateText(const std::string& answer) {
  std::ostringstream out;
  RunValidateAnswer(answer, /*json=*/false, out, 50u << 20, "<---", "--->");
  return out.str();
}

// The answer layer knows clada's report (a results section pasted back is
// no answer) by the report's own markers, and the listener's.
TEST(ReportMarkers, AreTheReportsAndTheListeners) {
  EXPECT_STREQ(readers::kCladaResultsMarker, kResultsMarker);
  EXPECT_STREQ(readers::kCladaEndMarker, kEndMarker);
  EXPECT_STREQ(readers::kCladaResultsMarker, listener::kResultsMarker);
  EXPECT_STREQ(readers::kCladaEndMarker, listener::kEndMarker);
}

// issue 36: validate printed `0 blocks: 0 would run, 0 errors` and exited 0
// for a unified diff, a SEARCH/REPLACE block and an apply_patch envelope.
class ValidateReads : public ::testing::TestWithParam<Json> {};

TEST_P(ValidateReads, EveryDialectRunReads) {
  const Json& c = GetParam();
  const std::string answer = c["answer"];
  const Json doc = ValidateJson(answer);
  EXPECT_EQ(doc["summary"]["totalBlocks"], 1) << doc.dump(2);
  EXPECT_EQ(doc["summary"]["successCount"], 1) << doc.dump(2);
  EXPECT_EQ(doc["summary"]["errorCount"], 0) << doc.dump(2);
  ASSERT_EQ(doc["actions"].size(), 1u) << doc.dump(2);
  EXPECT_EQ(doc["actions"][0]["action"], c["action"]);
  EXPECT_EQ(doc["actions"][0]["metadata"]["blockId"], c["label"]);
  EXPECT_NE(ValidateText(answer).find("1 block: 1 would run, 0 errors"), std::string::npos) << ValidateText(answer);
}

std::vector<Json> ReadsCases() {
  std::ifstream in("proj/test-data/answer/validate_reads_every_dialect.json");
  return Json::parse(in)["cases"].get<std::vector<Json>>();
}

INSTANTIATE_TEST_SUITE_P(Dialects, ValidateReads, ::testing::ValuesIn(ReadsCases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

// validate prints every block alike, whatever its dialect and whatever
// other dialects the answer holds: a SHAM block in an answer of SHAM only
// was printed by SHAM's own validator (its long value cut, no dialect or
// label in --json), the same block beside a CML one by the answer layer's
// (the whole value; dialect, label and group policy in --json).
TEST(ValidatePrintsEveryDialectAlike, TheSameLineAndFieldsForEveryBlock) {
  const std::string path = absl::StrCat("d/", std::string(100, 'x'), ".txt");
  const std::string sham = absl::StrCat("#!SHAM [@three-char-SHA-256: v01]\naction = \"file_write\"\npath = \"", path,
                                        "\"\ncontent = \"x\"\n#!END_SHAM_v01\n");
  const std::string cml = absl::StrCat("<write path=\"", path, "\">x</write>\n");
  std::vector<std::string> lines;
  for (const std::string& answer : {sham, cml, sham + "\n" + cml, cml + "\n" + sham}) {
    const std::string text = ValidateText(answer);
    for (const std::string label : {"v01", "task-1"}) {
      const size_t at = text.find(absl::StrCat("\n  ", label, " file_write "));
      if (at == std::string::npos) continue;
      const size_t value = text.find(" file_write ", at) + 12;
      lines.push_back(text.substr(value, text.find('\n', value) - value));
    }
    const Json doc = ValidateJson(answer);
    for (const Json& a : doc["actions"]) {
      EXPECT_TRUE(a.contains("dialect") && a.contains("label") && a.contains("groupPolicy")) << a.dump();
    }
  }
  ASSERT_EQ(lines.size(), 6u);
  for (const std::string& line : lines) EXPECT_EQ(line, lines[0]);
  // One line, cut as SHAM's validator cut it.
  EXPECT_EQ(lines[0], absl::StrCat(path.substr(0, 80), "..."));
}

// validate vs --dry-run, over every answer of the run's test data (every
// dialect, alone and mixed): the same number of blocks, the same actions
// with the same labels in the same order, the same refused blocks.
struct PlanCase {
  std::string name;
  testing::CaseFile file;
};

// A case's answer (its $ROOT and $OUTSIDE filled in for a fresh directory)
// run as a dry run with git off and exec denied, as both gates compare it.
bool DryRunCase(const testing::CaseFile& c, const char* dir_prefix, std::string* answer, CladaOptions* o,
                ExecutionResult* run) {
  const std::string root = core::testing::MakeTestDir(dir_prefix);
  if (root.empty()) return false;
  *answer = absl::StrReplaceAll(c.Body("Input"), {{"$ROOT", root}, {"$OUTSIDE", root + "-out"}});
  const Json options = c.Has("Options") ? Json::parse(c.Body("Options")) : Json::object();
  o->working_root = root;
  o->settings.quiet = true;
  o->settings.git = git_tx::GitOptions::Mode::kOff;
  o->settings.exec = core::ExecPolicy::kDeny;
  o->dry_run = true;
  o->full_outputs = true;
  if (options.contains("cslStart")) o->settings.csl_start = options["cslStart"];
  if (options.contains("cslEnd")) o->settings.csl_end = options["cslEnd"];
  *run = Clada(*o).Execute(*answer);
  return true;
}

class ValidateMatchesDryRun : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ValidateMatchesDryRun, SamePlan) {
  std::string answer;
  CladaOptions o;
  ExecutionResult run;
  ASSERT_TRUE(DryRunCase(GetParam().file, "clada_answer_paths_", &answer, &o, &run));
  if (run.fatal_error.has_value()) GTEST_SKIP() << "fatal in a dry run: " << *run.fatal_error;
  const Json validated = ValidateJson(answer, o.settings.csl_start, o.settings.csl_end);

  EXPECT_EQ(validated["summary"]["totalBlocks"], run.total_blocks);
  std::vector<std::string> planned, listed;
  for (const ActionResult& r : run.results) planned.push_back(absl::StrCat(r.block_id, " ", r.action));
  for (const Json& a : validated["actions"]) {
    listed.push_back(absl::StrCat(a["metadata"].value("blockId", ""), " ", a.value("action", "")));
  }
  EXPECT_EQ(listed, planned);
  std::vector<std::string> refused_run, refused_validate;
  for (const auto& e : run.parse_errors) {
    refused_run.push_back(absl::StrCat(e.block_id, " ", e.error_type, " line ", e.block_start_line));
  }
  for (const Json& e : validated["errors"]) {
    refused_validate.push_back(absl::StrCat(e.value("blockId", ""), " ", e.value("errorType", ""), " line ",
                                            e.value("blockStartLine", 0)));
  }
  EXPECT_EQ(refused_validate, refused_run);
  EXPECT_EQ(validated["summary"]["errorCount"], run.parse_errors.size());

  // Which would run: the actions validate says are not run are those the
  // dry run does not run for the answer's own reasons (a group with an
  // invalid member); the dry run stops a group at a failure too, which
  // validate cannot see.
  std::vector<std::string> not_run_validate, not_run_dry;
  bool failed_in_dry_run = false;
  for (const Json& a : validated["actions"]) {
    if (a.contains("notRun")) not_run_validate.push_back(a["metadata"].value("blockId", ""));
  }
  for (const ActionResult& r : run.results) {
    if (r.code == "not_run") {
      not_run_dry.push_back(r.block_id);
    } else if (!r.success) {
      failed_in_dry_run = true;
    }
  }
  if (failed_in_dry_run) {
    for (const std::string& label : not_run_validate) {
      EXPECT_NE(std::find(not_run_dry.begin(), not_run_dry.end(), label), not_run_dry.end()) << label;
    }
  } else {
    EXPECT_EQ(not_run_validate, not_run_dry);
  }
  EXPECT_EQ(validated["summary"]["successCount"], validated["actions"].size() - not_run_validate.size());

  // The text form, the same for every dialect: the summary, each planned
  // action as `<label> <action>`, each refused block as `<label> line <N>
  // <type>: `, and the exit status 1 exactly when a block is refused.
  std::ostringstream text;
  const int status = RunValidateAnswer(answer, /*json=*/false, text, 50u << 20, o.settings.csl_start,
                                       o.settings.csl_end);
  EXPECT_EQ(status, run.parse_errors.empty() ? 0 : 1);
  const std::string printed = text.str();
  EXPECT_TRUE(absl::StartsWith(printed, absl::StrCat(run.total_blocks, run.total_blocks == 1 ? " block: " : " blocks: ",
                                                     validated["summary"]["successCount"].get<int>(), " would run, ",
                                                     run.parse_errors.size(),
                                                     run.parse_errors.size() == 1 ? " error\n" : " errors\n")))
      << printed;
  size_t at = 0;
  for (const ActionResult& r : run.results) {
    const size_t found = printed.find(absl::StrCat("\n  ", r.block_id, " ", r.action), at);
    EXPECT_NE(found, std::string::npos) << r.block_id << " " << r.action << " in\n" << printed;
    if (found != std::string::npos) at = found + 1;
  }
  for (const auto& e : run.parse_errors) {
    const std::string line = absl::StrCat("\n  ", e.block_id.empty() ? "(no id)" : e.block_id, " line ",
                                          e.block_start_line, " ", e.error_type, ": ");
    const size_t found = printed.find(line, at);
    EXPECT_NE(found, std::string::npos) << line << " in\n" << printed;
    if (found != std::string::npos) at = found + 1;
  }
}

std::string GTestName(const std::string& text) {
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

std::vector<PlanCase> PlanCases() {
  std::vector<PlanCase> out;
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/execute")) {
    const std::string base = path.substr(path.rfind('/') + 1);
    out.push_back({GTestName(base.substr(0, base.size() - 3)), testing::LoadCaseFile(path)});
  }
  for (const std::string& path : testing::ListCaseFiles("proj/test-data/security", ".cases.md")) {
    for (testing::CaseFile& c : testing::LoadCasesFile(path)) out.push_back({GTestName(c.name), std::move(c)});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(RunTestData, ValidateMatchesDryRun, ::testing::ValuesIn(PlanCases()),
                         [](const auto& info) { return info.param.name; });

// validate of an answer of SHAM blocks only prints, byte for byte, what
// SHAM's own validator printed for it before validate read every dialect
// alike (sham_action_parser::RunValidateCommand), on every such answer of
// the run's test data; --json the same document but for the fields every
// dialect's action and error now carry (dialect, label, groupPolicy).
class ValidateKeepsShamsForm : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ValidateKeepsShamsForm, SameTextAndJson) {
  std::string answer;
  CladaOptions o;
  ExecutionResult run;
  ASSERT_TRUE(DryRunCase(GetParam().file, "clada_answer_sham_form_", &answer, &o, &run));
  if (run.fatal_error.has_value()) GTEST_SKIP() << "fatal in a dry run: " << *run.fatal_error;
  bool sham_only = run.total_blocks > 0;
  for (const ActionResult& r : run.results) sham_only = sham_only && r.dialect == "sham";
  for (const std::string& d : run.parse_error_dialects) sham_only = sham_only && d == "sham";
  if (!sham_only) GTEST_SKIP() << "not an answer of SHAM blocks only";
  std::ostringstream sham_text, sham_json, text;
  const int sham_status = sham_action_parser::RunValidateCommand(answer, /*json=*/false, sham_text);
  sham_action_parser::RunValidateCommand(answer, /*json=*/true, sham_json);
  EXPECT_EQ(RunValidateAnswer(answer, /*json=*/false, text, 50u << 20, o.settings.csl_start, o.settings.csl_end),
            sham_status);
  EXPECT_EQ(text.str(), sham_text.str());
  Json validated = ValidateJson(answer, o.settings.csl_start, o.settings.csl_end);
  for (Json& a : validated["actions"]) {
    for (const char* key : {"dialect", "label", "groupPolicy"}) a.erase(key);
  }
  for (Json& e : validated["errors"]) {
    for (const char* key : {"dialect", "label"}) e.erase(key);
  }
  EXPECT_EQ(validated, Json::parse(sham_json.str()));
}

INSTANTIATE_TEST_SUITE_P(RunTestData, ValidateKeepsShamsForm, ::testing::ValuesIn(PlanCases()),
                         [](const auto& info) { return info.param.name; });

// run vs the answer layer: what a --dry-run plans (labels, actions, lines
// and parameters in run order; refused blocks by label, code and line) against what the registry's
// readers read from the segmenter's blocks, on every answer of the run's
// test data. The answers where they differ today are listed, with why, in
// test-data/answer/read_differences.json: the gate ReadAnswer passes
// before it reads through the registry. A listed answer that stops
// differing fails too (take it off the list).
class RunMatchesReaders : public ::testing::TestWithParam<PlanCase> {};

TEST_P(RunMatchesReaders, SameActionsAndRefusals) {
  std::string answer;
  CladaOptions o;
  ExecutionResult run;
  ASSERT_TRUE(DryRunCase(GetParam().file, "clada_answer_read_", &answer, &o, &run));
  if (run.fatal_error.has_value()) GTEST_SKIP() << "fatal in a dry run: " << *run.fatal_error;
  std::vector<std::string> planned, refused_run;
  for (const ActionResult& r : run.results) {
    planned.push_back(absl::StrCat(r.block_id, " ", r.action, " line ", r.start_line, " ", r.params.dump()));
  }
  for (const auto& e : run.parse_errors) {
    refused_run.push_back(absl::StrCat(e.block_id, " ", e.error_type, " line ", e.block_start_line));
  }

  const readers::Registry registry({o.settings.csl_start, o.settings.csl_end});
  std::map<size_t, std::unique_ptr<answer::SpanReader>> reading;
  std::vector<std::string> read, refused_read;
  // As the run reads: the layer's checks of quotes, then each block.
  answer::CheckedAnswer checked;
  std::vector<answer::Segment> segments;
  answer::SegmentCheckedAnswer(answer, registry.readers(), &checked,
                               [&segments](const answer::Segment& s) { segments.push_back(s); });
  for (const answer::Segment& s : segments) {
    auto& reader = reading[s.reader];
    if (reader == nullptr) reader = registry.readers()[s.reader]->Reading(checked.text);
    const answer::ReadResult r = reader->Read(s.span);
    for (const core::Action& a : r.actions) {
      read.push_back(absl::StrCat(a.metadata.block_id, " ", a.name, " line ", a.metadata.start_line, " ",
                                  core::Json(a.params).dump()));
    }
    for (const answer::Diagnostic& d : r.diagnostics) {
      refused_read.push_back(absl::StrCat(d.label, " ", d.code, " line ", d.line));
    }
  }
  std::ifstream in("proj/test-data/answer/read_differences.json");
  const Json differ = Json::parse(in)["differ"];
  const bool same = read == planned && refused_read == refused_run;
  if (differ.contains(GetParam().name)) {
    EXPECT_FALSE(same) << GetParam().name << " agrees now: take it off read_differences.json";
  } else {
    EXPECT_EQ(read, planned);
    EXPECT_EQ(refused_read, refused_run);
  }
}

INSTANTIATE_TEST_SUITE_P(RunTestData, RunMatchesReaders, ::testing::ValuesIn(PlanCases()),
                         [](const auto& info) { return info.param.name; });

// A dry run of `answer` in a fresh directory, its text report capped at
// `budget` bytes.
ExecutionResult DryRun(const std::string& answer, int64_t budget = 100 << 10) {
  CladaOptions o;
  o.working_root = core::testing::MakeTestDir("clada_answer_run_");
  o.settings.quiet = true;
  o.settings.git = git_tx::GitOptions::Mode::kOff;
  o.settings.exec = core::ExecPolicy::kDeny;
  o.settings.report_budget_bytes = budget;
  o.dry_run = true;
  return Clada(o).Execute(answer);
}

// The refused blocks of every dialect are kept as SHAM's were: the first
// and the last whole, those between counted (an answer of a million
// refused blocks never holds a million errors). Before, only SHAM's were:
// 10,000 refused replacer blocks kept 10,000 errors.
TEST(RunReadsThroughTheLayer, RefusedBlocksOfEveryDialectAreCountedPastTheKeptOnes) {
  std::string answer;
  constexpr int kBlocks = 10000;
  for (int i = 0; i < kBlocks; ++i) absl::StrAppend(&answer, "<<<FILE>>>\na.txt\n<<<REPLACE>>>\nx\n<<<END>>>\n\n");
  const ExecutionResult run = DryRun(answer, 4 << 10);
  EXPECT_EQ(run.total_blocks, kBlocks);
  ASSERT_FALSE(run.parse_errors.empty());
  EXPECT_GT(run.left_out_skipped.blocks, 0);
  EXPECT_LT(run.parse_errors.size(), static_cast<size_t>(kBlocks) / 2);
  EXPECT_EQ(run.parse_errors.size() + static_cast<size_t>(run.left_out_skipped.blocks), static_cast<size_t>(kBlocks));
  EXPECT_EQ(run.parse_errors.front().block_id, "rep-1");
  EXPECT_EQ(run.parse_errors.back().block_id, absl::StrCat("rep-", kBlocks));
  EXPECT_EQ(run.parse_error_dialects.front(), "replacer");
}

// An apply_patch envelope of more operations than an adapter holds as
// actions (the rest packed as they are read): every one planned, in order,
// with its label and line.
TEST(RunReadsThroughTheLayer, AnEnvelopeOfManyOperationsRunsEachInOrder) {
  constexpr int kOps = 5000;
  std::string answer = "*** Begin Patch\n";
  for (int i = 0; i < kOps; ++i) absl::StrAppend(&answer, "*** Delete File: no", i, "\n");
  answer += "*** End Patch\n";
  const ExecutionResult run = DryRun(answer, 0);
  EXPECT_EQ(run.total_blocks, kOps);
  int seen = 0;
  for (const ActionResult& r : run.results) {
    ++seen;
    EXPECT_EQ(r.block_id, absl::StrCat("patch-", seen));
    EXPECT_EQ(r.start_line, seen + 1);
    EXPECT_EQ(r.action, "file_delete");
    EXPECT_EQ(r.group, seen - 1);
  }
  EXPECT_EQ(seen + run.left_out.count, kOps);
}

// A CML <tasks> block and a CSL TASKS block of over a megabyte each (their
// actions packed as they are read), after a small block of each dialect:
// every task planned in order, labelled on from the blocks before it, on
// its line, the big blocks one group each.
TEST(RunReadsThroughTheLayer, BlocksOverAMegabyteArePlannedLikeSmallOnes) {
  constexpr int kTasks = 40000;
  std::string answer = "<write path=\"a.txt\">a</write>\n<tasks>\n";
  for (int i = 0; i < kTasks; ++i) absl::StrAppend(&answer, "<write path=\"w", i, ".txt\">x</write>\n");
  answer += "</tasks>\n<---WRITE file=\"b.txt\"--->\nb\n<---END--->\n<---TASKS--->\n";
  for (int i = 0; i < kTasks; ++i) absl::StrAppend(&answer, "<---WRITE file=\"c", i, ".txt\"--->\ny\n<---END--->\n");
  answer += "<---END--->\n";
  ASSERT_GT(answer.size(), 2u << 20);
  const ExecutionResult run = DryRun(answer, 0);
  ASSERT_EQ(run.results.size(), 2u + 2 * kTasks) << (run.parse_errors.empty() ? "" : run.parse_errors[0].message);
  EXPECT_EQ(run.results[0].block_id, "task-1");
  for (int i = 0; i < kTasks; ++i) {
    const ActionResult& r = run.results[1 + i];
    ASSERT_EQ(r.block_id, absl::StrCat("task-", i + 2));
    ASSERT_EQ(r.start_line, i + 3);
    ASSERT_EQ(r.group, 1);
    ASSERT_EQ(r.group_policy, "fail_fast");
  }
  const int csl_first_line = kTasks + 4;
  EXPECT_EQ(run.results[1 + kTasks].start_line, csl_first_line);
  const std::string csl_first = run.results[1 + kTasks].block_id;
  for (int i = 0; i < kTasks; ++i) {
    const ActionResult& r = run.results[2 + kTasks + i];
    ASSERT_NE(r.block_id, csl_first);
    ASSERT_EQ(r.start_line, csl_first_line + 4 + 3 * i);
    ASSERT_EQ(r.group, 3);
    ASSERT_EQ(r.group_policy, "atomic_validation");
  }
}

// Each span is read alone; two SHAM blocks sharing an ID are still named,
// as reading the whole answer named them.
TEST(RunReadsThroughTheLayer, BlocksSharingAnIdAreNamedInTheWarnings) {
  const std::string block = "#!SHAM [@three-char-SHA-256: abc]\naction = \"file_write\"\npath = \"a.txt\"\n"
                            "content = \"x\"\n#!END_SHAM_abc\n";
  const ExecutionResult run = DryRun(block + block);
  const std::string want =
      "Block ID 'abc' is used by 2 blocks (lines 1, 6); give every block its own ID so results can be told apart";
  EXPECT_NE(std::find(run.warnings.begin(), run.warnings.end(), want), run.warnings.end())
      << absl::StrJoin(run.warnings, "\n");
}

// listen vs run: what `clada listen` hands a run (BuildRunText of the
// blocks its scan finds, the answer's other lines made empty) plans what
// `clada run` plans for the whole answer (the same labels, actions, lines,
// parameters and outcomes, the same refused blocks by label, code, line and
// message, the same warnings), on every answer of the run's test data. A
// listener whose scan missed a block, cut one short, took prose for one, or
// broke a whole-answer reading (a quoted answer) makes them differ.
std::vector<std::string> PlanOf(const ExecutionResult& r) {
  std::vector<std::string> out;
  out.push_back(absl::StrCat("blocks ", r.total_blocks, r.fatal_error ? " fatal " + *r.fatal_error : ""));
  for (const ActionResult& a : r.results) {
    out.push_back(absl::StrCat(a.block_id, " ", a.action, " lines ", a.start_line, "-", a.end_line, " ",
                               a.params.dump(), a.success ? " ok" : " failed: " + a.error, " ",
                               absl::StrJoin(a.warnings, " | ")));
  }
  for (const auto& e : r.parse_errors) {
    out.push_back(absl::StrCat("refused ", e.block_id, " ", e.error_type, " line ", e.block_start_line, ": ",
                               e.message));
  }
  for (const std::string& w : r.warnings) out.push_back("warning " + w);
  return out;
}

class ListenRunsWhatRunRuns : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ListenRunsWhatRunRuns, SamePlan) {
  std::string answer;
  CladaOptions o;
  ExecutionResult run;
  ASSERT_TRUE(DryRunCase(GetParam().file, "clada_listen_run_", &answer, &o, &run));
  readers::ReaderOptions reading;
  reading.csl_start = o.settings.csl_start;
  reading.csl_end = o.settings.csl_end;
  // What a listener finds new in the file saved with this answer (a known
  // file, nothing run yet), and the text it hands the run.
  const std::vector<listener::ScannedBlock> all = listener::ScanBlocks(answer, reading, /*with_texts=*/false);
  const std::vector<listener::ScannedBlock> fresh = listener::FindNewBlocks(answer, listener::ListenState(), reading);
  if (fresh.size() != all.size()) {
    GTEST_SKIP() << "the answer repeats a block: a listener runs it once, a run each time";
  }
  // A block the answer did not finish never runs under the listener (it is
  // said to be unfinished); the run of the whole answer refuses it.
  std::vector<listener::ScannedBlock> finished, unfinished;
  for (const listener::ScannedBlock& b : fresh) (b.closed ? finished : unfinished).push_back(b);
  const std::string run_text = listener::BuildRunText(answer, finished);
  const ExecutionResult listened = Clada(o).Execute(run_text);
  if (unfinished.empty()) {
    EXPECT_EQ(PlanOf(listened), PlanOf(run)) << "listen's run text:\n" << run_text;
    return;
  }
  auto in_unfinished = [&unfinished](int line) {
    for (const listener::ScannedBlock& b : unfinished) {
      if (line >= b.start_line && line <= b.end_line) return true;
    }
    return false;
  };
  // The same results and refusals outside the unfinished blocks, at the
  // same lines (their labels count on past the unfinished blocks in the
  // whole answer, so they are left out); inside them, the run of the whole
  // answer runs nothing.
  auto outside = [&in_unfinished](const ExecutionResult& r) {
    ExecutionResult kept;
    for (const ActionResult& a : r.results) {
      if (in_unfinished(a.start_line)) continue;
      kept.results.push_back(a);
      kept.results.back().block_id = "";
    }
    for (const auto& e : r.parse_errors) {
      if (in_unfinished(e.block_start_line)) continue;
      kept.parse_errors.push_back(e);
      kept.parse_errors.back().block_id = "";
    }
    return PlanOf(kept);
  };
  EXPECT_EQ(outside(listened), outside(run)) << "listen's run text:\n" << run_text;
  int refused_inside = 0;
  for (const ActionResult& a : run.results) {
    if (in_unfinished(a.start_line)) {
      EXPECT_FALSE(a.success) << a.block_id << " ran from an unfinished block";
    }
  }
  for (const auto& e : run.parse_errors) refused_inside += in_unfinished(e.block_start_line) ? 1 : 0;
  EXPECT_GT(refused_inside, 0) << "the run refuses no unfinished block";
}

INSTANTIATE_TEST_SUITE_P(RunTestData, ListenRunsWhatRunRuns, ::testing::ValuesIn(PlanCases()),
                         [](const auto& info) { return info.param.name; });

// dry run vs run on line numbers within one answer: answers of random line
// edits (file_replace_lines, ranges that may overlap an earlier edit's) and
// text edits of one file, each run for real and as a dry run in its own
// fresh directory; every action's verdict, error and lines_now agree, as
// both keep the batch's line record (core::AnswerLines).
std::vector<std::string> LineEditVerdicts(const std::string& answer, bool dry_run) {
  const std::string root = core::testing::MakeTestDir("clada_answer_lines_");
  std::ofstream(root + "/f.txt") << "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n";
  CladaOptions o;
  o.working_root = root;
  o.settings.quiet = true;
  o.settings.git = git_tx::GitOptions::Mode::kOff;
  o.settings.exec = core::ExecPolicy::kDeny;
  o.dry_run = dry_run;
  const ExecutionResult r = Clada(o).Execute(answer);
  std::vector<std::string> out;
  for (const ActionResult& a : r.results) {
    std::string error = a.error;
    absl::StrReplaceAll({{" (a real run would refuse this action)", ""}}, &error);
    const std::string now = a.data.is_object() ? a.data.value("lines_now", "") : "";
    out.push_back(absl::StrCat(a.block_id, " ", a.action, " ", a.success ? "ok" : "failed: ", error,
                               now.empty() ? "" : absl::StrCat(" now at ", now)));
  }
  return out;
}

TEST(DryRunMatchesRun, LineEditsOfOneAnswer) {
  uint32_t seed = 17;
  auto next = [&seed](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  };
  int refused = 0, moved = 0;
  for (int round = 0; round < 60; ++round) {
    std::string answer;
    const int blocks = 2 + static_cast<int>(next(3));
    for (int b = 0; b < blocks; ++b) {
      const std::string id = absl::StrCat("b", round % 10, b);
      if (next(3) == 0) {
        const int line = 1 + static_cast<int>(next(10));
        absl::StrAppend(&answer, "#!SHAM [@three-char-SHA-256: ", id, "]\naction = \"file_replace_text\"\npath = ",
                        "\"f.txt\"\nold_text = \"l", line, "\\n\"\nnew_text = \"x", round, "\\ny", round, "\\n\"\n#!END_SHAM_",
                        id, "\n\n");
      } else {
        const int first = 1 + static_cast<int>(next(10));
        const int last = first + static_cast<int>(next(3));
        absl::StrAppend(&answer, "#!SHAM [@three-char-SHA-256: ", id,
                        "]\naction = \"file_replace_lines\"\npath = \"f.txt\"\nlines = \"", first, "-", last,
                        "\"\nnew_content = \"", std::string(1 + next(3), 'n'), "\"\n#!END_SHAM_", id, "\n\n");
      }
    }
    const std::vector<std::string> run = LineEditVerdicts(answer, false);
    EXPECT_EQ(LineEditVerdicts(answer, true), run) << answer;
    for (const std::string& v : run) {
      if (v.find("lines_changed_by_earlier_edit") != std::string::npos) ++refused;
      if (v.find(" now at ") != std::string::npos) ++moved;
    }
  }
  // The answers exercise both: edits refused for an earlier edit's lines,
  // and edits moved below one.
  EXPECT_GT(refused, 0);
  EXPECT_GT(moved, 0);
}

// dry run vs run on a failed edit's error, in every dialect: the fix is
// phrased in the block's own words in both (the dry run told a
// SEARCH/REPLACE block SHAM's fix, or none, where the run told it its own).
// The same text, but for the dry run's note that a real run would refuse
// the action.
std::string FailedEditError(const std::string& answer, bool dry_run) {
  CladaOptions o;
  o.working_root = core::testing::MakeTestDir("clada_answer_fix_");
  std::ofstream(o.working_root + "/a.txt") << "x\ny\nx\n";
  o.settings.quiet = true;
  o.settings.git = git_tx::GitOptions::Mode::kOff;
  o.settings.exec = core::ExecPolicy::kDeny;
  o.dry_run = dry_run;
  const ExecutionResult r = Clada(o).Execute(answer);
  if (r.results.size() != 1 || r.results[0].success) return "expected one failed action";
  std::string error = r.results[0].error;
  if (dry_run) {
    const std::string note = " (a real run would refuse this action)";
    if (!absl::EndsWith(error, note)) return "the dry run's error does not end in its note: " + error;
    error.resize(error.size() - note.size());
  }
  return absl::StrCat(r.results[0].code, " ", error);
}

TEST(DryRunMatchesRun, AFailedEditIsPhrasedInItsDialectsWords) {
  const std::vector<std::pair<std::string, std::string>> answers = {
      {"sham", "#!SHAM [@three-char-SHA-256: m01]\naction = \"file_replace_text\"\npath = \"a.txt\"\n"
               "old_text = \"x\"\nnew_text = \"z\"\n#!END_SHAM_m01\n"},
      {"search_replace", "a.txt\n```\n<<<<<<< SEARCH\nx\n=======\nz\n>>>>>>> REPLACE\n```\n"},
      {"cml", "<edit path=\"a.txt\"><search><![CDATA[x]]></search><replace><![CDATA[z]]></replace></edit>\n"},
      {"csl", "<---SEARCH file=\"a.txt\"--->\nx\n<---REPLACE--->\nz\n<---END--->\n"},
      {"replacer", "<<<FILE>>>\na.txt\n<<<SEARCH>>>\nx\n<<<REPLACE>>>\nz\n<<<END>>>\n"},
      {"apply_patch", "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+z\n*** End Patch\n"},
      {"udiff", "```diff\n--- a/nope.txt\n+++ b/nope.txt\n@@ -1,1 +1,1 @@\n-x\n+z\n```\n"},
  };
  for (const auto& [dialect, answer] : answers) {
    const std::string run = FailedEditError(answer, false);
    EXPECT_EQ(FailedEditError(answer, true), run) << dialect;
  }
}

// listen vs run on line numbers across batches: an answer saved in pieces
// while it was written runs under `clada listen` in several batches (the
// blocks each save finished); they continue one answer (ContinuesAnswer),
// so the run keeps the answer's line record across them
// (CladaOptions::answer_lines, as `clada listen` does) and a later batch's
// line edit numbers the file as the model read it, before the answer. The
// final file and every action's verdict equal one `clada run` of the whole
// answer. Answers of random line edits, text edits adding lines and
// SEARCH/REPLACE blocks of one file, split at random block boundaries, a
// save sometimes ending inside the next block's first line.
struct Verdicts {
  std::string file;
  std::vector<std::string> actions;
};

std::string AFileOfTwelveLines() {
  std::string text;
  for (int i = 1; i <= 12; ++i) absl::StrAppend(&text, "l", i, "\n");
  return text;
}

CladaOptions RealRunIn(const std::string& root) {
  CladaOptions o;
  o.working_root = root;
  o.settings.quiet = true;
  o.settings.git = git_tx::GitOptions::Mode::kOff;
  o.settings.exec = core::ExecPolicy::kDeny;
  return o;
}

void AddVerdicts(const ExecutionResult& r, Verdicts* v) {
  for (const ActionResult& a : r.results) {
    const std::string now = a.data.is_object() ? a.data.value("lines_now", "") : "";
    // A SEARCH/REPLACE block's label counts the blocks of its run.
    const std::string label = absl::StartsWith(a.block_id, "sr-") ? "sr" : a.block_id;
    v->actions.push_back(absl::StrCat(label, " ", a.action, " ", a.success ? "ok" : "failed ", a.code,
                                      now.empty() ? "" : " now at " + now));
  }
  for (const auto& e : r.parse_errors) v->actions.push_back(absl::StrCat("refused ", e.block_id, " ", e.error_type));
}

Verdicts RunWhole(const std::string& answer) {
  const std::string root = core::testing::MakeTestDir("clada_listen_whole_");
  std::ofstream(root + "/f.txt") << AFileOfTwelveLines();
  Verdicts v;
  AddVerdicts(Clada(RealRunIn(root)).Execute(answer), &v);
  std::ifstream in(root + "/f.txt");
  v.file.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return v;
}

// `saves`: FILE's successive texts. `answers`: the answer number of each batch run.
Verdicts RunInBatches(const std::vector<std::string>& saves, std::vector<int>* answers) {
  const std::string root = core::testing::MakeTestDir("clada_listen_batches_");
  std::ofstream(root + "/f.txt") << AFileOfTwelveLines();
  Verdicts v;
  listener::ListenState state;
  std::optional<listener::AnswerMark> mark;
  core::AnswerLines lines;
  int answer = 0;
  for (const std::string& text : saves) {
    std::vector<listener::ScannedBlock> finished;
    for (const listener::ScannedBlock& b : listener::FindNewBlocks(text, state)) {
      if (b.closed) finished.push_back(b);
    }
    if (finished.empty()) continue;
    if (!mark || !listener::ContinuesAnswer(*mark, text, finished.front().start_line)) {
      ++answer;
      lines = core::AnswerLines();
    }
    answers->push_back(answer);
    mark = listener::MarkAnswer(text);
    for (const listener::ScannedBlock& b : finished) state.MarkRun(b.key);
    CladaOptions o = RealRunIn(root);
    o.answer_lines = &lines;
    AddVerdicts(Clada(o).Execute(listener::BuildRunText(text, finished)), &v);
  }
  std::ifstream in(root + "/f.txt");
  v.file.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return v;
}

TEST(ListenBatchesRunWhatRunRuns, TheTaskCase) {
  // The first block adds a line within lines 1-2; the second, saved after
  // the first ran, replaces line 10 as the model read it (now line 11).
  const std::string first =
      "#!SHAM [@three-char-SHA-256: t01]\naction = \"file_replace_lines\"\npath = \"f.txt\"\nlines = \"1-2\"\n"
      "new_content = \"one\\ntwo\\nthree\"\n#!END_SHAM_t01\n";
  const std::string second =
      "#!SHAM [@three-char-SHA-256: t02]\naction = \"file_replace_lines\"\npath = \"f.txt\"\nlines = \"10\"\n"
      "new_content = \"ten\"\n#!END_SHAM_t02\n";
  std::vector<int> answers;
  const Verdicts batches = RunInBatches({first, first + second}, &answers);
  const Verdicts whole = RunWhole(first + second);
  EXPECT_EQ(answers, (std::vector<int>{1, 1}));
  EXPECT_EQ(batches.file, whole.file);
  EXPECT_EQ(batches.actions, whole.actions);
  EXPECT_EQ(whole.file, "one\ntwo\nthree\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nten\nl11\nl12\n");
}

TEST(ListenBatchesRunWhatRunRuns, AnswersSplitAtRandomBlockBoundaries) {
  uint32_t seed = 36;
  auto next = [&seed](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  };
  int mapped_across_batches = 0, refused = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> blocks;
    const int count = 2 + static_cast<int>(next(4));
    for (int b = 0; b < count; ++b) {
      const std::string id = absl::StrCat("r", round % 10, b);
      const uint32_t kind = next(4);
      if (kind == 0) {
        const int line = 1 + static_cast<int>(next(12));
        blocks.push_back(absl::StrCat("#!SHAM [@three-char-SHA-256: ", id, "]\naction = \"file_replace_text\"\n",
                                      "path = \"f.txt\"\nold_text = \"l", line, "\\n\"\nnew_text = \"x", round,
                                      "\\ny", round, "\\n\"\n#!END_SHAM_", id, "\n"));
      } else if (kind == 1) {
        const int line = 1 + static_cast<int>(next(12));
        blocks.push_back(absl::StrCat("Then:\n\nf.txt\n```\n<<<<<<< SEARCH\nl", line, "\n=======\ns", id, "\nt",
                                      id, "\nu", id, "\n>>>>>>> REPLACE\n```\n"));
      } else {
        const int first = 1 + static_cast<int>(next(12));
        const int last = first + static_cast<int>(next(3));
        blocks.push_back(absl::StrCat("#!SHAM [@three-char-SHA-256: ", id,
                                      "]\naction = \"file_replace_lines\"\npath = \"f.txt\"\nlines = \"", first, "-",
                                      last, "\"\nnew_content = \"", std::string(1 + next(3), 'n'), "\"\n#!END_SHAM_",
                                      id, "\n"));
      }
    }
    // Saves at random block boundaries; some end inside the next block's
    // first line (the model still writing it).
    std::vector<std::string> saves;
    std::string text;
    for (size_t b = 0; b < blocks.size(); ++b) {
      text += blocks[b];
      if (b + 1 < blocks.size() && next(2) == 0) continue;
      std::string saved = text;
      if (b + 1 < blocks.size() && next(2) == 0) saved += blocks[b + 1].substr(0, blocks[b + 1].find('\n') + 1);
      saves.push_back(saved);
    }
    std::vector<int> answers;
    const Verdicts batches = RunInBatches(saves, &answers);
    const Verdicts whole = RunWhole(text);
    EXPECT_EQ(batches.file, whole.file) << text;
    EXPECT_EQ(batches.actions, whole.actions) << text;
    EXPECT_EQ(answers, std::vector<int>(answers.size(), 1)) << "one answer, added to only";
    if (answers.size() > 1) {
      for (const std::string& a : whole.actions) {
        if (a.find(" now at ") != std::string::npos) ++mapped_across_batches;
        if (a.find("lines_changed_by_earlier_edit") != std::string::npos) ++refused;
      }
    }
  }
  // The answers exercise the record across batches: line edits moved below
  // an earlier batch's edit, and refused on its lines.
  EXPECT_GT(mapped_across_batches, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace clada
