// xd5: checks and prints the XD5 dependency graph of a clada workspace.
// See tools/xd5/README.md.

#include <iostream>
#include <string>
#include <vector>

#include "tools/xd5/src/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return clada::xd5::RunXd5(args, std::cout, std::cerr);
}
