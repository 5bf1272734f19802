// clada's actions as MCP tools (proj/src/mcp_adapter.h): the tool list
// against the schema, argument checks, roots, and calls through the engine
// on real files: path escapes refused with nothing written, one git commit
// a call. The protocol itself is //proj/comp/mcp's; the real client is
// //proj/comp/mcp:sdk_client_test.
#include "proj/src/mcp_adapter.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/sham-action-parser/src/sham_action_parser.h"
#include "proj/test/test_util.h"

namespace clada {
namespace {

using testing::MakeTempDir;
using testing::ReadAll;

const sham_action_parser::ActionDefinition& Def(const std::string& name) {
  const sham_action_parser::ActionDefinition* d = sham_action_parser::FindAction(name);
  EXPECT_NE(d, nullptr) << name;
  return *d;
}

TEST(McpTools, EveryLlmActionIsAToolWithItsSchema) {
  McpServerOptions options;
  options.root = MakeTempDir("clada_mcp_");
  mcp::ToolRegistry tools = MakeCladaTools(options);
  int actions = 0;
  for (const auto& def : sham_action_parser::LoadedSchema().actions) {
    const mcp::Tool* tool = tools.Find(def.name);
    if (!def.IsLlmAccessible()) {
      EXPECT_EQ(tool, nullptr) << def.name << " is not the LLM's";
      continue;
    }
    ++actions;
    ASSERT_NE(tool, nullptr) << def.name;
    EXPECT_EQ(tool->description, def.description);
    EXPECT_EQ(tool->input_schema["type"], "object");
    EXPECT_EQ(tool->input_schema["additionalProperties"], false);
    for (const auto& p : def.parameters) {
      ASSERT_TRUE(tool->input_schema["properties"].contains(p.name)) << def.name << "." << p.name;
      const core::Json& s = tool->input_schema["properties"][p.name];
      const bool required = tool->input_schema.contains("required") &&
                            std::find(tool->input_schema["required"].begin(), tool->input_schema["required"].end(),
                                      p.name) != tool->input_schema["required"].end();
      EXPECT_EQ(required, p.required) << def.name << "." << p.name;
      if (p.type == sham_action_parser::ParamType::kEnum) {
        EXPECT_EQ(s["enum"], core::Json(p.values));
      }
    }
  }
  EXPECT_GT(actions, 20);
  EXPECT_EQ(tools.Find("exec")->input_schema["properties"]["lang"]["enum"][0], "bash");
  EXPECT_TRUE(tools.Find("file_read")->output_schema.has_value());
  EXPECT_FALSE(tools.Find("context_clear")->output_schema.has_value());
  for (const char* extra : {"apply_answer", "dir_tree", "file_info", "allowed_roots", "file_read_media"}) {
    EXPECT_NE(tools.Find(extra), nullptr) << extra;
  }
}

// Every tool gives the three hints a client reads (omitted, destructiveHint
// and openWorldHint mean true), and each is what the tool does.
TEST(McpTools, AnnotationsAreExplicitAndExact) {
  McpServerOptions options;
  options.root = MakeTempDir("clada_mcp_");
  mcp::ToolRegistry tools = MakeCladaTools(options);
  for (const mcp::Tool& tool : tools.tools()) {
    for (const char* hint : {"readOnlyHint", "destructiveHint", "openWorldHint"}) {
      ASSERT_TRUE(tool.annotations.is_object() && tool.annotations.contains(hint) &&
                  tool.annotations[hint].is_boolean())
          << tool.name << " lacks " << hint << ": " << tool.annotations;
    }
    const sham_action_parser::ActionDefinition* def = sham_action_parser::FindAction(tool.name);
    if (def != nullptr && def->type == "read") {
      EXPECT_EQ(tool.annotations["readOnlyHint"], true) << tool.name;
      EXPECT_EQ(tool.annotations["destructiveHint"], false) << tool.name;
      EXPECT_EQ(tool.annotations["openWorldHint"], false) << tool.name;
    }
    if (def != nullptr && def->type == "write") {
      EXPECT_EQ(tool.annotations["readOnlyHint"], false) << tool.name;
      EXPECT_EQ(tool.annotations["openWorldHint"], false) << tool.name;
    }
  }
  // {readOnly, destructive, openWorld}
  const std::map<std::string, std::array<bool, 3>> expected = {
      {"exec", {false, true, true}},          {"apply_answer", {false, true, true}},
      {"file_write", {false, true, false}},   {"file_delete", {false, true, false}},
      {"file_append", {false, false, false}}, {"dir_create", {false, false, false}},
      {"context_list", {true, false, false}}, {"context_clear", {false, true, false}},
      {"context_add", {false, false, false}}, {"grep", {true, false, false}},
  };
  for (const auto& [name, hints] : expected) {
    const mcp::Tool* tool = tools.Find(name);
    ASSERT_NE(tool, nullptr) << name;
    EXPECT_EQ(tool->annotations["readOnlyHint"], hints[0]) << name;
    EXPECT_EQ(tool->annotations["destructiveHint"], hints[1]) << name;
    EXPECT_EQ(tool->annotations["openWorldHint"], hints[2]) << name;
  }
}

TEST(McpArguments, TypesRequiredUnknownAndDefaults) {
  core::Json params;
  EXPECT_EQ(ArgumentsToParams(Def("dir_delete"), {{"path", "d"}}, &params), "");
  EXPECT_EQ(params["recursive"], false);  // the schema's default
  EXPECT_EQ(ArgumentsToParams(Def("exec"), {{"code", "true"}, {"lang", "bash"}, {"timeout", 5.0}}, &params), "");
  EXPECT_TRUE(params["timeout"].is_number_integer());
  EXPECT_EQ(ArgumentsToParams(Def("file_write"), {{"path", 3}, {"contents", "x"}}, &params),
            "invalid arguments for file_write: path must be a string, got an integer; unknown parameter "
            "'contents' (file_write takes path, content); content is required");
  std::string e = ArgumentsToParams(Def("exec"), {{"code", "x"}, {"lang", "perl"}}, &params);
  EXPECT_TRUE(absl::StrContains(e, "lang must be one of bash, sh, python, javascript, ruby, got 'perl'")) << e;
  e = ArgumentsToParams(Def("dir_delete"), {{"path", "d"}, {"recursive", "yes"}}, &params);
  EXPECT_TRUE(absl::StrContains(e, "recursive must be a boolean")) << e;
  e = ArgumentsToParams(Def("file_replace_all_text"),
                        {{"path", "a"}, {"old_text", "x"}, {"new_text", "y"}, {"count", 1.5}}, &params);
  EXPECT_TRUE(absl::StrContains(e, "count must be an integer, got a number")) << e;
}

TEST(McpRoots, ClientRootsReplaceTheServersOrAreIntersectedWithAllow) {
  McpServerOptions options;
  options.root = MakeTempDir("clada_mcp_root_");
  const std::string other = MakeTempDir("clada_mcp_other_");
  ASSERT_EQ(::mkdir((other + "/sub").c_str(), 0755), 0);
  // No client roots: the server's.
  EXPECT_EQ(*EffectiveRoots(options, std::nullopt), std::vector<std::string>{options.root});
  EXPECT_EQ(*EffectiveRoots(options, std::vector<std::string>{}), std::vector<std::string>{options.root});
  // Without --allow, the client's roots are the roots; one that does not exist is dropped.
  EXPECT_EQ(*EffectiveRoots(options, std::vector<std::string>{other, "/no/such/dir"}), std::vector<std::string>{other});
  // With --allow, only what lies inside --root or --allow.
  options.settings.allow = {other + "/sub"};
  EXPECT_EQ(*EffectiveRoots(options, std::vector<std::string>{other}), std::vector<std::string>{other + "/sub"});
  EXPECT_EQ(*EffectiveRoots(options, std::vector<std::string>{options.root + "/", other + "/sub"}),
            (std::vector<std::string>{options.root, other + "/sub"}));
  absl::StatusOr<std::vector<std::string>> none = EffectiveRoots(options, std::vector<std::string>{"/usr"});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::StartsWith(none.status().message(), "path_escape: none of the client's roots")) << none.status();
}

class McpCall : public ::testing::Test {
 protected:
  void SetUp() override {
    parent_ = MakeTempDir("clada_mcp_call_");
    root_ = parent_ + "/proj";
    ASSERT_EQ(::mkdir(root_.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((root_ + "-evil").c_str(), 0755), 0);  // a sibling whose name starts with the root's
    options_.root = root_;
    options_.settings.quiet = true;
    options_.settings.git = git_tx::GitOptions::Mode::kOff;
    tools_ = MakeCladaTools(options_);
  }
  mcp::ToolResult Call(const std::string& tool, core::Json arguments) {
    mcp::ToolCall call;
    call.arguments = std::move(arguments);
    const mcp::Tool* t = tools_.Find(tool);
    EXPECT_NE(t, nullptr) << tool;
    return t->call(call);
  }
  static std::string Text(const mcp::ToolResult& r) { return r.content[0].value("text", ""); }

  std::string parent_, root_;
  McpServerOptions options_;
  mcp::ToolRegistry tools_;
};

// A failed call's fix is said in the tools' own words (SHAM's: the tools
// are its actions); the executor's message names no dialect's.
TEST_F(McpCall, AFixIsSaidInTheToolsWords) {
  ASSERT_FALSE(Call("file_write", {{"path", "a.txt"}, {"content", "x\ny\nx\n"}}).is_error);
  mcp::ToolResult twice = Call("file_replace_text", {{"path", "a.txt"}, {"old_text", "x"}, {"new_text", "z"}});
  EXPECT_TRUE(twice.is_error);
  EXPECT_TRUE(absl::StrContains(Text(twice), "file_replace_all_text")) << Text(twice);
  mcp::ToolResult missing = Call("file_replace_text", {{"path", "nope.txt"}, {"old_text", "x"}, {"new_text", "z"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_TRUE(absl::StrContains(Text(missing), "Create it with file_write")) << Text(missing);
}

// Every failed call carries its error's code in the result's _meta
// (mcp::kMetaErrorCode), the executors' codes: a client tells a bad
// argument from a missing file or an edit that matched twice without
// reading the text. Before, an argument error had none.
TEST_F(McpCall, EveryErrorCarriesItsCode) {
  ASSERT_FALSE(Call("file_write", {{"path", "a.txt"}, {"content", "x\ny\nx\n"}}).is_error);
  ASSERT_EQ(::mkdir((root_ + "/d").c_str(), 0755), 0);
  const std::vector<std::tuple<std::string, core::Json, std::string>> calls = {
      {"file_write", {{"path", "b.txt"}, {"content", "x"}, {"colour", "red"}}, "invalid_params"},
      {"file_write", {{"path", 7}, {"content", "x"}}, "invalid_params"},
      {"file_write", {{"path", "../proj-evil/x.txt"}, {"content", "x"}}, "path_escape"},
      {"file_replace_text", {{"path", "a.txt"}, {"old_text", "x"}, {"new_text", "z"}}, "match_count_mismatch"},
      {"file_replace_text", {{"path", "nope.txt"}, {"old_text", "x"}, {"new_text", "z"}}, "not_found"},
      {"apply_answer", core::Json::object(), "invalid_params"},
      {"apply_answer", {{"text", "x"}, {"dry_run", "yes"}}, "invalid_params"},
      {"edit_file", {{"path", "a.txt"}}, "invalid_params"},
      {"edit_file", {{"path", "a.txt"}, {"edits", {{{"old_text", "x"}}}}}, "invalid_params"},
      {"edit_file", {{"path", "a.txt"}, {"edits", {{{"old_text", "q"}, {"new_text", "z"}}}}}, "search_not_found"},
      {"edit_file", {{"path", "a.txt"}, {"edits", {{{"old_text", "x"}, {"new_text", "z"}}}}}, "match_count_mismatch"},
      {"edit_file",
       {{"path", "../proj-evil/a.txt"}, {"edits", {{{"old_text", "x"}, {"new_text", "z"}}}}},
       "path_escape"},
      {"dir_tree", {{"path", "a.txt"}}, "failed_precondition"},
      {"dir_tree", {{"path", "."}, {"exclude_patterns", "*.log"}}, "invalid_params"},
      {"dir_tree", {{"path", "../proj-evil"}}, "path_escape"},
      {"file_info", {{"path", "nope.txt"}}, "not_found"},
      {"file_info", core::Json::object(), "invalid_params"},
      {"file_read_media", {{"path", "a.txt"}}, "invalid_params"},
      {"file_read_media", {{"path", "nope.png"}}, "not_found"},
      {"undo_batch", core::Json::object(), "failed_precondition"},
      {"apply_answer",
       {{"text", "a.txt\n```\n<<<<<<< SEARCH\nx\n=======\nz\n>>>>>>> REPLACE\n```\n"}},
       "match_count_mismatch"},
      {"apply_answer", {{"text", "<<<FILE>>>\na.txt\n<<<REPLACE>>>\nx\n<<<END>>>\n"}}, "replace_without_search"},
      {"log", {{"limit", 0}}, "invalid_params"},
  };
  for (const auto& [tool, arguments, code] : calls) {
    const mcp::ToolResult r = Call(tool, arguments);
    EXPECT_TRUE(r.is_error) << tool << " " << arguments.dump();
    ASSERT_TRUE(r.meta.is_object()) << tool << " " << arguments.dump() << ": " << Text(r);
    EXPECT_EQ(r.meta.value(mcp::kMetaErrorCode, ""), code) << tool << " " << arguments.dump() << ": " << Text(r);
  }
  // A call that succeeds has none.
  const mcp::ToolResult ok = Call("file_read", {{"path", "a.txt"}});
  EXPECT_FALSE(ok.is_error);
  EXPECT_FALSE(ok.meta.is_object() && ok.meta.contains(mcp::kMetaErrorCode)) << ok.meta.dump();
}

TEST_F(McpCall, WritesReadsAndReturnsStructuredContent) {
  mcp::ToolResult w = Call("file_write", {{"path", "a.txt"}, {"content", "hello\n"}});
  EXPECT_FALSE(w.is_error) << Text(w);
  EXPECT_EQ(ReadAll(root_ + "/a.txt"), "hello\n");
  mcp::ToolResult r = Call("file_read", {{"path", "a.txt"}});
  EXPECT_FALSE(r.is_error) << Text(r);
  ASSERT_TRUE(r.structured_content.has_value());
  EXPECT_EQ((*r.structured_content)["content"], "hello\n");
  EXPECT_EQ((*r.structured_content)["success"], true);
  EXPECT_TRUE(absl::StrContains(Text(r), "hello")) << Text(r);
  mcp::ToolResult missing = Call("file_read", {{"path", "nope.txt"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_EQ((*missing.structured_content)["success"], false);
  EXPECT_TRUE(absl::StrContains(Text(missing), "nope.txt")) << Text(missing);
}

TEST_F(McpCall, PathEscapesAreRefusedAndWriteNothing) {
  ASSERT_EQ(::symlink(parent_.c_str(), (root_ + "/out").c_str()), 0);
  const std::vector<std::string> escapes = {"../x.txt", parent_ + "/x.txt", "out/x.txt", "../proj-evil/x.txt",
                                            root_ + "-evil/x.txt", ".git/config", ".clada/x"};
  for (const std::string& path : escapes) {
    mcp::ToolResult r = Call("file_write", {{"path", path}, {"content", "pwned"}});
    EXPECT_TRUE(r.is_error) << path;
    EXPECT_TRUE(absl::StrContains(Text(r), "path_escape") || absl::StrContains(Text(r), "path_denied")) << Text(r);
  }
  EXPECT_EQ(ReadAll(parent_ + "/x.txt"), "");
  EXPECT_EQ(ReadAll(root_ + "-evil/x.txt"), "");
  for (const char* tool : {"dir_tree", "file_info", "file_read_media"}) {
    mcp::ToolResult r = Call(tool, {{"path", "../proj-evil"}});
    EXPECT_TRUE(r.is_error) << tool;
    EXPECT_TRUE(absl::StrContains(Text(r), "path_escape")) << tool << ": " << Text(r);
  }
}

TEST_F(McpCall, ExtraToolsTreeInfoRootsMedia) {
  ASSERT_EQ(::mkdir((root_ + "/d").c_str(), 0755), 0);
  Call("file_write", {{"path", "d/b.txt"}, {"content", "b"}});
  Call("file_write", {{"path", "skip.log"}, {"content", "x"}});
  mcp::ToolResult tree = Call("dir_tree", {{"path", "."}, {"exclude_patterns", {"*.log"}}});
  ASSERT_FALSE(tree.is_error) << Text(tree);
  const core::Json& t = (*tree.structured_content)["tree"];
  ASSERT_EQ(t.size(), 1u) << t.dump();
  EXPECT_EQ(t[0]["name"], "d");
  EXPECT_EQ(t[0]["children"][0]["name"], "b.txt");
  mcp::ToolResult info = Call("file_info", {{"path", "d/b.txt"}});
  ASSERT_FALSE(info.is_error) << Text(info);
  EXPECT_EQ((*info.structured_content)["size"], 1);
  EXPECT_EQ((*info.structured_content)["type"], "file");
  mcp::ToolResult roots = Call("allowed_roots", core::Json::object());
  EXPECT_EQ((*roots.structured_content)["working_root"], root_);
  EXPECT_EQ((*roots.structured_content)["source"], "server");
  Call("file_write", {{"path", "p.png"}, {"content", "PNG"}});
  mcp::ToolResult png = Call("file_read_media", {{"path", "p.png"}});
  ASSERT_FALSE(png.is_error);
  EXPECT_EQ(png.content[0]["type"], "image");
  EXPECT_EQ(png.content[0]["mimeType"], "image/png");
  EXPECT_EQ(png.content[0]["data"], "UE5H");
  EXPECT_TRUE(Call("file_read_media", {{"path", "d/b.txt"}}).is_error);
}

// file_read_media opened a FIFO named like an image with a blocking open,
// and the server waited on it for ever. It reads as fs-ops does: a
// non-blocking open, and what is not a regular file is refused.
TEST_F(McpCall, MediaFromAFifoIsRefusedWithoutWaiting) {
  ASSERT_EQ(::mkfifo((root_ + "/pipe.png").c_str(), 0600), 0);
  mcp::ToolResult r = Call("file_read_media", {{"path", "pipe.png"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_TRUE(absl::StrContains(Text(r), "not a regular file")) << Text(r);
}

// dir_tree and file_info read as fs-ops reads: a symlink out of the root
// is shown as a symlink, never walked into; .git is left out of the tree
// and refused when named; a FIFO is described by lstat, never opened.
TEST_F(McpCall, TreeAndInfoStayInTheRootAndDoNotOpenAFifo) {
  ASSERT_EQ(::mkdir((parent_ + "/outside").c_str(), 0755), 0);
  std::ofstream(parent_ + "/outside/secret.txt") << "s";
  ASSERT_EQ(::symlink((parent_ + "/outside").c_str(), (root_ + "/out").c_str()), 0);
  ASSERT_EQ(::mkdir((root_ + "/.git").c_str(), 0755), 0);
  std::ofstream(root_ + "/.git/config") << "token";
  ASSERT_EQ(::mkfifo((root_ + "/pipe").c_str(), 0600), 0);
  mcp::ToolResult tree = Call("dir_tree", {{"path", "."}});
  ASSERT_FALSE(tree.is_error) << Text(tree);
  EXPECT_FALSE(absl::StrContains(Text(tree), "secret.txt")) << Text(tree);
  EXPECT_FALSE(absl::StrContains(Text(tree), ".git")) << Text(tree);
  EXPECT_FALSE(absl::StrContains(Text(tree), "config")) << Text(tree);
  for (const core::Json& e : (*tree.structured_content)["tree"]) {
    if (e["name"] == "out") {
      EXPECT_EQ(e["type"], "symlink");
      EXPECT_FALSE(e.contains("children")) << e.dump();
    }
    if (e["name"] == "pipe") {
      EXPECT_EQ(e["type"], "fifo");
    }
  }
  mcp::ToolResult git = Call("dir_tree", {{"path", ".git"}});
  EXPECT_TRUE(git.is_error);
  EXPECT_TRUE(absl::StrContains(Text(git), "path_denied")) << Text(git);
  mcp::ToolResult info = Call("file_info", {{"path", "pipe"}});
  ASSERT_FALSE(info.is_error) << Text(info);
  EXPECT_EQ((*info.structured_content)["type"], "fifo");
  EXPECT_TRUE(Call("file_info", {{"path", ".git/config"}}).is_error);
}

// dir_tree recursed, and past depth 64 showed a directory as empty without
// saying so. It walks with an explicit stack, and a tree deeper than the
// bound is cut there with truncated set and the reason given.
TEST_F(McpCall, TreeDeeperThanTheBoundSaysItWasCut) {
  std::string dir = root_;
  for (int i = 0; i < 70; ++i) {
    dir += "/d";
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  }
  std::ofstream(dir + "/deep.txt") << "x";
  mcp::ToolResult tree = Call("dir_tree", {{"path", "."}});
  ASSERT_FALSE(tree.is_error) << Text(tree);
  EXPECT_EQ((*tree.structured_content)["truncated"], true);
  EXPECT_EQ((*tree.structured_content)["stopped"], "max_depth");
  EXPECT_FALSE(absl::StrContains(Text(tree), "deep.txt"));
}

TEST_F(McpCall, ApplyAnswerRunsAWholeAnswer) {
  mcp::ToolResult r = Call("apply_answer", {{"text", "#!SHAM [@three-char-SHA-256: a1]\naction = \"file_write\"\n"
                                                     "path = \"s.txt\"\ncontent = \"sham\"\n#!END_SHAM_a1\n"}});
  EXPECT_FALSE(r.is_error) << Text(r);
  EXPECT_EQ(ReadAll(root_ + "/s.txt"), "sham");
  mcp::ToolResult dry = Call("apply_answer", {{"text", "#!SHAM [@three-char-SHA-256: a2]\naction = \"file_write\"\n"
                                                       "path = \"t.txt\"\ncontent = \"no\"\n#!END_SHAM_a2\n"},
                                              {"dry_run", true}});
  EXPECT_FALSE(dry.is_error) << Text(dry);
  EXPECT_EQ(ReadAll(root_ + "/t.txt"), "");
  EXPECT_TRUE(Call("apply_answer", {{"txt", "x"}}).is_error);
}

// Issue 17 #9: apply_answer kept every result of an answer of thousands of
// tasks and returned them all in structuredContent; it keeps what its
// report shows, as `clada run` does, and counts the rest.
TEST_F(McpCall, ApplyAnswerKeepsWhatItsReportShows) {
  std::string answer;
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&answer, "<remove path=\"no", i, "\"/>\n");
  mcp::ToolResult r = Call("apply_answer", {{"text", answer}});
  EXPECT_TRUE(r.is_error);
  ASSERT_TRUE(r.structured_content.has_value() && r.structured_content->is_object());
  const core::Json& doc = *r.structured_content;
  const core::Json& results = doc["results"];
  EXPECT_LT(results.size(), 5000u);
  ASSERT_TRUE(doc.contains("leftOutResults")) << doc.dump().substr(0, 500);
  EXPECT_EQ(results.size() + doc["leftOutResults"]["count"].get<size_t>(), 20000u);
  EXPECT_LT(Text(r).size(), 100u * 1024);
  EXPECT_NE(Text(r).find("tasks left out here"), std::string::npos) << Text(r).substr(0, 2000);
}

// A CSL answer gets the seed's CSL report, as `clada run` prints it.
TEST_F(McpCall, ApplyAnswerReportsCslInItsForm) {
  mcp::ToolResult r = Call("apply_answer", {{"text", "<---WRITE file=\"c.txt\"--->\ncsl\n<---END--->\n"
                                                     "<---REPLACE--->\n"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(ReadAll(root_ + "/c.txt"), "csl\n");
  const std::string text = Text(r);
  EXPECT_NE(text.find("[task-1] SUCCESS: WRITE - c.txt: wrote 1 line"), std::string::npos) << text;
  EXPECT_NE(text.find("[task-2] ERROR: REPLACE - line 4: stray_marker"), std::string::npos) << text;
}

// One call, one batch: an AI commit each, so `clada undo` takes back the last call.
TEST_F(McpCall, EachCallIsOneGitBatch) {
  options_.settings.git = git_tx::GitOptions::Mode::kRequire;
  tools_ = MakeCladaTools(options_);
  const std::string git = absl::StrCat("cd '", root_, "' && git -c user.name=t -c user.email=t@t ");
  ASSERT_EQ(std::system(absl::StrCat(git, "init -q && ", git, "commit -q --allow-empty -m init").c_str()), 0);
  EXPECT_FALSE(Call("file_write", {{"path", "one.txt"}, {"content", "1"}}).is_error);
  EXPECT_FALSE(Call("file_write", {{"path", "two.txt"}, {"content", "2"}}).is_error);
  const std::string log = parent_ + "/log";
  ASSERT_EQ(std::system(absl::StrCat("cd '", root_, "' && git log --format=%s > '", log, "'").c_str()), 0);
  const std::string subjects = ReadAll(log);
  EXPECT_EQ(std::count(subjects.begin(), subjects.end(), '\n'), 3) << subjects;
  EXPECT_TRUE(absl::StartsWith(subjects, "AI: write two.txt")) << subjects;
}

// edit_file: several edits of one file, all or none; a dry run returns the
// diff and writes nothing; text content stands alone (no structuredContent).
TEST_F(McpCall, EditFileAppliesEveryEditOrNone) {
  const std::string original = "alpha\nbeta\ngamma\nbeta2\n";
  std::ofstream(root_ + "/f.txt") << original;
  // The second edit's old_text is gone once the first has run: nothing written.
  mcp::ToolResult miss = Call("edit_file", {{"path", "f.txt"},
                                            {"edits", {{{"old_text", "alpha"}, {"new_text", "ALPHA"}},
                                                       {{"old_text", "alpha"}, {"new_text", "again"}}}}});
  EXPECT_TRUE(miss.is_error);
  EXPECT_TRUE(absl::StrContains(Text(miss), "edit 2 of 2")) << Text(miss);
  EXPECT_TRUE(absl::StrContains(Text(miss), "nothing was written")) << Text(miss);
  EXPECT_EQ(ReadAll(root_ + "/f.txt"), original);
  // An old_text found twice names the count.
  mcp::ToolResult twice = Call("edit_file", {{"path", "f.txt"}, {"edits", {{{"old_text", "beta"}, {"new_text", "B"}}}}});
  EXPECT_TRUE(twice.is_error);
  EXPECT_TRUE(absl::StrContains(Text(twice), "occurs 2 times")) << Text(twice);
  EXPECT_EQ(ReadAll(root_ + "/f.txt"), original);
  const core::Json edits = {{{"old_text", "alpha\n"}, {"new_text", "ALPHA\n"}},
                            {{"old_text", "gamma"}, {"new_text", "GAMMA"}}};
  mcp::ToolResult dry = Call("edit_file", {{"path", "f.txt"}, {"edits", edits}, {"dry_run", true}});
  EXPECT_FALSE(dry.is_error) << Text(dry);
  EXPECT_TRUE(absl::StrContains(Text(dry), "-alpha\n+ALPHA\n")) << Text(dry);
  EXPECT_TRUE(absl::StrContains(Text(dry), "-gamma\n+GAMMA\n")) << Text(dry);
  EXPECT_FALSE(dry.structured_content.has_value());
  EXPECT_EQ(ReadAll(root_ + "/f.txt"), original);
  mcp::ToolResult done = Call("edit_file", {{"path", "f.txt"}, {"edits", edits}});
  EXPECT_FALSE(done.is_error) << Text(done);
  EXPECT_EQ(ReadAll(root_ + "/f.txt"), "ALPHA\nbeta\nGAMMA\nbeta2\n");
  EXPECT_TRUE(Call("edit_file", {{"path", "../f.txt"}, {"edits", edits}}).is_error);
  EXPECT_TRUE(Call("edit_file", {{"path", "f.txt"}, {"edits", core::Json::array()}}).is_error);
}

// undo_batch takes back only this session's newest batch, never a commit
// someone else made after it; log marks the session's batches.
TEST_F(McpCall, UndoBatchTakesBackOnlyThisSessionsLastBatch) {
  options_.settings.git = git_tx::GitOptions::Mode::kRequire;
  tools_ = MakeCladaTools(options_);
  const std::string git = absl::StrCat("cd '", root_, "' && git -c user.name=t -c user.email=t@t ");
  ASSERT_EQ(std::system(absl::StrCat(git, "init -q && ", git, "commit -q --allow-empty -m init").c_str()), 0);
  mcp::ToolResult none = Call("undo_batch", core::Json::object());
  EXPECT_TRUE(none.is_error);
  EXPECT_TRUE(absl::StrContains(Text(none), "no batch")) << Text(none);
  ASSERT_FALSE(Call("file_write", {{"path", "one.txt"}, {"content", "1\n"}}).is_error);
  ASSERT_FALSE(Call("file_write", {{"path", "two.txt"}, {"content", "2\n"}}).is_error);
  mcp::ToolResult log = Call("log", core::Json::object());
  EXPECT_FALSE(log.is_error) << Text(log);
  EXPECT_TRUE(absl::StrContains(Text(log), "AI: write two.txt")) << Text(log);
  EXPECT_TRUE(absl::StrContains(Text(log), "(this session)")) << Text(log);
  ASSERT_TRUE(log.structured_content.has_value());
  EXPECT_EQ((*log.structured_content)["batches"][0]["this_session"], true);
  mcp::ToolResult undo = Call("undo_batch", core::Json::object());
  EXPECT_FALSE(undo.is_error) << Text(undo);
  EXPECT_FALSE(std::ifstream(root_ + "/two.txt").good());
  EXPECT_EQ(ReadAll(root_ + "/one.txt"), "1\n");
  // A user's own commit on top of this session's batch: refused, kept.
  ASSERT_FALSE(Call("file_write", {{"path", "four.txt"}, {"content", "4\n"}}).is_error);
  ASSERT_EQ(std::system(absl::StrCat(git, "commit -q --allow-empty -m mine").c_str()), 0);
  mcp::ToolResult under_user = Call("undo_batch", core::Json::object());
  EXPECT_TRUE(under_user.is_error) << Text(under_user);
  EXPECT_EQ(ReadAll(root_ + "/four.txt"), "4\n");
  // Another session's batch (a second server) on top: this one refuses.
  mcp::ToolRegistry other = MakeCladaTools(options_);
  mcp::ToolCall call;
  call.arguments = {{"path", "three.txt"}, {"content", "3\n"}};
  ASSERT_FALSE(other.Find("file_write")->call(call).is_error);
  mcp::ToolResult refused = Call("undo_batch", core::Json::object());
  EXPECT_TRUE(refused.is_error);
  EXPECT_TRUE(absl::StrContains(Text(refused), "no longer the newest")) << Text(refused);
  EXPECT_EQ(ReadAll(root_ + "/three.txt"), "3\n");
  EXPECT_EQ(ReadAll(root_ + "/one.txt"), "1\n");
  mcp::ToolResult marked = Call("log", {{"limit", 5}});
  EXPECT_EQ((*marked.structured_content)["batches"][0]["this_session"], false) << Text(marked);
}

// A call that only reads commits nothing (as a read-only `clada run`), so
// it does not open git: it reads during a merge in progress, which a write
// is refused for. It still takes the run lock.
TEST_F(McpCall, ReadsTakeTheRunLockButNotGit) {
  options_.settings.git = git_tx::GitOptions::Mode::kRequire;
  options_.settings.lock_timeout_ms = 50;
  tools_ = MakeCladaTools(options_);
  const std::string git = absl::StrCat("cd '", root_, "' && git -c user.name=t -c user.email=t@t ");
  ASSERT_EQ(std::system(absl::StrCat(git, "init -q && echo r > r.txt && ", git, "add r.txt && ", git,
                                     "commit -q -m init && git rev-parse HEAD > .git/MERGE_HEAD")
                            .c_str()),
            0);
  mcp::ToolResult read = Call("file_read", {{"path", "r.txt"}});
  EXPECT_FALSE(read.is_error) << Text(read);
  EXPECT_EQ((*read.structured_content)["content"], "r\n");
  mcp::ToolResult write = Call("file_write", {{"path", "w.txt"}, {"content", "w"}});
  EXPECT_TRUE(write.is_error);
  EXPECT_TRUE(absl::StrContains(Text(write), "refusing to run")) << Text(write);
  EXPECT_EQ(ReadAll(root_ + "/w.txt"), "");

  absl::StatusOr<git_tx::RunLock> held = git_tx::RunLock::Acquire(root_, absl::Seconds(1));
  ASSERT_TRUE(held.ok()) << held.status();
  mcp::ToolResult waited = Call("file_read", {{"path", "r.txt"}});
  EXPECT_TRUE(waited.is_error);
  EXPECT_TRUE(absl::StrContains(Text(waited), "another clada run is working on")) << Text(waited);
}

// The roots are canonicalised once for the server's calls (while the
// client's roots stay the same), not at every call: a working root replaced
// by a symlink between two calls is not followed, and what it leads to is
// outside the roots, for the schema's tools and the extra ones alike.
TEST_F(McpCall, ARootReplacedByASymlinkBetweenCallsIsNotFollowed) {
  const std::string elsewhere = parent_ + "/elsewhere";
  ASSERT_EQ(::mkdir(elsewhere.c_str(), 0755), 0);
  ASSERT_EQ(std::system(absl::StrCat("echo secret > '", elsewhere, "/secret.txt'").c_str()), 0);
  ASSERT_FALSE(Call("file_write", {{"path", "a.txt"}, {"content", "a"}}).is_error);
  ASSERT_EQ(::rename(root_.c_str(), (parent_ + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink(elsewhere.c_str(), root_.c_str()), 0);

  mcp::ToolResult read = Call("file_read", {{"path", "secret.txt"}});
  EXPECT_TRUE(read.is_error) << Text(read);
  EXPECT_TRUE(absl::StrContains(Text(read), "path_escape")) << Text(read);
  EXPECT_FALSE(absl::StrContains(Text(read), "secret\n")) << Text(read);
  mcp::ToolResult write = Call("file_write", {{"path", "pwned.txt"}, {"content", "x"}});
  EXPECT_TRUE(write.is_error) << Text(write);
  EXPECT_EQ(ReadAll(elsewhere + "/pwned.txt"), "");
  for (const char* tool : {"dir_tree", "file_info"}) {
    mcp::ToolResult r = Call(tool, {{"path", "secret.txt"}});
    EXPECT_TRUE(r.is_error) << tool;
    EXPECT_TRUE(absl::StrContains(Text(r), "path_escape")) << tool << ": " << Text(r);
  }
}

// What is kept for the roots follows the client's roots: new roots are
// the roots from the next call on, and a root that did not exist is looked
// for again at each call until it does.
TEST_F(McpCall, KeptRootsFollowTheClientsRoots) {
  const std::string other = parent_ + "/other";
  const std::string later = parent_ + "/later";
  ASSERT_EQ(::mkdir(other.c_str(), 0755), 0);
  auto roots_with = [&](std::vector<std::string> client) {
    mcp::ToolCall call;
    call.arguments = core::Json::object();
    call.client_roots = std::move(client);
    mcp::ToolResult r = tools_.Find("allowed_roots")->call(call);
    EXPECT_FALSE(r.is_error) << Text(r);
    return (*r.structured_content)["roots"].get<std::vector<std::string>>();
  };
  EXPECT_EQ(roots_with({other}), std::vector<std::string>{other});
  EXPECT_EQ(roots_with({root_}), std::vector<std::string>{root_});
  EXPECT_EQ(roots_with({later, other}), std::vector<std::string>{other});
  ASSERT_EQ(::mkdir(later.c_str(), 0755), 0);
  EXPECT_EQ(roots_with({later, other}), (std::vector<std::string>{later, other}));
  // A file in the root the client named first is read there.
  ASSERT_EQ(std::system(absl::StrCat("echo l > '", later, "/l.txt'").c_str()), 0);
  mcp::ToolCall read;
  read.arguments = {{"path", "l.txt"}};
  read.client_roots = std::vector<std::string>{later, other};
  mcp::ToolResult r = tools_.Find("file_read")->call(read);
  EXPECT_FALSE(r.is_error) << Text(r);
  EXPECT_EQ((*r.structured_content)["content"], "l\n");
}

// The server keeps the run lock's state directory and pid file from call to
// call, and still takes the lock at each: a run holding it makes a call
// wait; `.clada/` deleted between calls is set up again.
TEST_F(McpCall, EveryCallTakesTheRunLockTheServerKeeps) {
  options_.settings.lock_timeout_ms = 50;
  tools_ = MakeCladaTools(options_);
  ASSERT_FALSE(Call("file_write", {{"path", "r.txt"}, {"content", "r"}}).is_error);
  const std::string pid = absl::StrCat(::getpid());
  EXPECT_EQ(std::string(absl::StripAsciiWhitespace(ReadAll(root_ + "/.clada/lock"))), pid);
  {
    absl::StatusOr<git_tx::RunLock> held = git_tx::RunLock::Acquire(root_, absl::Seconds(1));
    ASSERT_TRUE(held.ok()) << held.status();
    mcp::ToolResult waited = Call("file_read", {{"path", "r.txt"}});
    EXPECT_TRUE(waited.is_error);
    EXPECT_TRUE(absl::StrContains(Text(waited), "another clada run is working on")) << Text(waited);
  }
  ASSERT_EQ(std::system(absl::StrCat("rm -rf '", root_, "/.clada'").c_str()), 0);
  mcp::ToolResult read = Call("file_read", {{"path", "r.txt"}});
  EXPECT_FALSE(read.is_error) << Text(read);
  EXPECT_EQ(std::string(absl::StripAsciiWhitespace(ReadAll(root_ + "/.clada/lock"))), pid);
  EXPECT_TRUE(absl::StrContains(ReadAll(root_ + "/.clada/.gitignore"), "lock\n"));
  tools_ = mcp::ToolRegistry();  // the server's end
  EXPECT_EQ(std::string(absl::StripAsciiWhitespace(ReadAll(root_ + "/.clada/lock"))), "");
}

}  // namespace
}  // namespace clada
