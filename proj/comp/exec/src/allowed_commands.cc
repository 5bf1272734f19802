#include "proj/comp/exec/src/allowed_commands.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/status_macros.h"

namespace clada::exec::internal {
namespace {

constexpr int64_t kMaxFileBytes = 16 << 20;

// The file's JSON object; an empty object when the file does not exist.
absl::StatusOr<core::Json> LoadFile(const std::string& path) {
  absl::StatusOr<std::string> text = core::ReadFileToString(path, kMaxFileBytes);
  if (absl::IsNotFound(text.status())) return core::Json::object();
  if (!text.ok()) return text.status();
  core::Json doc = core::Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a JSON object like {\"commands\": [\"npm test\"]}; fix or remove it"));
  }
  if (doc.contains("commands")) {
    const core::Json& commands = doc["commands"];
    const bool all_strings = commands.is_array() && std::all_of(commands.begin(), commands.end(),
                                                                [](const core::Json& c) { return c.is_string(); });
    if (!all_strings) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": \"commands\" must be an array of strings; fix or remove it"));
    }
  }
  if (doc.contains("added") && !doc["added"].is_object()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": \"added\" must be an object of timestamps; fix or remove it"));
  }
  return doc;
}

}  // namespace

std::string AllowedCommandsPath(absl::string_view root) { return absl::StrCat(root, "/.clada/allowed-commands.json"); }

absl::StatusOr<std::vector<std::string>> LoadAllowedCommands(absl::string_view root) {
  ASSIGN_OR_RETURN(core::Json doc, LoadFile(AllowedCommandsPath(root)));
  std::vector<std::string> commands;
  if (doc.contains("commands")) {
    for (const core::Json& c : doc["commands"]) commands.push_back(c.get<std::string>());
  }
  return commands;
}

absl::StatusOr<bool> AddAllowedCommand(absl::string_view root, const std::string& code, absl::Time now) {
  const std::string path = AllowedCommandsPath(root);
  ASSIGN_OR_RETURN(core::Json doc, LoadFile(path));
  if (!doc.contains("commands")) doc["commands"] = core::Json::array();
  for (const core::Json& c : doc["commands"]) {
    if (c.get<std::string>() == code) return false;
  }
  doc["commands"].push_back(code);
  if (!doc.contains("added")) doc["added"] = core::Json::object();
  doc["added"][code] = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone());
  RETURN_IF_ERROR(core::CreateStateDirectory(absl::StrCat(root, "/.clada")));
  // The code came from the LLM and may hold invalid UTF-8: replace rather
  // than throw.
  std::string text = doc.dump(2, ' ', false, core::Json::error_handler_t::replace);
  text.push_back('\n');
  RETURN_IF_ERROR(core::WriteFileAtomic(path, text));
  return true;
}

std::string ShellQuote(absl::string_view s) { return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'"); }

std::string ApproveCommandLine(absl::string_view code) {
  const bool dashed = !code.empty() && code.front() == '-';
  return absl::StrCat("clada approve ", dashed ? "-- " : "", ShellQuote(code));
}

}  // namespace clada::exec::internal
