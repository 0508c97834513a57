#include "security/ssh/host_key_check.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "braid/error.h"

namespace braid {
namespace {

constexpr std::size_t kMaxKnownHostsLine = std::size_t{16} * 1024;
constexpr std::size_t kMaxKnownHostsFile = std::size_t{64} * 1024 * 1024;
constexpr std::size_t kSha256Size = 32;

/// How one host key type is named by libssh2, known_hosts, ssh's messages and
/// the handshake.
struct KeyType {
  int hostkey_type;                    ///< LIBSSH2_HOSTKEY_TYPE_*
  int knownhost_type;                  ///< LIBSSH2_KNOWNHOST_KEY_*
  const char* display;                 ///< as ssh prints it: "ED25519"
  const char* name;                    ///< known_hosts key type field
  std::array<const char*, 3> methods;  ///< handshake algorithm names
};

constexpr std::array<KeyType, 6> kKeyTypes{{
    {LIBSSH2_HOSTKEY_TYPE_ED25519,
     LIBSSH2_KNOWNHOST_KEY_ED25519,
     "ED25519",
     "ssh-ed25519",
     {"ssh-ed25519", nullptr, nullptr}},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_256,
     LIBSSH2_KNOWNHOST_KEY_ECDSA_256,
     "ECDSA",
     "ecdsa-sha2-nistp256",
     {"ecdsa-sha2-nistp256", nullptr, nullptr}},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_384,
     LIBSSH2_KNOWNHOST_KEY_ECDSA_384,
     "ECDSA",
     "ecdsa-sha2-nistp384",
     {"ecdsa-sha2-nistp384", nullptr, nullptr}},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_521,
     LIBSSH2_KNOWNHOST_KEY_ECDSA_521,
     "ECDSA",
     "ecdsa-sha2-nistp521",
     {"ecdsa-sha2-nistp521", nullptr, nullptr}},
    {LIBSSH2_HOSTKEY_TYPE_RSA,
     LIBSSH2_KNOWNHOST_KEY_SSHRSA,
     "RSA",
     "ssh-rsa",
     {"rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"}},
    {LIBSSH2_HOSTKEY_TYPE_DSS,
     LIBSSH2_KNOWNHOST_KEY_SSHDSS,
     "DSA",
     "ssh-dss",
     {"ssh-dss", nullptr, nullptr}},
}};

const KeyType* FindKeyType(int hostkey_type) {
  for (const KeyType& k : kKeyTypes) {
    if (k.hostkey_type == hostkey_type) {
      return &k;
    }
  }
  return nullptr;
}

struct KnownHostsDeleter {
  void operator()(LIBSSH2_KNOWNHOSTS* hosts) const { libssh2_knownhost_free(hosts); }
};
using KnownHostsPtr = std::unique_ptr<LIBSSH2_KNOWNHOSTS, KnownHostsDeleter>;

/// Reads a whole file; nullopt if it does not exist. Throws on other errors
/// when `required`, else treats them as a missing file.
std::optional<std::string> ReadKnownHostsFile(const std::string& path, bool required) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto fail = [&](int err) -> std::optional<std::string> {
    if (!required) {
      return std::nullopt;
    }
    throw BraidError(ErrorCode::kHostKeyUnknown, "cannot read known hosts file " + path + ": " +
                                                     std::strerror(err) + "; fix its permissions");
  };
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return std::nullopt;
    }
    return fail(errno);
  }
  std::string text;
  char buf[16 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fail(err);
    }
    if (n == 0) {
      break;
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxKnownHostsFile) {
      ::close(fd);
      return fail(EFBIG);
    }
  }
  ::close(fd);
  return text;
}

/// Loads one known_hosts file line by line: libssh2_knownhost_readfile stops
/// at the first line it cannot parse (a newer key type, a marker) and would
/// silently ignore every key after it.
KnownHostsPtr LoadKnownHosts(LIBSSH2_SESSION* session, const std::string& path, bool required) {
  KnownHostsPtr hosts(libssh2_knownhost_init(session));
  if (!hosts) {
    throw BraidError(ErrorCode::kInternal, "out of memory loading " + path);
  }
  const std::optional<std::string> text = ReadKnownHostsFile(path, required);
  if (!text) {
    return hosts;
  }
  std::size_t pos = 0;
  while (pos < text->size()) {
    std::size_t end = text->find('\n', pos);
    if (end == std::string::npos) {
      end = text->size();
    }
    const std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    // '@cert-authority' and '@revoked' lines are not supported; skip them
    // rather than let libssh2 read the marker as a host name.
    if (first == std::string::npos || line[first] == '#' || line[first] == '@' ||
        line.size() > kMaxKnownHostsLine) {
      continue;
    }
    libssh2_knownhost_readline(hosts.get(), line.c_str(), line.size(),
                               LIBSSH2_KNOWNHOST_FILE_OPENSSH);
  }
  return hosts;
}

std::string Base64(const unsigned char* data, std::size_t len) {
  std::string out(4 * ((len + 2) / 3) + 1, '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(len));
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

/// "braidtest ([127.0.0.1]:2222)" when the looked-up name differs from the alias.
std::string DescribeHost(const HostKeyCheck& check, const std::string& name) {
  return name == check.display_host ? check.display_host : check.display_host + " (" + name + ")";
}

/// Appends `line` to the user's known_hosts, creating ~/.ssh and the file.
void AppendKnownHost(const std::string& path, const std::string& line) {
  auto fail = [&](int err) {
    throw BraidError(ErrorCode::kHostKeyUnknown, "cannot record the host key in " + path + ": " +
                                                     std::strerror(err) +
                                                     "; fix its permissions and rerun");
  };
  const std::size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      fail(errno);
    }
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    fail(errno);
  }
  std::string data = line + "\n";
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    char last = '\n';
    if (::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n') {
      data.insert(0, "\n");
    }
  }
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail(err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    fail(errno);
  }
}

/// The user's files, then the system ones: the order ssh reads them in.
std::vector<std::string> AllFiles(const HostKeyCheck& check) {
  std::vector<std::string> paths = check.user_known_hosts;
  paths.insert(paths.end(), check.system_known_hosts.begin(), check.system_known_hosts.end());
  return paths;
}

/// "a or b (UserKnownHostsFile in ~/.ssh/config line 3)", for the unknown-key message.
std::string DescribeFiles(const HostKeyCheck& check) {
  const std::vector<std::string> paths = AllFiles(check);
  std::string out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == paths.size() ? " or " : ", ") + paths[i];
  }
  if (out.empty()) {
    out = "any known_hosts file (UserKnownHostsFile and GlobalKnownHostsFile are none)";
  } else if (!check.source.empty()) {
    out += " (" + check.source + ")";
  }
  return out;
}

/// Records an accepted new key in the first user file and says so; with
/// UserKnownHostsFile none there is nowhere to record it, which is said too.
void RecordNewKey(const HostKeyCheck& check, const KeyType& type, const std::string& name,
                  const std::string& fingerprint, const std::string& key_base64) {
  const std::string who = DescribeHost(check, name);
  if (check.user_known_hosts.empty()) {
    std::fprintf(stderr,
                 "braid: accepted the %s host key of %s (%s) without recording it: "
                 "UserKnownHostsFile is none\n",
                 type.display, who.c_str(), fingerprint.c_str());
    return;
  }
  const std::string& record_in = check.user_known_hosts.front();
  AppendKnownHost(record_in, name + " " + type.name + " " + key_base64);
  std::fprintf(stderr, "braid: recorded the %s host key of %s (%s) in %s\n", type.display,
               who.c_str(), fingerprint.c_str(), record_in.c_str());
}

}  // namespace

std::string KnownHostsName(std::string_view host, int port) {
  if (port == 22) {
    return std::string(host);
  }
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

std::string Sha256Fingerprint(std::span<const unsigned char> digest) {
  std::string b64 = Base64(digest.data(), digest.size());
  while (!b64.empty() && b64.back() == '=') {
    b64.pop_back();
  }
  return "SHA256:" + b64;
}

void PreferKnownHostKeyTypes(LIBSSH2_SESSION* session, const HostKeyCheck& check) {
  const std::string name = KnownHostsName(check.hostname, check.port);
  std::vector<KnownHostsPtr> files;
  for (const std::string& path : AllFiles(check)) {
    files.push_back(LoadKnownHosts(session, path, false));
  }
  // A key that cannot match tells, by MISMATCH, that an entry of that type exists.
  static const char kProbeKey[] = "AAAA";
  std::vector<const KeyType*> order;
  for (const KeyType& type : kKeyTypes) {
    for (const KnownHostsPtr& hosts : files) {
      if (libssh2_knownhost_check(
              hosts.get(), name.c_str(), kProbeKey, sizeof(kProbeKey) - 1,
              LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_BASE64 | type.knownhost_type,
              nullptr) == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
        order.push_back(&type);
        break;
      }
    }
  }
  for (const KeyType& type : kKeyTypes) {
    if (std::find(order.begin(), order.end(), &type) == order.end()) {
      order.push_back(&type);
    }
  }

  const char** supported = nullptr;
  const int count = libssh2_session_supported_algs(session, LIBSSH2_METHOD_HOSTKEY, &supported);
  if (count <= 0 || supported == nullptr) {
    return;
  }
  const std::vector<std::string> all(supported, supported + count);
  libssh2_free(session, supported);
  // Certificates are left out: known_hosts @cert-authority lines are not
  // supported, and a certificate would then look like a changed key.
  std::string methods;
  for (const KeyType* type : order) {
    for (const char* method : type->methods) {
      if (method != nullptr && std::find(all.begin(), all.end(), method) != all.end()) {
        if (!methods.empty()) {
          methods += ',';
        }
        methods += method;
      }
    }
  }
  if (!methods.empty()) {
    libssh2_session_method_pref(session, LIBSSH2_METHOD_HOSTKEY, methods.c_str());
  }
}

void VerifyHostKey(LIBSSH2_SESSION* session, const HostKeyCheck& check) {
  const std::string name = KnownHostsName(check.hostname, check.port);
  const std::string who = DescribeHost(check, name);
  std::size_t key_len = 0;
  int hostkey_type = 0;
  const char* key = libssh2_session_hostkey(session, &key_len, &hostkey_type);
  const KeyType* type = FindKeyType(hostkey_type);
  const char* hash = libssh2_hostkey_hash(session, LIBSSH2_HOSTKEY_HASH_SHA256);
  if (key == nullptr || key_len == 0 || hash == nullptr) {
    throw BraidError(ErrorCode::kHostKeyUnknown,
                     "host " + who + " sent no usable host key; check that it runs OpenSSH");
  }
  if (type == nullptr) {
    throw BraidError(ErrorCode::kHostKeyUnknown,
                     "host key for " + who +
                         " is of a type braid cannot check; give the server "
                         "an ed25519, ecdsa or rsa host key");
  }
  const std::string fingerprint =
      Sha256Fingerprint({reinterpret_cast<const unsigned char*>(hash), kSha256Size});
  const std::string shown_key = std::string(type->display) + " " + fingerprint;
  const int typemask =
      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | type->knownhost_type;

  // libssh2_knownhost_checkp would also accept a plain `host` entry for a
  // non-22 port; ssh does not, so the exact `[host]:port` name is checked.
  const std::vector<std::string> paths = AllFiles(check);
  std::string changed_in;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    // The user's own files must be readable; a system one may be absent or locked.
    KnownHostsPtr hosts = LoadKnownHosts(session, paths[i], i < check.user_known_hosts.size());
    const int rc =
        libssh2_knownhost_check(hosts.get(), name.c_str(), key, key_len, typemask, nullptr);
    if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
      Say(check.note, 1, check.display_host + ": host key " + shown_key + ", known in " + paths[i]);
      return;
    }
    if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH && changed_in.empty()) {
      changed_in = paths[i];
    }
  }
  if (!changed_in.empty()) {
    throw BraidError(ErrorCode::kHostKeyChanged,
                     "host key for " + who + " has CHANGED: the server now offers " + shown_key +
                         ", not the key recorded in " + changed_in +
                         ", so braid will not connect (this may be an attack); if the host was "
                         "reinstalled, remove the old key with ssh-keygen -R '" +
                         name + "' -f " + changed_in + " and rerun");
  }
  if (!check.accept_new) {
    throw BraidError(ErrorCode::kHostKeyUnknown,
                     "host key for " + check.display_host + " (" +
                         (name == check.display_host ? "" : name + ", ") + shown_key +
                         ") is not in " + DescribeFiles(check) +
                         "; check the fingerprint, then rerun with --accept-new-host-key to "
                         "record it");
  }
  RecordNewKey(check, *type, name, fingerprint,
               Base64(reinterpret_cast<const unsigned char*>(key), key_len));
}

}  // namespace braid
