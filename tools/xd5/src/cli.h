// The xd5 command line, callable in-process so that tests can run it.
//
// Example:
//   std::ostringstream out, err;
//   int code = RunXd5({"--root", "/work/main", "check"}, out, err);

#ifndef CLADA_TOOLS_XD5_SRC_CLI_H_
#define CLADA_TOOLS_XD5_SRC_CLI_H_

#include <ostream>
#include <string>
#include <vector>

namespace clada::xd5 {

// Runs xd5 with ARGS (without the program name). Returns the exit code:
// 0 success, 1 `check` found problems, 2 usage error or no workspace.
int RunXd5(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err);

}  // namespace clada::xd5

#endif  // CLADA_TOOLS_XD5_SRC_CLI_H_
