// `agtmux hook claude` as Claude Code runs it, with agtmuxd away: the event
// goes to the spool, and a secret in the payload reaches neither the
// spool file nor hook.log (docs/store.md, Redaction: the hook redacts
// before anything leaves it).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* kKey = "sk-ant-api03-Zq9x7TQk2mPl0RfVb8yNc3Hd5Js6Wa1Ue4Io-AAAAbbbb";
const char* kPassword = "hunter2-Correct-Horse";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  return out;
}

TEST(HookCommand, SpooledEventCarriesNoSecret) {
  const char* bin = std::getenv("AGTMUX_BIN");
  ASSERT_NE(bin, nullptr) << "AGTMUX_BIN must name the agtmux binary";
  char tmpl[] = "/tmp/agtmux-hook-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string home = tmpl;
  const std::string payload_file = home + "/payload.json";
  std::ofstream(payload_file)
      << R"({"session_id":"s-1","hook_event_name":"PermissionRequest","tool_name":"Bash",)"
      << R"("tool_input":{"command":"curl -H 'x-api-key: )" << kKey
      << R"(' https://api.example --data password=)" << kPassword << R"("}})";
  // No daemon listens on this runtime dir, so the hook spools.
  std::string cmd = "env -i HOME='" + home + "' XDG_STATE_HOME='" + home + "/state' XDG_RUNTIME_DIR='" +
                    home + "/run' TMUX_PANE=%7 PATH=/usr/bin:/bin '" + bin + "' hook claude < '" +
                    payload_file + "'";
  int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);

  const std::string state = home + "/state/agtmux";
  std::vector<std::string> spooled = Files(state + "/spool");
  ASSERT_EQ(spooled.size(), 1u) << "hook.log: " << ReadFile(state + "/hook.log");
  const std::string line = ReadFile(spooled[0]);
  EXPECT_NE(line.find("PermissionRequest"), std::string::npos) << line;
  EXPECT_EQ(line.find(kKey), std::string::npos) << line;
  EXPECT_EQ(line.find(kPassword), std::string::npos) << line;
  EXPECT_NE(line.find("[REDACTED:anthropic_api_key]"), std::string::npos) << line;
  const std::string log = ReadFile(state + "/hook.log");
  EXPECT_EQ(log.find(kKey), std::string::npos) << log;
  EXPECT_EQ(std::system(("rm -rf '" + home + "'").c_str()), 0);
}

}  // namespace
