// The small value parsers behind -B/-w/--size (ParseSize), -x (ParseRate),
// -q (ParseQos) and -s (ParseStreamCount), all on the same text: they also
// read config files, which may come from a shared or generated place. Each
// throws only kUsage, and what it accepts stays in its documented range.

#include <cctype>
#include <cstdint>
#include <string_view>

#include "cli/qos_parser.h"
#include "cli/size_parser.h"
#include "cli/stream_count.h"
#include "fuzz_support.h"

using namespace braid;

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::Text(data, size);

  std::uint64_t bytes = 0;
  const bool size_ok = fuzz::Accepts(ErrorCode::kUsage, [&] { bytes = ParseSize(text); });
  if (AllDigits(text) && text.size() <= 19) {
    // Plain digits mean bytes, exactly (19 digits always fit 64 bits).
    std::uint64_t expected = 0;
    for (char c : text) expected = expected * 10 + static_cast<std::uint64_t>(c - '0');
    BRAID_FUZZ_CHECK(size_ok && bytes == expected);
  }

  std::uint64_t rate = 0;
  const bool rate_ok = fuzz::Accepts(ErrorCode::kUsage, [&] { rate = ParseRate(text); });
  // "Byte forms are those of ParseSize": whatever is a size is the same rate.
  if (size_ok) BRAID_FUZZ_CHECK(rate_ok && rate == bytes);

  int qos = -1;
  if (fuzz::Accepts(ErrorCode::kUsage, [&] { qos = ParseQos(text); })) {
    BRAID_FUZZ_CHECK(qos >= 0 && qos <= 255);
  }

  StreamCount streams;
  if (fuzz::Accepts(ErrorCode::kUsage, [&] { streams = ParseStreamCount(text); })) {
    BRAID_FUZZ_CHECK(streams.min >= 1 && streams.min <= streams.max && streams.max <= 64);
    if (!streams.automatic) BRAID_FUZZ_CHECK(streams.min == streams.max);
  }
  return 0;
}
