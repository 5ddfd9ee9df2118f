#include "libagtcore/file.h"

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
