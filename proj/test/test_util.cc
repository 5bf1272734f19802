#include "proj/test/test_util.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "proj/comp/core/test/test_dir.h"

namespace clada::testing {

std::string MakeTempDir(const std::string& prefix) { return core::testing::MakeTestDir(prefix.c_str()); }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

std::string CladaBinary() {
  char* cwd = ::getcwd(nullptr, 0);
  std::string binary = std::string(cwd) + "/proj/clada";
  ::free(cwd);
  return binary;
}

}  // namespace clada::testing
