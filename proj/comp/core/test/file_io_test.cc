#include "proj/comp/core/src/file_io.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proj/comp/core/test/test_dir.h"

namespace clada::core {
namespace {

std::string TempDir() { return testing::MakeTestDir("clada_io_"); }

TEST(WriteFileAtomic, WritesAndReadsBack) {
  std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomic(dir + "/a.txt", std::string("x\0y\r\n", 5)).ok());
  absl::StatusOr<std::string> got = ReadFileToString(dir + "/a.txt");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::string("x\0y\r\n", 5));
}

// Pieces land in order; a producer's error leaves the old file as it was
// and no temp file beside it.
TEST(WriteFileAtomicPieces, WritesPiecesInOrderOrNothing) {
  std::string dir = TempDir();
  const std::string path = dir + "/j.json";
  ASSERT_TRUE(WriteFileAtomicPieces(path, [](AppendPiece append) {
                for (int i = 0; i < 3000; ++i) {
                  absl::Status s = append(std::to_string(i) + ",");
                  if (!s.ok()) return s;
                }
                return append("end");
              }).ok());
  std::string expected;
  for (int i = 0; i < 3000; ++i) expected += std::to_string(i) + ",";
  expected += "end";
  absl::StatusOr<std::string> got = ReadFileToString(path);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, expected);

  absl::Status failed = WriteFileAtomicPieces(path, [](AppendPiece append) {
    absl::Status s = append("half");
    if (!s.ok()) return s;
    return absl::InternalError("the producer failed");
  });
  EXPECT_EQ(failed.message(), "the producer failed");
  got = ReadFileToString(path);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, expected);
  DIR* d = ::opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  int entries = 0;
  while (struct dirent* e = ::readdir(d)) {
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++entries;
  }
  ::closedir(d);
  EXPECT_EQ(entries, 1);
}

TEST(WriteFileAtomic, KeepsModeBits) {
  std::string dir = TempDir();
  std::string path = dir + "/run.sh";
  ASSERT_TRUE(WriteFileAtomic(path, "old").ok());
  ASSERT_EQ(::chmod(path.c_str(), 0751), 0);
  ASSERT_TRUE(WriteFileAtomic(path, "new").ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
}

TEST(WriteFileAtomic, FailsWhenParentMissing) {
  absl::Status s = WriteFileAtomic(TempDir() + "/missing/a.txt", "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
}

TEST(ReadFileToString, RefusesOverLimitWithSizes) {
  std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomic(dir + "/big", std::string(100, 'x')).ok());
  absl::StatusOr<std::string> got = ReadFileToString(dir + "/big", 10);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("100 bytes"), std::string::npos) << got.status();
}

TEST(ReadFileToString, MissingIsNotFound) {
  EXPECT_EQ(ReadFileToString(TempDir() + "/nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(ReadFileHead, ReadsTheHeadOfRegularFilesOnly) {
  std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomic(dir + "/a.txt", "0123456789").ok());
  EXPECT_EQ(*ReadFileHead(dir + "/a.txt", 4), "0123");
  EXPECT_EQ(*ReadFileHead(dir + "/a.txt", 100), "0123456789");
  EXPECT_EQ(ReadFileHead(dir + "/nope", 4).status().code(), absl::StatusCode::kNotFound);
  // A directory, a symlink and a FIFO are refused, the FIFO without
  // blocking on it.
  EXPECT_EQ(ReadFileHead(dir, 4).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(::symlink((dir + "/a.txt").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_EQ(ReadFileHead(dir + "/link", 4).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  EXPECT_EQ(ReadFileHead(dir + "/fifo", 4).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(CreateDirectories, MakesParents) {
  std::string dir = TempDir() + "/a/b/c";
  ASSERT_TRUE(CreateDirectories(dir).ok());
  struct stat st;
  EXPECT_EQ(::stat(dir.c_str(), &st), 0);
}

TEST(CreateDirectories, FollowsASymlinkToADirectory) {
  std::string base = TempDir();
  ASSERT_TRUE(CreateDirectories(base + "/real").ok());
  ASSERT_EQ(::symlink((base + "/real").c_str(), (base + "/link").c_str()), 0);
  EXPECT_TRUE(CreateDirectories(base + "/link").ok());
  EXPECT_TRUE(CreateDirectories(base + "/link/sub").ok());
  struct stat st;
  EXPECT_EQ(::stat((base + "/real/sub").c_str(), &st), 0);
}

// mkdir(2) says EEXIST for a dangling symlink; that is no directory.
TEST(CreateDirectories, RefusesADanglingSymlink) {
  std::string base = TempDir();
  std::string link = base + "/link";
  ASSERT_EQ(::symlink((base + "/missing").c_str(), link.c_str()), 0);
  for (const std::string& dir : {link, link + "/sub"}) {
    absl::Status s = CreateDirectories(dir);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_NE(s.message().find("'" + link + "' is a symlink to '" + base + "/missing', which does not exist"),
              std::string::npos)
        << s;
  }
  struct stat st;
  EXPECT_NE(::stat((base + "/missing").c_str(), &st), 0) << "the target is not created";
  EXPECT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(CreateDirectories, RefusesAFile) {
  std::string base = TempDir();
  ASSERT_TRUE(WriteFileAtomic(base + "/f", "x").ok());
  absl::Status s = CreateDirectories(base + "/f/sub");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("exists and is not a directory"), std::string::npos) << s;
}

// A path from an answer may have thousands of components; each once took a
// stack frame of over 4 KB, and 2,040 of them overflowed the stack.
TEST(CreateDirectories, DeepPathsNeedNoStack) {
  const std::string base = TempDir();
  std::string deep = base;
  for (int i = 0; i < 1500; ++i) deep += "/a";
  ASSERT_TRUE(CreateDirectories(deep).ok());
  struct stat st;
  EXPECT_EQ(::stat(deep.c_str(), &st), 0);
  std::string deeper = base + "/b";
  for (int i = 0; i < 5000; ++i) deeper += "/b";  // 10 KB: beyond PATH_MAX
  absl::Status s = CreateDirectories(deeper);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot create directory"), std::string::npos) << s.message().substr(0, 200);
}

TEST(WriteFileAtomic, RefusesDirectorySwappedForSymlink) {
  std::string base = TempDir();
  std::string outside = TempDir();
  ASSERT_TRUE(CreateDirectories(base + "/dir").ok());
  std::string checked = base + "/dir/f.txt";  // as ResolvePath would have returned it
  // After the check, dir is swapped for a symlink pointing outside.
  ASSERT_EQ(::rename((base + "/dir").c_str(), (base + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (base + "/dir").c_str()), 0);
  absl::Status s = WriteFileAtomic(checked, "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("path_changed"), std::string::npos) << s;
  EXPECT_FALSE(ReadFileToString(outside + "/f.txt").ok()) << "nothing may be written through the symlink";
}

TEST(WriteFileAtomic, ReplacesSymlinkInsteadOfFollowingIt) {
  std::string base = TempDir();
  std::string outside = TempDir();
  ASSERT_TRUE(WriteFileAtomic(outside + "/target", "old").ok());
  ASSERT_EQ(::symlink((outside + "/target").c_str(), (base + "/link").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomic(base + "/link", "new").ok());
  EXPECT_EQ(*ReadFileToString(outside + "/target"), "old");
  EXPECT_EQ(*ReadFileToString(base + "/link"), "new");
}

TEST(WriteFileAtomic, LeavesNoTempFileBehind) {
  std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomic(dir + "/a", "1").ok());
  ASSERT_TRUE(WriteFileAtomic(dir + "/a", "2").ok());
  int entries = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) entries += e->d_name[0] != '.' || std::string(e->d_name).size() > 2;
    ::closedir(d);
  }
  EXPECT_EQ(entries, 1);
}

TEST(CreateStateDirectory, IgnoresRunTimeStateOnly) {
  std::string dir = TempDir() + "/.clada";
  ASSERT_TRUE(CreateStateDirectory(dir).ok());
  absl::StatusOr<std::string> ignore = ReadFileToString(dir + "/.gitignore");
  ASSERT_TRUE(ignore.ok());
  EXPECT_NE(ignore->find("\nlock\n"), std::string::npos);
  EXPECT_NE(ignore->find("listen-state.json"), std::string::npos);
  EXPECT_EQ(ignore->find("config.yaml\n"), std::string::npos) << "settings stay committable";
}

TEST(CreateStateDirectory, KeepsTheUsersGitignore) {
  std::string dir = TempDir() + "/.clada";
  ASSERT_TRUE(CreateDirectories(dir).ok());
  ASSERT_TRUE(WriteFileAtomic(dir + "/.gitignore", "mine\n").ok());
  ASSERT_TRUE(CreateStateDirectory(dir).ok());
  EXPECT_EQ(*ReadFileToString(dir + "/.gitignore"), "mine\n");
}

}  // namespace
}  // namespace clada::core
