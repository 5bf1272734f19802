// clada's effective settings: built-in defaults, then `.clada/config.yaml`
// in the working root, then command-line flags, each value remembering
// where it came from (for `clada config`).
//
// Example:
//   Settings s = DefaultSettings();
//   RETURN_IF_ERROR(ApplySettingsFile(root + "/.clada/config.yaml", s));
//   RETURN_IF_ERROR(ApplySetting("timeout", "5s", "flag --timeout", s));
#ifndef CLADA_PROJ_SRC_SETTINGS_H_
#define CLADA_PROJ_SRC_SETTINGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proj/comp/core/src/action.h"
#include "proj/comp/git-tx/src/git_tx.h"

namespace clada {

struct Settings {
  std::vector<std::string> allow;         // extra allowed roots
  int64_t timeout_ms = 30'000;            // per action
  int64_t total_timeout_ms = 0;           // whole batch; 0 = none
  int64_t max_output_bytes = 10 << 20;    // per action output kept
  int64_t report_budget_bytes = 100 << 10;  // the whole text report
  int64_t max_file_bytes = 10 << 20;      // read/edit limit
  int64_t max_input_bytes = 50 << 20;     // LLM answer size
  core::ExecPolicy exec = core::ExecPolicy::kAllow;
  // How exec code is contained (auto | required | off) and whether it may
  // use the network (exec_network: allow | deny).
  core::SandboxMode sandbox = core::SandboxMode::kAuto;
  bool exec_network = false;
  git_tx::GitOptions::Mode git = git_tx::GitOptions::Mode::kAuto;
  std::string git_author = "clada";
  int64_t lock_timeout_ms = 10'000;
  bool quiet = false;
  std::string report = "auto";  // report form: auto | clada | cml | csl
  // CSL's marker delimiters: a marker line is `<csl_start>NAME attrs<csl_end>`.
  std::string csl_start = "<---";
  std::string csl_end = "--->";
  // Live exec output on stderr: stream (each line as it comes), buffer (an
  // action's lines together when it ends) or silent (none; also quiet).
  std::string output_mode = "stream";
  // How much of an error the text report shows: minimal (its first line),
  // full (with the fix and the diagnosis) or debug (also the action's
  // parameters and source lines). --json always has everything.
  std::string error_detail = "full";
  // A file every run also locks (flock), "" for none: relative to the
  // working root. Never written; out of reach of every action.
  std::string lock_file;
  // Paths outside the working root are allowed (the deny list still
  // holds): the same as --allow /.
  bool allow_escape = false;
  // setting name -> where its value came from ("default", a file, a flag).
  std::map<std::string, std::string> source;
};

Settings DefaultSettings();

// Names of every setting, in display order.
const std::vector<std::string>& SettingNames();

// Sets one setting from its text form ("30s", "10MB", "approve", ...).
// Errors: InvalidArgument naming the key and the accepted forms.
absl::Status ApplySetting(absl::string_view key, absl::string_view value, absl::string_view source,
                          Settings& settings);

// Applies a YAML settings file when it exists (a missing file is fine).
// Errors: InvalidArgument naming the file and key for an unknown key, a
// bad value or invalid YAML; the file is never silently ignored.
absl::Status ApplySettingsFile(const std::string& path, Settings& settings);

// The value of one setting in its text form.
std::string SettingValueText(const Settings& settings, absl::string_view key);

// Parses "500ms", "30s", "5m", "1h" or a bare number of seconds.
absl::StatusOr<int64_t> ParseDurationMs(absl::string_view text);

// Parses "10MB", "512KB", "1GB", "100B" or a bare number of bytes.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_SETTINGS_H_
