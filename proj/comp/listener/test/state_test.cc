// ListenState, LoadListenState and SaveListenState.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/listener/test/test_support.h"

namespace clada::listener {
namespace {

using testing::CaseName;
using testing::Json;
using testing::LoadCases;
using testing::TempDir;

std::vector<uint64_t> Keys(const ListenState& state) { return {state.keys().begin(), state.keys().end()}; }
// The codes the state holds for `keys`.
std::vector<uint64_t> Codes(const std::vector<std::string>& keys) {
  std::vector<uint64_t> codes;
  for (const std::string& k : keys) codes.push_back(KeyCode(k));
  return codes;
}
// Codes written as 16 hex digits.
std::vector<uint64_t> HexCodes(const std::vector<std::string>& hex) {
  std::vector<uint64_t> codes;
  for (const std::string& h : hex) codes.push_back(std::stoull(h, nullptr, 16));
  return codes;
}
std::vector<std::string> Files(const ListenState& state) { return {state.files().begin(), state.files().end()}; }

class LoadStateTest : public ::testing::TestWithParam<Json> {};

TEST_P(LoadStateTest, ReadsStateOrSaysWhy) {
  const Json& c = GetParam();
  TempDir dir;
  const std::string path = dir.path() + "/" + kStateFileName;
  const Json& file = c.at("file");
  if (file.is_string()) testing::WriteFileOrDie(path, file.get<std::string>());
  if (file.is_object()) {
    ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  }

  absl::StatusOr<ListenState> state = LoadListenState(dir.path());
  if (c.contains("expectCode")) {
    ASSERT_FALSE(state.ok());
    EXPECT_EQ(absl::StatusCodeToString(state.status().code()), c.at("expectCode").get<std::string>());
    if (c.contains("expectMessage")) {
      EXPECT_TRUE(absl::StrContains(state.status().message(), c.at("expectMessage").get<std::string>()))
          << state.status();
      EXPECT_TRUE(absl::StrContains(state.status().message(), path)) << state.status();
    }
    return;
  }
  ASSERT_TRUE(state.ok()) << state.status();
  if (c.contains("expectCodes")) {
    EXPECT_EQ(Keys(*state), HexCodes(c.at("expectCodes").get<std::vector<std::string>>()));
  } else {
    EXPECT_EQ(Keys(*state), Codes(c.at("expectKeys").get<std::vector<std::string>>()));
  }
  if (c.contains("expectFiles")) {
    EXPECT_EQ(Files(*state), c.at("expectFiles").get<std::vector<std::string>>());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, LoadStateTest, ::testing::ValuesIn(LoadCases("load_state.json")), CaseName);

// Issue 17 #10: a state nested 100,000 levels deep is refused with the
// file's name and the fix, never a crash of the JSON parser.
TEST(ListenState, DeeplyNestedStateIsRefusedNotACrash) {
  TempDir dir;
  const std::string path = dir.path() + "/" + kStateFileName;
  testing::WriteFileOrDie(path, "{\"version\": 1, \"ran\": " + std::string(100000, '[') +
                                    std::string(100000, ']') + "}");
  absl::StatusOr<ListenState> state = LoadListenState(dir.path());
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(absl::StrContains(state.status().message(), path)) << state.status();
  EXPECT_TRUE(absl::StrContains(state.status().message(), "more than 64 levels deep")) << state.status();
  EXPECT_TRUE(absl::StrContains(state.status().message(), "delete it to start afresh")) << state.status();
}

TEST(ListenState, SaveThenLoadKeepsKeysAndOrder) {
  TempDir dir;
  ListenState state;
  state.MarkRun("b2:2");
  state.MarkRun("a1:1");
  state.MarkRun("b2:2");
  state.MarkListenedTo("/p/answer.md");
  ASSERT_TRUE(SaveListenState(dir.path(), state).ok());
  absl::StatusOr<ListenState> loaded = LoadListenState(dir.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(Keys(*loaded), Codes({"b2:2", "a1:1"}));
  EXPECT_TRUE(loaded->HasRun("a1:1"));
  EXPECT_FALSE(loaded->HasRun("c3:3"));
  EXPECT_EQ(Files(*loaded), (std::vector<std::string>{"/p/answer.md"}));
  EXPECT_TRUE(loaded->HasListenedTo("/p/answer.md"));
  EXPECT_FALSE(loaded->HasListenedTo("/p/other.md"));
}

// The state file records codes, not keys: 22 bytes a block in the file,
// 8 in memory. A state an earlier listener wrote (version 1, the keys
// themselves) still says which blocks ran.
TEST(ListenState, SavesKeyCodesAndStillReadsTheKeysOfAnEarlierListener) {
  TempDir dir;
  const std::string path = dir.path() + "/" + kStateFileName;
  testing::WriteFileOrDie(path, "{\"version\": 1, \"ran\": [\"a1:00000000000000aa\"], \"readers\": 6}");
  absl::StatusOr<ListenState> old = LoadListenState(dir.path());
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(old->HasRun("a1:00000000000000aa"));
  ASSERT_TRUE(SaveListenState(dir.path(), *old).ok());
  const std::string saved = testing::ReadFileOrEmpty(path);
  EXPECT_TRUE(absl::StrContains(saved, "\"version\": 2")) << saved;
  EXPECT_TRUE(absl::StrContains(saved, absl::StrFormat("\"%016x\"", KeyCode("a1:00000000000000aa")))) << saved;
  EXPECT_FALSE(absl::StrContains(saved, "a1:")) << saved;
  absl::StatusOr<ListenState> again = LoadListenState(dir.path());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->HasRun("a1:00000000000000aa"));
  EXPECT_EQ(Keys(*again), Codes({"a1:00000000000000aa"}));
}

// A file of more blocks than kMaxRememberedBlocks keeps all their keys
// (none is forgotten while present), and so must the state read back at
// the next start: a key dropped there would run its block again.
TEST(ListenState, ARestartRemembersEveryKeyOfAFileOfMoreBlocksThanTheLimit) {
  TempDir dir;
  ListenState state;
  std::vector<std::string> present;
  for (size_t i = 0; i < kMaxRememberedBlocks + 5000; ++i) present.push_back("p" + std::to_string(i));
  state.SetPresent(present);
  for (const std::string& k : present) state.MarkRun(k);
  ASSERT_EQ(state.keys().size(), present.size());
  ASSERT_TRUE(SaveListenState(dir.path(), state).ok());
  absl::StatusOr<ListenState> loaded = LoadListenState(dir.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->keys().size(), present.size());
  for (const std::string& k : present) ASSERT_TRUE(loaded->HasRun(k)) << k;
  // Once they are gone from the file, the oldest are forgotten again.
  loaded->MarkRun("new");
  EXPECT_EQ(loaded->keys().size(), kMaxRememberedBlocks);
}

TEST(ListenState, AReleasedIndexIsRestoredFromTheKeys) {
  ListenState state;
  state.MarkRun("a");
  state.MarkRun("b");
  state.ReleaseIndex();
  state.RestoreIndex();
  EXPECT_TRUE(state.HasRun("a"));
  EXPECT_TRUE(state.HasRun("b"));
  EXPECT_FALSE(state.HasRun("c"));
  state.MarkRun("b");  // known: not added twice
  EXPECT_EQ(Keys(state), Codes({"a", "b"}));
}

TEST(ListenState, KnowsTheLatestRunOfItsKeys) {
  ListenState state;
  state.MarkRun(KeyCode("a"), 1);
  state.MarkRun(KeyCode("b"), 2);
  state.MarkRun(KeyCode("c"));  // set aside, not run
  EXPECT_EQ(state.LatestRunOf({KeyCode("a")}), 1u);
  EXPECT_EQ(state.LatestRunOf({KeyCode("a"), KeyCode("b")}), 2u);
  EXPECT_EQ(state.LatestRunOf({KeyCode("c"), KeyCode("unknown")}), 0u);
  state.MarkRun(KeyCode("a"), 3);  // run again
  EXPECT_EQ(state.LatestRunOf({KeyCode("a"), KeyCode("b")}), 3u);
  EXPECT_EQ(Keys(state), Codes({"a", "b", "c"}));  // still in the order first marked
}

TEST(ListenState, ForgetsTheOldestFilesBeyondTheLimit) {
  ListenState state;
  for (size_t i = 0; i < kMaxRememberedFiles + 1; ++i) state.MarkListenedTo("/f" + std::to_string(i));
  state.MarkListenedTo("/f1");  // known: no change
  EXPECT_EQ(state.files().size(), kMaxRememberedFiles);
  EXPECT_FALSE(state.HasListenedTo("/f0"));
  EXPECT_TRUE(state.HasListenedTo("/f1"));
  EXPECT_EQ(state.files().front(), "/f1");
}

TEST(ListenState, ForgetsTheOldestBeyondTheLimit) {
  ListenState state;
  for (size_t i = 0; i < kMaxRememberedBlocks + 2; ++i) state.MarkRun("k" + std::to_string(i));
  EXPECT_EQ(state.keys().size(), kMaxRememberedBlocks);
  EXPECT_FALSE(state.HasRun("k0"));
  EXPECT_FALSE(state.HasRun("k1"));
  EXPECT_TRUE(state.HasRun("k2"));
  EXPECT_TRUE(state.HasRun("k" + std::to_string(kMaxRememberedBlocks + 1)));
  EXPECT_EQ(state.keys().front(), KeyCode("k2"));
}

TEST(ListenState, NeverForgetsAKeyStillPresent) {
  ListenState state;
  std::vector<std::string> present;
  for (size_t i = 0; i < kMaxRememberedBlocks + 5; ++i) present.push_back("p" + std::to_string(i));
  state.MarkRun("gone");
  state.SetPresent(present);
  for (const std::string& k : present) state.MarkRun(k);
  for (const std::string& k : present) EXPECT_TRUE(state.HasRun(k)) << k;
  EXPECT_FALSE(state.HasRun("gone"));  // not present: forgotten first
  EXPECT_EQ(state.keys().size(), kMaxRememberedBlocks + 5);
  // Once they are gone from the file, the oldest are forgotten again.
  state.SetPresent(std::vector<uint64_t>{});
  state.MarkRun("new");
  EXPECT_EQ(state.keys().size(), kMaxRememberedBlocks);
  EXPECT_TRUE(state.HasRun("new"));
}

TEST(ListenState, SaveIntoMissingDirectoryIsNotFound) {
  TempDir dir;
  absl::Status s = SaveListenState(dir.path() + "/missing", ListenState());
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
}

}  // namespace
}  // namespace clada::listener
