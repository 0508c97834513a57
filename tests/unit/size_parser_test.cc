#include "cli/size_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "braid/error.h"

namespace braid {
namespace {

constexpr std::uint64_t kKi = 1024;
constexpr std::uint64_t kMax = ~std::uint64_t{0};

/// The message of the kUsage error `parse(text)` throws; fails the test if it does not.
template <typename Parse>
std::string UsageError(Parse parse, std::string_view text) {
  try {
    parse(text);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for \"" << text << "\"";
  return "";
}

std::string SizeError(std::string_view text) { return UsageError(ParseSize, text); }
std::string RateError(std::string_view text) { return UsageError(ParseRate, text); }

TEST(SizeParserTest, PlainBytes) {
  EXPECT_EQ(ParseSize("0"), 0u);
  EXPECT_EQ(ParseSize("1"), 1u);
  EXPECT_EQ(ParseSize("1048576"), 1048576u);
  EXPECT_EQ(ParseSize("007"), 7u);
  EXPECT_EQ(ParseSize("512B"), 512u);
}

TEST(SizeParserTest, BinaryUnitsEitherCase) {
  EXPECT_EQ(ParseSize("4K"), 4 * kKi);
  EXPECT_EQ(ParseSize("4k"), 4 * kKi);
  EXPECT_EQ(ParseSize("16M"), 16 * kKi * kKi);
  EXPECT_EQ(ParseSize("16m"), 16 * kKi * kKi);
  EXPECT_EQ(ParseSize("2G"), 2 * kKi * kKi * kKi);
  EXPECT_EQ(ParseSize("1T"), kKi * kKi * kKi * kKi);
  EXPECT_EQ(ParseSize("1P"), kKi * kKi * kKi * kKi * kKi);
  EXPECT_EQ(ParseSize("1E"), kKi * kKi * kKi * kKi * kKi * kKi);
}

TEST(SizeParserTest, ByteSuffixes) {
  EXPECT_EQ(ParseSize("4KB"), 4096u);
  EXPECT_EQ(ParseSize("4KiB"), 4096u);
  EXPECT_EQ(ParseSize("4kiB"), 4096u);
  EXPECT_EQ(ParseSize("4KIB"), 4096u);
  EXPECT_EQ(ParseSize("1GiB"), kKi * kKi * kKi);
}

TEST(SizeParserTest, Fractions) {
  EXPECT_EQ(ParseSize("1.5G"), 3 * kKi * kKi * kKi / 2);
  EXPECT_EQ(ParseSize("0.5K"), 512u);
  EXPECT_EQ(ParseSize("1.0M"), kKi * kKi);
  EXPECT_EQ(ParseSize("2.25KiB"), 2304u);
  // 1.1 * 1024 = 1126.4, rounded down.
  EXPECT_EQ(ParseSize("1.1K"), 1126u);
  EXPECT_EQ(ParseSize("0.000000000000000001E"), 1u);
  // 16 * 2^60 - 2^60 / 10^18 = 2^64 - 1.15..., rounded down.
  EXPECT_EQ(ParseSize("15.999999999999999999E"), kMax - 1);
}

TEST(SizeParserTest, LargestValues) {
  EXPECT_EQ(ParseSize("18446744073709551615"), kMax);
  EXPECT_EQ(ParseSize("16777215T"), 16777215 * kKi * kKi * kKi * kKi);
  EXPECT_EQ(ParseSize("15E"), 15 * kKi * kKi * kKi * kKi * kKi * kKi);
}

TEST(SizeParserTest, Overflow) {
  EXPECT_NE(SizeError("18446744073709551616").find("larger than 2^64-1"), std::string::npos);
  EXPECT_NE(SizeError("16777216T").find("larger than 2^64-1"), std::string::npos);
  EXPECT_NE(SizeError("16E").find("larger than 2^64-1"), std::string::npos);
  EXPECT_NE(SizeError("16.0E").find("larger than 2^64-1"), std::string::npos);
  EXPECT_NE(SizeError("99999999999999999999999999999999999999999999").find("larger"),
            std::string::npos);
}

TEST(SizeParserTest, EmptyAndNegative) {
  EXPECT_NE(SizeError("").find("empty"), std::string::npos);
  EXPECT_NE(SizeError("-1").find("negative"), std::string::npos);
  EXPECT_NE(SizeError("-4K").find("negative"), std::string::npos);
}

TEST(SizeParserTest, Garbage) {
  for (const char* text :
       {"abc", "K",    "+5",  " 5",    "5 ", "5K ", "0x10", "1e3", ".5K", "5.K", "5.", "1,000",
        "4KK", "4KBB", "4Ki", "512iB", "4X", "4Kx", "1.5",  "1.0", "inf", "nan", "--5"}) {
    const std::string message = SizeError(text);
    EXPECT_NE(message.find("invalid size"), std::string::npos) << text;
  }
}

TEST(SizeParserTest, ErrorsQuoteTheText) {
  EXPECT_NE(SizeError("4X").find("\"4X\""), std::string::npos);
  EXPECT_NE(SizeError("4X").find("unknown unit \"X\""), std::string::npos);
  EXPECT_NE(SizeError("1.5").find("fraction needs a unit"), std::string::npos);
}

TEST(SizeParserTest, LowercaseBIsAmbiguous) {
  EXPECT_NE(SizeError("4kb").find("ambiguous"), std::string::npos);
  EXPECT_NE(SizeError("100b").find("ambiguous"), std::string::npos);
}

TEST(SizeParserTest, RateSuffixesAreNotSizes) {
  SizeError("4K/s");
  SizeError("4Mbit");
}

TEST(SizeParserTest, ControlBytesAreEscapedAndLongTextCut) {
  const std::string message = SizeError(std::string_view("4\0\x1b[2J", 6));
  EXPECT_NE(message.find("\\x00"), std::string::npos);
  EXPECT_NE(message.find("\\x1b"), std::string::npos);
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  const std::string long_message = SizeError(std::string(10000, 'x'));
  EXPECT_LT(long_message.size(), 300u);
}

TEST(SizeParserTest, TooManyFractionDigits) {
  EXPECT_NE(SizeError("1.0000000000000000000K").find("too many digits"), std::string::npos);
}

TEST(SizeParserRateTest, ByteRates) {
  EXPECT_EQ(ParseRate("1048576"), 1048576u);
  EXPECT_EQ(ParseRate("100M"), 100 * kKi * kKi);
  EXPECT_EQ(ParseRate("100MB"), 100 * kKi * kKi);
  EXPECT_EQ(ParseRate("100MB/s"), 100 * kKi * kKi);
  EXPECT_EQ(ParseRate("100MiB/s"), 100 * kKi * kKi);
  EXPECT_EQ(ParseRate("100M/s"), 100 * kKi * kKi);
  EXPECT_EQ(ParseRate("500/s"), 500u);
  EXPECT_EQ(ParseRate("1.5G"), 3 * kKi * kKi * kKi / 2);
  EXPECT_EQ(ParseRate("0"), 0u);
}

TEST(SizeParserRateTest, BitRatesAreDecimal) {
  EXPECT_EQ(ParseRate("800Mbit"), 100000000u);
  EXPECT_EQ(ParseRate("1Gbit"), 125000000u);
  EXPECT_EQ(ParseRate("10kbit"), 1250u);
  EXPECT_EQ(ParseRate("10Kbit"), 1250u);
  EXPECT_EQ(ParseRate("800Mbit/s"), 100000000u);
  EXPECT_EQ(ParseRate("800Mbits"), 100000000u);
  EXPECT_EQ(ParseRate("800Mbits/s"), 100000000u);
  EXPECT_EQ(ParseRate("800Mbps"), 100000000u);
  EXPECT_EQ(ParseRate("2.5Gbit"), 312500000u);
  EXPECT_EQ(ParseRate("1Tbit"), 125000000000u);
  EXPECT_EQ(ParseRate("64bit"), 8u);
}

TEST(SizeParserRateTest, BitRatesRoundDown) {
  EXPECT_EQ(ParseRate("12bit"), 1u);
  EXPECT_EQ(ParseRate("7bit"), 0u);
  EXPECT_EQ(ParseRate("12.5bit"), 1u);
  EXPECT_EQ(ParseRate("0.001kbit"), 0u);
}

TEST(SizeParserRateTest, ExplicitBinaryBits) {
  EXPECT_EQ(ParseRate("1Mibit"), kKi * kKi / 8);
  EXPECT_EQ(ParseRate("8Kibit/s"), kKi);
}

TEST(SizeParserRateTest, HugeBitRatesDoNotOverflowEarly) {
  // 1e20 bits/s exceeds 2^64 bits but 1.25e19 bytes/s still fits.
  EXPECT_EQ(ParseRate("100Ebit"), 12500000000000000000u);
  EXPECT_EQ(ParseRate("100000000000000000000bit"), 12500000000000000000u);
  EXPECT_NE(RateError("200Ebit").find("larger than 2^64-1"), std::string::npos);
  EXPECT_NE(RateError("16EB/s").find("larger than 2^64-1"), std::string::npos);
}

TEST(SizeParserRateTest, Errors) {
  EXPECT_NE(RateError("").find("invalid rate"), std::string::npos);
  EXPECT_NE(RateError("-1M").find("negative"), std::string::npos);
  EXPECT_NE(RateError("10kb").find("bit for bits"), std::string::npos);
  EXPECT_NE(RateError("10Mb/s").find("ambiguous"), std::string::npos);
  for (const char* text : {"fast", "10Mbitx", "10Mbit/", "10M/s/s", "10Mibps/s", "10 Mbit",
                           "10Mbyte", "Mbit", "1.5", "1.5/s", "10Mi", "10Mi/s"}) {
    EXPECT_NE(RateError(text).find("\"" + std::string(text) + "\""), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace braid
