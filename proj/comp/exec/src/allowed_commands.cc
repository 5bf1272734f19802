#include "proj/comp/exec/src/allowed_commands.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/json_bounded.h"
#include "proj/comp/core/src/status_macros.h"

namespace clada::exec::internal {
namespace {

constexpr int64_t kMaxFileBytes = 16 << 20;

bool IsEntry(const core::Json& e) {
  if (e.is_string()) return true;
  return e.is_object() && e.contains("lang") && e["lang"].is_string() && e.contains("code") && e["code"].is_string();
}

// The file's JSON object; an empty object when the file does not exist.
absl::StatusOr<core::Json> LoadFile(const std::string& path) {
  absl::StatusOr<std::string> text = core::ReadFileToString(path, kMaxFileBytes);
  if (absl::IsNotFound(text.status())) return core::Json::object();
  if (!text.ok()) return text.status();
  absl::StatusOr<core::Json> parsed = core::ParseJsonBounded<core::Json>(*text, core::kMaxStateJsonDepth, kMaxFileBytes);
  if (!parsed.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(path, " cannot be read: ", parsed.status().message(),
                                                      "; fix or remove it (`clada approve` writes it anew)"));
  }
  core::Json& doc = *parsed;
  if (!doc.is_object()) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is not a JSON object like {\"commands\": [{\"lang\": \"bash\", \"code\": \"npm test\"}]}; "
              "fix or remove it"));
  }
  if (doc.contains("commands")) {
    const core::Json& commands = doc["commands"];
    if (!commands.is_array()) {
      return absl::FailedPreconditionError(absl::StrCat(path, ": \"commands\" must be an array; fix or remove it"));
    }
    for (const core::Json& e : commands) {
      if (!IsEntry(e)) {
        return absl::FailedPreconditionError(absl::StrCat(
            path, ": each entry of \"commands\" must be an object {\"lang\": \"bash\", \"code\": \"npm test\"} "
                  "(or a string, from an earlier clada); fix or remove it"));
      }
    }
  }
  if (doc.contains("added") && !doc["added"].is_object()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": \"added\" must be an object of timestamps; fix or remove it"));
  }
  return std::move(doc);
}

core::ApprovedCode EntryOf(const core::Json& e) {
  if (e.is_string()) return {"", e.get<std::string>()};
  return {e["lang"].get<std::string>(), e["code"].get<std::string>()};
}

}  // namespace

std::string AllowedCommandsPath(absl::string_view root) { return absl::StrCat(root, "/.clada/allowed-commands.json"); }

absl::StatusOr<std::vector<core::ApprovedCode>> LoadAllowedCommands(absl::string_view root) {
  ASSIGN_OR_RETURN(core::Json doc, LoadFile(AllowedCommandsPath(root)));
  std::vector<core::ApprovedCode> approved;
  if (doc.contains("commands")) {
    for (const core::Json& e : doc["commands"]) approved.push_back(EntryOf(e));
  }
  return approved;
}

absl::StatusOr<bool> AddAllowedCommand(absl::string_view root, const std::string& lang, const std::string& code,
                                       absl::Time now) {
  const std::string path = AllowedCommandsPath(root);
  ASSIGN_OR_RETURN(core::Json doc, LoadFile(path));
  if (!doc.contains("commands")) doc["commands"] = core::Json::array();
  for (const core::Json& e : doc["commands"]) {
    const core::ApprovedCode a = EntryOf(e);
    if (a.lang == lang && a.code == code) return false;
  }
  core::Json entry = core::Json::object();
  entry["lang"] = lang;
  entry["code"] = code;
  entry["added"] = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone());
  doc["commands"].push_back(std::move(entry));
  RETURN_IF_ERROR(core::CreateStateDirectory(absl::StrCat(root, "/.clada")));
  // The code came from the LLM and may hold invalid UTF-8: replace rather
  // than throw.
  std::string text = doc.dump(2, ' ', false, core::Json::error_handler_t::replace);
  text.push_back('\n');
  RETURN_IF_ERROR(core::WriteFileAtomic(path, text));
  return true;
}

std::string ShellQuote(absl::string_view s) { return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'"); }

std::string ApproveCommandLine(absl::string_view lang, absl::string_view code) {
  const bool dashed = !code.empty() && code.front() == '-';
  return absl::StrCat("clada approve --lang ", lang, " ", dashed ? "-- " : "", ShellQuote(code));
}

}  // namespace clada::exec::internal
