#include "agent/report/visible_text.h"

#include <gtest/gtest.h>

#include <string>

#include "agent/report/report.h"

namespace braid {
namespace {

TEST(VisibleTextTest, PrintableAsciiAndUtf8AreKept) {
  EXPECT_EQ(VisibleText("run42/data file.h5"), "run42/data file.h5");
  EXPECT_EQ(VisibleText("Gr\xc3\xbc\xc3\x9f\x65 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x81"),
            "Gr\xc3\xbc\xc3\x9f\x65 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x81");
  EXPECT_EQ(VisibleText(""), "");
}

TEST(VisibleTextTest, EscapeSequencesAreShownNotObeyed) {
  // A forged title, a screen clear and a colour, as a hostile peer would send them.
  EXPECT_EQ(VisibleText("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
  EXPECT_EQ(VisibleText("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(VisibleText(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(VisibleText("del\x7f"), "del\\x7f");
}

TEST(VisibleTextTest, LineBreaksCannotStartALineOfTheirOwn) {
  EXPECT_EQ(VisibleText("x\nbraid: copied 1.00 TiB"), "x\\x0abraid: copied 1.00 TiB");
  EXPECT_EQ(VisibleText("x\rbraid: copied"), "x\\x0dbraid: copied");
  EXPECT_EQ(VisibleText("tab\there"), "tab\\x09here");
}

TEST(VisibleTextTest, C1ControlsAndBrokenUtf8AreEscapedByteByByte) {
  EXPECT_EQ(VisibleText("\xc2\x9b"
                        "2J"),
            "\\xc2\\x9b2J");  // CSI as U+009B
  EXPECT_EQ(VisibleText("\x9b"
                        "2J"),
            "\\x9b2J");                              // a lone 8-bit CSI
  EXPECT_EQ(VisibleText("\xc0\xaf"), "\\xc0\\xaf");  // overlong '/'
  EXPECT_EQ(VisibleText("\xe6\x97"), "\\xe6\\x97");  // truncated sequence
  EXPECT_EQ(VisibleText("\xc2\xa0"), "\xc2\xa0");    // U+00A0 is printable
}

TEST(VisibleTextTest, JsonEscapesC1ControlsToo) {
  EXPECT_EQ(JsonQuote("\x1b[2J"), "\"\\u001b[2J\"");
  EXPECT_EQ(JsonQuote("\xc2\x9b"
                      "2J"),
            "\"\\u009b2J\"");
  EXPECT_EQ(JsonQuote("\xc3\xbc"), "\"\xc3\xbc\"");
}

}  // namespace
}  // namespace braid
