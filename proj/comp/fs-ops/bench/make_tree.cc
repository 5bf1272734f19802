// Generates the benchmark inputs in a directory (never in the repository):
//   make_tree tree DIR FILES BYTES   a git work tree of FILES source-like
//                                    files totalling about BYTES, with a
//                                    .gitignore'd build/ directory
//   make_tree replace FILE BYTES N   a text file of about BYTES holding
//                                    "old_name" exactly N times
//   make_tree source FILE BYTES      a source-like file of about BYTES
// Deterministic (fixed seed). Matches for grep: "TODO(fsops)" in about 1% of
// files, and identifiers handler_<n>.
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

namespace {

const char* const kWords[] = {"return", "value", "count",  "index", "buffer", "result", "const", "auto",
                              "static", "if",    "else",   "for",   "while",  "size_t", "int",   "std::string",
                              "config", "parse", "render", "node",  "tree",   "data",   "error", "status"};

std::string Line(std::mt19937& rng) {
  std::uniform_int_distribution<int> word(0, sizeof(kWords) / sizeof(kWords[0]) - 1);
  std::uniform_int_distribution<int> count(3, 10);
  std::uniform_int_distribution<int> indent(0, 3);
  std::uniform_int_distribution<int> num(0, 99999);
  std::string line(static_cast<size_t>(indent(rng)) * 4, ' ');
  int n = count(rng);
  for (int i = 0; i < n; ++i) {
    if (i) line += ' ';
    line += kWords[word(rng)];
    if (i == n / 2) line += "(handler_" + std::to_string(num(rng)) + ")";
  }
  line += ";\n";
  return line;
}

std::string Text(std::mt19937& rng, size_t bytes) {
  std::string s;
  while (s.size() < bytes) s += Line(rng);
  return s;
}

int Tree(const std::string& dir, int files, int64_t bytes) {
  std::mt19937 rng(42);
  std::system(("mkdir -p '" + dir + "' && cd '" + dir + "' && git init -q . 2>/dev/null").c_str());
  std::ofstream(dir + "/.gitignore") << "build/\n*.tmp\n";
  size_t per_file = static_cast<size_t>(bytes / files);
  std::uniform_int_distribution<int> pct(0, 99);
  for (int i = 0; i < files; ++i) {
    std::string sub = dir + "/src/m" + std::to_string(i % 50) + "/d" + std::to_string((i / 50) % 8);
    mkdir((dir + "/src").c_str(), 0777);
    mkdir((dir + "/src/m" + std::to_string(i % 50)).c_str(), 0777);
    mkdir(sub.c_str(), 0777);
    std::string text = Text(rng, per_file);
    if (pct(rng) == 0) text.insert(text.size() / 2, "    // TODO(fsops): check this\n");
    std::ofstream(sub + "/f" + std::to_string(i) + ".cc") << text;
  }
  mkdir((dir + "/build").c_str(), 0777);
  for (int i = 0; i < 20; ++i) std::ofstream(dir + "/build/out" + std::to_string(i) + ".o") << Text(rng, 4096);
  return 0;
}

int Replace(const std::string& file, int64_t bytes, int n) {
  std::mt19937 rng(7);
  std::string text;
  text.reserve(static_cast<size_t>(bytes) + 64);
  int64_t every = bytes / n;
  int placed = 0;
  while (static_cast<int64_t>(text.size()) < bytes) {
    text += Line(rng);
    if (placed < n && static_cast<int64_t>(text.size()) >= every * (placed + 1)) {
      text += "    old_name = old_name + 1;\n";  // two occurrences per line
      placed += 2;
    }
  }
  std::ofstream(file) << text;
  std::cout << file << ": " << text.size() << " bytes, " << placed << " occurrences\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "tree" && argc == 5) return Tree(argv[2], std::atoi(argv[3]), std::atoll(argv[4]));
  if (mode == "replace" && argc == 5) return Replace(argv[2], std::atoll(argv[3]), std::atoi(argv[4]));
  if (mode == "source" && argc == 4) {
    std::mt19937 rng(3);
    std::ofstream(argv[2]) << Text(rng, static_cast<size_t>(std::atoll(argv[3])));
    return 0;
  }
  std::cerr << "usage: make_tree tree DIR FILES BYTES | replace FILE BYTES N | source FILE BYTES\n";
  return 2;
}
