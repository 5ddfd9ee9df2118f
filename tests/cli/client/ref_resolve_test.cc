// ResolveRefIn: the forms tmux users type, against a /v1/panes items array.
#include "cli/client/ref_resolve.h"
#include "cli/client/daemon_client.h"

#include <gtest/gtest.h>

namespace agt::cli {
namespace {

class RefResolve : public ::testing::Test {
 protected:
  void SetUp() override {
    items_.Parse(R"json([
      {"identity":{"target":"host","session_name":"work","window_id":"@3","pane_id":"%4"},
       "ref":"pane:host/work/@3/%4","runtime_id":"rt-aaaa1111bbbb2222","window_index":2,"window_name":"api",
       "pane_index":1,"agent_type":"claude","state":"waiting_approval"},
      {"identity":{"target":"host","session_name":"work","window_id":"@3","pane_id":"%5"},
       "ref":"pane:host/work/@3/%5","runtime_id":null,"window_index":2,"window_name":"api",
       "pane_index":0,"agent_type":"","state":"unknown"},
      {"identity":{"target":"host","session_name":"docs","window_id":"@7","pane_id":"%8"},
       "ref":"pane:host/docs/@7/%8","runtime_id":"rt-cccc3333dddd4444","window_index":0,"window_name":"main",
       "pane_index":0,"agent_type":"codex","state":"running"},
      {"identity":{"target":"vm1","session_name":"work","window_id":"@1","pane_id":"%4"},
       "ref":"pane:vm1/work/@1/%4","runtime_id":"rt-eeee5555ffff6666","window_index":0,"window_name":"x",
       "pane_index":0,"agent_type":"gemini","state":"idle"}
    ])json");
    ASSERT_TRUE(items_.IsArray());
  }
  std::string Resolve(const char* typed) {
    auto r = ResolveRefIn(items_, typed);
    return r.ok() ? *r : "ERR " + r.error().message;
  }
  rapidjson::Document items_;
};

TEST_F(RefResolve, TmuxFormsNameOnePane) {
  EXPECT_EQ(Resolve("%8"), "pane:host/docs/@7/%8");
  EXPECT_EQ(Resolve("work:2.1"), "pane:host/work/@3/%4");
  EXPECT_EQ(Resolve("work:api.0"), "pane:host/work/@3/%5") << "a window by name, a shell pane by index";
  EXPECT_EQ(Resolve("docs"), "pane:host/docs/@7/%8");
  EXPECT_EQ(Resolve("host/work:2"), "pane:host/work/@3/%4") << "the window's agent pane before its shell";
  EXPECT_EQ(Resolve("vm1/%4"), "pane:vm1/work/@1/%4");
  EXPECT_EQ(Resolve("vm1/work:0.0"), "pane:vm1/work/@1/%4");
}

TEST_F(RefResolve, PrefixesOfRefsAndRuntimeIds) {
  EXPECT_EQ(Resolve("rt-cccc"), "pane:host/docs/@7/%8");
  EXPECT_EQ(Resolve("runtime:rt-eeee"), "pane:vm1/work/@1/%4");
  EXPECT_EQ(Resolve("pane:host/docs"), "pane:host/docs/@7/%8");
}

TEST_F(RefResolve, AmbiguousOrUnknownFormsAreRefusedWithTheCandidates) {
  std::string two = Resolve("%4");
  EXPECT_EQ(two.rfind("ERR '%4' matches 2 panes", 0), 0u) << two;
  EXPECT_NE(two.find("vm1/work:0.0 %4"), std::string::npos) << two;
  EXPECT_NE(two.find("work:2.1 %4"), std::string::npos) << two;
  std::string work = Resolve("work");  // two sessions called work, on two targets
  EXPECT_EQ(work.rfind("ERR", 0), 0u) << work;
  // The codes docs/actions.md promises: ambiguous is not invalid.
  EXPECT_EQ(ResolveRefIn(items_, "%4").error().code, core::Err::kRefAmbiguous);
  EXPECT_EQ(ResolveRefIn(items_, "work").error().code, core::Err::kRefAmbiguous);
  EXPECT_EQ(ResolveRefIn(items_, "%99").error().code, core::Err::kRefInvalid);
  std::string none = Resolve("%99");
  EXPECT_EQ(none.rfind("ERR no pane matches '%99'", 0), 0u) << none;
  EXPECT_NE(none.find("docs:0.0 %8 (codex, running)"), std::string::npos) << none;
  EXPECT_EQ(Resolve("rt").rfind("ERR", 0), 0u) << "too short to be a prefix";
  EXPECT_EQ(Resolve("3").rfind("ERR", 0), 0u) << "row numbers are not refs";
}

}  // namespace
// A canonical ref with a broken percent-encoding is E_REF_INVALID_ENCODING,
// answered before any daemon is asked (docs/actions.md).
TEST(RefResolveEncoding, ABrokenPercentEncodingIsThatError) {
  DisableAutostart();
  auto r = ResolveRef("pane:host/%zz/@1/%1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, core::Err::kRefInvalidEncoding) << r.error().message;
}

}  // namespace agt::cli
