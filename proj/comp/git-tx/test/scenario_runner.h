// Runs git-tx scenarios from test-data/*.json on a fresh temporary
// repository each: shell set-up with the git CLI, then BeginBatch / Finish /
// RunGitCommand / ExecuteGitAction steps with their expectations.
//
// A scenario file is {"cases": [{"name": "...", "root": "sub"?, "steps":
// [...]}]}. Steps (each an object; keys besides the verb are its expectations):
//   {"sh": "cmd"}                     /bin/sh -c in the repository; must exit 0
//                                     unless "exit" says otherwise
//   {"write": "rel/path", "content": "..."}   write a file under the root
//   {"exclude": [rel, ...], "listed": [repo-relative, ...]}
//                                     ExcludeFromCommits on those paths
//   {"begin": {"mode": "auto|off|require", "plan"?: [rel, ...], "exec"?:
//    bool}, "error"?, "snapshot"?: bool,
//    "active"?: bool, "note"?: "substring"}
//   {"finish": [{"action", "target", "ok"?, "touched"?: [rel], "anything"?,
//                "repeat"?: N (N records, "{n}" = 1..N in target and touched)}],
//    "error"?, "commit"?: bool, "summary"?: "exact", "foreign"?: [rel],
//    "unattributed"?: [rel], "snapshot"?: bool (a [clada:pre] was made),
//    "head_moved"?: bool (BatchCommitResult::head_moved is set)}
//   {"abandon": true}                 drop the batch without Finish, as a
//                                     clada killed mid-batch would
//   {"command": "undo", "args"?: [...], "mode"?: "off", "exit": 0, "out"?:
//   "substr",
//    "out_lacks"?: "substr", "err"?: "substr"}
//   {"action": "git_squash", "params"?: {...}, "success": bool, "error"?:
//   "substr",
//    "data"?: {subset}}
//   {"log": ["regex", ...]}           subjects of `git log --first-parent`
//   (full match)
//   {"status": ["porcelain line", ...]}  `git status --porcelain` (exact)
//   {"show": "rev", "files": [...]}   files changed by a commit
//   {"message": "rev", "contains": [...], "lacks"?: [...]}
//   {"head": "main" | "detached"}
//   {"file": "rel", "content": "..."} or {"file": "rel", "absent": true}
//   {"save_tree": "name"} / {"same_tree": "name"}  every file's bytes and mode
//                                     (but .clada/lock and .clada/.gitignore)
#ifndef CLADA_PROJ_COMP_GIT_TX_TEST_SCENARIO_RUNNER_H_
#define CLADA_PROJ_COMP_GIT_TX_TEST_SCENARIO_RUNNER_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace clada::git_tx::testing {

// Sets HOME, GIT_CONFIG_NOSYSTEM and author/committer variables so neither
// the git CLI nor libgit2 reads the machine's configuration. Call before
// anything touches git.
void IsolateGitEnvironment();

// The cases of `test-data/<file>` (path relative to the component).
std::vector<nlohmann::json> LoadScenarios(const std::string& file);

// gtest name of a case.
std::string ScenarioName(const nlohmann::json& scenario);

// Runs one case; failures are reported through gtest.
void RunScenario(const nlohmann::json& scenario);

// A fresh empty directory.
std::string MakeTempDir();

// Output of `/bin/sh -c cmd` run in `dir`; *exit_code gets its status.
std::string RunShell(const std::string& dir, const std::string& cmd,
                     int* exit_code);

}  // namespace clada::git_tx::testing

#endif  // CLADA_PROJ_COMP_GIT_TX_TEST_SCENARIO_RUNNER_H_
