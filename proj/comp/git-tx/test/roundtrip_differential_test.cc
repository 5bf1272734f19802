// Differential test (issue 34): random batches through BeginBatch/Finish
// and `clada undo`, and `clada step-back` / `clada step-forward`, must give
// back the work tree byte for byte, file modes included.
//
// Each seed builds a repository of two commits with tracked files (some
// executable), the user's uncommitted edits and deletions, untracked files
// (some in untracked directories), ignored files (`*.ign`, and `ig/`, also
// inside untracked directories) and binary contents with CR LF pairs and
// NUL bytes, under one of four `.gitattributes` (none, `* text eol=lf`,
// `* text eol=crlf`, `* text=auto`). Then:
//   1. step-back, step-forward: the tree must be as before;
//   2. a random batch of writes, deletes and moves of any of those files
//      (and new paths), committed by Finish, then `clada undo`: the tree
//      must be as before.
// Seeds are fixed, sizes bounded: the same cases every run.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "proj/comp/core/src/file_io.h"
#include "proj/comp/git-tx/src/git_tx.h"
#include "proj/comp/git-tx/test/scenario_runner.h"

namespace clada::git_tx::testing {
namespace {

constexpr int kSeeds = 48;

// Every regular file under `root` but .git/ and clada's own state:
// relative path -> "<mode>:<bytes>".
void Collect(const std::string& root, const std::string& rel,
             std::map<std::string, std::string>* out) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || (rel.empty() && (name == ".git" || name == ".clada"))) continue;
      names.push_back(name);
    }
    ::closedir(d);
  }
  for (const std::string& name : names) {
    const std::string key = rel.empty() ? name : rel + "/" + name;
    struct stat st;
    if (::lstat((root + "/" + key).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      Collect(root, key, out);
    } else {
      absl::StatusOr<std::string> bytes = core::ReadFileToString(root + "/" + key);
      (*out)[key] = absl::StrCat(st.st_mode & 0777, ":", bytes.ok() ? *bytes : "<unreadable>");
    }
  }
}

std::map<std::string, std::string> Tree(const std::string& root) {
  std::map<std::string, std::string> out;
  Collect(root, "", &out);
  return out;
}

// The differences between two trees, one line each, bytes escaped.
std::string Diff(const std::map<std::string, std::string>& want,
                 const std::map<std::string, std::string>& got) {
  auto show = [](const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        out += static_cast<char>(c);
      } else {
        absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
      }
    }
    return out;
  };
  std::string out;
  std::set<std::string> keys;
  for (const auto& [k, v] : want) keys.insert(k);
  for (const auto& [k, v] : got) keys.insert(k);
  for (const std::string& k : keys) {
    auto w = want.find(k);
    auto g = got.find(k);
    if (w != want.end() && g != got.end() && w->second == g->second) continue;
    absl::StrAppend(&out, "  ", k, ": want ", w == want.end() ? "<absent>" : show(w->second), ", got ",
                    g == got.end() ? "<absent>" : show(g->second), "\n");
  }
  return out;
}

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed) {}

  std::string Bytes() {
    static const char* const kPieces[] = {"a", "b", "line", "\n", "\r\n", "\r", "" /* NUL */, "\xff"};
    std::string out;
    const int n = Pick(12);
    for (int i = 0; i < n; ++i) {
      const int p = Pick(8);
      if (p == 6) {
        out.push_back('\0');
      } else {
        out += kPieces[p];
      }
    }
    return out;
  }

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string Name(const std::vector<std::string>& dirs, const std::vector<std::string>& exts) {
    return absl::StrCat(dirs[Pick(dirs.size())], "f", Pick(6), exts[Pick(exts.size())]);
  }

 private:
  std::mt19937 rng_;
};

void Write(const std::string& root, const std::string& rel, const std::string& bytes, bool exec) {
  const std::string path = root + "/" + rel;
  ASSERT_TRUE(core::CreateDirectories(path.substr(0, path.rfind('/'))).ok());
  ASSERT_TRUE(core::WriteFileAtomic(path, bytes).ok()) << rel;
  ASSERT_EQ(::chmod(path.c_str(), exec ? 0755 : 0644), 0) << rel;
}

std::string Sh(const std::string& dir, const std::string& cmd) {
  int code = 0;
  std::string out = RunShell(dir, cmd, &code);
  EXPECT_EQ(code, 0) << cmd << ":\n" << out;
  return out;
}

int Command(const std::string& root, const std::string& name, std::string* said) {
  std::ostringstream out, err;
  const int code = RunGitCommand(name, {}, root, GitOptions(), out, err);
  *said = absl::StrCat(out.str(), err.str());
  return code;
}

class RoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(RoundTrip, GivesTheTreeBackByteForByte) {
  IsolateGitEnvironment();
  const uint32_t seed = static_cast<uint32_t>(GetParam());
  World w(seed);
  const std::string root = MakeTempDir() + "/repo";
  ASSERT_TRUE(core::CreateDirectories(root).ok());
  Sh(root, "git init -q -b main");

  // Two commits of tracked files; the second edits some, so step-back
  // has somewhere to go.
  static const char* const kAttributes[] = {"", "* text eol=lf\n", "* text eol=crlf\n", "* text=auto\n"};
  const std::string attributes = kAttributes[seed % 4];
  Write(root, ".gitignore", "*.ign\nig/\n", false);
  if (!attributes.empty()) Write(root, ".gitattributes", attributes, false);
  std::set<std::string> tracked;
  for (int i = 0; i < 6; ++i) {
    const std::string rel = w.Name({"", "d/", "d/e/"}, {".txt", ".bin"});
    if (!tracked.insert(rel).second) continue;
    Write(root, rel, w.Bytes(), w.Pick(4) == 0);
  }
  Sh(root, "git add -A && git commit -qm c1");
  for (const std::string& rel : tracked) {
    if (w.Pick(2) == 0) Write(root, rel, w.Bytes(), w.Pick(4) == 0);
  }
  Sh(root, "git add -A && git commit -qm c2 --allow-empty");

  // The user's uncommitted work: edits, deletions, untracked and ignored
  // files (some ignored inside untracked directories).
  std::set<std::string> present = tracked;
  for (const std::string& rel : tracked) {
    const int what = w.Pick(4);
    if (what == 0) Write(root, rel, w.Bytes(), w.Pick(4) == 0);
    if (what == 1) {
      ASSERT_EQ(::unlink((root + "/" + rel).c_str()), 0);
      present.erase(rel);
    }
  }
  for (int i = 0; i < 5; ++i) {
    const std::string rel = w.Name({"", "u/", "u/v/"}, {".txt", ".bin"});
    if (tracked.count(rel) > 0) continue;
    Write(root, rel, w.Bytes(), w.Pick(4) == 0);
    present.insert(rel);
  }
  for (int i = 0; i < 4; ++i) {
    const std::string rel = w.Name({"", "u/", "ig/", "d/"}, {".ign", ".txt"});
    if (tracked.count(rel) > 0 || (rel.rfind("ig/", 0) != 0 && rel.find(".ign") == std::string::npos)) continue;
    Write(root, rel, w.Bytes(), false);
    present.insert(rel);
  }
  const std::map<std::string, std::string> before = Tree(root);
  SCOPED_TRACE(absl::StrCat("seed ", seed, ", .gitattributes: '", attributes, "', files: ",
                            absl::StrJoin(present, " ")));

  // 1. step-back, step-forward.
  std::string said;
  ASSERT_EQ(Command(root, "step-back", &said), 0) << said;
  ASSERT_EQ(Command(root, "step-forward", &said), 0) << said;
  {
    const std::string diff = Diff(before, Tree(root));
    EXPECT_TRUE(diff.empty()) << "step-back then step-forward changed the tree:\n" << diff;
  }

  // 2. A random batch, then undo.
  std::vector<std::string> candidates(present.begin(), present.end());
  candidates.push_back(w.Name({"", "d/", "n/", "ig/"}, {".txt", ".ign"}));  // maybe new
  BatchPlan plan;
  std::vector<ActionRecord> records;
  struct Op {
    int kind;  // 0 write, 1 delete, 2 move
    std::string src, dst;
  };
  std::vector<Op> ops;
  std::set<std::string> used;
  const int n_ops = 1 + w.Pick(5);
  for (int i = 0; i < n_ops; ++i) {
    Op op;
    op.src = candidates[w.Pick(candidates.size())];
    if (!used.insert(op.src).second) continue;
    const bool exists = present.count(op.src) > 0;
    op.kind = exists ? w.Pick(3) : 0;
    if (op.kind == 2) {
      op.dst = w.Name({"m/", "n/"}, {".txt", ".ign"});
      if (present.count(op.dst) > 0 || !used.insert(op.dst).second) continue;
    }
    ops.push_back(op);
  }
  for (const Op& op : ops) {
    plan.paths.push_back(op.src);
    if (!op.dst.empty()) plan.paths.push_back(op.dst);
  }
  absl::StatusOr<std::unique_ptr<BatchTransaction>> tx = BeginBatch(root, GitOptions(), plan);
  ASSERT_TRUE(tx.ok()) << tx.status();
  std::vector<std::string> described;
  for (const Op& op : ops) {
    ActionRecord r;
    r.block_id = absl::StrCat("b", records.size() + 1);
    r.success = true;
    r.target = root + "/" + op.src;
    r.touched_paths.mut().push_back(root + "/" + op.src);
    if (op.kind == 0) {
      r.action = "file_write";
      Write(root, op.src, w.Bytes(), false);
    } else if (op.kind == 1) {
      r.action = "file_delete";
      ASSERT_EQ(::unlink((root + "/" + op.src).c_str()), 0);
    } else {
      r.action = "file_move";
      r.touched_paths.mut().push_back(root + "/" + op.dst);
      const std::string dst = root + "/" + op.dst;
      ASSERT_TRUE(core::CreateDirectories(dst.substr(0, dst.rfind('/'))).ok());
      ASSERT_EQ(::rename((root + "/" + op.src).c_str(), dst.c_str()), 0);
    }
    described.push_back(absl::StrCat(r.action, " ", op.src, op.dst.empty() ? "" : " -> ", op.dst));
    records.push_back(std::move(r));
  }
  SCOPED_TRACE(absl::StrCat("batch: ", absl::StrJoin(described, "; ")));
  absl::StatusOr<BatchCommitResult> done = (*tx)->Finish(records);
  ASSERT_TRUE(done.ok()) << done.status();
  if (!done->commit_id) {
    // Nothing changed (a write of the same bytes): nothing to undo.
    const std::string diff = Diff(before, Tree(root));
    EXPECT_TRUE(diff.empty()) << "a batch without a commit changed the tree:\n" << diff;
    return;
  }

  // 3. `undo --dry-run` predicts `undo`, on a copy of the repository where
  // the user then changed something (by seed): nothing; a file the batch
  // wrote, its line endings switched (an edit some `.gitattributes` filters
  // hide); a file made where the batch deleted or moved one away; an
  // unrelated file; a file the batch wrote, rewritten with the same bytes.
  // The same exit, the same refusal, the same files restored; the dry run
  // changes nothing.
  const std::string twin = root + "-twin";
  Sh(root, absl::StrCat("cp -a ", root, " ", twin));
  {
    const int edit = static_cast<int>(seed % 5);
    std::string edited = "none";
    for (const Op& op : ops) {
      const std::string path = twin + "/" + op.src;
      struct stat st;
      const bool there = ::lstat(path.c_str(), &st) == 0;
      if ((edit == 1 || edit == 4) && op.kind == 0 && there) {
        absl::StatusOr<std::string> bytes = core::ReadFileToString(path);
        ASSERT_TRUE(bytes.ok());
        std::string now = *bytes;
        if (edit == 1) {
          now = now.find("\r\n") != std::string::npos ? absl::StrReplaceAll(now, {{"\r\n", "\n"}})
                                                      : absl::StrReplaceAll(now, {{"\n", "\r\n"}});
          if (now == *bytes) now += "\r\n";
        }
        Write(twin, op.src, now, (st.st_mode & 0100) != 0);
        edited = absl::StrCat(edit == 1 ? "line endings of " : "same bytes in ", op.src);
        break;
      }
      if (edit == 2 && op.kind != 0 && !there) {
        Write(twin, op.src, "made again\n", false);
        edited = absl::StrCat("made again ", op.src);
        break;
      }
    }
    if (edit == 3) {
      for (const std::string& rel : candidates) {
        if (used.count(rel) > 0 || present.count(rel) == 0) continue;
        Write(twin, rel, "user edit\r\n", false);
        edited = absl::StrCat("unrelated ", rel);
        break;
      }
    }
    SCOPED_TRACE(absl::StrCat("then the user: ", edited));
    const std::map<std::string, std::string> edited_tree = Tree(twin);
    std::ostringstream dry_out, dry_err, out, err;
    const int dry_code = RunGitCommand("undo", {"--dry-run"}, twin, GitOptions(), dry_out, dry_err);
    const std::string dry_diff = Diff(edited_tree, Tree(twin));
    EXPECT_TRUE(dry_diff.empty()) << "undo --dry-run changed the tree:\n" << dry_diff;
    const int code = RunGitCommand("undo", {}, twin, GitOptions(), out, err);
    EXPECT_EQ(dry_code, code) << "dry run:\n" << dry_out.str() << dry_err.str() << "undo:\n" << out.str() << err.str();
    if (dry_code == code && code != 0) {
      EXPECT_EQ(dry_err.str(), err.str());
    }
    if (dry_code == code && code == 0) {
      auto line = [](const std::string& text, const std::string& head) {
        const size_t at = text.find(head);
        return at == std::string::npos ? std::string("<none>")
                                       : text.substr(at + head.size(), text.find('\n', at) - at - head.size());
      };
      EXPECT_EQ(line(dry_out.str(), "files it would restore: "), line(out.str(), "files restored: "))
          << dry_out.str() << "\n" << out.str();
    }
  }

  ASSERT_EQ(Command(root, "undo", &said), 0) << said;
  const std::string diff = Diff(before, Tree(root));
  EXPECT_TRUE(diff.empty()) << "the batch then undo changed the tree:\n" << diff;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RoundTrip, ::testing::Range(1, kSeeds + 1));

// A file the batch wrote, then given CR LF line ends by the user, under
// `* text eol=lf`: git's clean filter makes it look unchanged, its bytes are
// not the AI commit's. The real undo refuses it (the raw-bytes check of its
// checkout); the dry run must too, and change nothing.
TEST(UndoDryRun, RefusesTheEditAFilterHidesAsUndoDoes) {
  IsolateGitEnvironment();
  const std::string root = MakeTempDir() + "/repo";
  ASSERT_TRUE(core::CreateDirectories(root).ok());
  Sh(root, "git init -q -b main");
  Write(root, ".gitattributes", "* text eol=lf\n", false);
  Write(root, "a.txt", "a\n", false);
  Sh(root, "git add -A && git commit -qm c1");
  BatchPlan plan;
  plan.paths.push_back("a.txt");
  absl::StatusOr<std::unique_ptr<BatchTransaction>> tx = BeginBatch(root, GitOptions(), plan);
  ASSERT_TRUE(tx.ok()) << tx.status();
  Write(root, "a.txt", "b\n", false);
  ActionRecord r;
  r.block_id = "b1";
  r.action = "file_write";
  r.success = true;
  r.target = root + "/a.txt";
  r.touched_paths.mut().push_back(root + "/a.txt");
  absl::StatusOr<BatchCommitResult> done = (*tx)->Finish({r});
  ASSERT_TRUE(done.ok() && done->commit_id) << done.status();
  Write(root, "a.txt", "b\r\n", false);
  const std::map<std::string, std::string> edited = Tree(root);
  std::ostringstream dry_out, dry_err, out, err;
  const int dry_code = RunGitCommand("undo", {"--dry-run"}, root, GitOptions(), dry_out, dry_err);
  EXPECT_TRUE(Diff(edited, Tree(root)).empty());
  const int code = RunGitCommand("undo", {}, root, GitOptions(), out, err);
  EXPECT_EQ(code, 1) << out.str() << err.str();
  EXPECT_EQ(dry_code, code) << dry_out.str() << dry_err.str();
  EXPECT_EQ(dry_err.str(), err.str());
  EXPECT_NE(err.str().find("a.txt"), std::string::npos) << err.str();
  EXPECT_TRUE(Diff(edited, Tree(root)).empty()) << "a refused undo changed the tree";
}

}  // namespace
}  // namespace clada::git_tx::testing
