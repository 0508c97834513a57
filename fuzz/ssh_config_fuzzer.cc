// ~/.ssh/config and /etc/ssh/ssh_config are parsed before every remote copy.
// Input: the host alias to resolve, a NUL byte, then the config text (without
// a NUL the whole input is the config and the alias is "dtn"). The text is
// also used as the system file behind a small user file, so precedence and
// accumulation across files run too. Only kUsage may be thrown.

#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "security/ssh/ssh_config.h"

using namespace braid;

namespace {

bool ReferenceMatch(std::string_view pattern, std::string_view host) {
  if (pattern.empty()) return host.empty();
  if (pattern[0] == '*') {
    for (std::size_t skip = 0; skip <= host.size(); ++skip) {
      if (ReferenceMatch(pattern.substr(1), host.substr(skip))) return true;
    }
    return false;
  }
  if (host.empty()) return false;
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
  return (pattern[0] == '?' || lower(pattern[0]) == lower(host[0])) &&
         ReferenceMatch(pattern.substr(1), host.substr(1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in = fuzz::Text(data, size);
  std::string_view alias = "dtn";
  if (const std::size_t nul = in.find('\0'); nul != std::string_view::npos && nul <= 256) {
    alias = in.substr(0, nul);
    in.remove_prefix(nul + 1);
  }

  SshHostConfig one;
  if (fuzz::Accepts(ErrorCode::kUsage, [&] { one = ResolveSshConfig(in, alias, "/home/fuzz"); })) {
    BRAID_FUZZ_CHECK(one.port >= 0 && one.port <= 65535);
    for (const std::string& f : one.identity_files) BRAID_FUZZ_CHECK(!f.empty());
  }

  const std::string user_file = "Host *\n  IdentityFile ~/.ssh/id_%r@%h:%p\n";
  const std::vector<SshConfigFile> files = {{"user", user_file, false}, {"system", in, true}};
  const SshConfigContext context{"/home/fuzz", "fuzzer", nullptr};
  SshHostConfig two;
  if (fuzz::Accepts(ErrorCode::kUsage, [&] { two = ResolveSshConfig(files, alias, context); })) {
    BRAID_FUZZ_CHECK(two.port >= 0 && two.port <= 65535);
    // The user file's IdentityFile always applies and always comes first.
    BRAID_FUZZ_CHECK(!two.identity_files.empty());
    BRAID_FUZZ_CHECK(two.identity_files.front().starts_with("/home/fuzz/.ssh/id_"));
  }

  // The matcher against a plain recursive glob, on lengths where its
  // exponential worst case does not matter.
  if (alias.size() <= 12) {
    const std::string_view host = in.substr(0, 12);
    BRAID_FUZZ_CHECK(MatchSshPattern(alias, host) == ReferenceMatch(alias, host));
  }
  return 0;
}
