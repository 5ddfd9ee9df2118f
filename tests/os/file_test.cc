// ReadWholeFile and WriteFileAtomic on real files under /tmp.
#include "libagtcore/os/file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace agt::core {
namespace {

TEST(ReadWholeFileTest, ReadsEveryByteIncludingNuls) {
  char tmpl[] = "/tmp/agtmux-file-XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string bytes(20000, 'x');
  bytes[7] = '\0';
  bytes += "日本語\n";
  std::ofstream(tmpl, std::ios::binary) << bytes;
  auto r = ReadWholeFile(tmpl);
  unlink(tmpl);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(*r, bytes);
}

TEST(ReadWholeFileTest, ProcFilesAreReadToTheEnd) {
  auto r = ReadWholeFile("/proc/self/stat");  // stat() says size 0
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->find(')'), std::string::npos);
}

TEST(ReadWholeFileTest, MissingIsNotFoundOtherFailuresAreIo) {
  auto missing = ReadWholeFile("/nonexistent/agtmux/file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Err::kNotFound);
  EXPECT_EQ(missing.error().message.rfind("/nonexistent/agtmux/file: ", 0), 0u);
  auto dir = ReadWholeFile("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().code, Err::kIo);
}


// A private scratch directory, removed with everything in it.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    char tmpl[] = "/tmp/agtmux-write-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(path)) ++n;
    return n;
  }
};

mode_t ModeOf(const std::string& path) {
  struct stat st{};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(WriteFileAtomicTest, NewFileGetsTheNewFileModeAndTheBytes) {
  ScratchDir d;
  const std::string p = d.path + "/targets.json";
  ASSERT_TRUE(WriteFileAtomic(p, std::string("a\0b\n", 4)).ok());
  EXPECT_EQ(*ReadWholeFile(p), std::string("a\0b\n", 4));
  EXPECT_EQ(ModeOf(p), 0600u);
  ASSERT_TRUE(WriteFileAtomic(d.path + "/other", "x", 0640).ok());
  EXPECT_EQ(ModeOf(d.path + "/other"), 0640u);
  EXPECT_EQ(d.Entries(), 2u);  // no temporary file left behind
}

TEST(WriteFileAtomicTest, ReplacingKeepsTheExistingMode) {
  ScratchDir d;
  const std::string p = d.path + "/settings.json";
  std::ofstream(p) << "old contents, longer than the new ones";
  ASSERT_EQ(chmod(p.c_str(), 0604), 0);
  ASSERT_TRUE(WriteFileAtomic(p, "new", 0600).ok());
  EXPECT_EQ(*ReadWholeFile(p), "new");
  EXPECT_EQ(ModeOf(p), 0604u);
  EXPECT_EQ(d.Entries(), 1u);
}

TEST(WriteFileAtomicTest, FailureLeavesTheFileAndNoTemporary) {
  ScratchDir d;
  // A directory in the way: the rename fails (EISDIR), nothing changes.
  const std::string p = d.path + "/busy";
  ASSERT_EQ(mkdir(p.c_str(), 0700), 0);
  auto st = WriteFileAtomic(p, "data");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Err::kIo);
  EXPECT_EQ(st.error().message.rfind(p + ": ", 0), 0u) << st.error().message;
  EXPECT_TRUE(std::filesystem::is_directory(p));
  EXPECT_EQ(d.Entries(), 1u);
  // A missing directory: E_IO naming where it tried to write.
  auto missing = WriteFileAtomic(d.path + "/no/such/file", "data");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Err::kIo);
  EXPECT_NE(missing.error().message.find(d.path + "/no/such/file"), std::string::npos);
}

TEST(WriteFileAtomicTest, ReplacesWholeWithTheModeAndLeavesNoTemporary) {
  char tmpl[] = "/tmp/agtmux-atomic-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string path = dir + "/f.json";
  for (bool sync : {true, false}) {
    std::string bytes(100000, sync ? 'a' : 'b');
    ASSERT_TRUE(WriteFileAtomic(path, bytes, 0600, sync).ok());
    auto r = ReadWholeFile(path);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, bytes);
  }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1) << "no temporary file left behind";
  auto bad = WriteFileAtomic(dir + "/missing/f.json", "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Err::kIo);
  EXPECT_NE(bad.error().message.find(dir + "/missing/f.json"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agt::core
