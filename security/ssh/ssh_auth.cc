#include "security/ssh/ssh_auth.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "braid/error.h"

namespace braid {
namespace {

/// Private keys are a few KiB; reading more would only be an attack surface.
constexpr std::size_t kMaxKeyFile = std::size_t{1024} * 1024;

struct AgentDeleter {
  void operator()(LIBSSH2_AGENT* agent) const {
    libssh2_agent_disconnect(agent);
    libssh2_agent_free(agent);
  }
};
using AgentPtr = std::unique_ptr<LIBSSH2_AGENT, AgentDeleter>;

std::string LastError(LIBSSH2_SESSION* session) {
  char* msg = nullptr;
  int len = 0;
  libssh2_session_last_error(session, &msg, &len, 0);
  if (msg == nullptr || len <= 0) {
    return "unknown error";
  }
  return std::string(msg, static_cast<std::size_t>(len));
}

/// Errors that mean the connection, not the key, failed.
bool IsTransportError(int rc) {
  return rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV ||
         rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_TIMEOUT ||
         rc == LIBSSH2_ERROR_SOCKET_TIMEOUT || rc == LIBSSH2_ERROR_SOCKET_NONE;
}

/// Reads a key file; false with `err` set when it cannot be read.
bool ReadKeyFile(const std::string& path, std::string& text, int& err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    err = errno;
    return false;
  }
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxKeyFile) {
      err = EFBIG;
      break;
    }
  }
  ::close(fd);
  return err == 0;
}

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

/// Tracks what was tried, for the refusal message.
class Attempts {
 public:
  explicit Attempts(const AuthPlan& plan) : plan_(plan) {}

  void Note(const std::string& what) { tried_.push_back(what); }
  void NoteFile(const std::string& path, const std::string& remark = "") {
    tried_.push_back(Shorten(path) + (remark.empty() ? "" : " (" + remark + ")"));
  }
  void CountRefusal() { ++refusals_; }

  /// The server closed or timed out: after a refusal that is the server
  /// giving up on us (MaxAuthTries), before one it is a lost connection.
  [[noreturn]] void ThrowTransport(LIBSSH2_SESSION* session) const {
    if (refusals_ > 0) {
      Throw("; the server then closed the connection (too many keys offered?)");
    }
    throw BraidError(ErrorCode::kHostUnreachable, "connection to " + plan_.display_host +
                                                      " was lost during authentication (" +
                                                      LastError(session) + "); rerun");
  }

  [[noreturn]] void Throw(const std::string& extra = "") const {
    std::string list;
    for (const std::string& t : tried_) {
      list += (list.empty() ? "" : ", ") + t;
    }
    if (list.empty()) {
      list = "no keys (no ssh-agent and no ~/.ssh/id_ed25519, id_ecdsa or id_rsa)";
    }
    throw BraidError(ErrorCode::kAuthRefused,
                     "authentication to " + plan_.user + "@" + plan_.display_host +
                         " refused: tried " + list +
                         (plan_.only_named ? " (IdentitiesOnly: no agent or default keys)" : "") +
                         extra + "; use -i KEY with a key in the server's authorized_keys");
  }

  /// -v: who logged in, with what.
  void SayAccepted(const std::string& key) const {
    Say(plan_.note, 1, plan_.display_host + ": logged in as " + plan_.user + " with " + key);
  }
  /// -vv: a key the server did not take.
  void SayRefused(const std::string& key) const {
    Say(plan_.note, 2, plan_.display_host + ": " + key + " refused");
  }
  /// `path` with the home as "~".
  std::string Shorten(const std::string& path) const {
    if (!plan_.home.empty() && path.size() > plan_.home.size() &&
        path.compare(0, plan_.home.size(), plan_.home) == 0 && path[plan_.home.size()] == '/') {
      return "~" + path.substr(plan_.home.size());
    }
    return path;
  }

 private:
  const AuthPlan& plan_;
  std::vector<std::string> tried_;
  int refusals_ = 0;
};

/// Offers every agent identity; true once one is accepted.
bool TryAgent(LIBSSH2_SESSION* session, const AuthPlan& plan, Attempts& attempts) {
  AgentPtr agent(libssh2_agent_init(session));
  if (!agent || libssh2_agent_connect(agent.get()) != 0) {
    attempts.Note("ssh-agent (cannot connect to it)");
    return false;
  }
  if (libssh2_agent_list_identities(agent.get()) != 0) {
    attempts.Note("ssh-agent (cannot list its keys)");
    return false;
  }
  int count = 0;
  libssh2_agent_publickey* prev = nullptr;
  libssh2_agent_publickey* identity = nullptr;
  while (libssh2_agent_get_identity(agent.get(), &identity, prev) == 0) {
    ++count;
    const int rc = libssh2_agent_userauth(agent.get(), plan.user.c_str(), identity);
    const std::string key =
        std::string("the ssh-agent key ") + (identity->comment != nullptr ? identity->comment : "");
    if (rc == 0) {
      attempts.SayAccepted(key);
      return true;
    }
    if (IsTransportError(rc)) {
      attempts.Note("ssh-agent");
      attempts.ThrowTransport(session);
    }
    attempts.CountRefusal();
    attempts.SayRefused(key);
    prev = identity;
  }
  attempts.Note("ssh-agent (" + std::to_string(count) + (count == 1 ? " key)" : " keys)"));
  return false;
}

/// Offers one key file; true once accepted.
bool TryKeyFile(LIBSSH2_SESSION* session, const AuthPlan& plan, const std::string& path,
                Attempts& attempts) {
  std::string text;
  int err = 0;
  if (!ReadKeyFile(path, text, err)) {
    attempts.NoteFile(path, err == ENOENT ? "missing" : std::strerror(err));
    return false;
  }
  if (IsEncryptedPrivateKey(text)) {
    attempts.NoteFile(path,
                      "encrypted, skipped: braid cannot ask for a passphrase, so add it "
                      "to ssh-agent");
    return false;
  }
  const std::string pub = path + ".pub";
  const bool has_pub = FileExists(pub);
  const int rc = libssh2_userauth_publickey_fromfile_ex(
      session, plan.user.c_str(), static_cast<unsigned int>(plan.user.size()),
      has_pub ? pub.c_str() : nullptr, path.c_str(), "");
  if (rc == 0) {
    attempts.SayAccepted(attempts.Shorten(path));
    return true;
  }
  if (IsTransportError(rc)) {
    attempts.NoteFile(path);
    attempts.ThrowTransport(session);
  }
  if (rc == LIBSSH2_ERROR_FILE || rc == LIBSSH2_ERROR_METHOD_NOT_SUPPORTED) {
    attempts.NoteFile(path, "unusable: " + LastError(session));
    return false;
  }
  attempts.CountRefusal();
  attempts.SayRefused(attempts.Shorten(path));
  attempts.NoteFile(path);
  return false;
}

}  // namespace

void Authenticate(LIBSSH2_SESSION* session, const AuthPlan& plan) {
  Attempts attempts(plan);
  const char* methods = libssh2_userauth_list(session, plan.user.c_str(),
                                              static_cast<unsigned int>(plan.user.size()));
  if (methods == nullptr) {
    if (libssh2_userauth_authenticated(session) != 0) {
      return;
    }
    attempts.ThrowTransport(session);
  }
  if (std::strstr(methods, "publickey") == nullptr) {
    throw BraidError(ErrorCode::kAuthRefused,
                     "authentication to " + plan.user + "@" + plan.display_host +
                         " refused: the server accepts only " + methods +
                         " and braid uses keys only; add your public key to its authorized_keys");
  }
  if (plan.use_agent && TryAgent(session, plan, attempts)) {
    return;
  }

  std::vector<std::string> files = plan.identity_files;
  for (const std::string& f : plan.default_identity_files) {
    if (FileExists(f)) {
      files.push_back(f);
    }
  }
  std::vector<std::string> seen;
  for (const std::string& f : files) {
    if (std::find(seen.begin(), seen.end(), f) != seen.end()) {
      continue;
    }
    seen.push_back(f);
    if (TryKeyFile(session, plan, f, attempts)) {
      return;
    }
  }
  attempts.Throw();
}

bool IsEncryptedPrivateKey(std::string_view key_text) {
  if (key_text.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string_view::npos ||
      key_text.find("Proc-Type: 4,ENCRYPTED") != std::string_view::npos) {
    return true;
  }
  constexpr std::string_view kBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
  const std::size_t begin = key_text.find(kBegin);
  if (begin == std::string_view::npos) {
    return false;
  }
  // The cipher name sits in the first few dozen bytes of the decoded blob.
  std::string b64;
  for (std::size_t i = begin + kBegin.size(); i < key_text.size() && b64.size() < 96; ++i) {
    const char c = key_text[i];
    if (c == '-') {
      break;
    }
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') {
      b64 += c;
    }
  }
  b64.resize(b64.size() / 4 * 4);
  unsigned char blob[96] = {};
  const int n = EVP_DecodeBlock(blob, reinterpret_cast<const unsigned char*>(b64.data()),
                                static_cast<int>(b64.size()));
  constexpr std::string_view kMagic("openssh-key-v1\0", 15);
  if (n < static_cast<int>(kMagic.size() + 4) ||
      std::string_view(reinterpret_cast<const char*>(blob), kMagic.size()) != kMagic) {
    return false;
  }
  const std::size_t at = kMagic.size();
  const std::uint32_t len = (std::uint32_t{blob[at]} << 24) | (std::uint32_t{blob[at + 1]} << 16) |
                            (std::uint32_t{blob[at + 2]} << 8) | std::uint32_t{blob[at + 3]};
  if (len > static_cast<std::uint32_t>(n) - at - 4) {
    return false;  // truncated: libssh2 will say
  }
  const std::string_view cipher(reinterpret_cast<const char*>(blob) + at + 4, len);
  return cipher != "none";
}

}  // namespace braid
