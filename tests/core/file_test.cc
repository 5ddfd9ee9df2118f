#include "libagtcore/file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

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

}  // namespace
}  // namespace agt::core
