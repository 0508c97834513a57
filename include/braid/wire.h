#pragma once
/// Bounds-checked big-endian readers and writers for every codec in braid.
/// A reader never reads past its span; a failure throws BraidError(kProtocol).

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/error.h"

namespace braid {

class WireWriter {
 public:
  void U8(std::uint8_t v) { out_.push_back(v); }
  void U16(std::uint16_t v) { Big(v, 2); }
  void U32(std::uint32_t v) { Big(v, 4); }
  void U64(std::uint64_t v) { Big(v, 8); }
  void Bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  /// u32 length + bytes.
  void String(std::string_view s) {
    U32(static_cast<std::uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  /// Overwrites 4 bytes written earlier: a length known only once what it counts is written.
  void U32At(std::size_t at, std::uint32_t v) {
    if (at > out_.size() || out_.size() - at < 4) throw std::out_of_range("WireWriter::U32At");
    for (std::size_t i = 0; i < 4; ++i) {
      out_[at + i] = static_cast<std::uint8_t>(v >> (8 * (3 - i)));
    }
  }
  std::size_t size() const { return out_.size(); }
  void Reserve(std::size_t n) { out_.reserve(n); }
  std::vector<std::uint8_t>& data() { return out_; }
  std::vector<std::uint8_t> Take() { return std::move(out_); }

 private:
  void Big(std::uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t> out_;
};

class WireReader {
 public:
  explicit WireReader(std::span<const std::uint8_t> in) : in_(in) {}
  std::uint8_t U8() { return static_cast<std::uint8_t>(Big(1)); }
  std::uint16_t U16() { return static_cast<std::uint16_t>(Big(2)); }
  std::uint32_t U32() { return static_cast<std::uint32_t>(Big(4)); }
  std::uint64_t U64() { return Big(8); }
  std::span<const std::uint8_t> Bytes(std::size_t n) {
    Need(n);
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  /// A u32-length-prefixed string no longer than `max`.
  std::string String(std::size_t max) {
    std::uint32_t n = U32();
    if (n > max) Fail("string longer than its limit");
    auto b = Bytes(n);
    return std::string(b.begin(), b.end());
  }
  bool AtEnd() const { return pos_ == in_.size(); }
  std::size_t remaining() const { return in_.size() - pos_; }
  /// Rejects trailing garbage: every message must be consumed exactly.
  void ExpectEnd() const {
    if (!AtEnd()) Fail("trailing bytes after message");
  }
  [[noreturn]] static void Fail(const std::string& why) {
    throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
  }

 private:
  void Need(std::size_t n) const {
    if (n > in_.size() - pos_) Fail("message truncated");
  }
  std::uint64_t Big(std::size_t n) {
    Need(n);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | in_[pos_ + i];
    pos_ += n;
    return v;
  }
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

}  // namespace braid
