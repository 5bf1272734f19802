// DirHandle, the walk dir_tree makes: a directory swapped for a symlink
// while the walk runs is refused, never followed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proj/comp/core/test/test_dir.h"
#include "proj/comp/fs-ops/src/file_store.h"

namespace clada::fs_ops {
namespace {

std::vector<std::string> Names(const DirHandle& d) {
  std::vector<DirEntry> listed;
  EXPECT_EQ(d.List(&listed), 0);
  std::vector<std::string> names;
  for (const DirEntry& e : listed) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  return names;
}

class DirHandleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = core::testing::MakeTestDir("dir-handle-");
    ASSERT_FALSE(base_.empty());
    root_ = base_ + "/root";
    outside_ = base_ + "/outside";
    for (const std::string& d : {root_, root_ + "/a", outside_}) ASSERT_EQ(::mkdir(d.c_str(), 0755), 0) << d;
    std::ofstream(root_ + "/a/inside.txt") << "in\n";
    std::ofstream(outside_ + "/secret.txt") << "SECRET\n";
  }
  // `root/a` becomes a symlink to the outside directory.
  void SwapInSymlink() {
    ASSERT_EQ(::rename((root_ + "/a").c_str(), (root_ + "/a-old").c_str()), 0);
    ASSERT_EQ(::symlink(outside_.c_str(), (root_ + "/a").c_str()), 0);
  }
  std::string base_, root_, outside_;
};

TEST_F(DirHandleTest, ASymlinkSwappedInForADirectoryIsNotFollowed) {
  DirHandle top;
  ASSERT_EQ(DirHandle::Open(root_, &top), 0);
  struct stat st;
  ASSERT_EQ(top.Lstat("a", &st), 0);
  ASSERT_TRUE(S_ISDIR(st.st_mode));  // what the walk saw
  SwapInSymlink();
  // Opening it now, as the walk does next: refused, not followed.
  DirHandle a;
  const int err = top.OpenChild("a", &a);
  EXPECT_TRUE(err == ELOOP || err == ENOTDIR) << err;
  // What the entry is now, shown as a symlink with its target.
  ASSERT_EQ(top.Lstat("a", &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  std::string target;
  ASSERT_EQ(top.Readlink("a", &target), 0);
  EXPECT_EQ(target, outside_);
  // A path through the symlink is refused too.
  DirHandle through;
  EXPECT_NE(DirHandle::Open(root_ + "/a", &through), 0);
}

TEST_F(DirHandleTest, AnOpenDirectoryStaysTheOneThatWasChecked) {
  DirHandle top;
  ASSERT_EQ(DirHandle::Open(root_, &top), 0);
  DirHandle a;
  ASSERT_EQ(top.OpenChild("a", &a), 0);
  SwapInSymlink();
  // Listing what was opened reads the directory that was checked (now
  // a-old), never the symlink's target.
  EXPECT_EQ(Names(a), std::vector<std::string>{"inside.txt"});
  EXPECT_EQ(Names(a), std::vector<std::string>{"inside.txt"});  // again, from its start
  std::vector<std::string> top_names = Names(top);
  EXPECT_EQ(top_names, (std::vector<std::string>{"a", "a-old"}));
}

TEST_F(DirHandleTest, OnlyOneComponentAndNotAFile) {
  DirHandle top;
  ASSERT_EQ(DirHandle::Open(root_, &top), 0);
  DirHandle out;
  EXPECT_EQ(top.OpenChild("..", &out), EINVAL);
  EXPECT_EQ(top.OpenChild("a/../..", &out), EINVAL);
  std::ofstream(root_ + "/file") << "x";
  EXPECT_EQ(top.OpenChild("file", &out), ENOTDIR);
  ASSERT_EQ(::mkfifo((root_ + "/fifo").c_str(), 0600), 0);
  EXPECT_EQ(top.OpenChild("fifo", &out), ENOTDIR);  // opened without waiting
}

}  // namespace
}  // namespace clada::fs_ops
