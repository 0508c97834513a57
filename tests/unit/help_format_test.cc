// The --help layout: words wrapped at spaces within the width, continuation
// lines under the description column, a long option name on a line of its own.

#include "cli/help_format.h"

#include <gtest/gtest.h>

#include <string>

namespace braid {
namespace {

TEST(HelpFormatTest, WrapsAtSpacesWithinTheWidth) {
  EXPECT_EQ(WrapText("aa bb cc", 0, 0, 5), "aa bb\ncc\n");
  EXPECT_EQ(WrapText("aa bb cc", 2, 4, 8), "aa bb\n    cc\n");
  EXPECT_EQ(WrapText("", 0, 0, 80), "\n");
  // A word longer than the line is not cut.
  EXPECT_EQ(WrapText("abcdefgh ij", 0, 1, 4), "abcdefgh\n ij\n");
}

TEST(HelpFormatTest, DescriptionBesideTheNameOrBelowALongOne) {
  EXPECT_EQ(FormatOptionHelp("-e", "Same as -E md5", 10, 80), "  -e      Same as -E md5\n");
  EXPECT_EQ(FormatOptionHelp("--accept-new", "Trust it", 10, 80),
            "  --accept-new\n          Trust it\n");
  EXPECT_EQ(FormatOptionHelp("-x", "one two three", 6, 14), "  -x  one two\n      three\n");
  for (char c : FormatOptionHelp("-s,--streams N", std::string(300, 'a') + " b", 26, 80)) {
    EXPECT_NE(c, '\t');
  }
}

}  // namespace
}  // namespace braid
