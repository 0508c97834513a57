#include "source/source_fingerprint.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "braid/wire.h"
#include "security/crypto/payload_checksum.h"

namespace braid {
namespace {

constexpr std::uint64_t kSamples = 16;
constexpr std::uint64_t kSampleSize = 4096;

}  // namespace

std::uint64_t SourceFingerprint(int fd, std::uint64_t size) {
  WireWriter w;
  w.U64(size);
  std::vector<std::uint8_t> sample(kSampleSize);
  std::uint64_t span = size > kSampleSize ? size - kSampleSize : 0;
  for (std::uint64_t i = 0; i < kSamples; ++i) {
    std::uint64_t offset = span * i / (kSamples - 1);
    auto want = static_cast<std::size_t>(std::min(kSampleSize, size - std::min(size, offset)));
    ssize_t n = ::pread(fd, sample.data(), want, static_cast<off_t>(offset));
    if (n < 0 || static_cast<std::size_t>(n) != want) return 0;
    w.Bytes({sample.data(), want});
  }
  return PayloadChecksum(w.data());
}

}  // namespace braid
