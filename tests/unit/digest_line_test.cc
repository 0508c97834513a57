// The -e / -E lines, byte for byte as md5sum (coreutils 9) writes them, so
// that `md5sum -c` reads them back to the same names.

#include "agent/report/digest_line.h"

#include <gtest/gtest.h>

#include <string>

namespace braid {
namespace {

TEST(DigestLineTest, PlainNamesAsMd5sumPrintsThem) {
  EXPECT_EQ(DigestLine("d41d8cd9", "/data/a b"), "d41d8cd9  /data/a b");
  EXPECT_EQ(DigestLine("ab", "caf\xc3\xa9"), "ab  caf\xc3\xa9");  // UTF-8 stays
}

TEST(DigestLineTest, NewlineBackslashAndCarriageReturnAreEscapedUnderALeadingBackslash) {
  EXPECT_EQ(DigestLine("ab", "a\nb"), "\\ab  a\\nb");
  EXPECT_EQ(DigestLine("ab", "c\\d"), "\\ab  c\\\\d");
  EXPECT_EQ(DigestLine("ab", "e\rf"), "\\ab  e\\rf");
  EXPECT_EQ(DigestLine("ab", "\\\n\\"), "\\ab  \\\\\\n\\\\");
}

TEST(DigestLineTest, OtherControlsAreShownNotObeyedAndMarkTheLine) {
  // md5sum -c refuses "\x1b", which is better than checking a file named so.
  EXPECT_EQ(DigestLine("ab", "g\x1b[2Jh"), "\\ab  g\\x1b[2Jh");
  EXPECT_EQ(DigestLine("ab", "t\tu"), "\\ab  t\\x09u");
  EXPECT_EQ(DigestLine("ab", std::string("n\0m", 3)), "\\ab  n\\x00m");
  EXPECT_EQ(DigestLine("ab", "\xff"), "\\ab  \\xff");
}

}  // namespace
}  // namespace braid
