// Runs every transcript in proj/comp/mcp/test-data/*.jsonl against a
// Server with test tools, with no process: `> ` lines are fed to
// HandleMessage (then the test waits until no call runs), `>& ` lines are
// fed without waiting, and each `< ` line must match the next message the
// server writes (a JSON subset; a value "$absent": that key must not be
// there). Nothing may be written beyond them. A
// `#! tools_page_size N` line sets the server's tools/list page size.
// Also: ReadLines' framing, FileUriToPath.
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "proj/comp/mcp/src/json_rpc.h"
#include "proj/comp/mcp/src/server.h"
#include "proj/comp/mcp/src/stdio_transport.h"

namespace clada::mcp {
namespace {

constexpr char kDataDir[] = "proj/comp/mcp/test-data";

// Where `expected` (every key it names, arrays element by element) differs
// from `actual`, or "".
std::string SubsetMismatch(const Json& expected, const Json& actual, const std::string& at = "$") {
  if (expected.is_object()) {
    if (!actual.is_object()) return absl::StrCat(at, ": expected an object");
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      // "$absent": the key must not be there.
      if (it.value() == "$absent") {
        if (actual.contains(it.key())) return absl::StrCat(at, ".", it.key(), ": present, expected absent");
        continue;
      }
      if (!actual.contains(it.key())) return absl::StrCat(at, ".", it.key(), ": missing");
      std::string m = SubsetMismatch(it.value(), actual[it.key()], absl::StrCat(at, ".", it.key()));
      if (!m.empty()) return m;
    }
    return "";
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      return absl::StrCat(at, ": expected an array of ", expected.size());
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string m = SubsetMismatch(expected[i], actual[i], absl::StrCat(at, "[", i, "]"));
      if (!m.empty()) return m;
    }
    return "";
  }
  return expected == actual ? "" : absl::StrCat(at, ": expected ", expected.dump(), ", got ", actual.dump());
}

ToolRegistry TestTools() {
  ToolRegistry tools;
  Json object_schema = {{"type", "object"}};
  tools.Add({"echo", "", "Echoes its text", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}},
             Json{{"type", "object"}}, nullptr, [](const ToolCall& c) {
               const std::string text = c.arguments.value("text", "");
               ToolResult r = ToolResult::Text(text);
               r.structured_content = Json{{"text", text}};
               return r;
             }});
  tools.Add({"fail", "", "Fails", object_schema, std::nullopt, nullptr,
             [](const ToolCall&) { return ToolResult::Error("not_found", "it failed"); }});
  tools.Add({"wait", "", "Waits until cancelled (10 s at most)", object_schema, std::nullopt, nullptr,
             [](const ToolCall& c) {
               for (int i = 0; i < 1000 && !c.cancelled->load(); ++i) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(10));
               }
               return ToolResult::Text(c.cancelled->load() ? "cancelled" : "waited");
             }});
  tools.Add({"progress", "", "Reports progress twice", object_schema, std::nullopt, nullptr, [](const ToolCall& c) {
               if (c.progress) {
                 c.progress("one");
                 c.progress("two");
               }
               return ToolResult::Text("done");
             }});
  tools.Add({"roots", "", "The client's roots", object_schema, std::nullopt, nullptr, [](const ToolCall& c) {
               return ToolResult::Text(c.client_roots.has_value() ? absl::StrJoin(*c.client_roots, "\n") : "(none)");
             }});
  return tools;
}

// What the server wrote, one message a line, waited for.
class Output {
 public:
  void Write(absl::string_view message) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(message);
    cv_.notify_all();
  }
  // The message at `index`, waiting at most 5 s for it; "" when none came.
  std::string At(size_t index) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return lines_.size() > index; });
    return index < lines_.size() ? lines_[index] : "";
  }
  std::vector<std::string> All() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

std::vector<std::string> TranscriptNames() {
  std::vector<std::string> names;
  DIR* dir = ::opendir(kDataDir);
  if (dir == nullptr) return names;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (absl::EndsWith(name, ".jsonl")) names.push_back(name.substr(0, name.size() - 6));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

class Transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(Transcript, ServerWritesWhatItSays) {
  std::ifstream in(absl::StrCat(kDataDir, "/", GetParam(), ".jsonl"));
  ASSERT_TRUE(in) << GetParam();
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Output output;
  ServerInfo info{"test-server", "0.1", "", 2000};
  info.description = "Test tools";
  // `#! tools_page_size N`: the server's tools/list page size.
  for (const std::string& line : lines) {
    absl::string_view option = line;
    if (absl::ConsumePrefix(&option, "#! tools_page_size ")) ASSERT_TRUE(absl::SimpleAtoi(option, &info.tools_page_size)) << line;
  }
  Server server(info, TestTools(), [&output](absl::string_view m) { output.Write(m); });
  size_t next = 0;
  int number = 0;
  for (const std::string& line : lines) {
    ++number;
    const std::string where = absl::StrCat(GetParam(), ".jsonl:", number);
    if (absl::StartsWith(line, ">& ")) {
      server.HandleMessage(absl::string_view(line).substr(3));
    } else if (absl::StartsWith(line, "> ") || line == ">") {
      server.HandleMessage(line.size() > 2 ? absl::string_view(line).substr(2) : "");
      server.WaitIdle();
    } else if (absl::StartsWith(line, "< ")) {
      const std::string got = output.At(next++);
      ASSERT_FALSE(got.empty()) << where << ": nothing written; expected " << line.substr(2);
      Json actual = Json::parse(got, nullptr, false);
      ASSERT_FALSE(actual.is_discarded()) << where << ": not JSON: " << got;
      Json expected = Json::parse(line.substr(2));
      EXPECT_EQ(SubsetMismatch(expected, actual), "") << where << "\n  got: " << got;
    } else {
      ASSERT_TRUE(line.empty() || line[0] == '#') << where << ": a line starts with >, >&, < or #";
    }
  }
  server.Shutdown();
  std::vector<std::string> all = output.All();
  for (size_t i = next; i < all.size(); ++i) ADD_FAILURE() << GetParam() << ": written beyond the transcript: " << all[i];
  for (const std::string& m : all) EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

INSTANTIATE_TEST_SUITE_P(Mcp, Transcript, ::testing::ValuesIn(TranscriptNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The last page has no nextCursor (a transcript's subset match cannot say
// a key is absent); the pages together list every tool once, in order.
TEST(ToolsList, PagesCoverEveryToolAndTheLastHasNoCursor) {
  for (size_t page_size : {1u, 2u, 4u, 5u, 100u}) {
    std::vector<std::string> out;
    ServerInfo info{"t", "0", "", 0, page_size};
    Server server(info, TestTools(), [&out](absl::string_view m) { out.emplace_back(m); });
    std::vector<std::string> names;
    Json cursor;
    for (int request = 1; request < 20; ++request) {
      Json message = {{"jsonrpc", "2.0"}, {"id", request}, {"method", "tools/list"}};
      if (!cursor.is_null()) message["params"] = {{"cursor", cursor}};
      server.HandleMessage(message.dump());
      const Json reply = Json::parse(out.back());
      ASSERT_TRUE(reply.contains("result")) << reply.dump();
      EXPECT_LE(reply["result"]["tools"].size(), page_size);
      for (const Json& t : reply["result"]["tools"]) names.push_back(t["name"].get<std::string>());
      if (!reply["result"].contains("nextCursor")) break;
      cursor = reply["result"]["nextCursor"];
      ASSERT_TRUE(cursor.is_string()) << reply.dump();
    }
    std::vector<std::string> all;
    const ToolRegistry tools = TestTools();
    for (const Tool& t : tools.tools()) all.push_back(t.name);
    EXPECT_EQ(names, all) << "page size " << page_size;
  }
}

// serverInfo.description is a 2025-11-25 field: sent at that revision, not
// at the older ones a client may ask for.
TEST(Initialize, DescriptionOnlyAtTheRevisionThatHasIt) {
  for (const char* version : kProtocolVersions) {
    std::vector<std::string> out;
    ServerInfo info{"t", "0", "", 0};
    info.description = "what it does";
    Server server(info, TestTools(), [&out](absl::string_view m) { out.emplace_back(m); });
    server.HandleMessage(Json{{"jsonrpc", "2.0"},
                              {"id", 1},
                              {"method", "initialize"},
                              {"params", {{"protocolVersion", version}, {"capabilities", Json::object()},
                                          {"clientInfo", {{"name", "c"}, {"version", "1"}}}}}}
                             .dump());
    ASSERT_EQ(out.size(), 1u);
    const Json server_info = Json::parse(out[0])["result"]["serverInfo"];
    EXPECT_EQ(server_info.contains("description"), std::string(version) == "2025-11-25") << version << ": " << out[0];
    if (server_info.contains("description")) {
      EXPECT_EQ(server_info["description"], "what it does");
    }
  }
}

TEST(Transcripts, AreThere) { EXPECT_GE(TranscriptNames().size(), 8u); }

// Feeds `input` through a pipe to ReadLines.
std::vector<std::string> Lines(const std::string& input, size_t max, std::vector<size_t>* too_long) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < input.size()) {
      ssize_t n = ::write(fds[1], input.data() + done, std::min<size_t>(input.size() - done, 4096));
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  std::vector<std::string> lines;
  absl::Status s = ReadLines(
      fds[0], max, [&](absl::string_view l) { lines.emplace_back(l); },
      [&](size_t n) { too_long->push_back(n); });
  writer.join();
  ::close(fds[0]);
  EXPECT_TRUE(s.ok()) << s;
  return lines;
}

TEST(ReadLines, SplitsOnNewlinesDropsCarriageReturnAndKeepsTheLastLine) {
  std::vector<size_t> too_long;
  std::vector<std::string> lines = Lines("a\r\nbb\n\nlast", 100, &too_long);
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "bb", "", "last"}));
  EXPECT_TRUE(too_long.empty());
}

TEST(ReadLines, SkipsALineOverTheLimitWholeAndGoesOn) {
  std::vector<size_t> too_long;
  std::string big(200000, 'x');  // across several reads
  std::vector<std::string> lines = Lines(absl::StrCat("ok\n", big, "\nafter\n", big), 1000, &too_long);
  EXPECT_EQ(lines, (std::vector<std::string>{"ok", "after"}));
  EXPECT_EQ(too_long, (std::vector<size_t>{200000, 200000}));
}

TEST(ServeLines, AnswersEachLineAndRejectsOversizedOnes) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string input = absl::StrCat(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "\n", std::string(5000, ' '),
                                         "\n", R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  ASSERT_EQ(::write(fds[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  Output output;
  Server server({"s", "1", "", 0}, ToolRegistry(), [&output](absl::string_view m) { output.Write(m); });
  ASSERT_TRUE(ServeLines(fds[0], 4096, server).ok());
  ::close(fds[0]);
  std::vector<std::string> all = output.All();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0], R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_TRUE(absl::StrContains(all[1], "over the limit of 4096 bytes")) << all[1];
  EXPECT_EQ(all[2], R"({"jsonrpc":"2.0","id":2,"result":{}})");
}

// Serves `lines` (after initialize and notifications/initialized) to a
// server of `tools` over a pipe with ServeLines, to the end of input;
// every message it wrote goes to `output`.
void ServeAfterInitialize(const std::vector<std::string>& lines, ToolRegistry tools, Output& output) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::vector<std::string> all = {
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"};
  all.insert(all.end(), lines.begin(), lines.end());
  const std::string input = absl::StrJoin(all, "\n");
  ASSERT_EQ(::write(fds[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  Server server({"s", "1", "", 0}, std::move(tools), [&output](absl::string_view m) { output.Write(m); });
  ASSERT_TRUE(ServeLines(fds[0], 4096, server).ok());
  ::close(fds[0]);
}

// ServeLines runs a call on the thread that read it; the other thread
// reads on, so a ping is answered and a cancellation reaches the running
// call (`wait` runs until it is cancelled; a cancelled call gets no
// response). Lines are handled in order: initialize before the call.
TEST(ServeLines, APingAndACancelReachTheServerWhileACallRuns) {
  Output output;
  ServeAfterInitialize(
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"first"}}})",
       R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}})",
       R"({"jsonrpc":"2.0","id":3,"method":"ping"})",
       R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})",
       R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}})"},
      TestTools(), output);
  std::vector<int64_t> ids;
  for (const std::string& m : output.All()) {
    const Json j = Json::parse(m);
    ASSERT_TRUE(j.contains("result")) << m;
    ids.push_back(j["id"].get<int64_t>());
  }
  // 0 first; 3 while 2 waits (before 4, which runs once 2 is cancelled);
  // 2 cancelled, no response; the calls answered in order (1 before 4).
  const std::string all = absl::StrJoin(output.All(), "\n");
  ASSERT_EQ(ids.size(), 4u) << all;
  EXPECT_EQ(ids[0], 0) << all;
  EXPECT_EQ(ids[3], 4) << all;
  std::vector<int64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 1, 3, 4})) << all;
}

// A quick tool (Tool::quick) runs on the thread that read it before that
// thread lets the other read: the ping after it is not read, let alone
// answered, while it runs, and is answered after it. `peek` looks for the
// ping's answer for up to 300 ms while it runs.
TEST(ServeLines, AQuickCallRunsBeforeTheNextLineIsRead) {
  Output output;
  std::atomic<bool> saw_ping{false};
  ToolRegistry tools;
  Tool peek{"peek", "", "Looks for the ping's answer", {{"type", "object"}}, std::nullopt, nullptr,
            [&](const ToolCall&) {
              for (int i = 0; i < 30 && !saw_ping; ++i) {
                for (const std::string& m : output.All()) {
                  if (absl::StrContains(m, R"("id":9)")) saw_ping = true;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
              }
              return ToolResult::Text("peeked");
            }};
  peek.quick = true;
  tools.Add(peek);
  ServeAfterInitialize({R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"peek"}})",
                        R"({"jsonrpc":"2.0","id":9,"method":"ping"})"},
                       std::move(tools), output);
  EXPECT_FALSE(saw_ping);
  std::vector<int64_t> ids;
  for (const std::string& m : output.All()) ids.push_back(Json::parse(m)["id"].get<int64_t>());
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 9})) << absl::StrJoin(output.All(), "\n");
}

// A call stuck for good (file_read_media once opened a FIFO and waited on
// it) kept `clada mcp` alive after its client closed stdin. In a child
// process: a quick call that never returns, even when cancelled, and the
// client's end closed; the child exits (status 1) instead of hanging.
TEST(ServeLines, ExitsWhenTheClientHangsUpAndACallIsStuck) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[1]);
    ToolRegistry tools;
    Tool stuck{"stuck", "", "Never returns", {{"type", "object"}}, std::nullopt, nullptr, [](const ToolCall&) {
                 for (;;) ::pause();
                 return ToolResult::Text("unreachable");
               }};
    stuck.quick = true;
    tools.Add(stuck);
    Server server({"s", "1", "", 0}, std::move(tools), [](absl::string_view) {});
    (void)ServeLines(fds[0], 4096, server, absl::Milliseconds(50));
    ::_exit(0);  // the serving ended by itself: not what this case sets up
  }
  ::close(fds[0]);
  const std::string input = absl::StrCat(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
      "\n", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "\n",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck"}})", "\n");
  ASSERT_EQ(::write(fds[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);
}

TEST(FdWriter, WritesOneLineAMessageAndStopsWhenTheReaderIsGone) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Dispatcher::WriteFunction write = FdWriter(fds[1]);
  write(R"({"a":1})");
  char buf[64] = {};
  ASSERT_EQ(::read(fds[0], buf, sizeof buf), 8);
  EXPECT_EQ(std::string(buf), "{\"a\":1}\n");
  ::close(fds[0]);
  signal(SIGPIPE, SIG_IGN);
  write("x");  // EPIPE: dropped, no crash
  write("y");
  ::close(fds[1]);
}

TEST(Dispatcher, InvalidUtf8InAResultIsReplacedNotThrown) {
  std::vector<std::string> out;
  Dispatcher d([&out](absl::string_view m) { out.emplace_back(m); });
  d.AddRequestHandler("bad", [](const Json&) { return Reply::Ok({{"text", std::string("a\xff" "b")}}); });
  d.DispatchMessage(R"({"jsonrpc":"2.0","id":1,"method":"bad"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"a\xEF\xBF\xBD" "b\"}}");
}

std::string NlohmannDump(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

// AppendJson writes what nlohmann's dump writes, byte for byte: every
// one- and two-byte string, every well-formed and ill-formed UTF-8 lead
// and continuation of up to four bytes, and documents mixing them.
TEST(AppendJson, WritesExactlyWhatNlohmannDumpWrites) {
  std::vector<std::string> strings = {"", "plain", "tab\there", "quote\" back\\slash", "\x7f", "\x01\x1f",
                                      "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80 smile", "\xED\xA0\x80",
                                      "\xF4\x90\x80\x80", "\xC0\xAF", "\xE0\x80\xAF", "end\xE2\x82"};
  for (int a = 0; a < 256; ++a) {
    strings.push_back(std::string(1, static_cast<char>(a)));
    for (int b = 0; b < 256; ++b) strings.push_back({static_cast<char>(a), static_cast<char>(b)});
  }
  for (int lead : {0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5}) {
    for (int b = 0x70; b < 0xC8; ++b) {
      for (int c : {0x41, 0x7F, 0x80, 0xBF, 0xC0}) {
        for (int d : {0x41, 0x80, 0xBF, 0xC0}) {
          strings.push_back({'x', static_cast<char>(lead), static_cast<char>(b), static_cast<char>(c),
                             static_cast<char>(d), 'y'});
        }
      }
    }
  }
  // Each byte at each place of a string longer than the eight bytes
  // AppendJson looks at at once.
  for (int c = 0; c < 256; ++c) {
    for (size_t at = 0; at < 19; ++at) {
      std::string text(19, 'a');
      text[at] = static_cast<char>(c);
      strings.push_back(text);
    }
  }
  for (const std::string& text : strings) {
    const Json value(text);
    ASSERT_EQ(DumpJson(value), NlohmannDump(value)) << absl::CHexEscape(text);
    const Json keyed = {{text, text}};
    ASSERT_EQ(DumpJson(keyed), NlohmannDump(keyed)) << absl::CHexEscape(text);
  }
  const Json document = {{"jsonrpc", "2.0"},
                         {"id", -7},
                         {"n", {1.5, 1e300, -0.0, 3, 18446744073709551615u, true, false, nullptr}},
                         {"empty", {{"o", Json::object()}, {"a", Json::array()}}},
                         {"text", "line 1\nline \xC3\xA9 2\r\n\x7f"},
                         {"nested", {{{"k", {"v", {{"deep", "\x02"}}}}}}}};
  EXPECT_EQ(DumpJson(document), NlohmannDump(document));
}

TEST(Dispatcher, AHandlerThatThrowsIsAnInternalError) {
  std::vector<std::string> out;
  Dispatcher d([&out](absl::string_view m) { out.emplace_back(m); });
  d.AddRequestHandler("boom", [](const Json& p) { return Reply::Ok(p.at("missing")); });
  d.DispatchMessage(R"({"jsonrpc":"2.0","id":"b","method":"boom","params":{}})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(absl::StrContains(out[0], "-32603")) << out[0];
}

TEST(FileUriToPath, DecodesLocalFileUrisOnly) {
  EXPECT_EQ(FileUriToPath("file:///home/me/a%20b/"), "/home/me/a b");
  EXPECT_EQ(FileUriToPath("file://localhost/srv/x"), "/srv/x");
  EXPECT_EQ(FileUriToPath("file:///"), "/");
  EXPECT_EQ(FileUriToPath("file:///a?x=1#f"), "/a");
  EXPECT_EQ(FileUriToPath("file://otherhost/srv"), std::nullopt);
  EXPECT_EQ(FileUriToPath("https://example.com/x"), std::nullopt);
  EXPECT_EQ(FileUriToPath("file:///a%00b"), std::nullopt);
  EXPECT_EQ(FileUriToPath("relative/path"), std::nullopt);
}

}  // namespace
}  // namespace clada::mcp
