// The remembered keys of blocks already run: <state_dir>/listen-state.json.
#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/json_bounded.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/readers/src/all_readers.h"

namespace clada::listener {
namespace {

// 2: keys recorded as their KeyCode in hex; 1: as the keys themselves.
constexpr int kStateVersion = 2;
// Which blocks the listener that wrote the state could see: the registry's
// version of its dialects (readers::kDialectsVersion; 1 or absent: the
// strict grammar's SHAM blocks only). Blocks an older listener could not
// see were neither run nor set aside, so the files it knew start afresh:
// their next start is a first start, which sets aside, never runs.
constexpr int kBlockReaders = readers::kDialectsVersion;
constexpr int64_t kMaxStateBytes = 64 * 1024 * 1024;

std::string StatePath(const std::string& state_dir) { return absl::StrCat(state_dir, "/", kStateFileName); }

absl::Status NotAState(const std::string& path, absl::string_view why) {
  return absl::DataLossError(absl::StrCat("'", path, "' is not a clada listen state (", why,
                                          "); delete it to start afresh (the next start is then a first start: the ",
                                          "blocks already in the file are set aside, not run)"));
}

}  // namespace

void ListenState::MarkRun(uint64_t code, uint32_t run) {
  if (!index_.insert(code).second) {
    if (run != 0) rerun_[code] = run;
    return;
  }
  keys_.push_back(code);
  runs_.push_back(run);
  // A present key at the front goes to the back (it was just seen): there
  // is a key not present whenever the keys outnumber the present ones.
  while (keys_.size() > std::max(kMaxRememberedBlocks, present_.size())) {
    const uint64_t oldest = keys_.front();
    const uint32_t oldest_run = runs_.front();
    keys_.pop_front();
    runs_.pop_front();
    if (Present(oldest)) {
      keys_.push_back(oldest);
      runs_.push_back(oldest_run);
    } else {
      index_.erase(oldest);
      rerun_.erase(oldest);
    }
  }
}

uint32_t ListenState::LatestRunOf(const std::vector<uint64_t>& codes) const {
  const absl::flat_hash_set<uint64_t> wanted(codes.begin(), codes.end());
  uint32_t latest = 0;
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (!wanted.contains(keys_[i])) continue;
    auto again = rerun_.find(keys_[i]);
    latest = std::max(latest, again != rerun_.end() ? again->second : runs_[i]);
  }
  return latest;
}

void ListenState::SetPresent(std::vector<uint64_t> codes) {
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  codes.shrink_to_fit();
  present_ = std::move(codes);
}

void ListenState::SetPresent(const std::vector<std::string>& keys) {
  std::vector<uint64_t> codes;
  codes.reserve(keys.size());
  for (const std::string& k : keys) codes.push_back(KeyCode(k));
  SetPresent(std::move(codes));
}

void ListenState::MarkListenedTo(const std::string& file) {
  if (!file_index_.insert(file).second) return;
  files_.push_back(file);
  while (files_.size() > kMaxRememberedFiles) {
    file_index_.erase(files_.front());
    files_.pop_front();
  }
}

absl::StatusOr<ListenState> LoadListenState(const std::string& state_dir) {
  const std::string path = StatePath(state_dir);
  absl::StatusOr<std::string> text = core::ReadFileToString(path, kMaxStateBytes);
  if (absl::IsNotFound(text.status())) return ListenState();
  if (!text.ok()) return text.status();

  absl::StatusOr<nlohmann::json> parsed = core::ParseJsonBounded(*text, core::kMaxStateJsonDepth, kMaxStateBytes);
  if (!parsed.ok()) return NotAState(path, parsed.status().message());
  const nlohmann::json& json = *parsed;
  if (!json.is_object()) return NotAState(path, "not a JSON object");
  auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer() ||
      (version->get<int64_t>() != 1 && version->get<int64_t>() != kStateVersion)) {
    return NotAState(path, absl::StrCat("\"version\" is not 1 or ", kStateVersion));
  }
  const bool codes_written = version->get<int64_t>() == kStateVersion;
  auto ran = json.find("ran");
  if (ran == json.end() || !ran->is_array()) return NotAState(path, "\"ran\" is not an array");
  std::vector<uint64_t> codes;
  codes.reserve(ran->size());
  for (const nlohmann::json& key : *ran) {
    if (!key.is_string()) return NotAState(path, "\"ran\" holds a value that is not a string");
    const std::string& text = key.get_ref<const std::string&>();
    if (!codes_written) {
      codes.push_back(KeyCode(text));
      continue;
    }
    uint64_t code = 0;
    if (text.size() != 16 || !std::all_of(text.begin(), text.end(), [](char c) {
          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        }) || !absl::SimpleHexAtoi(text, &code)) {
      return NotAState(path, "\"ran\" holds a value that is not 16 hex digits");
    }
    codes.push_back(code);
  }
  // Every key saved is kept: a state holds more than kMaxRememberedBlocks
  // when the file held more blocks, each of which would run again if its
  // key were dropped here. The next marking forgets the oldest again once
  // they are gone from the file.
  ListenState state;
  state.SetPresent(codes);
  for (const uint64_t code : codes) state.MarkRun(code);
  state.SetPresent(std::vector<uint64_t>());
  auto readers = json.find("readers");  // absent in states of a listener that saw fewer blocks
  if (readers != json.end() && !readers->is_number_integer()) {
    return NotAState(path, "\"readers\" is not a whole number");
  }
  const bool saw_what_a_run_sees = readers != json.end() && readers->get<int64_t>() >= kBlockReaders;
  auto files = json.find("files");  // absent in states written before files were recorded
  if (files != json.end()) {
    if (!files->is_array()) return NotAState(path, "\"files\" is not an array");
    for (const nlohmann::json& file : *files) {
      if (!file.is_string()) return NotAState(path, "\"files\" holds a value that is not a string");
      if (saw_what_a_run_sees) state.MarkListenedTo(file.get<std::string>());
    }
  }
  return state;
}

absl::Status SaveListenState(const std::string& state_dir, const ListenState& state) {
  // Written out string by string: a document of every key (hundreds of
  // thousands for a big chat) would take several times their size.
  std::string text = absl::StrCat("{\n \"version\": ", kStateVersion, ",\n \"readers\": ", kBlockReaders, ",\n");
  auto append_array = [&text](absl::string_view name, const auto& values, auto format, bool last) {
    absl::StrAppend(&text, " \"", name, "\": [");
    bool first = true;
    for (const auto& v : values) {
      absl::StrAppend(&text, first ? "\n  " : ",\n  ", format(v));
      first = false;
    }
    absl::StrAppend(&text, values.empty() ? "]" : "\n ]", last ? "\n" : ",\n");
  };
  text.reserve(text.size() + state.keys().size() * 22 + 64);
  append_array(
      "ran", state.keys(), [](uint64_t code) { return absl::StrFormat("\"%016x\"", code); }, false);
  append_array(
      "files", state.files(), [](const std::string& file) { return nlohmann::json(file).dump(); }, true);
  text += "}\n";
  return core::WriteFileAtomic(StatePath(state_dir), text);
}

}  // namespace clada::listener
