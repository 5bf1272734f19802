#include "proj/comp/listener/test/test_support.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "proj/comp/listener/src/listener.h"

namespace clada::listener::testing {

std::vector<Json> LoadCases(const std::string& file) {
  const std::string path = "proj/comp/listener/test-data/" + file;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path;
    return {};
  }
  Json doc = Json::parse(in);
  std::vector<Json> cases;
  for (const Json& c : doc.at("cases")) cases.push_back(c);
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<Json>& info) { return info.param.at("name").get<std::string>(); }

std::string TextOf(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  std::string out;
  for (const Json& line : value) out += line.get<std::string>() + "\n";
  return out;
}

std::string BlockId(const ScannedBlock& block) {
  if (block.dialect != "sham") return block.dialect;
  // The SHAM ID in the header, `[@three-char-SHA-256: <id>]` on the block's first line.
  absl::string_view first = block.text;
  first = first.substr(0, first.find('\n'));
  constexpr absl::string_view kTag = "[@three-char-SHA-256:";
  const size_t at = first.find(kTag);
  if (at == absl::string_view::npos) return "";
  absl::string_view id = first.substr(at + kTag.size());
  const size_t close = id.find(']');
  if (close == absl::string_view::npos) return "";
  return std::string(absl::StripAsciiWhitespace(id.substr(0, close)));
}

std::vector<std::string> BlockIds(const std::string& text) {
  std::vector<std::string> ids;
  for (const ScannedBlock& b : ScanBlocks(text)) ids.push_back(BlockId(b));
  return ids;
}

TempDir::TempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/listener-XXXXXX";
  char* made = mkdtemp(tmpl.data());
  if (made == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << tmpl;
  }
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileOrDie(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

}  // namespace clada::listener::testing
