#include "proj/comp/core/src/packed_actions.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace clada::core {
namespace {

// Equal values of equal types, recursively (nlohmann's == calls 5 and 5u equal).
bool SameJson(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    auto ib = b.begin();
    for (auto ia = a.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia.key() != ib.key() || !SameJson(ia.value(), ib.value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameJson(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

void ExpectSameAction(const Action& a, const Action& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_TRUE(SameJson(a.params, b.params)) << a.params.dump() << " vs " << b.params.dump();
  EXPECT_EQ(a.params.dump(), b.params.dump());
  EXPECT_EQ(a.metadata.block_id, b.metadata.block_id);
  EXPECT_EQ(a.metadata.start_line, b.metadata.start_line);
  EXPECT_EQ(a.metadata.end_line, b.metadata.end_line);
  EXPECT_EQ(a.metadata.explanation, b.metadata.explanation);
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_EQ(a.line_params, b.line_params);
  EXPECT_EQ(a.edit_options, b.edit_options);
}

Action Sample(int i) {
  Action a;
  a.name = i % 2 ? "file_replace_text" : "exec";
  a.params["path"] = "src/app-" + std::to_string(i) + ".js";
  a.params["old_text"] = std::string("line one\nline two\r\n\0tail", 24);
  a.params["count"] = i;                                // signed
  a.params["limit"] = static_cast<uint64_t>(i) * 3u;    // unsigned
  a.params["big"] = INT64_MIN + i;
  a.params["ratio"] = 0.1 * i;
  a.params["flag"] = i % 3 == 0;
  a.params["none"] = nullptr;
  a.params["list"] = Json::array({"a", 1, Json::object({{"z", 1}, {"a", 2}}), Json::array()});
  a.params["zeta_before_alpha"] = Json::object({{"zeta", "ü ✓"}, {"alpha", ""}});
  a.metadata.block_id = "task-" + std::to_string(i);
  a.metadata.start_line = i;
  a.metadata.end_line = i + 7;
  a.metadata.explanation = i % 4 ? "" : "because";
  if (i % 5 == 0) a.warnings = {"ignored key 'x'", ""};
  if (i % 2) a.line_params = {"old_text"};
  // Every combination of the edit options comes back as it was.
  a.edit_options.tolerant_match = i % 7 == 0;
  a.edit_options.find_file_by_name = i % 3 == 0;
  a.edit_options.append_once = i % 11 == 0;
  a.edit_options.delete_directories = i % 13 == 0;
  return a;
}

TEST(PackedActions, GivesBackEachActionAsItWasWithItsTypesAndOrder) {
  PackedActions packed;
  for (int i = 0; i < 2000; ++i) EXPECT_EQ(packed.Add(Sample(i)), static_cast<size_t>(i));
  ASSERT_EQ(packed.size(), 2000u);
  for (int i = 0; i < 2000; ++i) {
    ExpectSameAction(packed.Get(i), Sample(i));
    EXPECT_EQ(packed.Name(i), Sample(i).name);
  }
}

// Packing parts gives the bytes packing the equal Action gives: both read
// back the same, and take the same room.
TEST(PackedActions, PartsPackAsTheActionTheyDescribe) {
  const std::vector<std::string> warnings = {"attribute x ignored", ""};
  const std::vector<absl::string_view> lines = {"content"};
  const std::string body("a\nb\r\n\0c", 8);
  for (int i = 0; i < 8; ++i) {
    // The parts are views: what they view outlives them.
    const std::string path = "src/f" + std::to_string(i) + ".cc";
    const std::string block_id = "task-" + std::to_string(i);
    const std::vector<PackedParam> params = {
        PackedParam::String("path", path),
        PackedParam::String("content", body),
        PackedParam::Integer("count", i % 2 ? INT64_MIN + i : 1000000007LL * i),
        PackedParam::Boolean("all", i % 3 == 0),
        PackedParam::String("empty", ""),
    };
    ActionParts parts;
    parts.name = i % 2 ? "file_write" : "file_replace_text_range";
    parts.params = absl::MakeConstSpan(params).subspan(0, 1 + i % 5);
    parts.block_id = block_id;
    parts.start_line = i - 3;
    parts.end_line = i * 1000;
    parts.explanation = i % 4 ? "" : "why";
    if (i % 2) parts.warnings = warnings;
    if (i % 3) parts.line_params = lines;
    parts.edit_options.tolerant_match = i == 5;
    parts.edit_options.find_file_by_name = i == 5 || i == 6;
    parts.edit_options.append_once = i == 7;
    parts.edit_options.delete_directories = i == 7 || i == 8;
    const Action made = MakeAction(parts);
    ASSERT_EQ(made.params.size(), 1u + i % 5);
    if (i % 5 >= 2) {
      EXPECT_TRUE(made.params["count"].is_number_integer());
      EXPECT_FALSE(made.params["count"].is_number_unsigned());
    }

    PackedActions from_parts, from_action;
    from_parts.Add(parts);
    from_action.Add(made);
    ExpectSameAction(from_parts.Get(0), made);
    ExpectSameAction(from_action.Get(0), made);
    EXPECT_EQ(from_parts.Name(0), parts.name);
    EXPECT_EQ(from_parts.bytes(), from_action.bytes());
  }
}

TEST(PackedActions, AnEmptyActionAndNegativeLines) {
  PackedActions packed;
  Action empty;
  Action negative;
  negative.metadata.start_line = -3;
  negative.params = Json::array();  // not an object: still given back as it was
  packed.Add(empty);
  packed.Add(negative);
  ExpectSameAction(packed.Get(0), empty);
  ExpectSameAction(packed.Get(1), negative);
}

TEST(PackedActions, ActionsLargerThanAChunkAndManyChunks) {
  PackedActions packed;
  Action big;
  big.name = "file_write";
  big.params["content"] = std::string(3 << 20, 'x');  // three chunks' worth
  packed.Add(Sample(1));
  packed.Add(big);
  for (int i = 0; i < 40000; ++i) packed.Add(Sample(i));  // several 1 MiB chunks
  ExpectSameAction(packed.Get(0), Sample(1));
  ExpectSameAction(packed.Get(1), big);
  for (int i = 0; i < 40000; i += 997) ExpectSameAction(packed.Get(2 + i), Sample(i));
  ExpectSameAction(packed.Get(40001), Sample(39999));
}

TEST(PackedActions, AppendMovesAnotherAfterThese) {
  PackedActions first, second;
  for (int i = 0; i < 30000; ++i) first.Add(Sample(i));
  for (int i = 0; i < 30000; ++i) second.Add(Sample(100000 + i));
  EXPECT_EQ(first.Append(std::move(second)), 30000u);
  EXPECT_TRUE(second.empty());
  ASSERT_EQ(first.size(), 60000u);
  first.Add(Sample(7));  // after a moved-in chunk
  for (int i = 0; i < 30000; i += 991) {
    ExpectSameAction(first.Get(i), Sample(i));
    ExpectSameAction(first.Get(30000 + i), Sample(100000 + i));
  }
  ExpectSameAction(first.Get(60000), Sample(7));
  PackedActions empty;
  EXPECT_EQ(empty.Append(std::move(first)), 0u);
  ExpectSameAction(empty.Get(59999), Sample(129999));
}

TEST(PackedActions, ASmallTaskTakesFewBytes) {
  PackedActions packed;
  for (int i = 0; i < 100000; ++i) {
    Action a;
    a.name = "file_delete";
    a.params["path"] = "no" + std::to_string(i);
    a.metadata.block_id = "task-" + std::to_string(i + 1);
    a.metadata.start_line = a.metadata.end_line = i + 1;
    packed.Add(a);
  }
  // About 25 bytes of packing (the name, the key `path` and `task-`
  // packed as numbers) and 8 of index each, chunks rounding up.
  EXPECT_LT(packed.bytes(), 100000u * 45);
}

// Names, keys and block ids are packed as numbers when they are the
// schema's words and readers' labels, as bytes otherwise: each comes back
// as it was.
TEST(PackedActions, WordsAndLabelsComeBackAsTheyWere) {
  const std::string labels[] = {"task-1",  "task-0",  "task-007",      "task-12.3",     "task-", "patch-999999999",
                                "patch-1234567890", "rep-5", "sr-0x1", "diff-42", "block-3", "", "TASK-1", "task-1 "};
  const std::string names[] = {"file_delete", "files_read", "exec", "not_an_action", "", "ls"};
  PackedActions packed;
  std::vector<Action> in;
  for (const std::string& label : labels) {
    for (const std::string& name : names) {
      Action a;
      a.name = name;
      a.params["path"] = "p";
      a.params["unknown_key"] = Json::object({{"content", 1}, {"weird key", "x"}});
      a.metadata.block_id = label;
      a.line_params = {"content", "not_a_param", ""};
      in.push_back(a);
      packed.Add(a);
      const PackedParam params[] = {PackedParam::String("path", "p"), PackedParam::String("odd", "q")};
      const absl::string_view lines[] = {"content", "other"};
      ActionParts parts;
      parts.name = name;
      parts.params = params;
      parts.block_id = label;
      parts.line_params = lines;
      in.push_back(MakeAction(parts));
      packed.Add(parts);
    }
  }
  ASSERT_EQ(packed.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ExpectSameAction(packed.Get(i), in[i]);
    EXPECT_EQ(packed.Name(i), in[i].name);
  }
}

}  // namespace
}  // namespace clada::core
