// clada: applies the action blocks in an LLM's answer to a project.
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <iostream>
#include <string>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "proj/src/cli.h"

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Every block of 1 MiB or more is mapped on its own and handed back when
  // freed. glibc raises this bound as large blocks are freed (up to 32 MB),
  // after which they come from the heap, whose freed pages between live
  // ones it keeps: `clada listen` of 1,982,807 CML tasks at the input limit
  // peaked at 312 MB resident for 296 MB with the bound held (proj/doc/ARCH.md).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  return clada::RunCli(args, std::cin, std::cout, std::cerr);
}
