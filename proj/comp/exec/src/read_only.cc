#include "proj/comp/exec/src/read_only.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace clada::exec::internal {
namespace {

// What one command of the list may not be given. An option word is one that
// starts with '-' (not '-' alone, and not after `--`).
struct Rule {
  absl::string_view name;
  // Whole option words refused (find's predicates, xxd's long forms).
  std::vector<absl::string_view> words;
  // Letters refused inside a single-dash word of short options ("-aR").
  absl::string_view letters;
  // Prefixes refused for a "--" word.
  std::vector<absl::string_view> long_prefixes;
  // Why, for the message: "<name> <option> <why>".
  absl::string_view why;
};

const std::vector<Rule>& Rules() {
  static const std::vector<Rule>* const kRules = new std::vector<Rule>{
      {"cat", {}, "", {}, ""},
      {"head", {}, "", {}, ""},
      {"tail", {}, "", {}, ""},
      {"pwd", {}, "", {}, ""},
      {"realpath", {}, "", {}, ""},
      {"stat", {}, "", {}, ""},
      // Names read from a file are never checked against the roots.
      {"wc", {}, "", {"--files0-from"}, "reads the names of the files from a file"},
      {"grep", {}, "R", {"--dereference-recursive"}, "follows symbolic links out of the tree"},
      {"find",
       {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-L", "-H",
        "-follow"},
       "",
       {},
       "deletes, writes files, runs a program or follows symbolic links"},
      {"ls", {}, "L", {"--dereference"}, "follows symbolic links out of the tree"},
      {"tree", {}, "oRl", {"--output"}, "writes files or follows symbolic links"},
      // GNU diff follows symbolic links while it recurses.
      {"diff", {}, "r", {"--recursive"}, "follows symbolic links out of the tree"},
      {"file", {}, "Cf", {"--compile", "--files-from"}, "writes a magic file or reads names from a file"},
      {"xxd", {"-r", "-revert"}, "", {}, "writes a file"},
      {"git", {}, "", {"--output", "--ext-diff", "--textconv", "--exec"}, "writes a file or runs a program"},
  };
  return *kRules;
}

const Rule* FindRule(absl::string_view name) {
  for (const Rule& r : Rules()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

constexpr absl::string_view kGitSubcommands[] = {"status", "diff", "log", "show", "branch", "ls-files"};

// `git branch` lists; with a name or most options it creates, renames,
// copies or deletes a branch.
constexpr absl::string_view kGitBranchListing[] = {
    "-a",           "--all",   "-r",          "--remotes",    "-v",        "-vv",      "--verbose",
    "-l",           "--list",  "--show-current", "--no-color", "--color",   "-i",       "--ignore-case",
    "--column",     "--no-column", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
    "--no-abbrev",  "--omit-empty"};
constexpr absl::string_view kGitBranchTakesValue[] = {"--contains", "--no-contains", "--merged", "--no-merged",
                                                      "--points-at"};

// xxd's options that take the next word as their value.
constexpr absl::string_view kXxdTakesValue[] = {"-c", "-cols", "-g", "-groupsize", "-l", "-len",
                                                "-o", "-s",    "-seek", "-n", "-name"};

template <size_t N>
bool In(const absl::string_view (&set)[N], absl::string_view w) {
  return std::find(std::begin(set), std::end(set), w) != std::end(set);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsOption(absl::string_view w) { return w.size() > 1 && w[0] == '-'; }

// nullopt when `word` names a place inside the roots.
std::optional<std::string> PathRefusal(absl::string_view word, const std::string& cwd,
                                       const core::PathPolicy& paths) {
  if (word.empty() || word == "-") return std::nullopt;
  const std::string full = word[0] == '/' ? std::string(word) : absl::StrCat(cwd, "/", word);
  absl::StatusOr<std::string> resolved = core::ResolvePath(paths, full);
  if (resolved.ok()) return std::nullopt;
  return absl::StrCat("`", word, "` is not a path inside the allowed roots");
}

std::optional<std::string> OptionRefusal(const Rule& rule, absl::string_view w) {
  auto refused = [&](absl::string_view what) {
    return absl::StrCat(rule.name, " ", what, " ", rule.why);
  };
  if (absl::StartsWith(w, "--")) {
    for (absl::string_view p : rule.long_prefixes) {
      if (absl::StartsWith(w, p)) return refused(p);
    }
    return std::nullopt;
  }
  for (absl::string_view x : rule.words) {
    if (w == x) return refused(x);
  }
  for (char c : w.substr(1)) {
    if (rule.letters.find(c) != absl::string_view::npos) return refused(absl::StrCat("-", std::string(1, c)));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::string>> SimpleCommandWords(absl::string_view code, std::string* why) {
  while (!code.empty() && (code.back() == '\n' || code.back() == ' ' || code.back() == '\t')) {
    code.remove_suffix(1);
  }
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\'' || c == '"') {
      const size_t end = code.find(c, i + 1);
      if (end == absl::string_view::npos) {
        *why = "an unclosed quote";
        return std::nullopt;
      }
      absl::string_view inner = code.substr(i + 1, end - i - 1);
      for (char q : inner) {
        if (static_cast<unsigned char>(q) < 0x20 || q == 0x7f) {
          *why = "a control character or a second line";
          return std::nullopt;
        }
        if (c == '"' && (q == '$' || q == '`' || q == '\\' || q == '!')) {
          *why = absl::StrCat("`", std::string(1, q), "` inside double quotes");
          return std::nullopt;
        }
      }
      cur.append(inner.data(), inner.size());
      in_word = true;
      i = end;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else if (u < 0x20 || u == 0x7f) {
      *why = "a control character or a second line";
      return std::nullopt;
    } else if (std::strchr(";&|<>$`\\(){}*?[]!#", c) != nullptr) {
      *why = absl::StrCat("the shell character `", std::string(1, c), "`");
      return std::nullopt;
    } else if (c == '~' && (!in_word || cur.empty() || cur.back() == '=' || cur.back() == ':')) {
      *why = "a `~` the shell expands";
      return std::nullopt;
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(cur));
  if (words.empty()) {
    *why = "no command";
    return std::nullopt;
  }
  return words;
}

std::optional<std::string> ReadOnlyRefusal(absl::string_view code, const std::string& cwd,
                                           const core::PathPolicy& paths) {
  std::string why;
  std::optional<std::vector<std::string>> words = SimpleCommandWords(code, &why);
  if (!words) return why;
  const std::string& name = (*words)[0];
  const Rule* rule = FindRule(name);
  if (rule == nullptr) return absl::StrCat("`", name, "` is not a read-only command");
  size_t first = 1;
  bool git_branch = false;
  if (name == "git") {
    if (words->size() < 2 || !In(kGitSubcommands, (*words)[1])) {
      return "git runs without approval only as git status, diff, log, show, branch or ls-files";
    }
    git_branch = (*words)[1] == "branch";
    first = 2;
  }
  bool options_end = false;
  bool listing = false;  // git branch --list
  int xxd_files = 0;
  bool value_next = false;  // the word after xxd -l, git branch --contains
  for (size_t i = first; i < words->size(); ++i) {
    const std::string& w = (*words)[i];
    if (value_next) {
      value_next = false;
      if (std::optional<std::string> r = PathRefusal(w, cwd, paths)) return r;
      continue;
    }
    if (!options_end && w == "--") {
      options_end = true;
      continue;
    }
    if (!options_end && IsOption(w)) {
      if (std::optional<std::string> r = OptionRefusal(*rule, w)) return r;
      const size_t eq = w.find('=');
      const absl::string_view flag = absl::string_view(w).substr(0, eq);
      if (flag.find('/') != absl::string_view::npos) {
        return absl::StrCat("the option `", w, "` holds a path; give it as a separate word");
      }
      if (eq != std::string::npos) {
        if (std::optional<std::string> r = PathRefusal(absl::string_view(w).substr(eq + 1), cwd, paths)) return r;
      }
      if (git_branch) {
        if (!In(kGitBranchListing, flag)) {
          return absl::StrCat("git branch ", flag, " changes branches");
        }
        if (flag == "-l" || flag == "--list") listing = true;
        if (eq == std::string::npos && In(kGitBranchTakesValue, flag)) value_next = true;
      }
      if (name == "xxd" && In(kXxdTakesValue, w)) value_next = true;
      continue;
    }
    if (git_branch && !listing) return "git branch with a name creates a branch";
    if (name == "xxd" && ++xxd_files > 1) return "xxd with a second file writes it";
    if (std::optional<std::string> r = PathRefusal(w, cwd, paths)) return r;
    // Comparing two directories, GNU diff reads through the symbolic links
    // in them.
    if (name == "diff" && IsDirectory(w[0] == '/' ? w : absl::StrCat(cwd, "/", w))) {
      return "diff of a directory follows the symbolic links in it";
    }
  }
  return std::nullopt;
}

}  // namespace clada::exec::internal
