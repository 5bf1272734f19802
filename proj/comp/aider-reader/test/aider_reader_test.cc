// Runs test-data/aider_reader.json: each case's text is read and the edits
// (path, SEARCH, REPLACE, lines), shell fences, errors and actions compared.
#include "proj/comp/aider-reader/src/aider_reader.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/test/span_testing.h"

namespace clada::aider_reader {
namespace {

using nlohmann::json;

std::vector<json> LoadCases() {
  std::ifstream in("proj/comp/aider-reader/test-data/aider_reader.json");
  EXPECT_TRUE(in.good()) << "cannot open test-data/aider_reader.json";
  if (!in.good()) return {};
  return json::parse(in).at("cases").get<std::vector<json>>();
}

void ExpectContains(const std::string& haystack, const json& parts, const std::string& what) {
  for (const json& p : parts) {
    EXPECT_TRUE(absl::StrContains(haystack, p.get<std::string>()))
        << what << " lacks '" << p.get<std::string>() << "':\n" << haystack;
  }
}

class ReaderCases : public ::testing::TestWithParam<json> {};

TEST_P(ReaderCases, Reads) {
  const json& c = GetParam();
  const std::string text = c.at("text").get<std::string>();
  const Blocks b = ReadBlocks(text);

  const json edits = c.value("edits", json::array());
  ASSERT_EQ(b.edits.size(), edits.size()) << (b.errors.empty() ? "" : b.errors[0].message);
  for (size_t k = 0; k < edits.size(); ++k) {
    const Edit& got = b.edits[k];
    const json& e = edits[k];
    EXPECT_EQ(got.path, e.at("path").get<std::string>());
    EXPECT_EQ(got.search, e.at("search").get<std::string>());
    EXPECT_EQ(got.replace, e.at("replace").get<std::string>());
    if (e.contains("lines")) {
      EXPECT_EQ(got.span.first_line, e["lines"][0].get<int>());
      EXPECT_EQ(got.span.last_line, e["lines"][1].get<int>());
    }
    if (e.contains("path_line")) {
      EXPECT_EQ(got.path_line, e["path_line"].get<int>());
    }
    if (e.contains("number")) {
      EXPECT_EQ(got.number, e["number"].get<int>());
    }
  }

  const json errors = c.value("errors", json::array());
  ASSERT_EQ(b.errors.size(), errors.size()) << (b.errors.empty() ? "" : b.errors[0].message);
  for (size_t k = 0; k < errors.size(); ++k) {
    const ParseError& got = b.errors[k];
    EXPECT_EQ(got.code, errors[k].at("code").get<std::string>());
    EXPECT_EQ(got.line, errors[k].at("line").get<int>());
    EXPECT_EQ(got.span.first_line, got.line);
    if (errors[k].contains("number")) {
      EXPECT_EQ(got.number, errors[k]["number"].get<int>());
    }
    EXPECT_FALSE(got.message.empty());
    EXPECT_FALSE(got.fix.empty());
    ExpectContains(got.message, errors[k].value("message_contains", json::array()), "message");
    ExpectContains(got.fix, errors[k].value("fix_contains", json::array()), "fix");
  }

  std::vector<std::string> shell;
  for (const ShellBlock& s : b.shell) shell.push_back(s.text);
  EXPECT_EQ(shell, c.value("shell", std::vector<std::string>{}));

  // Spans: line boundaries, in order, as FindBlocks gives them.
  const std::vector<SourceSpan> spans = FindBlocks(text);
  ASSERT_EQ(spans.size(), b.edits.size() + b.errors.size());
  size_t previous_end = 0;
  for (const SourceSpan& s : spans) {
    EXPECT_LE(previous_end, s.begin);
    EXPECT_TRUE(s.begin == 0 || text[s.begin - 1] == '\n');
    EXPECT_TRUE(s.end == text.size() || text[s.end - 1] == '\n');
    EXPECT_EQ(std::count(text.begin(), text.begin() + s.begin, '\n') + 1, s.first_line);
    previous_end = s.end;
  }

  if (!c.contains("actions")) return;
  const std::vector<core::Action> actions = ToActions(b);
  ASSERT_EQ(actions.size(), c["actions"].size());
  for (size_t k = 0; k < actions.size(); ++k) {
    const json& e = c["actions"][k];
    EXPECT_EQ(actions[k].name, e.at("name").get<std::string>());
    if (e.contains("block_id")) {
      EXPECT_EQ(actions[k].metadata.block_id, e["block_id"].get<std::string>());
    }
    EXPECT_EQ(actions[k].metadata.start_line, b.edits[k].span.first_line);
    EXPECT_EQ(actions[k].metadata.end_line, b.edits[k].span.last_line);
    if (e.contains("params")) {
      EXPECT_EQ(json::parse(actions[k].params.dump()), e["params"]);
    }
    if (e.contains("line_params")) {
      EXPECT_EQ(actions[k].line_params, e["line_params"].get<std::vector<std::string>>());
    }
    // Every block runs as a SEARCH/REPLACE block: a replace with Aider's
    // tolerances and file-name resolution; an append (which may create a
    // file, and never moves to another path) is already applied when the
    // file holds exactly its text (a re-sent answer).
    const bool append = actions[k].name == "file_append";
    EXPECT_EQ(actions[k].edit_options.tolerant_match, !append);
    EXPECT_EQ(actions[k].edit_options.find_file_by_name, !append);
    EXPECT_EQ(actions[k].edit_options.append_once, append);
    const std::string warnings = absl::StrJoin(actions[k].warnings, "\n");
    if (e.contains("warnings_contain")) {
      ExpectContains(warnings, e["warnings_contain"], "warnings");
    } else {
      EXPECT_TRUE(warnings.empty()) << warnings;
    }
  }
}

// Edits handed on as they are read are the edits ReadBlocks keeps; the
// errors and shell blocks are kept as before.
TEST_P(ReaderCases, StreamedEditsAreTheEditsRead) {
  const json& c = GetParam();
  const std::string text = c.at("text").get<std::string>();
  const Blocks kept = ReadBlocks(text);
  std::vector<Edit> streamed;
  const Blocks rest = ReadBlocks(text, [&streamed](Edit&& e) { streamed.push_back(std::move(e)); });
  EXPECT_TRUE(rest.edits.empty());
  ASSERT_EQ(streamed.size(), kept.edits.size());
  for (size_t k = 0; k < streamed.size(); ++k) {
    EXPECT_EQ(streamed[k].number, kept.edits[k].number);
    EXPECT_EQ(streamed[k].path, kept.edits[k].path);
    EXPECT_EQ(streamed[k].search, kept.edits[k].search);
    EXPECT_EQ(streamed[k].replace, kept.edits[k].replace);
    EXPECT_EQ(streamed[k].path_line, kept.edits[k].path_line);
    EXPECT_EQ(streamed[k].span.begin, kept.edits[k].span.begin);
    EXPECT_EQ(streamed[k].span.end, kept.edits[k].span.end);
  }
  ASSERT_EQ(rest.errors.size(), kept.errors.size());
  for (size_t k = 0; k < rest.errors.size(); ++k) EXPECT_EQ(rest.errors[k].code, kept.errors[k].code);
  EXPECT_EQ(rest.shell.size(), kept.shell.size());
}

// A piece of an answer read with its origin and the path carried from the
// block before (ReadOptions) gives what the same piece gives after as many
// lines as stand before it, the last of them the carried path (how the
// readers' adapter read each block span before): the same edits, errors,
// shell fences, lines and messages, and its bytes the answer's.
TEST_P(ReaderCases, BasedReadEqualsPaddedRead) {
  const std::string whole = GetParam().at("text").get<std::string>();
  constexpr int kLine = 41;       // the piece's first line in its answer
  constexpr size_t kByte = 5000;  // and its first byte
  for (const std::string carried : {"", "src/carried.py"}) {
    SCOPED_TRACE(carried);
    // A path is carried to a span that starts at its `<<<<<<< SEARCH` (a
    // block naming no path): the piece from the first one.
    std::string text = whole;
    if (!carried.empty()) {
      size_t at = 0;
      while (at < whole.size()) {
        const size_t nl = whole.find('\n', at);
        const size_t next = nl == std::string::npos ? whole.size() : nl + 1;
        if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(whole.substr(at, next - at)), "<<<<<")) break;
        at = next;
      }
      if (at >= whole.size()) continue;
      text = whole.substr(at);
    }
    const std::string padded =
        carried.empty() ? std::string(kLine - 1, '\n') + text : std::string(kLine - 2, '\n') + carried + "\n" + text;
    const size_t shift = padded.size() - text.size();  // the padding's bytes
    std::vector<Edit> padded_edits, based_edits;
    const Blocks p = ReadBlocks(padded, [&](Edit&& e) { padded_edits.push_back(std::move(e)); });
    const Blocks b =
        ReadBlocks(text, ReadOptions{kLine, kByte, carried}, [&](Edit&& e) { based_edits.push_back(std::move(e)); });
    auto same_span = [&](const SourceSpan& based, const SourceSpan& padded) {
      core::testing::ExpectSameSpanWithBase(based, padded, kByte, shift);
    };
    ASSERT_EQ(based_edits.size(), padded_edits.size());
    for (size_t k = 0; k < based_edits.size(); ++k) {
      const Edit& be = based_edits[k];
      const Edit& pe = padded_edits[k];
      EXPECT_EQ(be.number, pe.number);
      EXPECT_EQ(be.path, pe.path);
      EXPECT_EQ(be.search, pe.search);
      EXPECT_EQ(be.replace, pe.replace);
      EXPECT_EQ(be.warnings, pe.warnings);
      same_span(be.span, pe.span);
      // A path carried from the block before was written on no line of the
      // piece (the padded read found it on the padding's last line).
      EXPECT_EQ(be.path_line, pe.path_line == kLine - 1 ? 0 : pe.path_line);
      const core::Action ba = ToAction(be), pa = ToAction(pe);
      EXPECT_EQ(ba.name, pa.name);
      EXPECT_EQ(ba.params.dump(), pa.params.dump());
      EXPECT_EQ(ba.metadata.start_line, pa.metadata.start_line);
      EXPECT_EQ(ba.metadata.end_line, pa.metadata.end_line);
      EXPECT_EQ(ba.warnings, pa.warnings);
    }
    ASSERT_EQ(b.errors.size(), p.errors.size());
    for (size_t k = 0; k < b.errors.size(); ++k) {
      EXPECT_EQ(b.errors[k].number, p.errors[k].number);
      EXPECT_EQ(b.errors[k].code, p.errors[k].code);
      EXPECT_EQ(b.errors[k].line, p.errors[k].line);
      EXPECT_EQ(b.errors[k].message, p.errors[k].message);
      EXPECT_EQ(b.errors[k].fix, p.errors[k].fix);
      same_span(b.errors[k].span, p.errors[k].span);
    }
    ASSERT_EQ(b.shell.size(), p.shell.size());
    for (size_t k = 0; k < b.shell.size(); ++k) {
      EXPECT_EQ(b.shell[k].text, p.shell[k].text);
      same_span(b.shell[k].span, p.shell[k].span);
    }
  }
}

// The carried path is what a read of the whole answer reuses: a block
// after prose that names no path takes the path of the block before.
TEST(AiderReader, CarriedPathIsTheWholeAnswersPath) {
  const std::string first = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
  const std::string second = "Then this:\n<<<<<<< SEARCH\nu\n=======\nv\n>>>>>>> REPLACE\n";
  const Blocks whole = ReadBlocks(first + second);
  ASSERT_EQ(whole.edits.size(), 2u);
  std::vector<Edit> based;
  const Blocks rest =
      ReadBlocks(second, ReadOptions{7, first.size(), "a.py"}, [&](Edit&& e) { based.push_back(std::move(e)); });
  EXPECT_TRUE(rest.errors.empty());
  ASSERT_EQ(based.size(), 1u);
  EXPECT_EQ(based[0].path, whole.edits[1].path);
  EXPECT_EQ(based[0].path_line, 0);
  EXPECT_EQ(based[0].span.first_line, whole.edits[1].span.first_line);
  EXPECT_EQ(based[0].span.last_line, whole.edits[1].span.last_line);
  EXPECT_EQ(based[0].span.begin, whole.edits[1].span.begin);
  EXPECT_EQ(based[0].span.end, whole.edits[1].span.end);
  // Without it, the block names no file.
  const Blocks alone = ReadBlocks(second, ReadOptions{7, first.size()}, [](Edit&&) {});
  ASSERT_EQ(alone.errors.size(), 1u);
  EXPECT_EQ(alone.errors[0].code, "missing_path");
  EXPECT_EQ(alone.errors[0].line, 8);
}

INSTANTIATE_TEST_SUITE_P(TestData, ReaderCases, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<json>& info) {
                           return info.param.at("name").get<std::string>();
                         });

// Odd inputs: no crash, spans inside the text.
TEST(AiderReader, OddInputs) {
  const std::string texts[] = {"", "\n", "<<<<<<< SEARCH", "a\n<<<<<<< SEARCH\n=======", "```bash",
                               "```sh\n<<<<<<< SEARCH\n", "=======\n>>>>>>> REPLACE\n", "\r\n\r\n"};
  for (const std::string& t : texts) {
    for (const SourceSpan& s : FindBlocks(t)) {
      EXPECT_LE(s.begin, s.end) << t;
      EXPECT_LE(s.end, t.size()) << t;
    }
  }
}

// The prompt's examples are blocks clada reads: an edit and a new file,
// no error; and it names what a model needs to know.
TEST(SearchReplaceInstructions, ExamplesReadWithoutErrors) {
  const std::string prompt = SearchReplaceInstructions();
  const Blocks b = ReadBlocks(prompt);
  for (const ParseError& e : b.errors) ADD_FAILURE() << e.message;
  ASSERT_EQ(b.edits.size(), 2u);
  EXPECT_EQ(b.edits[0].path, "src/greet.py");
  EXPECT_EQ(b.edits[0].search, "def greet():\n    print(\"hello\")\n");
  EXPECT_EQ(b.edits[1].path, "new/config.json");
  EXPECT_EQ(b.edits[1].search, "");
  for (const char* word : {"<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "exactly once", "sr-1", "empty SEARCH"}) {
    EXPECT_TRUE(absl::StrContains(prompt, word)) << word;
  }
}

}  // namespace
}  // namespace clada::aider_reader
