#include "proj/src/cli.h"

#include <limits.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proj/comp/context/src/context.h"
#include "proj/comp/core/src/answer_lines.h"
#include "proj/comp/core/src/error_code.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/core/src/terminal_text.h"
#include "proj/comp/core/src/utf8.h"
#include "proj/comp/exec/src/exec.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/listener/src/listener.h"
#include "proj/comp/mcp/src/host_config.h"
#include "proj/comp/answer/src/reader.h"
#include "proj/comp/readers/src/all_readers.h"
#include "proj/comp/sham-action-parser/src/commands.h"
#include "proj/comp/sham-parser/src/parse_command.h"
#include "proj/src/clada.h"
#include "proj/src/mcp_adapter.h"
#include "proj/src/report.h"
#include "proj/src/settings.h"

namespace clada {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
// The results section of `clada listen`'s output file: this many report
// budgets (the summary at the top of FILE: one).
constexpr int64_t kListenReportBudgets = 8;

constexpr char kUsage[] = R"(usage: clada [COMMAND] [ARGS] [FLAGS]

Applies the action blocks in an LLM's answer to a project and prints a
report for the LLM to read next turn. It reads seven dialects, mixed freely
in one answer: SHAM (#!SHAM / #!NESL), CML (<tasks>, <edit>, <write> ...),
CSL (<---WRITE--->, <---RUN---> ...), replacer blocks (<<<FILE>>>
<<<SEARCH>>> ...), Aider SEARCH/REPLACE (<<<<<<< SEARCH), unified diffs
(git diff, diff -u) and Codex apply_patch (*** Begin Patch). Each batch is
a git commit that `clada undo` takes back. `clada COMMAND --help` (or
`clada help COMMAND`) tells one command's use.

Commands:
  run [FILE|-]          run every valid block (default command; stdin when no FILE)
  validate [FILE|-]     parse and validate only; print what would run (--json)
  parse [FILE|-]        print the raw block parse as JSON
  instructions [--dialect sham|cml|csl|replacer|apply_patch|search_replace|udiff]
                        print the text to paste into an LLM's system prompt
  schema                print the action schema as JSON
  config                print the effective settings and where each came from
  approve CODE          allow exec of CODE when exec policy is 'approve'
  context add|remove|list|prune|clear|show [PATH...]
                        manage the working set of files the LLM should see
                        (show --numbered: with line numbers)
  undo [--dry-run]      restore the tree to before the last AI commit
  step-back | step-forward [--dry-run]
                        move the working tree one commit back / forward
  squash --mode MODE    squash commits (auto_ai, ai_messages, hours N, days N,
                        msg_contains TEXT) [--message M] [--contiguous-only]
                        [--force: also commits already on a remote-tracking branch]
                        [--dry-run]
  log [-n N] [--json]   recent batches
  help [COMMAND]        this text, or one command's
  version               clada's version
  mcp                   serve every action as a Model Context Protocol server
                        on stdin/stdout (for MCP clients: desktop and IDE
                        agents); each tool call is one batch, as run; the
                        client's roots, else --root and --allow, bound it
  mcp config --host H [--root DIR]
                        print the configuration to paste into MCP host H
  listen FILE [--debounce MS]
                        watch FILE; run each newly pasted block, write the
                        results to the top of FILE and the full report to
                        .clada-output-latest.txt beside it (Ctrl-C stops);
                        a block saved again is not run again, the top of
                        FILE says so under a box '[ ] run again': to run it
                        again (after clada undo), write x in the box, save

Flags (override .clada/config.yaml in the working root). A flag means the
same before the command as after it; a flag the command cannot honour is a
usage error naming the flags it takes (undo, step-back, step-forward, squash
and log take --root and the git flags; validate and parse --root, --max-input
and --json; config and listen every setting):
  --root DIR            working root (default: the current directory; inside
                        a git repository its top; a .clada/config.yaml below
                        the top is read only when --root names its folder)
  --allow DIR           add an allowed root (repeatable)
  --dry-run             validate and show what would run; touch nothing
  --json                print the result as JSON
  --timeout DUR         per-action timeout (default 30s)
  --total-timeout DUR   whole-batch timeout (default none)
  --max-output SIZE     output kept per action: exec's captured streams, and
                        each output --json and listen's output file keep (all
                        of them together: twice this) (default 10MB)
  --report-budget SIZE  the whole text report, outputs included (default
                        100KB): each output keeps its head and tail within its
                        share, and a marker says what was left out and which
                        action shows it
  --max-file-size SIZE  largest file read or edited (default 10MB)
  --max-input SIZE      largest answer accepted (default 50MB)
  --exec allow|deny|approve
  --sandbox auto|required|off
                        exec's kernel sandbox: the strongest the kernel offers
                        (default), refuse exec without it, or none
  --exec-network allow|deny
                        network for exec code (default deny, loopback too)
  --no-git              no git commits; same as --git=off
  --git auto|off|require
  --git-author NAME     commit author (default clada; "Name <email>" works)
  --lock-timeout DUR    wait for another clada on the same root (default 10s)
  --quiet               no live exec output on stderr (--output-mode silent)
  --output-mode stream|buffer|silent
                        live exec output on stderr: each line as it comes
                        (default), each action's lines when it ends, or none
  --error-detail minimal|full|debug
                        errors in the report: first line only, with the fix
                        and diagnosis (default), or also the action's
                        parameters and source lines
  --lock-file PATH      also lock this file (flock) for the run, e.g. to
                        serialise with other tools (default none)
  --allow-escape        paths outside the root are allowed (as --allow /;
                        .git, .ssh, .clada and system trees stay refused)
  --report auto|clada|cml|csl
                        report form: cml and csl are the seeds' ([task-N]
                        lines; cml with a <result> summary, csl as
                        "[task-N] STATUS: OPERATION - details"); auto
                        (default) uses one when every block of the answer is
                        of that dialect, else clada's
  --help, --version

Exit: 0 all succeeded, 1 an action failed or a block was skipped,
      2 usage error or fatal error (e.g. git failure).
)";

// Flags that take a value, mapped to the setting they set.
const std::map<std::string, std::string>& ValueFlags() {
  static const auto* const kFlags = new std::map<std::string, std::string>{
      {"--allow", "allow"},           {"--timeout", "timeout"},
      {"--total-timeout", "total_timeout"}, {"--max-output", "max_output"},
      {"--report-budget", "report_budget"},
      {"--max-file-size", "max_file_size"}, {"--max-input", "max_input"},
      {"--exec", "exec"},             {"--git", "git"},
      {"--git-author", "git_author"}, {"--lock-timeout", "lock_timeout"},
      {"--report", "report"},         {"--output-mode", "output_mode"},
      {"--error-detail", "error_detail"}, {"--lock-file", "lock_file"},
      {"--sandbox", "sandbox"},       {"--exec-network", "exec_network"},
  };
  return *kFlags;
}

struct Invocation {
  std::string command;
  bool command_given = false;  // false: `run` by default
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> settings;  // key, value (from flags)
  std::string root;  // as given
  bool json = false;
  bool dry_run = false;
  bool help = false;
  bool version = false;
  // Positional arguments and the flags a subcommand handles itself, in the
  // order given (for approve, context, squash).
  std::vector<std::string> sub_args;
};

std::string BaseDirectory() {
  const char* bwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (bwd != nullptr && *bwd != '\0') return bwd;
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) != nullptr ? buf : ".";
}

std::string Absolute(const std::string& base, const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  return absl::StrCat(base, "/", path);
}

const std::set<std::string>& Commands() {
  static const auto* const kCommands = new std::set<std::string>{
      "run",     "validate", "parse", "instructions", "schema",    "config",       "approve",
      "context", "undo",     "step-back", "step-forward", "squash", "log", "listen", "mcp", "help", "version"};
  return *kCommands;
}

// Every flag some command takes, and whether it takes a value (as the next
// argument or after '='). Used to find the command among the arguments: a
// flag may come before the command (`clada --dry-run undo`).
bool FlagTakesValue(const std::string& name) {
  return name == "--root" || ValueFlags().count(name) > 0 || name == "-n" || name == "--limit" ||
         name == "--mode" || name == "--message" || name == "--hours" || name == "--days" ||
         name == "--debounce" || name == "--dialect" || name == "--host";
}

// What a command accepts.
struct CommandSpec {
  // clada's own flags the command honours, in the order --help-style
  // messages list them (--root, the settings, --dry-run, --json ...).
  std::vector<std::string> flags;
  // Flags the command itself reads: passed through to it, in order, with
  // their value when they take one.
  std::vector<std::string> own;
  // The command reads every other flag itself (and refuses what it does not
  // know): context's subcommands, approve's code, squash's modes.
  bool passes_unknown = false;
  // Flags refused by the command with its own explanation (listen).
  std::vector<std::string> explained;
};

const std::vector<std::string>& SettingFlags() {
  static const auto* const kFlags = new std::vector<std::string>{
      "--allow", "--timeout", "--total-timeout", "--max-output", "--report-budget", "--max-file-size", "--max-input",
      "--exec",     "--no-git",  "--git",           "--git-author",   "--lock-timeout",  "--quiet", "--report",
      "--output-mode", "--error-detail", "--lock-file", "--allow-escape", "--sandbox", "--exec-network"};
  return *kFlags;
}

const CommandSpec& SpecOf(const std::string& command) {
  static const auto* const kSpecs = [] {
    auto* specs = new std::map<std::string, CommandSpec>;
    std::vector<std::string> run = {"--root"};
    run.insert(run.end(), SettingFlags().begin(), SettingFlags().end());
    std::vector<std::string> config = run;
    run.push_back("--dry-run");
    run.push_back("--json");
    (*specs)["run"] = {run, {}, false, {}};
    (*specs)["listen"] = {config, {"--debounce"}, false, {"--dry-run", "--json"}};
    std::vector<std::string> mcp = config;
    mcp.push_back("--dry-run");
    (*specs)["mcp"] = {mcp, {"--host"}, false, {}};
    (*specs)["config"] = {config, {}, false, {}};
    (*specs)["validate"] = {{"--root", "--max-input", "--json"}, {}, false, {}};
    (*specs)["parse"] = {{"--root", "--max-input", "--json"}, {}, false, {}};
    (*specs)["instructions"] = {{}, {"--dialect"}, false, {}};
    (*specs)["schema"] = {{"--json"}, {}, false, {}};
    (*specs)["approve"] = {{"--root"}, {}, true, {}};
    (*specs)["context"] = {{"--root", "--allow", "--max-file-size"}, {}, true, {}};
    const std::vector<std::string> git = {"--root", "--no-git", "--git", "--lock-timeout"};
    (*specs)["undo"] = {git, {"--dry-run"}, false, {}};
    (*specs)["step-forward"] = {git, {"--dry-run"}, false, {}};
    std::vector<std::string> git_author = git;
    git_author.push_back("--git-author");
    (*specs)["step-back"] = {git_author, {"--dry-run"}, false, {}};
    (*specs)["squash"] = {git_author, {"--dry-run"}, true, {}};
    (*specs)["log"] = {{"--root", "--no-git", "--git"}, {"-n", "--json"}, false, {}};
    return specs;
  }();
  static const CommandSpec kAnything = {};
  auto it = kSpecs->find(command);
  return it == kSpecs->end() ? kAnything : it->second;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// "--root DIR, --dry-run, ...": what `command` takes, for usage errors.
std::string ValidFlagsText(const std::string& command) {
  const CommandSpec& spec = SpecOf(command);
  std::vector<std::string> shown;
  auto show = [&](const std::string& f) {
    if (f == "-n") {
      shown.push_back("-n N");
    } else if (f == "--root") {
      shown.push_back("--root DIR");
    } else if (f == "--debounce") {
      shown.push_back("--debounce MS");
    } else if (f == "--host") {
      shown.push_back("--host HOST (mcp config)");
    } else if (f == "--dialect") {
      shown.push_back("--dialect sham|cml|csl|replacer|apply_patch|search_replace|udiff");
    } else if (ValueFlags().count(f) > 0) {
      shown.push_back(absl::StrCat(f, " VALUE"));
    } else {
      shown.push_back(f);
    }
  };
  for (const std::string& f : spec.own) show(f);
  for (const std::string& f : spec.flags) show(f);
  if (command == "squash") shown.insert(shown.begin(), "--mode MODE [N|TEXT] [--message M] [--contiguous-only] [--force]");
  if (shown.empty()) return absl::StrCat("clada ", command, " takes no flag");
  return absl::StrCat("clada ", command, " takes: ", absl::StrJoin(shown, ", "));
}

// Levenshtein distance, for "did you mean".
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The command nearest to `word` when it is near enough to be a typo, or "".
std::string NearestCommand(const std::string& word) {
  std::string best;
  size_t best_distance = 3;  // at most two edits
  for (const std::string& c : Commands()) {
    size_t d = EditDistance(word, c);
    if (d < best_distance || (absl::StartsWith(c, word) && word.size() >= 3 && best.empty())) {
      best = c;
      best_distance = std::min(d, best_distance);
    }
  }
  return best;
}

absl::StatusOr<Invocation> ParseArgs(const std::vector<std::string>& args) {
  Invocation inv;
  // The command is the first argument that is neither a flag nor a flag's
  // value; flags before it mean what they mean after it.
  size_t command_at = args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() > 1 && a[0] == '-') {
      if (a.find('=') == std::string::npos && FlagTakesValue(a)) ++i;
      continue;
    }
    if (Commands().count(a) > 0) command_at = i;
    break;
  }
  inv.command = command_at < args.size() ? args[command_at] : "run";
  inv.command_given = command_at < args.size();
  const CommandSpec& spec = SpecOf(inv.command);
  const bool any_flag = inv.command == "help" || inv.command == "version";
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == command_at) continue;
    const std::string& a = args[i];
    if (only_positional || a == "-" || a.empty() || a[0] != '-') {
      inv.positional.push_back(a);
      inv.sub_args.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string name = a, value;
    bool has_value = false;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&]() -> absl::StatusOr<std::string> {
      if (has_value) return value;
      if (i + 1 >= args.size() || i + 1 == command_at) {
        return absl::InvalidArgumentError(absl::StrCat("clada ", inv.command, ": ", name, " needs a value"));
      }
      return args[++i];
    };
    if (name == "--help" || name == "-h") {
      inv.help = true;
      continue;
    }
    if (name == "--version") {
      inv.version = true;
      continue;
    }
    if (Contains(spec.own, name)) {
      // Read by the command itself; its value goes with it.
      inv.sub_args.push_back(a);
      if (!has_value && FlagTakesValue(name) && i + 1 < args.size() && i + 1 != command_at) {
        inv.sub_args.push_back(args[++i]);
      }
      continue;
    }
    const bool known = name == "--json" || name == "--dry-run" || name == "--no-git" || name == "--quiet" ||
                       name == "--allow-escape" ||
                       name == "-q" || name == "--root" || ValueFlags().count(name) > 0;
    const std::string canonical = name == "-q" ? "--quiet" : name;
    if (known && (any_flag || Contains(spec.flags, canonical) || Contains(spec.explained, canonical))) {
      if (name == "--json") {
        inv.json = true;
      } else if (name == "--dry-run") {
        inv.dry_run = true;
      } else if (name == "--no-git") {
        inv.settings.emplace_back("git", "off");
      } else if (canonical == "--quiet") {
        inv.settings.emplace_back("quiet", "true");
      } else if (name == "--allow-escape") {
        inv.settings.emplace_back("allow_escape", "true");
      } else if (name == "--root") {
        absl::StatusOr<std::string> v = take_value();
        if (!v.ok()) return v.status();
        inv.root = *v;
      } else {
        absl::StatusOr<std::string> v = take_value();
        if (!v.ok()) return v.status();
        inv.settings.emplace_back(ValueFlags().at(name), *v);
      }
      continue;
    }
    if (spec.passes_unknown) {
      inv.sub_args.push_back(a);
      continue;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("clada ", inv.command, ": ", known ? absl::StrCat(name, " does not apply to ", inv.command)
                                              : absl::StrCat("unknown flag '", name, "'"),
                     "; ", ValidFlagsText(inv.command), " (see clada --help)"));
  }
  return inv;
}

// Drops a leading UTF-8 byte order mark (some editors save one), so that a
// block header on the first line is still found. `clada parse` keeps the
// bytes as given: it mirrors the reference parser exactly.
void DropByteOrderMark(std::string& text) {
  core::DropUtf8Bom(&text);
}

// Reads the answer from FILE or stdin, refusing more than `limit` bytes.
// Reading a terminal (a bare `clada` typed at a prompt) first says so on
// `err`: otherwise clada would seem to hang.
absl::StatusOr<std::string> ReadInput(const Invocation& inv, const std::string& base, std::istream& in,
                                      int64_t limit, std::ostream& err) {
  if (inv.positional.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("expected one input FILE, got ", inv.positional.size(), ": '",
                                                   absl::StrJoin(inv.positional, "', '"), "'"));
  }
  auto too_large = [&](int64_t size) {
    return core::WithCode(absl::InvalidArgumentError(absl::StrCat("input_too_large: the input is ", size,
                                                                  " bytes or more, over the limit of ", limit,
                                                                  " bytes; split it into smaller batches")),
                          "input_too_large");
  };
  if (inv.positional.empty() || inv.positional[0] == "-") {
    if (&in == &std::cin && ::isatty(STDIN_FILENO) == 1) {
      err << "clada: reading an answer from stdin; end with Ctrl-D; `clada --help`" << std::endl;
    }
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      text.append(buf, static_cast<size_t>(in.gcount()));
      if (static_cast<int64_t>(text.size()) > limit) return too_large(static_cast<int64_t>(text.size()));
    }
    return text;
  }
  absl::StatusOr<std::string> text = core::ReadFileToString(Absolute(base, inv.positional[0]), limit);
  if (!text.ok() && core::ErrorCode(text.status()) == "too_large") {
    return too_large(limit + 1);
  }
  return text;
}

struct Environment {
  std::string base;
  std::string root;
  Settings settings;
  bool root_is_repository_top = false;  // chosen for a folder inside a repository
  bool root_is_elsewhere = false;       // not the current folder (named first in the report)
  std::string settings_file;            // the settings file read ("" when one was ignored)
  std::vector<std::string> warnings;    // for stderr, e.g. a settings file that was ignored
};

// The top of the git work tree holding `dir` (canonical): the nearest folder
// at or above it with a `.git` entry; "" when there is none, or `dir` lies
// inside a `.git` folder.
std::string RepositoryTop(const std::string& dir) {
  if (absl::StrContains(absl::StrCat(dir, "/"), "/.git/")) return "";
  std::string at = dir;
  while (true) {
    struct stat st;
    if (::lstat(absl::StrCat(at == "/" ? "" : at, "/.git").c_str(), &st) == 0) return at;
    if (at == "/" || at.empty()) return "";
    const size_t slash = at.rfind('/');
    at = slash == 0 ? "/" : at.substr(0, slash);
  }
}

// The nearest folder strictly above `dir` (canonical) that clada already
// uses as a root (it has a `.clada/` folder); "" when none.
std::string CladaRootAbove(const std::string& dir) {
  std::string at = dir;
  while (at != "/" && !at.empty()) {
    const size_t slash = at.rfind('/');
    at = slash == 0 ? "/" : at.substr(0, slash);
    struct stat st;
    if (::lstat(absl::StrCat(at == "/" ? "" : at, "/.clada").c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return at;
  }
  return "";
}

// Root, then the settings file in it, then flags. Without --root the root
// is the current folder, or, inside a git repository, the repository's top
// (an answer's `tests/x.py` means the project's tests/, wherever clada was
// started). A `.clada/config.yaml` below the repository's top, or below a
// folder that is already a clada root, is read only when --root names its
// folder: an exec may write anywhere in the project but the root's own
// .clada/, so such a file could be an answer's, turning the sandbox off.
absl::StatusOr<Environment> LoadEnvironment(const Invocation& inv) {
  Environment env;
  env.base = BaseDirectory();
  env.root = inv.root.empty() ? env.base : Absolute(env.base, inv.root);
  char real[PATH_MAX];
  if (::realpath(env.root.c_str(), real) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("working root '", env.root, "' does not exist"));
  }
  env.root = real;
  env.settings_file = env.root + "/.clada/config.yaml";
  if (inv.root.empty()) {
    const std::string own = env.settings_file;
    struct stat st;
    const bool has_own = ::stat(own.c_str(), &st) == 0;
    const std::string top = RepositoryTop(env.root);
    const std::string above = top.empty() ? CladaRootAbove(env.root) : top;
    if (!above.empty() && above != env.root) {
      if (has_own) {
        env.warnings.push_back(absl::StrCat(
            "ignored ", own, ": it lies below ", top.empty() ? "the clada root " : "the repository's top ", above,
            ", where code an answer ran could have written it; --root ", env.root, " reads it"));
      }
      if (!top.empty()) {
        env.root = top;
        env.root_is_repository_top = true;
        env.settings_file = env.root + "/.clada/config.yaml";
      } else if (has_own) {
        env.settings_file.clear();
      }
    }
  }
  char base_real[PATH_MAX];
  env.root_is_elsewhere = ::realpath(env.base.c_str(), base_real) == nullptr || env.root != base_real;
  env.settings = DefaultSettings();
  absl::Status status =
      env.settings_file.empty() ? absl::OkStatus() : ApplySettingsFile(env.settings_file, env.settings);
  if (!status.ok()) return status;
  for (const auto& [key, value] : inv.settings) {
    std::string flag = absl::StrCat("flag --", key);
    for (char& c : flag) c = c == '_' ? '-' : c;
    status = ApplySetting(key, key == "allow" ? Absolute(env.base, value) : value, flag, env.settings);
    if (!status.ok()) return status;
  }
  return env;
}

int RunCommand(const Invocation& inv, const Environment& env, std::istream& in, std::ostream& out,
               std::ostream& err) {
  const Settings& settings = env.settings;
  absl::StatusOr<std::string> input = ReadInput(inv, env.base, in, settings.max_input_bytes, err);
  ExecutionResult result;
  if (input.ok()) {
    DropByteOrderMark(*input);
    CladaOptions options;
    options.working_root = env.root;
    options.settings = settings;
    options.dry_run = inv.dry_run;
    options.full_outputs = inv.json;
    options.spill_results = inv.json;
    result = Clada(options).Execute(*input);
  } else {
    // An unreadable or oversized answer is a fatal result in the usual
    // shape, so a caller reading --json or the report still gets one.
    result.dry_run = inv.dry_run;
    result.report_form = settings.report;
    result.fatal_error = std::string(input.status().message());
  }
  if (inv.json) {
    WriteExecutionResultJson(result, out);
    out << "\n";
  } else {
    if (env.root_is_elsewhere) {
      out << "working root: " << core::EscapeForTerminal(env.root)
          << (env.root_is_repository_top ? " (the top of the git repository; --root . runs in the current folder)" : "")
          << "\n";
    }
    out << FormatTextReport(result, settings.report_budget_bytes);
  }
  out.flush();
  err << "clada: " << FormatSummaryLine(result) << "\n";
  if (result.fatal_error) return kExitUsage;
  return result.success ? kExitOk : kExitFailed;
}

std::atomic<bool> g_stop_listening{false};

void StopListening(int) { g_stop_listening = true; }

// `clada listen FILE [--debounce MS]`: runs newly pasted blocks exactly as
// `clada run` does, until Ctrl-C (then exits 0). Flags of `clada run` that
// would change what a run does or prints (--dry-run, --json) are refused
// rather than ignored: a listener that ignored --dry-run would really run.
int RunListen(const Invocation& inv, const Environment& env, const core::ExecContext& ctx, std::ostream& err) {
  if (inv.dry_run) {
    err << "clada listen: --dry-run is not supported: listen runs each new block for real; to see what an "
           "answer would do, use `clada run --dry-run FILE`\n";
    return kExitUsage;
  }
  if (inv.json) {
    err << "clada listen: --json is not supported: listen writes its results as text into FILE and "
        << listener::kOutputFileName << "; for JSON, use `clada run --json FILE`\n";
    return kExitUsage;
  }
  const std::vector<std::string>& args = inv.sub_args;
  std::string file;
  int debounce_ms = 30;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--debounce" || absl::StartsWith(a, "--debounce=")) {
      std::string v = a == "--debounce" ? (i + 1 < args.size() ? args[++i] : "") : a.substr(11);
      if (!absl::SimpleAtoi(v, &debounce_ms) || debounce_ms < 0) {
        err << "clada listen: --debounce takes a number of milliseconds, got '" << v << "'\n";
        return kExitUsage;
      }
    } else if (!a.empty() && a[0] == '-') {
      err << "clada listen: unknown flag '" << a << "'\n";
      return kExitUsage;
    } else if (file.empty()) {
      file = a;
    } else {
      err << "clada listen: expected one FILE, got '" << file << "', '" << a << "'\n";
      return kExitUsage;
    }
  }
  if (file.empty()) {
    err << "clada listen: which file? usage: clada listen FILE [--debounce MS]\n";
    return kExitUsage;
  }
  absl::StatusOr<std::string> resolved = core::ResolvePath(ctx.paths, Absolute(env.base, file));
  if (!resolved.ok()) {
    err << "clada listen: " << resolved.status().message() << "\n";
    return kExitUsage;
  }
  // FILE and the report beside it are written by clada outside any batch:
  // kept out of git, they never fill the history with the chat nor make
  // `clada undo` refuse because they changed after the AI commit.
  const std::string output_file =
      absl::StrCat(resolved->substr(0, resolved->rfind('/')), "/", listener::kOutputFileName);
  absl::StatusOr<std::vector<std::string>> excluded =
      git_tx::ExcludeFromCommits(env.root, {*resolved, output_file}, MakeGitOptions(env.settings));
  if (!excluded.ok()) {
    err << "clada listen: warning: could not keep " << file << " out of git: " << excluded.status().message()
        << "\n";
  } else if (!excluded->empty()) {
    err << "clada: " << absl::StrJoin(*excluded, " and ")
        << " listed in the repository's info/exclude: clada's own files stay out of its commits\n";
  }
  listener::ListenOptions options;
  options.file = *resolved;
  options.state_dir = env.root + "/.clada";
  options.debounce_ms = debounce_ms;
  options.log = &err;
  options.readers = {env.settings.csl_start, env.settings.csl_end, static_cast<size_t>(env.settings.max_input_bytes)};
  g_stop_listening = false;
  ::signal(SIGINT, StopListening);
  ::signal(SIGTERM, StopListening);
  options.should_stop = [] { return g_stop_listening.load(); };
  // Out of reach of the answers it runs: one that overwrote FILE would lose
  // the chat (kept out of git), one that appended blocks would have them run
  // with no one pasting them.
  const std::vector<std::string> protected_files = {*resolved, output_file};
  // The line record of the answer being run (core::AnswerLines), kept
  // across its batches: a line edit of a later batch numbers the file as
  // the model read it, before the answer's first batch ran.
  core::AnswerLines answer_lines;
  int64_t lines_answer = 0;
  auto run = [&env, &protected_files, &answer_lines, &lines_answer](const std::string& text, int64_t answer) {
    if (answer != lines_answer) {
      answer_lines = core::AnswerLines();
      lines_answer = answer;
    }
    CladaOptions clada_options;
    clada_options.answer_lines = &answer_lines;
    clada_options.working_root = env.root;
    clada_options.settings = env.settings;
    clada_options.protected_files = protected_files;
    // The output file keeps the full report: every output as --json keeps
    // it (each up to max_output, all together up to twice that); of an
    // answer of many thousands of blocks, the results and refused blocks
    // eight report budgets show, the others counted. The summary at the
    // top of FILE keeps to one report budget.
    clada_options.full_outputs = true;
    clada_options.full_report_budget_bytes = kListenReportBudgets * env.settings.report_budget_bytes;
    ExecutionResult result = Clada(clada_options).Execute(text);
    listener::RunReport report;
    report.summary = FormatTextResults(result, env.settings.report_budget_bytes);
    report.full_report = FormatTextReport(result, clada_options.full_report_budget_bytes, ReportOutputs::kWhole);
    report.stderr_line = FormatSummaryLine(result);
    report.blocks_run = result.total_blocks;
    return report;
  };
  // Said once the watch is in place (the listener has logged what it
  // watches), never for a FILE that then turns out not to be watchable.
  options.on_ready = [&err] { err << "clada: Ctrl-C stops listening\n"; };
  absl::Status status = listener::Listen(options, run);
  if (!status.ok()) {
    err << "clada listen: " << status.message() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

// `clada mcp config --host HOST [--root DIR]`: what to paste into HOST's
// configuration to start this binary (by its absolute path: hosts start
// servers with a minimal PATH) as `clada mcp --root ROOT`.
int RunMcpConfig(const Invocation& inv, const Environment& env, std::ostream& out, std::ostream& err) {
  const std::string hosts = absl::StrJoin(mcp::HostNames(), ", ");
  if (inv.positional.size() > 1 || inv.dry_run || !inv.settings.empty()) {
    err << "clada mcp config: takes --host HOST and --root DIR only (the server's other flags go into the "
           "configuration by hand, after \"mcp\"); hosts: "
        << hosts << "\n";
    return kExitUsage;
  }
  std::string host;
  const std::vector<std::string>& args = inv.sub_args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--host") {
      host = i + 1 < args.size() ? args[++i] : "";
    } else if (absl::StartsWith(args[i], "--host=")) {
      host = args[i].substr(7);
    }
  }
  if (host.empty()) {
    err << "clada mcp config: which host? --host HOST, one of " << hosts << "\n";
    return kExitUsage;
  }
  char binary[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", binary, sizeof binary - 1);
  if (n <= 0) {
    err << "clada mcp config: cannot read /proc/self/exe to find this binary's path\n";
    return kExitUsage;
  }
  binary[n] = '\0';
  absl::StatusOr<std::string> text =
      mcp::RenderHostConfig(host, {"clada", binary, {"mcp", "--root", env.root}});
  if (!text.ok()) {
    err << "clada mcp config: " << text.status().message() << "\n";
    return kExitUsage;
  }
  out << *text;
  return kExitOk;
}

int RunConfig(const Environment& env, std::ostream& out) {
  out << "working root: " << env.root << "\n";
  out << "settings file: "
      << (env.settings_file.empty() ? absl::StrCat("none (", env.root, "/.clada/config.yaml ignored)")
                                    : env.settings_file)
      << "\n";
  for (const std::string& key : SettingNames()) {
    out << key << ": " << SettingValueText(env.settings, key) << "  (" << env.settings.source.at(key) << ")\n";
  }
  out << "exec containment: " << exec::DescribeContainment(env.settings.sandbox, env.settings.exec_network).text
      << "\n";
  return kExitOk;
}

// One command's help: what it does, then the flags it takes (from its
// CommandSpec, so the list cannot drift from what the parser accepts).
const std::map<std::string, std::string>& CommandHelps() {
  static const auto* const kHelps = new std::map<std::string, std::string>{
      {"run", R"(usage: clada run [FILE|-] [FLAGS]
       clada [FILE|-] [FLAGS]

Runs every valid block of the answer in FILE (stdin when no FILE or '-'), in
any of the seven dialects (SHAM, CML, CSL, replacer, SEARCH/REPLACE, unified
diff, apply_patch), and prints the report for the LLM; a one-line summary
goes to stderr. In a git repository your own changes are first committed as
a [clada:pre] snapshot, then the batch as one AI: commit (`clada undo`).
--dry-run validates and shows what would run; --json prints the result as
JSON. Exit: 0 all succeeded, 1 an action failed or a block was skipped,
2 usage error or fatal error.
)"},
      {"validate", R"(usage: clada validate [FILE|-] [--json]

Parses and validates the answer in FILE (stdin when none) in every dialect
and prints what would run, touching nothing. Exit 1 when a block is invalid.
)"},
      {"parse", R"(usage: clada parse [FILE|-]

Prints the raw parse of the SHAM blocks in FILE (stdin when none) as JSON,
as the reference parser gives it: blocks, properties, errors with line and
column.
)"},
      {"instructions", R"(usage: clada instructions [--dialect DIALECT]

Prints the text to paste into an LLM's system prompt so that it answers in
DIALECT: sham (default), cml, csl, replacer, apply_patch, search_replace or
udiff. csl's text uses the delimiters the settings of the working root give.
)"},
      {"schema", R"(usage: clada schema

Prints every action (file_write, file_replace_text, exec, ...) with its
parameters as JSON.
)"},
      {"config", R"(usage: clada config [--root DIR] [SETTING FLAGS]

Prints the working root, the settings file (.clada/config.yaml in the root)
and each effective setting with where it came from: default, the file, or
a flag.
)"},
      {"approve", R"(usage: clada approve [--lang LANG] [--] 'CODE'

Adds CODE (exactly as the exec action gives it) for LANG (bash, sh, python,
javascript or ruby; default bash) to .clada/allowed-commands.json, the list
that `exec: approve` accepts.
)"},
      {"context", R"(usage: clada context add PATH...       add files or directories to the working set
       clada context remove PATH...    remove entries (a directory: the entries below it too)
       clada context list              list the entries with their sizes
       clada context prune             drop the entries whose files are gone
       clada context clear             empty the working set
       clada context show [--numbered] print every file, ready to paste into an LLM

The working set (.clada/context.json) is the files the LLM should see.
PATHs are relative to the working root.
)"},
      {"undo", R"(usage: clada undo [--dry-run]

Takes back the last batch: the AI: commit at HEAD, only while nothing
changed since (your own work before it stays in its [clada:pre] snapshot).
)"},
      {"step-back", R"(usage: clada step-back [--dry-run]

Shows the working tree one commit back; the branch never moves, and
uncommitted work is stashed and restored byte for byte.
)"},
      {"step-forward", R"(usage: clada step-forward [--dry-run]

Moves the working tree one commit forward again after step-back.
)"},
      {"squash", R"(usage: clada squash --mode MODE [--message M] [--contiguous-only] [--force] [--dry-run]

Squashes commits into one. MODE: auto_ai, ai_messages, hours N, days N,
msg_contains TEXT. --contiguous-only: only an unbroken run of them;
--force: also commits already on a remote-tracking branch.
)"},
      {"log", R"(usage: clada log [-n N] [--json]

Lists the recent batches (AI: commits and [clada:pre] snapshots), newest
first.
)"},
      {"listen", R"(usage: clada listen FILE [--debounce MS] [SETTING FLAGS]

Watches FILE; runs each newly pasted block as `clada run` would, writes the
results to the top of FILE and the full report to .clada-output-latest.txt
beside it. A block saved again is not run again: write x in the box
'[ ] run again' at the top of FILE to run it again. Ctrl-C stops.
)"},
      {"mcp", R"(usage: clada mcp [--root DIR] [--allow DIR] [--dry-run] [SETTING FLAGS]
       clada mcp config --host HOST [--root DIR]

Serves every action as a Model Context Protocol server on stdin/stdout
(protocol revisions 2025-11-25 and earlier, and 2026-07-28). Each tool call
is one batch, as `clada run` makes it. The client's roots (2025-11-25),
else --root and --allow, bound it. stdout carries only protocol; one line
goes to stderr. It ends when the client closes stdin.

`clada mcp config --host HOST` prints what to paste into HOST's
configuration, with this binary's absolute path and the working root:
claude-desktop, claude-code, vscode, cursor, codex, gemini, windsurf, zed.
)"},
      {"help", R"(usage: clada help [COMMAND]

Prints clada's help, or COMMAND's.
)"},
      {"version", R"(usage: clada version

Prints clada's version (as --version does).
)"},
  };
  return *kHelps;
}

// The help `clada COMMAND --help` prints: its text and the flags it takes.
std::string CommandHelp(const std::string& command) {
  auto it = CommandHelps().find(command);
  if (it == CommandHelps().end()) return kUsage;
  std::string text = it->second;
  if (command != "help" && command != "version") absl::StrAppend(&text, "\n", ValidFlagsText(command), "\n");
  absl::StrAppend(&text, "All commands and flags: clada --help\n");
  return text;
}

}  // namespace

namespace internal {
// RunCli's work; `out` and `err` are the streams RunCli escapes.
int RunCliUnescaped(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
}  // namespace internal

int RunCli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  // Everything a command prints passes core's terminal writer, whichever
  // component wrote it: nothing an answer named (a file name, a block ID, a
  // commit subject in `clada log`) reaches the terminal raw. A JSON
  // document keeps JSON's own escapes (`\u001b`), so it still parses.
  absl::StatusOr<Invocation> parsed = ParseArgs(args);
  const bool json = parsed.ok() && (parsed->json || parsed->command == "parse" || parsed->command == "schema");
  core::TerminalStream escaped_out(out, json ? core::TerminalForm::kJson : core::TerminalForm::kLines);
  core::TerminalStream escaped_err(err);
  return internal::RunCliUnescaped(args, in, escaped_out, escaped_err);
}

int internal::RunCliUnescaped(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                              std::ostream& err) {
  absl::StatusOr<Invocation> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    err << parsed.status().message() << "\n";
    return kExitUsage;
  }
  Invocation& inv = *parsed;
  if (inv.command == "help" && !inv.positional.empty()) {
    if (CommandHelps().count(inv.positional[0]) == 0) {
      err << "clada help: no command '" << inv.positional[0] << "'; commands: " << absl::StrJoin(Commands(), ", ")
          << "\n";
      return kExitUsage;
    }
    out << CommandHelp(inv.positional[0]);
    return kExitOk;
  }
  if (inv.help || inv.command == "help") {
    // `clada help` is the global help; `clada help --help` help's own.
    out << (inv.command_given && inv.help ? CommandHelp(inv.command) : kUsage);
    return kExitOk;
  }
  if (inv.version || inv.command == "version") {
    out << "clada " << kVersion << "\n";
    return kExitOk;
  }
  // `clada redo`: a mistyped command, not an answer file to read.
  if (!inv.command_given && !inv.positional.empty()) {
    const std::string& word = inv.positional[0];
    struct stat st;
    if (word != "-" && word.find_first_of("./") == std::string::npos &&
        ::stat(Absolute(BaseDirectory(), word).c_str(), &st) != 0) {
      const std::string nearest = NearestCommand(word);
      err << "clada: unknown command '" << word << "' (and no file of that name)"
          << (nearest.empty() ? "" : absl::StrCat("; did you mean 'clada ", nearest, "'?")) << "\ncommands: "
          << absl::StrJoin(Commands(), ", ") << " (see clada --help)\n";
      return kExitUsage;
    }
  }
  // Commands that take no argument say so rather than ignore one.
  if ((inv.command == "instructions" || inv.command == "schema" || inv.command == "config") &&
      !inv.positional.empty()) {
    err << "clada " << inv.command << ": takes no argument, got '" << inv.positional[0] << "'\n";
    return kExitUsage;
  }
  if (inv.command == "instructions") {
    // --dialect DIALECT (the registry's default when none): the system
    // prompt for that dialect.
    std::string dialect = readers::kDefaultDialect;
    const std::vector<std::string>& args = inv.sub_args;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--dialect") {
        dialect = i + 1 < args.size() ? args[++i] : "";
      } else if (absl::StartsWith(args[i], "--dialect=")) {
        dialect = args[i].substr(10);
      }
    }
    // The registry's readers; one whose instructions use the settings (CSL's
    // delimiters) made with those of the current directory.
    readers::ReaderOptions reader_options;
    const readers::Registry defaults;
    const answer::Reader* named = defaults.Find(dialect);
    if (named != nullptr && named->instructions_use_settings()) {
      absl::StatusOr<Environment> env = LoadEnvironment(inv);
      if (!env.ok()) {
        err << "clada: " << env.status().message() << "\n";
        return kExitUsage;
      }
      reader_options.csl_start = env->settings.csl_start;
      reader_options.csl_end = env->settings.csl_end;
    }
    const readers::Registry registry(reader_options);
    const answer::Reader* reader = registry.Find(dialect);
    if (reader == nullptr || !reader->yields_blocks()) {
      std::vector<std::string> names = registry.Dialects();
      const std::string last = names.back();
      names.pop_back();
      err << "clada instructions: --dialect takes " << absl::StrJoin(names, ", ") << " or " << last << ", got '"
          << dialect << "'\n";
      return kExitUsage;
    }
    out << reader->Instructions();
    return kExitOk;
  }
  if (inv.command == "schema") {
    out << sham_action_parser::SchemaToJson().dump(2) << "\n";
    return kExitOk;
  }

  absl::StatusOr<Environment> env = LoadEnvironment(inv);
  if (!env.ok()) {
    err << "clada: " << env.status().message() << "\n";
    return kExitUsage;
  }
  for (const std::string& warning : env->warnings) err << "clada: warning: " << warning << "\n";
  if (inv.command == "run") {
    return RunCommand(inv, *env, in, out, err);
  }
  if (inv.command == "parse" || inv.command == "validate") {
    absl::StatusOr<std::string> input = ReadInput(inv, env->base, in, env->settings.max_input_bytes, err);
    if (!input.ok()) {
      const std::string message(input.status().message());
      err << "clada: " << message << "\n";
      // An oversized answer still gets output in the command's own shape:
      // parse reports it as the parser does (an input_too_large error, exit
      // 1); validate --json as run --json does (a fatalError, exit 2).
      if (core::ErrorCode(input.status()) == "input_too_large") {
        if (inv.command == "parse") {
          sham_parser::ParseError e;
          e.code = "input_too_large";
          e.line = 1;
          e.column = 1;
          e.length = 0;
          e.message = message;
          sham_parser::ParseResult result;
          result.errors.push_back(std::move(e));
          out << sham_parser::ParseResultToJsonText(result) << "\n";
          return kExitFailed;
        }
        if (inv.json) out << core::Json{{"fatalError", message}}.dump(2) << "\n";
      }
      return kExitUsage;
    }
    if (inv.command == "parse") return sham_parser::RunParseCommand(*input, out);
    DropByteOrderMark(*input);
    return RunValidateAnswer(*input, inv.json, out, static_cast<size_t>(env->settings.max_input_bytes),
                             env->settings.csl_start, env->settings.csl_end);
  }
  if (inv.command == "config") return RunConfig(*env, out);
  if (inv.command == "mcp" && !inv.positional.empty() && inv.positional[0] == "config") {
    return RunMcpConfig(inv, *env, out, err);
  }
  if (inv.command == "mcp") {
    if (!inv.sub_args.empty() && inv.positional.empty()) {
      err << "clada mcp: --host is for `clada mcp config --host HOST`\n";
      return kExitUsage;
    }
    if (!inv.positional.empty()) {
      err << "clada mcp: takes no argument, got '" << inv.positional[0] << "'; " << ValidFlagsText("mcp") << "\n";
      return kExitUsage;
    }
    McpServerOptions options;
    options.root = env->root;
    options.settings = env->settings;
    options.dry_run = inv.dry_run;
    // The protocol owns stdin and stdout (fds 0 and 1), whatever streams
    // RunCli was given.
    return RunMcpServer(options, STDIN_FILENO, STDOUT_FILENO, err);
  }

  absl::StatusOr<core::ExecContext> ctx = MakeExecContext(env->root, env->settings);
  if (!ctx.ok()) {
    err << "clada: " << ctx.status().message() << "\n";
    return kExitUsage;
  }
  const std::vector<std::string>& sub_args = inv.sub_args;
  if (inv.command == "approve") return exec::RunApproveCommand(sub_args, *ctx, out, err);
  if (inv.command == "context") return context::RunContextCommand(sub_args, *ctx, out, err);
  if (inv.command == "listen") return RunListen(inv, *env, *ctx, err);

  return git_tx::RunGitCommand(inv.command, sub_args, env->root, MakeGitOptions(env->settings), out, err);
}

}  // namespace clada
