#include "launch/ssh_client_errors.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <vector>

namespace braid {
namespace {

/// ssh exits with 255 for its own errors; anything else is the remote command's.
constexpr int kSshFailureStatus = 255;
constexpr std::size_t kSummaryLines = 3;
constexpr std::size_t kMaxSummary = 600;

bool ContainsNoCase(std::string_view text, std::string_view needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

template <std::size_t N>
bool ContainsAny(std::string_view text, const std::array<std::string_view, N>& needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return ContainsNoCase(text, n); });
}

/// Checked in this order: a jump host that refuses a key also prints
/// "Connection closed", and the key problem is the one to fix.
constexpr std::array<std::string_view, 2> kHostKeyChanged{
    "REMOTE HOST IDENTIFICATION HAS CHANGED", "has changed and you have requested strict"};
constexpr std::array<std::string_view, 3> kHostKeyUnknown{
    "Host key verification failed", "host key is known for", "No matching host key"};
constexpr std::array<std::string_view, 4> kAuthRefused{
    "Permission denied", "Too many authentication failures", "No more authentication methods",
    "Authentication failed"};
constexpr std::array<std::string_view, 13> kUnreachable{"Connection refused",
                                                        "Connection timed out",
                                                        "Operation timed out",
                                                        "No route to host",
                                                        "Network is unreachable",
                                                        "Could not resolve hostname",
                                                        "Name or service not known",
                                                        "Temporary failure in name resolution",
                                                        "Connection closed by",
                                                        "Connection reset by",
                                                        "kex_exchange_identification",
                                                        "stdio forwarding failed",
                                                        "Host is down"};
constexpr std::array<std::string_view, 6> kUsage{
    "Bad configuration option", "Can't open user config file", "usage: ssh",
    "Unsupported option",       "garbage at end of line",      "Bad port"};

}  // namespace

std::string SummarizeSshStderr(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    std::erase(line, '\r');
    line.erase(0, line.find_first_not_of(" \t"));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    // ssh's banner of @ signs says nothing the lines after it do not.
    if (!line.empty() && line.find_first_not_of('@') != std::string::npos) {
      lines.push_back(std::move(line));
    }
    pos = end + 1;
  }
  std::vector<std::string> picked;
  const std::size_t first = lines.size() > kSummaryLines ? lines.size() - kSummaryLines : 0;
  for (std::size_t i = 0; i < first; ++i) {
    if (lines[i].find("SHA256:") != std::string::npos) picked.push_back(lines[i]);
  }
  picked.insert(picked.end(), lines.begin() + static_cast<std::ptrdiff_t>(first), lines.end());
  std::string out;
  for (const std::string& line : picked) {
    if (!out.empty()) out += "; ";
    out += line;
  }
  if (out.size() > kMaxSummary) out = "..." + out.substr(out.size() - kMaxSummary);
  return out;
}

std::optional<BraidError> DescribeSshClientEnd(const SshClientEnd& end) {
  const std::string said = SummarizeSshStderr(end.stderr_text);
  const std::string with = " with -S '" + end.command + "'";
  if (end.local_exec_failed) {
    return BraidError(ErrorCode::kUsage, "cannot run the ssh command" + with + " (" + said +
                                             "); check -S/--ssh-command");
  }
  if (end.exit_status != kSshFailureStatus) return std::nullopt;
  const std::string because = said.empty() ? std::string("ssh exited with status 255") : said;
  if (end.connected) {
    return BraidError(ErrorCode::kPeerLost, "ssh connection to " + end.host + " was lost (" +
                                                because +
                                                "); run the same command again to resume");
  }
  const std::string& t = end.stderr_text;
  if (ContainsAny(t, kHostKeyChanged)) {
    return BraidError(ErrorCode::kHostKeyChanged, "the host key of " + end.host +
                                                      " differs from known_hosts (" + because +
                                                      "); braid will not connect");
  }
  if (ContainsAny(t, kHostKeyUnknown)) {
    return BraidError(ErrorCode::kHostKeyUnknown,
                      "ssh could not verify the host key of " + end.host + with + " (" + because +
                          "); check the key, then add it to known_hosts (e.g. connect once with "
                          "ssh, or -o StrictHostKeyChecking=accept-new in -S)");
  }
  if (ContainsAny(t, kAuthRefused)) {
    return BraidError(ErrorCode::kAuthRefused, "ssh could not log in to " + end.host + with + " (" +
                                                   because +
                                                   "); check the keys or agent your ssh uses");
  }
  if (ContainsAny(t, kUsage)) {
    return BraidError(ErrorCode::kUsage,
                      "ssh rejected its options for " + end.host + with + " (" + because + ")");
  }
  // Anything else before the remote command answered is a failure to get there.
  const bool known = ContainsAny(t, kUnreachable);
  return BraidError(ErrorCode::kHostUnreachable,
                    "cannot reach " + end.host + with + " (" + because + ")" +
                        (known ? "" : "; ssh exited with status 255 before braid answered"));
}

}  // namespace braid
