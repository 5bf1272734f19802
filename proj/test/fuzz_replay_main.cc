// Runs a libFuzzer target's LLVMFuzzerTestOneInput on every file under the
// directories given as arguments, in every build (no -fsanitize=fuzzer): the
// inputs that once crashed it stay fixed. Exits non-zero when a directory
// holds no file (a replay of nothing proves nothing).
#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    DIR* dir = ::opendir(argv[a]);
    if (dir == nullptr) {
      std::fprintf(stderr, "cannot open %s\n", argv[a]);
      return 2;
    }
    int replayed = 0;
    while (dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::ifstream in(std::string(argv[a]) + "/" + name, std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      const std::string input = bytes.str();
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
      std::printf("replayed %s (%zu bytes)\n", name.c_str(), input.size());
      ++replayed;
    }
    ::closedir(dir);
    if (replayed == 0) {
      std::fprintf(stderr, "no input in %s\n", argv[a]);
      return 1;
    }
  }
  return 0;
}
