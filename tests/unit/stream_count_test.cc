#include "cli/stream_count.h"

#include <gtest/gtest.h>

#include <string>

#include "braid/error.h"

namespace braid {
namespace {

/// The message of the kUsage error ParseStreamCount(text) throws; fails the test if none.
std::string CountError(std::string_view text) {
  try {
    const StreamCount c = ParseStreamCount(text);
    ADD_FAILURE() << "no error for \"" << text << "\", got " << c.min << "-" << c.max;
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(StreamCountTest, FixedCounts) {
  EXPECT_EQ(ParseStreamCount("1"), (StreamCount{false, 1, 1}));
  EXPECT_EQ(ParseStreamCount("8"), (StreamCount{false, 8, 8}));
  EXPECT_EQ(ParseStreamCount("64"), (StreamCount{false, 64, 64}));
  EXPECT_EQ(ParseStreamCount("007"), (StreamCount{false, 7, 7}));
}

TEST(StreamCountTest, AutoTakesTheWholeRange) {
  EXPECT_EQ(ParseStreamCount("auto"), (StreamCount{true, 1, 64}));
  EXPECT_EQ(ParseStreamCount("AUTO"), (StreamCount{true, 1, 64}));
  EXPECT_EQ(ParseStreamCount("Auto"), (StreamCount{true, 1, 64}));
}

TEST(StreamCountTest, AutoWithRange) {
  EXPECT_EQ(ParseStreamCount("auto:2-16"), (StreamCount{true, 2, 16}));
  EXPECT_EQ(ParseStreamCount("auto:1-64"), (StreamCount{true, 1, 64}));
  EXPECT_EQ(ParseStreamCount("auto:4-4"), (StreamCount{true, 4, 4}));
  EXPECT_EQ(ParseStreamCount("auto:01-08"), (StreamCount{true, 1, 8}));
}

TEST(StreamCountTest, CountsOutOfRange) {
  for (const char* text :
       {"0", "65", "100", "-1", "+4", " 4", "4 ", "4x", "1.5", "", "99999999999999999999"}) {
    const std::string e = CountError(text);
    EXPECT_NE(e.find("-s/--streams must be a whole number from 1 to 64, auto or auto:MIN-MAX"),
              std::string::npos)
        << e;
  }
  EXPECT_NE(CountError("65").find("got \"65\""), std::string::npos);
}

TEST(StreamCountTest, BadAutoForms) {
  EXPECT_NE(CountError("automatic").find("must be a whole number"), std::string::npos);
  EXPECT_NE(CountError("auto:").find("needs a range such as auto:2-16"), std::string::npos);
  EXPECT_NE(CountError("auto:8").find("needs a range"), std::string::npos);
  for (const char* text : {"auto:0-4", "auto:1-65", "auto:-4", "auto:4-", "auto:a-b", "auto:1-2-3",
                           "auto: 1-2", "auto:1000-2000"}) {
    const std::string e = CountError(text);
    EXPECT_NE(e.find("auto:MIN-MAX needs whole numbers from 1 to 64"), std::string::npos) << e;
  }
  const std::string e = CountError("auto:8-4");
  EXPECT_EQ(e, "-s/--streams auto:MIN-MAX needs MIN <= MAX, got \"auto:8-4\"");
}

TEST(StreamCountTest, ErrorsAreOneLineAndBounded) {
  const std::string e = CountError(std::string(500, '9') + "\n");
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_LT(e.size(), 200u);
}

}  // namespace
}  // namespace braid
