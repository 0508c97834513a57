#include "cli/endpoint_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "braid/error.h"

namespace braid {
namespace {

void ExpectEndpoint(std::string_view spec, const std::string& user, const std::string& host,
                    const std::string& path) {
  SCOPED_TRACE(std::string(spec));
  const Endpoint e = ParseEndpoint(spec);
  EXPECT_EQ(e.user, user);
  EXPECT_EQ(e.host, host);
  EXPECT_EQ(e.path, path);
}

void ExpectLocal(std::string_view spec) { ExpectEndpoint(spec, "", "", std::string(spec)); }

/// The message of the kUsage error for `spec`; fails the test if there is none.
std::string EndpointError(std::string_view spec) {
  try {
    const Endpoint e = ParseEndpoint(spec);
    ADD_FAILURE() << "no error for \"" << spec << "\", got host \"" << e.host << "\" path \""
                  << e.path << "\"";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(EndpointParserTest, RemoteHostAndPath) {
  ExpectEndpoint("dtn:/data/run42", "", "dtn", "/data/run42");
  ExpectEndpoint("dtn.example.org:data/x", "", "dtn.example.org", "data/x");
  ExpectEndpoint("10.0.0.1:/x", "", "10.0.0.1", "/x");
  ExpectEndpoint("my_host-2:f", "", "my_host-2", "f");
}

TEST(EndpointParserTest, UserAtHost) {
  ExpectEndpoint("alice@dtn:/data/", "alice", "dtn", "/data/");
  ExpectEndpoint("alice.b@dtn:f", "alice.b", "dtn", "f");
}

TEST(EndpointParserTest, UserIsEverythingBeforeTheLastAt) {
  ExpectEndpoint("alice@example.com@dtn:/x", "alice@example.com", "dtn", "/x");
}

TEST(EndpointParserTest, EmptyRemotePathIsHomeDirectory) {
  ExpectEndpoint("dtn:", "", "dtn", ".");
  ExpectEndpoint("alice@dtn:", "alice", "dtn", ".");
  ExpectEndpoint("[::1]:", "", "::1", ".");
}

TEST(EndpointParserTest, PathKeepsLaterColonsAndAts) {
  ExpectEndpoint("dtn:/a:b:c", "", "dtn", "/a:b:c");
  ExpectEndpoint("dtn:a@b", "", "dtn", "a@b");
  ExpectEndpoint("dtn:[x]", "", "dtn", "[x]");
  ExpectEndpoint("dtn:-", "", "dtn", "-");
  ExpectEndpoint("dtn:~/x y", "", "dtn", "~/x y");
}

TEST(EndpointParserTest, Ipv6InBrackets) {
  ExpectEndpoint("[::1]:/tmp/x", "", "::1", "/tmp/x");
  ExpectEndpoint("[2001:db8::42]:data", "", "2001:db8::42", "data");
  ExpectEndpoint("bob@[2001:db8::42]:/d/", "bob", "2001:db8::42", "/d/");
  ExpectEndpoint("[fe80::1%eth0]:x", "", "fe80::1%eth0", "x");
  ExpectEndpoint("[::ffff:10.0.0.1]:x", "", "::ffff:10.0.0.1", "x");
  ExpectEndpoint("[::1]:a:b", "", "::1", "a:b");
}

TEST(EndpointParserTest, BracketedHostNameIsAllowed) { ExpectEndpoint("[dtn]:x", "", "dtn", "x"); }

TEST(EndpointParserTest, LocalPaths) {
  ExpectLocal("big.dat");
  ExpectLocal("/data/run42/");
  ExpectLocal("run42/");
  ExpectLocal(".");
  ExpectLocal("/dev/zero");
  ExpectLocal("user@host");  // no colon: a file with an '@' in its name
  ExpectLocal("a b");
}

TEST(EndpointParserTest, SlashBeforeColonIsLocal) {
  ExpectLocal("./a:b");
  ExpectLocal("/x/y:z");
  ExpectLocal("dir/host:path");
  ExpectLocal("[dir]/x:y");
}

TEST(EndpointParserTest, LeadingColonIsLocal) {
  ExpectLocal(":x");
  ExpectLocal(":");
  ExpectLocal("::1");
}

TEST(EndpointParserTest, DashIsStdio) {
  const Endpoint e = ParseEndpoint("-");
  EXPECT_TRUE(e.is_stdio());
  EXPECT_FALSE(e.is_remote());
  EXPECT_EQ(e.path, "-");
  EXPECT_FALSE(ParseEndpoint("dtn:-").is_stdio());
  EXPECT_FALSE(ParseEndpoint("./-").is_stdio());
}

TEST(EndpointParserTest, WindowsDriveIsNotSpecial) {
  ExpectEndpoint("C:\\data", "", "C", "\\data");
}

TEST(EndpointParserTest, BracketWithoutColonAfterItIsLocal) {
  // As scp: only "]:" ends a bracketed host.
  ExpectLocal("[::1]");
  ExpectLocal("[abc]def");
}

TEST(EndpointParserTest, RemoteFlags) {
  EXPECT_TRUE(ParseEndpoint("h:x").is_remote());
  EXPECT_FALSE(ParseEndpoint("x").is_remote());
  EXPECT_EQ(ParseEndpoint("alice@h:x").Display(), "h:x");
}

TEST(EndpointParserTest, EmptySpec) {
  EXPECT_NE(EndpointError("").find("empty"), std::string::npos);
}

TEST(EndpointParserTest, NulByte) {
  const std::string message = EndpointError(std::string_view("h:a\0b", 5));
  EXPECT_NE(message.find("NUL"), std::string::npos);
  EXPECT_NE(message.find("\\x00"), std::string::npos);
  EndpointError(std::string_view("a\0", 2));
}

TEST(EndpointParserTest, EmptyUserOrHost) {
  EXPECT_NE(EndpointError("@:x").find("\"@:x\""), std::string::npos);
  EXPECT_NE(EndpointError("@host:x").find("empty user"), std::string::npos);
  EXPECT_NE(EndpointError("alice@:x").find("empty host"), std::string::npos);
  EXPECT_NE(EndpointError("@[::1]:x").find("empty user"), std::string::npos);
  EXPECT_NE(EndpointError("[]:x").find("empty address"), std::string::npos);
  EXPECT_NE(EndpointError("bob@[]:x").find("empty address"), std::string::npos);
}

TEST(EndpointParserTest, UnterminatedBracket) {
  for (const char* spec : {"[::1", "[::1:x", "bob@[::1:x", "[abc", "[::1/x:y"}) {
    EXPECT_NE(EndpointError(spec).find("unterminated '['"), std::string::npos) << spec;
  }
  ExpectLocal("./[abc");
}

TEST(EndpointParserTest, BadHostNames) {
  EXPECT_NE(EndpointError("-oProxyCommand=x:y").find("cannot start with '-'"), std::string::npos);
  EXPECT_NE(EndpointError("a b:x").find("host name may contain only"), std::string::npos);
  EndpointError("a\tb:x");
  EndpointError("h;rm:x");
  EndpointError("x[y]:p");
  EndpointError("[::1 ]:x");
  EndpointError("[-1::2]:x");
  EndpointError("a@[b@[::1]:p");
}

TEST(EndpointParserTest, BadUserNames) {
  EXPECT_NE(EndpointError("-l@h:x").find("user name cannot start"), std::string::npos);
  EXPECT_NE(EndpointError("a b@h:x").find("user name contains"), std::string::npos);
  EndpointError("a\nb@h:x");
}

TEST(EndpointParserTest, ErrorsEscapeControlBytes) {
  const std::string message = EndpointError("\x1b[31m@:x");
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_NE(message.find("\\x1b"), std::string::npos);
}

TEST(EndpointParserTest, LongSpecsAreCutInMessages) {
  const std::string message = EndpointError(std::string(100000, 'h') + " :x");
  EXPECT_LT(message.size(), 400u);
}

}  // namespace
}  // namespace braid
