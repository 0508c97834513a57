// ParseEndpoint splits every SRC and DST operand; the host and user it returns
// go to libssh2, to ~/.ssh/config matching and, with -S, onto the system ssh
// client's command line. Whatever it accepts must not be able to pose as an
// option or carry control bytes there.

#include <cstdint>
#include <string>

#include "cli/endpoint_parser.h"
#include "fuzz_support.h"

using namespace braid;

namespace {

bool HasControlOrSpace(const std::string& s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view spec = fuzz::Text(data, size);
  Endpoint e;
  if (!fuzz::Accepts(ErrorCode::kUsage, [&] { e = ParseEndpoint(spec); })) return 0;

  BRAID_FUZZ_CHECK(spec.find('\0') == std::string_view::npos);
  BRAID_FUZZ_CHECK(!e.path.empty());
  if (e.is_remote()) {
    BRAID_FUZZ_CHECK(e.host.front() != '-' && !HasControlOrSpace(e.host));
    if (!e.user.empty()) BRAID_FUZZ_CHECK(e.user.front() != '-' && !HasControlOrSpace(e.user));
    BRAID_FUZZ_CHECK(e.host.find('@') == std::string::npos);
  } else {
    BRAID_FUZZ_CHECK(e.user.empty());
    BRAID_FUZZ_CHECK(e.path == spec);  // a local path is taken as written
  }
  return 0;
}
