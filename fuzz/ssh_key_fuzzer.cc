// IsEncryptedPrivateKey reads the start of every identity file braid may try
// (base64 inside PEM armour, then a length-prefixed cipher name): it must
// answer for any bytes without throwing or reading past its buffer.

#include <cstdint>

#include "fuzz_support.h"
#include "security/ssh/ssh_auth.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)braid::IsEncryptedPrivateKey(braid::fuzz::Text(data, size));
  return 0;
}
