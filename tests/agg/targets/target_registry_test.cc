// The target registry's file: targets added survive a reload, `host` is
// never written, the file is replaced atomically (a new one is private, an
// existing one keeps its mode) and a broken or unreadable file is refused
// with its path. ResolveHostSocket: which tmux server `host` is.
#include "aggregator/targets/target_registry.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "aggregator/targets/tmux_socket.h"
#include "libagtcore/os/file.h"

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

TEST(TargetRegistry, ViaIsKeptAndOnlyForSshTargets) {
  Dir d;
  const std::string file = d.path + "/targets.json";
  auto r = TargetRegistry::Load(file, "");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->Add({"vm1", "ssh", "", "vm1", "agtmuxd"}).ok());
  ASSERT_TRUE(r->Add({"vm2", "ssh", "", "vm2", "cap"}).ok());
  auto bad = r->Add({"vm3", "ssh", "", "vm3", "telepathy"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "via 'telepathy' is not agtmuxd or cap");
  auto local = r->Add({"lab", "local", "", "", "agtmuxd"});
  ASSERT_FALSE(local.ok());
  EXPECT_EQ(local.error().message, "via is for ssh targets only");
  auto again = TargetRegistry::Load(file, "");
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->all().size(), 3u);
  EXPECT_EQ(again->all()[1].spec.via, "agtmuxd");
  EXPECT_EQ(again->all()[2].spec.via, "cap");
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


// Which server `host` means: the one the user's own `tmux` reaches.
TEST(ResolveHostSocket, FollowsTmuxOwnRules) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* k) -> const char* {
      auto it = vars.find(k);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_EQ(ResolveHostSocket(env({}), 1000), "/tmp/tmux-1000/default");
  EXPECT_EQ(ResolveHostSocket(env({{"TMUX_TMPDIR", "/run/t//"}}), 7), "/run/t/tmux-7/default");
  EXPECT_EQ(ResolveHostSocket(env({{"TMUX", "/tmp/my,sock,123,0"}, {"TMUX_TMPDIR", "/x"}}), 7),
            "/tmp/my,sock");
  // A $TMUX that is not tmux's "socket,pid,session": the default rule.
  EXPECT_EQ(ResolveHostSocket(env({{"TMUX", "garbage"}}), 7), "/tmp/tmux-7/default");
}

}  // namespace
}  // namespace agt::agg
