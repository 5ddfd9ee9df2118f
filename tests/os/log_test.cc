#include "libagtcore/os/log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace agt::core {
namespace {

EnvFn MapEnv(std::map<std::string, std::string> vars) {
  auto copy = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [copy](const char* name) -> const char* {
    auto it = copy->find(name);
    return it == copy->end() ? nullptr : it->second.c_str();
  };
}

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agtmux-log-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    ShutdownLogging();
    std::filesystem::remove_all(dir_);
  }
  std::string Read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  std::string dir_;
};

TEST_F(LogTest, WritesToAFileInANewPrivateDirectory) {
  LogOptions o;
  o.path = dir_ + "/state/agtmuxd.log";
  o.name = "agtmuxd";
  ASSERT_TRUE(InitLogging(o, MapEnv({})).ok());
  spdlog::info("ingested {} events", 3);
  spdlog::debug("hidden at info");
  ShutdownLogging();
  std::string text = Read(o.path);
  EXPECT_NE(text.find("I agtmuxd["), std::string::npos) << text;
  EXPECT_NE(text.find("ingested 3 events"), std::string::npos) << text;
  EXPECT_EQ(text.find("hidden at info"), std::string::npos) << text;
  // UTC timestamp first: "2026-11-22T03:25:18.123456Z".
  ASSERT_GT(text.size(), 27u);
  EXPECT_EQ(text[4], '-');
  EXPECT_EQ(text[10], 'T');
  EXPECT_EQ(text[26], 'Z');
  struct stat st {};
  ASSERT_EQ(stat((dir_ + "/state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(LogTest, EnvironmentOverridesTheConfiguredLevel) {
  LogOptions o;
  o.path = dir_ + "/a.log";
  o.level = "error";
  ASSERT_TRUE(InitLogging(o, MapEnv({{"AGTMUX_LOG_LEVEL", "debug"}})).ok());
  spdlog::debug("debug line");
  ShutdownLogging();
  EXPECT_NE(Read(o.path).find("debug line"), std::string::npos);

  o.path = dir_ + "/b.log";
  ASSERT_TRUE(InitLogging(o, MapEnv({})).ok());
  spdlog::warn("warn line");
  spdlog::error("error line");
  ShutdownLogging();
  std::string text = Read(o.path);
  EXPECT_EQ(text.find("warn line"), std::string::npos);
  EXPECT_NE(text.find("error line"), std::string::npos);
}

TEST_F(LogTest, OffSilencesEverything) {
  LogOptions o;
  o.path = dir_ + "/off.log";
  o.level = "off";
  ASSERT_TRUE(InitLogging(o, MapEnv({})).ok());
  spdlog::critical("nothing");
  ShutdownLogging();
  EXPECT_EQ(Read(o.path), "");
}

TEST_F(LogTest, RotatesAtTheSizeLimit) {
  LogOptions o;
  o.path = dir_ + "/r.log";
  o.max_bytes = 4096;
  o.max_files = 2;
  ASSERT_TRUE(InitLogging(o, MapEnv({})).ok());
  for (int i = 0; i < 200; ++i) spdlog::info("line {} {}", i, std::string(60, 'x'));
  ShutdownLogging();
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/r.1.log"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/r.2.log"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.3.log"));
  EXPECT_LE(std::filesystem::file_size(o.path), 4096u);
}

TEST_F(LogTest, BadLevelsAndPathsAreErrors) {
  LogOptions o;
  o.path = dir_ + "/x.log";
  o.level = "loud";
  Status st = InitLogging(o, MapEnv({}));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Err::kConfigInvalid);
  EXPECT_NE(st.error().message.find("unknown log level \"loud\""), std::string::npos);

  o.level = "info";
  st = InitLogging(o, MapEnv({{"AGTMUX_LOG_LEVEL", "verbose"}}));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message.rfind("AGTMUX_LOG_LEVEL: ", 0), 0u) << st.error().message;

  std::ofstream(dir_ + "/file") << "x";
  o.path = dir_ + "/file/x.log";  // parent is a file
  st = InitLogging(o, MapEnv({}));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Err::kIo);
}

TEST(LogLevelTest, ParsesEveryName) {
  EXPECT_EQ(*ParseLogLevel("trace"), spdlog::level::trace);
  EXPECT_EQ(*ParseLogLevel("warning"), spdlog::level::warn);
  EXPECT_EQ(*ParseLogLevel("off"), spdlog::level::off);
  EXPECT_FALSE(ParseLogLevel("INFO").ok());
  EXPECT_FALSE(ParseLogLevel("").ok());
}

}  // namespace
}  // namespace agt::core
