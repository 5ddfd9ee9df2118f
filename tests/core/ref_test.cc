#include "libagtcore/ref.h"

#include <gtest/gtest.h>

namespace agt::core {
namespace {

TEST(RefTest, ParsesRuntimeRefs) {
  Result<Ref> r = ParseRef("runtime:0123456789abcdef");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->kind, Ref::Kind::kRuntime);
  EXPECT_EQ(r->runtime_id, "0123456789abcdef");
  std::string id128(128, 'a');
  EXPECT_TRUE(ParseRef("runtime:" + id128).ok());
  EXPECT_TRUE(ParseRef("runtime:host:boot.1_pane-7:xyz").ok());
}

TEST(RefTest, RejectsBadRuntimeIds) {
  Result<Ref> short_id = ParseRef("runtime:abc");
  ASSERT_FALSE(short_id.ok());
  EXPECT_EQ(short_id.error().code, Err::kRefInvalid);
  EXPECT_NE(short_id.error().message.find("16 to 128"), std::string::npos);
  EXPECT_FALSE(ParseRef("runtime:" + std::string(129, 'a')).ok());
  Result<Ref> bad_char = ParseRef("runtime:0123456789abcdef/x");
  ASSERT_FALSE(bad_char.ok());
  EXPECT_EQ(bad_char.error().code, Err::kRefInvalid);
  EXPECT_NE(bad_char.error().message.find("'/' at offset 16"), std::string::npos)
      << bad_char.error().message;
  EXPECT_FALSE(ParseRef("runtime:0123456789abcde f").ok());
  EXPECT_FALSE(ParseRef("Runtime:0123456789abcdef").ok());
}

TEST(RefTest, ParsesPaneRefsAndDecodesTheSession) {
  Result<Ref> r = ParseRef("pane:host/work/@3/%7");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->kind, Ref::Kind::kPane);
  EXPECT_EQ(r->target, "host");
  EXPECT_EQ(r->session, "work");
  EXPECT_EQ(r->window_id, "@3");
  EXPECT_EQ(r->pane_id, "%7");

  Result<Ref> enc = ParseRef("pane:vm-1.lab_x/my%20proj%2Fapi/@12/%104");
  ASSERT_TRUE(enc.ok()) << enc.error().ToString();
  EXPECT_EQ(enc->target, "vm-1.lab_x");
  EXPECT_EQ(enc->session, "my proj/api");
  // Lower-case hex and raw RFC 3986 sub-delims are accepted.
  Result<Ref> lower = ParseRef("pane:h/a%2fb+c@d/@0/%0");
  ASSERT_TRUE(lower.ok()) << lower.error().ToString();
  EXPECT_EQ(lower->session, "a/b+c@d");
  Result<Ref> cjk = ParseRef("pane:h/%E4%BD%9C%E6%A5%AD/@1/%2");
  ASSERT_TRUE(cjk.ok());
  EXPECT_EQ(cjk->session, "作業");
}

TEST(RefTest, PaneRefErrorsNameThePart) {
  struct Case {
    const char* ref;
    Err code;
    const char* says;
  };
  const Case cases[] = {
      {"", Err::kRefInvalid, "must start with"},
      {"window:h/s/@1/%1", Err::kRefInvalid, "must start with"},
      {"pane:h/s/@1", Err::kRefInvalid, "got 3"},
      {"pane:h/a/b/@1/%1", Err::kRefInvalid, "%2F"},
      {"pane:/s/@1/%1", Err::kRefInvalid, "target is empty"},
      {"pane:h!/s/@1/%1", Err::kRefInvalid, "target \"h!\""},
      {"pane:h//@1/%1", Err::kRefInvalid, "session is empty"},
      {"pane:h/s/1/%1", Err::kRefInvalid, "window \"1\""},
      {"pane:h/s/@/%1", Err::kRefInvalid, "window \"@\""},
      {"pane:h/s/@1x/%1", Err::kRefInvalid, "window"},
      {"pane:h/s/@1/7", Err::kRefInvalid, "pane \"7\""},
      {"pane:h/s/@1/%-7", Err::kRefInvalid, "pane"},
      {"pane:h/s/@1/%12345678901", Err::kRefInvalid, "pane"},
      {"pane:h/a%2/@1/%1", Err::kRefInvalidEncoding, "two hex digits"},
      {"pane:h/a%zz/@1/%1", Err::kRefInvalidEncoding, "two hex digits"},
      {"pane:h/a%/@1/%1", Err::kRefInvalidEncoding, "two hex digits"},
      {"pane:h/%FF%FE/@1/%1", Err::kRefInvalidEncoding, "invalid UTF-8"},
      {"pane:h/%C0%AF/@1/%1", Err::kRefInvalidEncoding, "invalid UTF-8"},  // overlong '/'
      {"pane:h/%ED%A0%80/@1/%1", Err::kRefInvalidEncoding, "invalid UTF-8"},  // surrogate
      {"pane:h/a%00b/@1/%1", Err::kRefInvalidEncoding, "NUL"},
      {"pane:h/my proj/@1/%1", Err::kRefInvalidEncoding, "a space at offset 2"},
      {"pane:h/作業/@1/%1", Err::kRefInvalidEncoding, "percent-encoded"},
  };
  for (const Case& c : cases) {
    Result<Ref> r = ParseRef(c.ref);
    ASSERT_FALSE(r.ok()) << c.ref;
    EXPECT_EQ(r.error().code, c.code) << c.ref << ": " << r.error().ToString();
    EXPECT_NE(r.error().message.find(c.says), std::string::npos)
        << c.ref << ": " << r.error().message;
  }
}

TEST(PercentTest, EncodesAllButUnreserved) {
  EXPECT_EQ(PercentEncode("aZ09-._~"), "aZ09-._~");
  EXPECT_EQ(PercentEncode("my proj/api%"), "my%20proj%2Fapi%25");
  EXPECT_EQ(PercentEncode("作"), "%E4%BD%9C");
  EXPECT_EQ(PercentEncode(""), "");
}

TEST(PercentTest, FormatAndParseRoundTrip) {
  const char* sessions[] = {"work", "my proj", "a/b/c", "100%", "作業セッション",
                            "🚀 deploy", "x:y@z", "tab\there", "~home", "-"};
  for (const char* s : sessions) {
    Ref ref;
    ref.kind = Ref::Kind::kPane;
    ref.target = "host";
    ref.session = s;
    ref.window_id = "@3";
    ref.pane_id = "%7";
    std::string text = FormatRef(ref);
    Result<Ref> back = ParseRef(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.error().ToString();
    EXPECT_EQ(*back, ref) << text;
    Result<std::string> dec = PercentDecode(PercentEncode(s));
    ASSERT_TRUE(dec.ok());
    EXPECT_EQ(*dec, s);
  }
  Ref rt;
  rt.kind = Ref::Kind::kRuntime;
  rt.runtime_id = std::string(64, 'f');
  EXPECT_EQ(FormatRef(rt), "runtime:" + std::string(64, 'f'));
  EXPECT_EQ(*ParseRef(FormatRef(rt)), rt);
}

TEST(PercentTest, DecodeRejectsNulBytesRawOrEscaped) {
  // Found by fuzz_ref: a raw NUL decoded fine but its encoding (%00) did not.
  Result<std::string> raw = PercentDecode(std::string("a\0b", 3));
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.error().code, Err::kRefInvalidEncoding);
  EXPECT_NE(raw.error().message.find("NUL byte at offset 1"), std::string::npos);
  EXPECT_FALSE(PercentDecode("a%00b").ok());
  EXPECT_FALSE(ParseRef(std::string("pane:h/a\0b/@1/%1", 17)).ok());
}

TEST(TargetSessionTest, ParsesAndRejects) {
  Result<TargetSession> ts = ParseTargetSession("vm1/my%20proj");
  ASSERT_TRUE(ts.ok()) << ts.error().ToString();
  EXPECT_EQ(ts->target, "vm1");
  EXPECT_EQ(ts->session, "my proj");
  EXPECT_EQ(ParseTargetSession("vm1").error().code, Err::kRefInvalid);
  EXPECT_EQ(ParseTargetSession("vm1/a/b").error().code, Err::kRefInvalid);
  EXPECT_EQ(ParseTargetSession("v m/s").error().code, Err::kRefInvalid);
  EXPECT_EQ(ParseTargetSession("vm1/%G0").error().code, Err::kRefInvalidEncoding);
}

}  // namespace
}  // namespace agt::core
