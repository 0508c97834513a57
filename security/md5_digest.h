#pragma once
/// Whole-file MD5 (the value md5sum prints), through OpenSSL's EVP.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace braid {

using Md5Value = std::array<std::uint8_t, 16>;

class Md5Digest {
 public:
  Md5Digest();
  ~Md5Digest();
  Md5Digest(const Md5Digest&) = delete;
  Md5Digest& operator=(const Md5Digest&) = delete;
  Md5Digest(Md5Digest&&) noexcept;
  Md5Digest& operator=(Md5Digest&&) noexcept;

  void Update(const void* data, std::size_t n);
  /// Returns the digest; the object then starts over.
  Md5Value Finish();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

/// Lower-case hex, as md5sum prints it.
std::string ToHex(const std::uint8_t* data, std::size_t n);
inline std::string ToHex(const Md5Value& v) { return ToHex(v.data(), v.size()); }

}  // namespace braid
