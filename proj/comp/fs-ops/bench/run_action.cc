// Runs one fs-ops action from the command line, for whole-process timing
// next to cp, rg and grep (bench/bench.sh):
//   run_action ROOT '{"name":"grep","params":{"pattern":"TODO","path":"."}}'
//   run_action ROOT '{"name":"file_replace_all_text","params":{...},"max_file_bytes":300000000}'
// Prints a one-line summary; exit 0 on success, 1 on failure, 2 on usage.
#include <cstdio>
#include <iostream>
#include <string>

#include "nlohmann/json.hpp"
#include "proj/comp/core/src/action.h"
#include "proj/comp/core/src/path_policy.h"
#include "proj/comp/fs-ops/src/fs_ops.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: run_action ROOT ACTION_JSON\n";
    return 2;
  }
  auto policy = clada::core::MakePathPolicy(argv[1], {});
  if (!policy.ok()) {
    std::cerr << policy.status() << "\n";
    return 2;
  }
  clada::core::Json spec = clada::core::Json::parse(argv[2], nullptr, false);
  if (spec.is_discarded() || !spec.contains("name")) {
    std::cerr << "ACTION_JSON must be {\"name\": ..., \"params\": {...}}\n";
    return 2;
  }
  clada::core::Action action;
  action.name = spec["name"].get<std::string>();
  action.params = spec.value("params", clada::core::Json::object());
  clada::core::ExecContext ctx;
  ctx.paths = *policy;
  // {"max_file_bytes": N} raises the 10 MB limit for large-file runs.
  if (spec.contains("max_file_bytes")) ctx.limits.max_file_bytes = spec["max_file_bytes"].get<int64_t>();
  clada::core::ActionOutcome out = clada::fs_ops::ExecuteFileOperation(action, ctx);
  if (!out.success) {
    std::cout << out.error << "\n";
    return 1;
  }
  clada::core::Json summary = clada::core::Json::object();
  for (const char* key : {"replacements_made", "already_applied", "total_matches", "files_searched", "total"}) {
    if (out.data.contains(key)) summary[key] = out.data[key];
  }
  std::cout << summary.dump() << "\n";
  return 0;
}
