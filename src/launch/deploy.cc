#include "launch/deploy.h"

#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include "braid/error.h"
#include "braid/mutex.h"
#include "braid/static_executable.h"
#include "launch/shell_word.h"
#include "proto/control_message.h"
#include "security/crypto/file_digest.h"

namespace braid {

namespace {

constexpr std::string_view kPrefix = "braid-deploy ";
/// A status line longer than this is not the script's.
constexpr std::size_t kMaxLine = 8192;

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Sha256Hex(const std::vector<char>& bytes) {
  FileDigest digest(HashAlgorithm::kSha256);
  digest.Update(bytes.data(), bytes.size());
  return ToHex(digest.Finish());
}

PortableBinary ReadPortableBinary() {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  const bool self_static = IsStaticExecutable();
  const std::string path = FindPortableBinary(std::getenv("BRAID_PORTABLE"), self, self_static);
  // The running static braid reads itself through /proc, even if its file
  // has been replaced since it started.
  std::ifstream in(self_static && path == self ? std::string("/proc/self/exe") : path,
                   std::ios::binary);
  auto bytes = std::make_shared<std::vector<char>>(std::istreambuf_iterator<char>(in),
                                                   std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    throw BraidError(ErrorCode::kUsage, "--deploy: cannot read the portable braid " + path);
  }
  if (bytes->empty()) throw BraidError(ErrorCode::kUsage, "--deploy: " + path + " is empty");
  return PortableBinary{path, Sha256Hex(*bytes), std::move(bytes)};
}

/// The script DeployCommand runs (docs/protocol.md, "Deploying"). Its lines
/// are joined with spaces into one, since a csh login shell must take it as
/// one word too; @CMD@ is -T as the user wrote it (shell text by design).
constexpr std::string_view kScript = R"sh(
f(){ echo "braid-deploy fail $*"; exit 1; };
if v=$(@CMD@ --version 2>/dev/null) && printf '%s\n' "$v" | grep -qx 'protocol @PROTOCOL@';
then echo 'braid-deploy ok system'; exec @CMD@ --serve@ARGS@; fi;
[ -n "$HOME" ] || f 'HOME is not set';
command -v sha256sum >/dev/null || f 'sha256sum is not installed';
d="$HOME/.cache/braid/@HASH@"; b="$d/braid";
s(){ sha256sum < "$1" | cut -c1-64; };
if [ -f "$b" ] && [ -x "$b" ] && [ "$(s "$b")" = @HASH@ ];
then echo "braid-deploy ok reused $b"; exec "$b" --serve@ARGS@; fi;
r=new; [ -e "$b" ] && r=replaced; umask 077;
mkdir -p "$d" || f "cannot create $d"; t="$d/.braid.$$";
echo 'braid-deploy send';
head -c @SIZE@ > "$t" || { rm -f "$t"; f "cannot write $t"; };
[ "$(s "$t")" = @HASH@ ] || { rm -f "$t"; f "$t did not arrive whole (its SHA-256 differs)"; };
chmod 700 "$t" && mv -f "$t" "$b" || { rm -f "$t"; f "cannot rename $t to $b"; };
echo "braid-deploy ok $r $b"; exec "$b" --serve@ARGS@
)sh";

std::string DeployScript(const std::string& cmd, const std::string& args, const std::string& hash,
                         std::size_t size) {
  const std::pair<std::string_view, std::string> fields[] = {
      {"@CMD@", cmd},
      {"@ARGS@", args},
      {"@HASH@", hash},
      {"@SIZE@", std::to_string(size)},
      {"@PROTOCOL@", std::to_string(kProtocolVersion)}};
  std::string script;
  for (std::size_t i = 0; i < kScript.size();) {
    bool replaced = false;
    for (const auto& [name, value] : fields) {
      if (kScript.substr(i, name.size()) == name) {
        script += value;
        i += name.size();
        replaced = true;
        break;
      }
    }
    if (replaced) continue;
    script += kScript[i] == '\n' ? ' ' : kScript[i];
    ++i;
  }
  // Trim the blanks the template's first and last newlines left.
  const std::size_t first = script.find_first_not_of(' ');
  const std::size_t last = script.find_last_not_of(' ');
  return script.substr(first, last - first + 1);
}

/// One line from the script, without its newline; throws when the channel
/// ends first or the line is not the script's.
std::string ReadStatusLine(ServerChannel& channel) {
  std::string line;
  for (char c = 0; line.size() <= kMaxLine;) {
    if (channel.ReadSome(&c, 1) == 0) {
      const std::optional<int> status = channel.ExitStatus();
      throw BraidError(ErrorCode::kPeerLost,
                       "--deploy: the deploy script on " + channel.host() + " ended" +
                           (status ? " (exit status " + std::to_string(*status) + ")" : "") +
                           " before it ran braid");
    }
    if (c == '\n') break;
    line += c;
  }
  if (line.rfind(kPrefix, 0) != 0 || line.size() > kMaxLine) {
    throw BraidError(ErrorCode::kProtocol,
                     "--deploy: " + channel.host() + " answered '" + line.substr(0, 200) +
                         "' instead of the deploy script's status (does a login script print "
                         "to stdout?)");
  }
  return line.substr(kPrefix.size());
}

/// Abandons the channel when a status line does not come in time, so a
/// script stuck on the host cannot hold the agent forever.
class DeployWatch {
 public:
  DeployWatch(ServerChannel& channel, std::chrono::milliseconds timeout)
      : channel_(channel), timeout_(timeout), thread_([this] { Run(); }) {}
  ~DeployWatch() {
    {
      MutexLock lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  DeployWatch(const DeployWatch&) = delete;
  DeployWatch& operator=(const DeployWatch&) = delete;

  /// The next status line, within the timeout.
  std::string Line() {
    Arm(std::chrono::steady_clock::now() + timeout_);
    try {
      return ReadStatusLine(channel_);
    } catch (const BraidError&) {
      if (!expired_) throw;
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", static_cast<double>(timeout_.count()) / 1000);
      throw BraidError(ErrorCode::kHostUnreachable,
                       "--deploy: the deploy script on " + channel_.host() +
                           " did not answer within " + limit +
                           " s; a slow host may need a longer --connect-timeout");
    }
  }
  /// No deadline until the next Line.
  void Pause() { Arm(std::chrono::steady_clock::time_point::max()); }

 private:
  void Arm(std::chrono::steady_clock::time_point deadline) BRAID_EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      deadline_ = deadline;
    }
    cv_.notify_all();
  }
  void Run() BRAID_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    while (!done_) {
      if (std::chrono::steady_clock::now() >= deadline_) {
        expired_ = true;
        channel_.Abandon();
        return;
      }
      if (deadline_ == std::chrono::steady_clock::time_point::max()) {
        cv_.wait(lock.native());
      } else {
        cv_.wait_until(lock.native(), deadline_);
      }
    }
  }

  ServerChannel& channel_;
  const std::chrono::milliseconds timeout_;
  Mutex mu_;
  std::condition_variable cv_;
  bool done_ BRAID_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point deadline_ BRAID_GUARDED_BY(mu_) =
      std::chrono::steady_clock::time_point::max();
  std::atomic<bool> expired_{false};
  std::thread thread_;  ///< last: starts once the fields above are set
};

}  // namespace

std::string FindPortableBinary(const char* env, const std::string& self, bool self_is_static) {
  if (env != nullptr && *env != '\0') {
    if (IsFile(env)) return env;
    throw BraidError(ErrorCode::kUsage, std::string("--deploy: BRAID_PORTABLE names ") + env +
                                            ", which is not a file");
  }
  // Read through /proc/self/exe (ReadPortableBinary), so even a replaced file will do.
  if (self_is_static) return self;
  const std::filesystem::path dir = std::filesystem::path(self).parent_path();
  const std::string beside = (dir / "braid-static").string();
  const std::string installed = (dir.parent_path() / "lib/braid/braid-static").string();
  for (const std::string& path : {beside, installed}) {
    if (IsFile(path)) return path;
  }
  throw BraidError(ErrorCode::kUsage,
                   "--deploy: no portable braid to upload: this braid is not static, and neither " +
                       beside + " nor " + installed +
                       " exists; build one with -DBRAID_STATIC=ON or name it in BRAID_PORTABLE");
}

PortableBinary LoadPortableBinary() {
  static const PortableBinary binary = ReadPortableBinary();
  return binary;
}

std::string DeployCommand(const std::string& remote_command, const std::string& serve_args,
                          const PortableBinary& binary) {
  return "sh -c " +
         ShellWord(DeployScript(remote_command, serve_args, binary.sha256, binary.bytes->size()));
}

std::optional<DeployOutcome> ParseDeployDone(const std::string& status) {
  if (status.rfind("ok ", 0) != 0) return std::nullopt;
  const std::size_t space = status.find(' ', 3);
  if (space == std::string::npos || space + 1 == status.size()) return std::nullopt;
  std::string how = status.substr(3, space - 3);
  // The script says only these; anything else is not our script talking.
  if (how != "reused" && how != "new" && how != "replaced") return std::nullopt;
  std::string path = status.substr(space + 1);
  return DeployOutcome{std::move(how), path, path + " --serve"};
}

DeployOutcome RunDeployDialogue(ServerChannel& channel, const PortableBinary& binary,
                                const std::string& serve_command,
                                std::chrono::milliseconds timeout) {
  DeployWatch watch(channel, timeout);
  bool sent = false;
  for (;;) {
    const std::string status = watch.Line();
    if (status == "send" && !sent) {
      watch.Pause();  // the upload takes what the link takes
      channel.WriteAll(binary.bytes->data(), binary.bytes->size());
      sent = true;
    } else if (status == "ok system") {
      return {"system", "", serve_command};
    } else if (std::optional<DeployOutcome> done = ParseDeployDone(status)) {
      return *done;
    } else if (status.rfind("fail ", 0) == 0) {
      throw BraidError(ErrorCode::kRemoteMissing, "--deploy: could not put braid on " +
                                                      channel.host() + ": " + status.substr(5));
    } else {
      throw BraidError(ErrorCode::kProtocol, "--deploy: " + channel.host() +
                                                 " sent an unknown deploy status '" + status + "'");
    }
  }
}

}  // namespace braid
