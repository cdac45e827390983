// ReadFile / OpenForReading: regular files are read up to their cap; a FIFO, device, socket or
// directory where a file is expected is refused at once (a read of a FIFO nobody writes to would
// block forever), except a FIFO the caller allows as a user-named pipe.
#include "util/file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

namespace gpuvet {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / (std::to_string(::getpid()) + "-gpuvet_file_test");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

TEST_F(FileTest, ReadsRegularFilesUpToTheCap) {
  std::string path = Write("attr", "  16\n");
  Result<std::string> all = ReadFile(path);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, "  16\n");
  Result<std::string> head = ReadFile(path, 3);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, "  1");
  Result<std::string> attr = ReadAttribute(path);
  ASSERT_TRUE(attr.ok());
  EXPECT_EQ(*attr, "16");
  // An attribute is capped at kAttributeReadCap, whatever the file holds.
  std::string big = Write("big", std::string(kAttributeReadCap + 100, 'x'));
  Result<std::string> capped = ReadAttribute(big);
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->size(), kAttributeReadCap);
}

// One buffer over files of different sizes: each read replaces it exactly (a large file, then a
// small one, then one past the cap), and an error leaves it empty.
TEST_F(FileTest, ReadIntoReusesOneBuffer) {
  std::string buffer;
  const std::string large(100000, 'a');
  ASSERT_TRUE(ReadFileInto(Write("large", large), 1 << 20, buffer).ok());
  EXPECT_EQ(buffer, large);
  const size_t capacity = buffer.capacity();
  ASSERT_TRUE(ReadFileInto(Write("small", "xyz"), 1 << 20, buffer).ok());
  EXPECT_EQ(buffer, "xyz");
  EXPECT_EQ(buffer.capacity(), capacity);  // not reallocated
  ASSERT_TRUE(ReadFileInto(Write("capped", std::string(50000, 'b')), 40000, buffer).ok());
  EXPECT_EQ(buffer, std::string(40000, 'b'));
  ASSERT_TRUE(ReadFileInto(Write("empty", ""), 1 << 20, buffer).ok());
  EXPECT_EQ(buffer, "");
  Status missing = ReadFileInto((dir_ / "nope").string(), 1 << 20, buffer);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_TRUE(buffer.empty());
}

TEST_F(FileTest, MissingAndUnreadableKeepTheirCodes) {
  Result<std::string> missing = ReadFile((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  Result<std::string> under_file = ReadFile(Write("f", "x") + "/child");
  ASSERT_FALSE(under_file.ok());
  EXPECT_EQ(under_file.status().code(), StatusCode::kNotFound);  // ENOTDIR
}

TEST_F(FileTest, FifoIsRefusedWithoutBlocking) {
  const std::string fifo = (dir_ / "io").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  Result<std::string> r = ReadFile(fifo);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find(fifo), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("FIFO"), std::string::npos) << r.status().message();
  EXPECT_LT(took, std::chrono::seconds(2));
  Result<int> fd = OpenForReading(fifo);
  EXPECT_FALSE(fd.ok());
  // A symlink to it (sysfs is made of symlinks) is followed and refused the same way.
  const std::string link = (dir_ / "link").string();
  ASSERT_EQ(::symlink(fifo.c_str(), link.c_str()), 0);
  EXPECT_NE(ReadFile(link).status().message().find("FIFO"), std::string::npos);
}

TEST_F(FileTest, UserNamedPipeIsReadToItsEnd) {
  const std::string fifo = (dir_ / "policy.toml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo) << "[thresholds]\n"; });
  Result<std::string> r = ReadFile(fifo, 1 << 20, FileKinds::kRegularOrPipe);
  writer.join();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "[thresholds]\n");
}

TEST_F(FileTest, DevicesSocketsAndDirectoriesAreRefused) {
  for (FileKinds kinds : {FileKinds::kRegular, FileKinds::kRegularOrPipe}) {
    Result<std::string> dev = ReadFile("/dev/null", 16, kinds);
    ASSERT_FALSE(dev.ok());
    EXPECT_NE(dev.status().message().find("a character device"), std::string::npos)
        << dev.status().message();
    Result<std::string> dir = ReadFile(dir_.string(), 16, kinds);
    ASSERT_FALSE(dir.ok());
    EXPECT_NE(dir.status().message().find("a directory"), std::string::npos);
  }
  // /dev/zero would never end and /dev/tty could become the controlling terminal: never read.
  EXPECT_FALSE(ReadFile("/dev/zero", 16).ok());

  const std::string sock_path = (dir_ / "s").string();
  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock_path.size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  Result<std::string> s = ReadFile(sock_path);
  ::close(sock);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("a socket"), std::string::npos) << s.status().message();
}

TEST_F(FileTest, ExistenceChecksNeverOpen) {
  const std::string fifo = (dir_ / "nvidia0").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(PathExists(fifo));  // device nodes under dev/ are looked at, never read
  EXPECT_FALSE(PathExists((dir_ / "nvidia1").string()));
}

// Issue 16: the temporary name of an atomic write was predictable (PATH.tmp.PID) and opened
// without O_EXCL, so a symlink planted there (in a shared textfile directory) was followed and
// its target overwritten.
TEST_F(FileTest, AtomicWriteNeverFollowsASymlinkAtTheTemporaryName) {
  std::string victim = Write("victim", "precious\n");
  std::string target = (dir_ / "gpuvet.prom").string();
  std::string predictable = target + ".tmp." + std::to_string(::getpid());
  fs::create_symlink(victim, predictable);
  // A dangling symlink too: O_CREAT alone would create its target.
  std::string dangling_target = (dir_ / "created-through-link").string();
  ASSERT_TRUE(WriteFileAtomic(target, "first\n").ok());
  fs::remove(predictable);
  fs::create_symlink(dangling_target, predictable);
  Status s = WriteFileAtomic(target, "gpuvet_up 1\n");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(*ReadFile(victim), "precious\n");
  EXPECT_FALSE(fs::exists(dangling_target));
  EXPECT_EQ(*ReadFile(target), "gpuvet_up 1\n");
  EXPECT_FALSE(fs::is_symlink(target));
  // The planted link is left alone, and no temporary file is left behind.
  EXPECT_TRUE(fs::is_symlink(predictable));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 3);  // victim, the planted link, gpuvet.prom
}

TEST_F(FileTest, AtomicWriteReplacesTheTargetAndNamesAMissingDirectory) {
  std::string target = Write("out.prom", "old\n");
  ASSERT_TRUE(WriteFileAtomic(target, "new\n").ok());
  EXPECT_EQ(*ReadFile(target), "new\n");
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777 & ~0644, 0u);  // never more than 0644
  Status missing = WriteFileAtomic((dir_ / "no-such-dir" / "x.prom").string(), "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("no-such-dir"), std::string::npos) << missing.message();
}

}  // namespace
}  // namespace gpuvet
