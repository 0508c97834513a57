#include "cli/endpoint_parser.h"

#include <cstddef>
#include <string>

#include "braid/error.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// Longest spec echoed back in an error, so a hostile argument cannot flood the terminal.
constexpr std::size_t kMaxQuoted = 200;

[[noreturn]] void Fail(std::string_view spec, const std::string& why) {
  throw BraidError(ErrorCode::kUsage,
                   "invalid path " + QuoteForMessage(spec, kMaxQuoted) + ": " + why);
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/// Host names, ssh config aliases and IPv4 literals. Anything else (spaces, shell or option
/// syntax) can only be a typo or an attempt to smuggle arguments to ssh.
bool IsHostChar(char c) { return IsAlnum(c) || c == '-' || c == '.' || c == '_'; }

/// IPv6 literals, optionally with a zone ("fe80::1%eth0").
bool IsV6Char(char c) {
  return IsAlnum(c) || c == ':' || c == '.' || c == '%' || c == '-' || c == '_';
}

bool IsControl(char c) {
  auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

/// Where scp's colon() rule splits a spec.
struct Split {
  std::size_t colon = std::string_view::npos;  ///< ':' before the path; npos for a local path
  std::size_t open = std::string_view::npos;   ///< '[' of a bracketed host, if any
};

Split FindHostColon(std::string_view spec) {
  Split split;
  if (spec.front() == ':') {
    return split;  // a leading colon is part of a file name
  }
  if (spec.front() == '[') {
    split.open = 0;
  }
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const char c = spec[i];
    const bool in_brackets = split.open != std::string_view::npos;
    if (c == '@' && !in_brackets && i + 1 < spec.size() && spec[i + 1] == '[') {
      split.open = i + 1;
    } else if (c == ']' && in_brackets && i + 1 < spec.size() && spec[i + 1] == ':') {
      split.colon = i + 1;
      return split;
    } else if (c == ':' && !in_brackets) {
      split.colon = i;
      return split;
    } else if (c == '/') {
      return split;
    }
  }
  return split;
}

/// True when the '[' that opened a bracketed host has no ']' before the first '/'.
bool HasUnterminatedBracket(std::string_view spec, const Split& split) {
  if (split.open == std::string_view::npos) {
    return false;
  }
  const std::string_view head = spec.substr(0, spec.find('/'));
  return head.find(']', split.open) == std::string_view::npos;
}

void CheckUser(std::string_view spec, std::string_view user) {
  if (user.empty()) {
    Fail(spec, "empty user name before '@'");
  }
  if (user.front() == '-') {
    Fail(spec, "a user name cannot start with '-'");
  }
  for (char c : user) {
    if (IsControl(c) || c == ' ') {
      Fail(spec, "the user name contains a space or control character");
    }
  }
}

void CheckHost(std::string_view spec, std::string_view host, bool bracketed) {
  if (host.empty()) {
    Fail(spec, bracketed ? "empty address in [...]" : "empty host name before ':'");
  }
  if (host.front() == '-') {
    Fail(spec, "a host name cannot start with '-'");
  }
  for (char c : host) {
    if (!(bracketed ? IsV6Char(c) : IsHostChar(c))) {
      Fail(spec, bracketed ? "not an IPv6 address inside [...]"
                           : "the host name may contain only letters, digits, '.', '-' and '_' "
                             "(write ./name for a local file)");
    }
  }
}

}  // namespace

Endpoint ParseEndpoint(std::string_view spec) {
  if (spec.empty()) {
    Fail(spec, "empty");
  }
  if (spec.find('\0') != std::string_view::npos) {
    Fail(spec, "contains a NUL byte");
  }
  const Split split = FindHostColon(spec);
  if (split.colon == std::string_view::npos) {
    if (HasUnterminatedBracket(spec, split)) {
      Fail(spec, "unterminated '[' (write ./name for a local file whose name starts with '[')");
    }
    return Endpoint{.user = "", .host = "", .path = std::string(spec)};
  }

  std::string_view host_part = spec.substr(0, split.colon);
  const std::string_view path = spec.substr(split.colon + 1);
  Endpoint endpoint;
  const bool bracketed = split.open != std::string_view::npos;
  if (bracketed) {
    if (split.open > 0) {
      endpoint.user = std::string(host_part.substr(0, split.open - 1));  // drop the '@'
      CheckUser(spec, endpoint.user);
    }
    // Between '[' and the ']' that precedes the colon.
    host_part = host_part.substr(split.open + 1, host_part.size() - split.open - 2);
  } else if (std::size_t at = host_part.rfind('@'); at != std::string_view::npos) {
    endpoint.user = std::string(host_part.substr(0, at));
    CheckUser(spec, endpoint.user);
    host_part = host_part.substr(at + 1);
  }
  CheckHost(spec, host_part, bracketed);
  endpoint.host = std::string(host_part);
  endpoint.path = path.empty() ? "." : std::string(path);
  return endpoint;
}

}  // namespace braid
