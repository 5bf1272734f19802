#include "proj/src/settings.h"

#include <sys/stat.h>

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/core/src/file_io.h"
#include "yaml-cpp/yaml.h"

namespace clada {
namespace {

using Mode = git_tx::GitOptions::Mode;

// A settings file is a dozen lines; anything this large is not one.
constexpr int64_t kMaxSettingsFileBytes = 1 << 20;

// Splits "30s" into 30 and "s".
bool SplitNumberUnit(absl::string_view text, int64_t& number, std::string& unit) {
  text = absl::StripAsciiWhitespace(text);
  size_t i = 0;
  while (i < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || !absl::SimpleAtoi(text.substr(0, i), &number)) return false;
  unit = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text.substr(i)));
  return true;
}

absl::Status BadValue(absl::string_view key, absl::string_view value, absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("setting '", key, "': '", value, "' is not valid; expected ", expected));
}

bool ParseBool(absl::string_view value, bool& out) {
  if (value == "true" || value == "yes" || value == "on") return out = true, true;
  if (value == "false" || value == "no" || value == "off") return out = false, true;
  return false;
}

std::string FormatDuration(int64_t ms) {
  if (ms == 0) return "none";
  if (ms % 1000 == 0) return absl::StrCat(ms / 1000, "s");
  return absl::StrCat(ms, "ms");
}

std::string FormatBytes(int64_t bytes) {
  if (bytes % (1 << 20) == 0) return absl::StrCat(bytes >> 20, "MB");
  if (bytes % (1 << 10) == 0) return absl::StrCat(bytes >> 10, "KB");
  return absl::StrCat(bytes, "B");
}

}  // namespace

absl::StatusOr<int64_t> ParseDurationMs(absl::string_view text) {
  int64_t n = 0;
  std::string unit;
  if (!SplitNumberUnit(text, n, unit)) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not a duration (e.g. 500ms, 30s, 5m)"));
  }
  if (unit.empty() || unit == "s") return n * 1000;
  if (unit == "ms") return n;
  if (unit == "m") return n * 60'000;
  if (unit == "h") return n * 3'600'000;
  return absl::InvalidArgumentError(absl::StrCat("'", text, "' has an unknown unit (use ms, s, m or h)"));
}

absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  int64_t n = 0;
  std::string unit;
  if (!SplitNumberUnit(text, n, unit)) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not a size (e.g. 512KB, 10MB)"));
  }
  if (unit.empty() || unit == "b") return n;
  if (unit == "kb" || unit == "k") return n << 10;
  if (unit == "mb" || unit == "m") return n << 20;
  if (unit == "gb" || unit == "g") return n << 30;
  return absl::InvalidArgumentError(absl::StrCat("'", text, "' has an unknown unit (use B, KB, MB or GB)"));
}

Settings DefaultSettings() {
  Settings s;
  for (const std::string& key : SettingNames()) s.source[key] = "default";
  return s;
}

const std::vector<std::string>& SettingNames() {
  static const auto* const kNames = new std::vector<std::string>{
      "allow",     "timeout", "total_timeout", "max_output", "report_budget", "max_file_size", "max_input",
      "exec",      "git",     "git_author",    "lock_timeout", "quiet", "report", "csl_start", "csl_end",
      "output_mode", "error_detail", "lock_file", "allow_escape", "sandbox", "exec_network"};
  return *kNames;
}

absl::Status ApplySetting(absl::string_view key, absl::string_view value, absl::string_view source,
                          Settings& s) {
  auto duration = [&](int64_t& field) -> absl::Status {
    if (key == "total_timeout" && (value == "none" || value == "0")) return field = 0, absl::OkStatus();
    absl::StatusOr<int64_t> ms = ParseDurationMs(value);
    if (!ms.ok() || *ms <= 0) return BadValue(key, value, "a positive duration such as 500ms, 30s or 5m");
    field = *ms;
    return absl::OkStatus();
  };
  auto size = [&](int64_t& field) -> absl::Status {
    absl::StatusOr<int64_t> bytes = ParseByteSize(value);
    if (!bytes.ok() || *bytes <= 0) return BadValue(key, value, "a positive size such as 512KB or 10MB");
    field = *bytes;
    return absl::OkStatus();
  };
  absl::Status status;
  if (key == "allow") {
    s.allow.emplace_back(value);
  } else if (key == "timeout") {
    status = duration(s.timeout_ms);
  } else if (key == "total_timeout") {
    status = duration(s.total_timeout_ms);
  } else if (key == "lock_timeout") {
    status = duration(s.lock_timeout_ms);
  } else if (key == "max_output") {
    status = size(s.max_output_bytes);
  } else if (key == "report_budget") {
    status = size(s.report_budget_bytes);
  } else if (key == "max_file_size") {
    status = size(s.max_file_bytes);
  } else if (key == "max_input") {
    status = size(s.max_input_bytes);
  } else if (key == "exec") {
    if (value == "allow") s.exec = core::ExecPolicy::kAllow;
    else if (value == "deny") s.exec = core::ExecPolicy::kDeny;
    else if (value == "approve") s.exec = core::ExecPolicy::kApprove;
    else status = BadValue(key, value, "allow, deny or approve");
  } else if (key == "sandbox") {
    if (value == "auto") s.sandbox = core::SandboxMode::kAuto;
    else if (value == "required") s.sandbox = core::SandboxMode::kRequired;
    else if (value == "off") s.sandbox = core::SandboxMode::kOff;
    else status = BadValue(key, value, "auto, required or off");
  } else if (key == "exec_network") {
    if (value == "allow") s.exec_network = true;
    else if (value == "deny") s.exec_network = false;
    else status = BadValue(key, value, "allow or deny");
  } else if (key == "git") {
    if (value == "auto") s.git = Mode::kAuto;
    else if (value == "off") s.git = Mode::kOff;
    else if (value == "require") s.git = Mode::kRequire;
    else status = BadValue(key, value, "auto, off or require");
  } else if (key == "git_author") {
    if (value.empty()) status = BadValue(key, value, "a non-empty name");
    else s.git_author = std::string(value);
  } else if (key == "quiet") {
    if (!ParseBool(value, s.quiet)) status = BadValue(key, value, "true or false");
  } else if (key == "report") {
    if (value == "auto" || value == "clada" || value == "cml" || value == "csl") s.report = std::string(value);
    else status = BadValue(key, value, "auto, clada, cml or csl");
  } else if (key == "csl_start" || key == "csl_end") {
    // A delimiter is part of a marker line: visible characters only.
    bool visible = !value.empty() && value.size() <= 16;
    for (char c : value) visible = visible && static_cast<unsigned char>(c) > ' ' && c != 0x7f;
    if (!visible) {
      status = BadValue(key, value, "1 to 16 visible characters without spaces (default <--- and --->)");
    } else {
      (key == "csl_start" ? s.csl_start : s.csl_end) = std::string(value);
    }
  } else if (key == "output_mode") {
    if (value == "stream" || value == "buffer" || value == "silent") s.output_mode = std::string(value);
    else status = BadValue(key, value, "stream, buffer or silent");
  } else if (key == "error_detail") {
    if (value == "minimal" || value == "full" || value == "debug") s.error_detail = std::string(value);
    else status = BadValue(key, value, "minimal, full or debug");
  } else if (key == "lock_file") {
    if (value.empty()) status = BadValue(key, value, "a file path, or none");
    else s.lock_file = value == "none" ? "" : std::string(value);
  } else if (key == "allow_escape") {
    if (!ParseBool(value, s.allow_escape)) status = BadValue(key, value, "true or false");
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown setting '", key, "'; known settings: ",
                                                   absl::StrJoin(SettingNames(), ", ")));
  }
  if (status.ok()) s.source[std::string(key)] = std::string(source);
  return status;
}

namespace {

// Every settings error names the file, says what is wrong and how to
// repair it: a run that cannot read its settings does nothing at all.
absl::Status SettingsFileError(const std::string& path, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": ", problem, ". clada reads its settings from this file at the start of every run and runs nothing ",
      "while it is unreadable: correct it, or delete it to run with the defaults (`clada config` lists the ",
      "settings and their values)"));
}

}  // namespace

absl::Status ApplySettingsFile(const std::string& path, Settings& s) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return absl::OkStatus();
  absl::StatusOr<std::string> text = core::ReadFileToString(path, kMaxSettingsFileBytes);
  if (!text.ok()) return SettingsFileError(path, absl::StrCat("cannot be read: ", text.status().message()));
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return SettingsFileError(path, absl::StrCat("invalid YAML: ", e.what()));
  }
  if (root.IsNull()) return absl::OkStatus();
  if (!root.IsMap()) return SettingsFileError(path, "expected a mapping of setting: value");
  // yaml-cpp throws on a conversion it cannot make; nothing below should
  // reach one (every node is checked to be a scalar first), but an exception
  // must never escape as a crash.
  try {
    for (const auto& entry : root) {
      if (!entry.first.IsScalar()) {
        return SettingsFileError(path,
                                 "a setting's name must be a plain word (e.g. 'timeout: 30s'), not a list or a mapping");
      }
      std::string key = entry.first.as<std::string>();
      const YAML::Node& node = entry.second;
      std::vector<std::string> values;
      if (node.IsSequence() && key == "allow") {
        for (const auto& item : node) {
          if (!item.IsScalar()) return SettingsFileError(path, "'allow' items must be paths");
          values.push_back(item.as<std::string>());
        }
      } else if (node.IsScalar()) {
        values.push_back(node.as<std::string>());
      } else {
        return SettingsFileError(path, absl::StrCat("setting '", key, "' must be a single value"));
      }
      for (const std::string& v : values) {
        absl::Status status = ApplySetting(key, v, path, s);
        if (!status.ok()) return SettingsFileError(path, status.message());
      }
    }
  } catch (const YAML::Exception& e) {
    return SettingsFileError(path, absl::StrCat("invalid settings: ", e.what()));
  }
  return absl::OkStatus();
}

std::string SettingValueText(const Settings& s, absl::string_view key) {
  if (key == "allow") return s.allow.empty() ? "[]" : absl::StrCat("[", absl::StrJoin(s.allow, ", "), "]");
  if (key == "timeout") return FormatDuration(s.timeout_ms);
  if (key == "total_timeout") return FormatDuration(s.total_timeout_ms);
  if (key == "lock_timeout") return FormatDuration(s.lock_timeout_ms);
  if (key == "max_output") return FormatBytes(s.max_output_bytes);
  if (key == "report_budget") return FormatBytes(s.report_budget_bytes);
  if (key == "max_file_size") return FormatBytes(s.max_file_bytes);
  if (key == "max_input") return FormatBytes(s.max_input_bytes);
  if (key == "exec") {
    switch (s.exec) {
      case core::ExecPolicy::kAllow: return "allow";
      case core::ExecPolicy::kDeny: return "deny";
      case core::ExecPolicy::kApprove: return "approve";
    }
  }
  if (key == "sandbox") {
    switch (s.sandbox) {
      case core::SandboxMode::kAuto: return "auto";
      case core::SandboxMode::kRequired: return "required";
      case core::SandboxMode::kOff: return "off";
    }
  }
  if (key == "exec_network") return s.exec_network ? "allow" : "deny";
  if (key == "git") {
    switch (s.git) {
      case Mode::kAuto: return "auto";
      case Mode::kOff: return "off";
      case Mode::kRequire: return "require";
    }
  }
  if (key == "git_author") return s.git_author;
  if (key == "quiet") return s.quiet ? "true" : "false";
  if (key == "report") return s.report;
  if (key == "csl_start") return s.csl_start;
  if (key == "csl_end") return s.csl_end;
  if (key == "output_mode") return s.output_mode;
  if (key == "error_detail") return s.error_detail;
  if (key == "lock_file") return s.lock_file.empty() ? "none" : s.lock_file;
  if (key == "allow_escape") return s.allow_escape ? "true" : "false";
  return "";
}

}  // namespace clada
