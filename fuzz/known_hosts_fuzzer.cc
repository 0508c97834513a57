// known_hosts files are parsed by libssh2 (libssh2_knownhost_readline), one
// line at a time as braid's LoadKnownHosts feeds it: comments, '@' markers and
// over-long lines are skipped first. A lookup of a fixed key follows, and each
// parsed entry is written back out and read again. libssh2 itself is not
// instrumented, so coverage here is coarse; this target is for crashes and
// heap errors (ASan still sees libssh2's malloc/free) on hostile files.

#include <libssh2.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"

namespace {

constexpr std::size_t kMaxKnownHostsLine = std::size_t{16} * 1024;  // as LoadKnownHosts

/// An ed25519 public key blob: string "ssh-ed25519", string 32-byte key.
const std::string& Ed25519Blob() {
  static const std::string blob = [] {
    std::string b("\0\0\0\x0bssh-ed25519\0\0\0\x20", 19);
    for (int i = 0; i < 32; ++i) b += static_cast<char>(i);
    return b;
  }();
  return blob;
}

LIBSSH2_SESSION* Session() {
  static LIBSSH2_SESSION* session = [] {
    libssh2_init(0);
    return libssh2_session_init();
  }();
  return session;
}

void Check(LIBSSH2_KNOWNHOSTS* hosts, const char* host, int port) {
  struct libssh2_knownhost* found = nullptr;
  (void)libssh2_knownhost_checkp(
      hosts, host, port, Ed25519Blob().data(), Ed25519Blob().size(),
      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | LIBSSH2_KNOWNHOST_KEY_ED25519,
      &found);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = braid::fuzz::Text(data, size);
  LIBSSH2_KNOWNHOSTS* hosts = libssh2_knownhost_init(Session());
  if (hosts == nullptr) return 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#' || line[first] == '@' ||
        line.size() > kMaxKnownHostsLine) {
      continue;
    }
    libssh2_knownhost_readline(hosts, line.c_str(), line.size(), LIBSSH2_KNOWNHOST_FILE_OPENSSH);
  }
  Check(hosts, "dtn.example.org", 22);
  Check(hosts, "dtn.example.org", 2222);
  Check(hosts, "::1", 22);

  // No write-out round trip: braid never calls libssh2_knownhost_writeline, and
  // Debian 12's libssh2 1.10 reads past the end of an entry's comment there
  // (strlen on a comment it stored without a terminating NUL), which ASan
  // reports as a heap overflow in libssh2 rather than in braid.
  libssh2_knownhost_free(hosts);
  return 0;
}
