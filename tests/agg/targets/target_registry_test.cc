// The target registry's file: targets added survive a reload, `host` is
// never written, the file is replaced atomically (a new one is private, an
// existing one keeps its mode) and a broken or unreadable file is refused
// with its path.
#include "aggregator/targets/target_registry.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "libagtcore/file.h"

namespace agt::agg {
namespace {

struct Dir {
  std::string path;
  Dir() {
    char tmpl[] = "/tmp/agtmux-registry-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~Dir() { std::filesystem::remove_all(path); }
};

mode_t ModeOf(const std::string& p) {
  struct stat st{};
  EXPECT_EQ(stat(p.c_str(), &st), 0);
  return st.st_mode & 07777;
}

TEST(TargetRegistry, AddedTargetsSurviveAReloadHostIsNotWritten) {
  Dir d;
  const std::string file = d.path + "/targets.json";
  auto r = TargetRegistry::Load(file, "/tmp/tmux-0/default");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->all().size(), 1u);
  EXPECT_EQ(r->all()[0].spec.name, "host");
  ASSERT_TRUE(r->Add({"lab", "local", "/tmp/lab.sock", ""}).ok());
  ASSERT_TRUE(r->Add({"vm1", "ssh", "", "vm1"}).ok());
  EXPECT_EQ(ModeOf(file), 0600u);
  EXPECT_EQ(core::ReadWholeFile(file)->find("\"host\""), std::string::npos);

  auto again = TargetRegistry::Load(file, "/elsewhere");
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  ASSERT_EQ(again->all().size(), 3u);
  EXPECT_EQ(again->all()[0].spec, (TargetSpec{"host", "local", "/elsewhere", ""}));
  EXPECT_EQ(again->all()[1].spec, (TargetSpec{"lab", "local", "/tmp/lab.sock", ""}));
  EXPECT_EQ(again->all()[2].spec, (TargetSpec{"vm1", "ssh", "", "vm1"}));
  ASSERT_TRUE(again->Remove("lab").ok());
  EXPECT_EQ(TargetRegistry::Load(file, "")->all().size(), 2u);
}

TEST(TargetRegistry, SavingKeepsTheFilesModeAndLeavesNoTemporary) {
  Dir d;
  const std::string file = d.path + "/targets.json";
  std::ofstream(file) << "{\"targets\":[]}\n";
  ASSERT_EQ(chmod(file.c_str(), 0640), 0);
  auto r = TargetRegistry::Load(file, "");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->Add({"lab", "local", "/tmp/lab.sock", ""}).ok());
  EXPECT_EQ(ModeOf(file), 0640u);
  size_t entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(d.path)) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(TargetRegistry, BrokenOrUnreadableFileIsRefusedWithItsPath) {
  Dir d;
  const std::string file = d.path + "/targets.json";
  std::ofstream(file) << "[1, 2";
  auto broken = TargetRegistry::Load(file, "");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().code, core::Err::kConfigInvalid);
  EXPECT_NE(broken.error().message.find(file), std::string::npos);
  // A directory where the file should be: readable by nobody as a file.
  std::filesystem::remove(file);
  std::filesystem::create_directory(file);
  auto unreadable = TargetRegistry::Load(file, "");
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.error().code, core::Err::kConfigInvalid);
  EXPECT_NE(unreadable.error().message.find(file), std::string::npos);
}



}  // namespace
}  // namespace agt::agg
