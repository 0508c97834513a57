#include "transport/block_codec.h"

#include <zlib.h>

#include <limits>
#include <string>

#include "braid/error.h"

namespace braid {

std::string ZlibVersion() { return zlibVersion(); }

BlockCompressor::BlockCompressor(int level, std::size_t max_block)
    : level_(level), scratch_(compressBound(static_cast<uLong>(max_block))) {}

EncodedBlock BlockCompressor::Encode(std::span<const std::uint8_t> raw) {
  uLongf size = static_cast<uLongf>(scratch_.size());
  int rc = compress2(scratch_.data(), &size, raw.data(), static_cast<uLong>(raw.size()), level_);
  if (rc != Z_OK || size >= raw.size()) return {raw, false};
  return {std::span<const std::uint8_t>(scratch_.data(), size), true};
}

namespace {

[[noreturn]] void Reject(const std::string& cause) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: a compressed block " + cause);
}

/// One zlib inflate stream over the whole payload; ends it on every path.
class Inflater {
 public:
  explicit Inflater(std::span<const std::uint8_t> payload) {
    if (inflateInit(&z_) != Z_OK) {
      throw BraidError(ErrorCode::kInternal, "zlib: cannot start inflating a block");
    }
    z_.next_in = const_cast<Bytef*>(payload.data());  // zlib does not write through it
    z_.avail_in = static_cast<uInt>(payload.size());
  }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  /// Inflates into `to` (never past it); zlib's return code.
  int Run(std::span<std::uint8_t> to) {
    z_.next_out = to.data();
    z_.avail_out = static_cast<uInt>(to.size());
    return inflate(&z_, Z_FINISH);
  }
  const z_stream& z() const { return z_; }

 private:
  z_stream z_{};
};

}  // namespace

void InflateBlock(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out) {
  constexpr std::size_t kZlibMax = std::numeric_limits<uInt>::max();
  if (payload.empty()) Reject("is empty");
  if (out.empty()) Reject("states a length of 0");
  if (payload.size() > kZlibMax || out.size() > kZlibMax) Reject("is over 4 GiB");
  const std::string stated = std::to_string(out.size());
  Inflater inflater(payload);
  int rc = inflater.Run(out);
  // `out` is full and the stream goes on: one byte more tells a block that
  // inflates further (a zip bomb) from one cut short. Work and memory stay
  // bounded by the stated length whatever the peer sent.
  if (rc == Z_BUF_ERROR && inflater.z().avail_out == 0) {
    std::uint8_t probe = 0;
    rc = inflater.Run({&probe, 1});
    if (inflater.z().avail_out == 0) {
      Reject("inflates to more than its stated " + stated + " bytes");
    }
  }
  switch (rc) {
    case Z_STREAM_END:
      break;
    case Z_BUF_ERROR:  // all input used, the stream not at its end
      Reject("is cut short: its zlib stream does not end");
    case Z_MEM_ERROR:
      throw BraidError(ErrorCode::kInternal, "zlib: out of memory inflating a block");
    default: {  // Z_DATA_ERROR, Z_NEED_DICT
      const char* msg = inflater.z().msg;
      Reject(std::string("is not valid zlib data: ") +
             (rc == Z_NEED_DICT ? "it needs a preset dictionary"
              : msg != nullptr  ? msg
                                : "zlib error " + std::to_string(rc)));
    }
  }
  if (inflater.z().total_out != out.size()) {
    Reject("inflates to " + std::to_string(inflater.z().total_out) + " bytes, not its stated " +
           stated);
  }
  if (inflater.z().avail_in != 0) {
    Reject("has " + std::to_string(inflater.z().avail_in) + " bytes after its zlib stream");
  }
}

}  // namespace braid
