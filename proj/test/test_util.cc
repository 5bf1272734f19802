#include "proj/test/test_util.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include <fstream>
#include <sstream>

namespace clada::testing {

std::string MakeTempDir(const std::string& prefix) {
  // Not /tmp itself: what a test leaves there stays (the load tests' files
  // alone were 66 MB a run).
  const char* base = ::getenv("TEST_TMPDIR");
  char real[PATH_MAX];
  if (base == nullptr || ::realpath(base, real) == nullptr) std::strcpy(real, "/tmp");
  std::string tmpl = std::string(real) + "/" + prefix + "XXXXXX";
  char* dir = ::mkdtemp(tmpl.data());
  return dir == nullptr ? "" : dir;
}

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
