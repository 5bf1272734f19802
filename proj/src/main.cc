// clada: applies the action blocks in an LLM's answer to a project.
#include <iostream>
#include <string>
#include <vector>

#include "proj/src/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  return clada::RunCli(args, std::cin, std::cout, std::cerr);
}
