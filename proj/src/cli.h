// The `clada` command line: argument parsing and command dispatch.
//
// Example:
//   int code = clada::RunCli({"run", "answer.md", "--no-git"}, std::cin, std::cout, std::cerr);
#ifndef CLADA_PROJ_SRC_CLI_H_
#define CLADA_PROJ_SRC_CLI_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace clada {

inline constexpr char kVersion[] = "0.1.0";

// Runs one clada command. `args` excludes the program name. Relative paths
// resolve against BUILD_WORKING_DIRECTORY when set (bazel run), else the
// current directory. Returns the process exit code: 0 success, 1 when an
// action failed or a block was skipped, 2 for usage errors and fatal errors.
int RunCli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace clada

#endif  // CLADA_PROJ_SRC_CLI_H_
