// Sealed data streams (--cipher) through the real binary: what a capture on lo
// sees of a known marker, what a tampering proxy between source and sink gets
// (a flipped byte, a replayed frame), every cipher in every mode, and a far
// end of another protocol version refused.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "braid/cipher.h"
#include "proto/control_message.h"
#include "security/crypto/stream_handshake.h"
#include "support/process_runner.h"
#include "support/sshd_fixture.h"
#include "support/test_files.h"
#include "transport/data_frame.h"

namespace braid {
namespace {

using testing::Exists;
using testing::ProcessResult;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::SshdFixture;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;
constexpr std::size_t kMarkerSize = 64u << 10;
constexpr std::size_t kRun = 16;  ///< the longest run of the marker a capture may hold sealed
constexpr const char* kAltered = "failed authentication: the data was altered on the way";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool Installed(const std::string& tool) {
  return RunProcess({"sh", "-c", "command -v " + tool}).exit_code == 0;
}

/// -Z ports of this test process's own, so that captures and rules see only its streams.
std::pair<int, int> OwnPorts(int slot) {
  int base = 30000 + static_cast<int>(::getpid() % 1500) * 20 + slot * 10;
  return {base, base + 9};
}
std::string PortRange(std::pair<int, int> p) {
  return std::to_string(p.first) + ":" + std::to_string(p.second);
}

class SealedTest : public ::testing::Test {
 protected:
  SshdFixture& sshd = SshdFixture::Get();
  std::string dir = sshd.scratch_dir();

  std::string Remote(const std::string& path) const { return sshd.alias() + ":" + path; }

  void ExpectCopied(const std::vector<std::string>& args, const std::string& from,
                    const std::string& to) {
    ProcessResult r = RunBraid(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string why;
    EXPECT_TRUE(SameContents(from, to, &why)) << why;
    EXPECT_FALSE(Exists(to + ".braid-part"));
    std::filesystem::remove(to);
  }
};

// ---------------------------------------------------------------------------
// Every cipher, every mode: byte-identical copies.

class EveryCipherTest : public SealedTest, public ::testing::WithParamInterface<std::string> {
 protected:
  std::vector<std::string> With(std::vector<std::string> args) const {
    std::vector<std::string> out;
    if (!GetParam().empty()) out = {"--cipher", GetParam()};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
};

TEST_P(EveryCipherTest, EveryKindOfCopyIsByteIdentical) {
  std::string src = dir + "/src";
  WritePatternFile(src, 5 * kMiB + 12345, 7);
  std::string text = dir + "/text";  // compressible, so that -c sends compressed blocks
  std::string line = "a line that compresses well, again and again and again\n";
  std::string body;
  while (body.size() < 3 * kMiB) body += line;
  testing::WriteText(text, body);
  std::string to = dir + "/dst";
  ExpectCopied(With({"-s", "3", src, to}), src, to);
  ExpectCopied(With({"-s", "3", src, Remote(to)}), src, to);
  ExpectCopied(With({"-s", "3", Remote(src), to}), src, to);
  ExpectCopied(With({"-s", "3", "-z", src, Remote(to)}), src, to);
  ExpectCopied(With({"-s", "3", Remote(src), Remote(to)}), src, to);  // third-party
  ExpectCopied(With({"-s", "2", "-c", text, Remote(to)}), text, to);
  ExpectCopied(With({"-s", "2", "-c", "-e", Remote(src), to}), src, to);
  ExpectCopied(With({"-s", "4", "-E", "sha256", "-B", "64K", src, Remote(to)}), src, to);
  ProcessResult zero =
      RunBraid(With({"-v", "-s", "4", "--size", "256M", "/dev/zero", "/dev/null"}));
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
  // The summary says when nothing was sealed, and only then.
  EXPECT_EQ(zero.err.find("unencrypted") != std::string::npos, GetParam() == "none") << zero.err;
}

INSTANTIATE_TEST_SUITE_P(Ciphers, EveryCipherTest,
                         ::testing::Values("", "aes-128-gcm", "aes-256-gcm", "chacha20-poly1305",
                                           "none"),
                         [](const auto& info) {
                           std::string name = info.param.empty() ? "default" : info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// ---------------------------------------------------------------------------
// (a) What a passive observer on lo sees.

/// tcpdump writing every byte of `filter` on lo to `pcap`, stopped (SIGINT, by pid) at the end.
class Capture {
 public:
  Capture(const std::string& pcap, const std::string& filter, const std::string& log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      ::execlp("tcpdump", "tcpdump", "-i", "lo", "-n", "-U", "--immediate-mode", "-B", "32768",
               "-s", "0", "-w", pcap.c_str(), filter.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ReadAll(log).find("listening on") != std::string::npos) {
        listening_ = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~Capture() { Stop(); }
  bool listening() const { return listening_; }
  void Stop() {
    if (pid_ <= 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the last segments
    ::kill(pid_, SIGINT);
    int status = 0;
    for (int i = 0; i < 200 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  bool listening_ = false;
};

/// How many places in `haystack` hold some 16-byte run of `marker`.
std::size_t MarkerRuns(const std::string& haystack, const std::string& marker) {
  std::unordered_set<std::string_view> runs;
  for (std::size_t i = 0; i + kRun <= marker.size(); ++i) runs.insert({marker.data() + i, kRun});
  std::size_t found = 0;
  for (std::size_t i = 0; i + kRun <= haystack.size(); ++i) {
    found += runs.count({haystack.data() + i, kRun});
  }
  return found;
}

class CaptureTest : public SealedTest {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "capturing packets on lo needs root";
    if (!Installed("tcpdump")) GTEST_SKIP() << "tcpdump is not installed";
  }

  /// Pushes a file holding a random 64 KiB marker with `cipher_args` while
  /// tcpdump records the test's own data ports; how often the capture holds a
  /// 16-byte run of the marker.
  std::size_t RunsOnTheWire(const std::vector<std::string>& cipher_args, int slot) {
    std::mt19937_64 rng(std::random_device{}());
    std::string marker(kMarkerSize, '\0');
    for (char& c : marker) c = static_cast<char>(rng());
    std::string src = dir + "/marked";
    {
      // Ten times over, so that any stretch of the capture covers some copy of it.
      std::ofstream out(src, std::ios::binary);
      for (int i = 0; i < 10; ++i) out << marker;
    }
    auto ports = OwnPorts(slot);
    std::string pcap = dir + "/capture-" + std::to_string(slot) + ".pcap";
    Capture capture(
        pcap, "tcp portrange " + std::to_string(ports.first) + "-" + std::to_string(ports.second),
        dir + "/tcpdump.log");
    EXPECT_TRUE(capture.listening()) << ReadAll(dir + "/tcpdump.log");
    std::vector<std::string> args = {"-s", "2", "-Z", PortRange(ports)};
    args.insert(args.end(), cipher_args.begin(), cipher_args.end());
    std::string dst = dir + "/copied-" + std::to_string(slot);
    std::filesystem::remove(dst);
    args.insert(args.end(), {src, Remote(dst)});
    ProcessResult r = RunBraid(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(SameContents(src, dst));
    capture.Stop();
    std::string wire = ReadAll(pcap);
    EXPECT_GT(wire.size(), 3 * kMarkerSize) << "the capture missed the copy";
    return MarkerRuns(wire, marker);
  }
};

TEST_F(CaptureTest, SealedCopyShowsNoRunOfTheDataOnTheWire) {
  EXPECT_EQ(RunsOnTheWire({}, 0), 0u);
  EXPECT_EQ(RunsOnTheWire({"--cipher", "chacha20-poly1305"}, 1), 0u);
}

TEST_F(CaptureTest, ClearCopyShowsTheData) {
  // The same capture finds the marker when nothing is sealed: the test can fail.
  EXPECT_GT(RunsOnTheWire({"--cipher", "none"}, 0), kMarkerSize / 2);
}

// ---------------------------------------------------------------------------
// (b) An active attacker between source and sink.
//
// The copy runs in a network namespace the test creates; an nft rule there
// sends every connection to the data ports (-Z) to the test's proxy, which
// finds where it was going (SO_ORIGINAL_DST) and connects there itself (with
// SO_MARK, which the rule lets through), altering what the source sends.

/// Connector -> listener bytes before the first frame: HELLO and PROOF.
constexpr std::uint64_t kHandshakeBytes = kHelloSize + kProofSize;
constexpr std::uint64_t kBlock = 64u << 10;  ///< -B 64K
constexpr std::uint64_t kSealedFrame = kFrameHeaderSize + kBlock + kSealTagSize;
constexpr int kProxyMark = 0x1;
/// <linux/netfilter_ipv4.h>, which cannot be included with <netinet/in.h>.
constexpr int kSoOriginalDst = 80;

/// What the proxy does to the source's bytes, by their offset on the connection.
struct Tamper {
  std::uint64_t flip_at = UINT64_MAX;  ///< this byte is flipped
  std::uint64_t copy_from = 0;         ///< [copy_from, copy_to) is sent again...
  std::uint64_t copy_to = 0;
  std::uint64_t insert_at = UINT64_MAX;  ///< ...here, before the byte at this offset
};

bool WriteAll(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

/// Copies `from` to `to` until either ends, applying `tamper` (null: as is).
void Relay(int from, int to, const Tamper* tamper) {
  std::vector<char> buf(1 << 16);
  std::string saved;
  std::uint64_t at = 0;
  for (;;) {
    ssize_t got = ::recv(from, buf.data(), buf.size(), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    auto n = static_cast<std::uint64_t>(got);
    std::size_t head = n;
    if (tamper != nullptr) {
      if (tamper->flip_at >= at && tamper->flip_at < at + n) buf[tamper->flip_at - at] ^= 0x01;
      for (std::uint64_t i = std::max(at, tamper->copy_from); i < std::min(at + n, tamper->copy_to);
           ++i) {
        saved.push_back(buf[i - at]);
      }
      if (tamper->insert_at >= at && tamper->insert_at < at + n) head = tamper->insert_at - at;
    }
    if (!WriteAll(to, buf.data(), head)) break;
    if (head < n &&
        (!WriteAll(to, saved.data(), saved.size()) || !WriteAll(to, buf.data() + head, n - head))) {
      break;
    }
    at += n;
  }
  ::shutdown(to, SHUT_WR);
}

class TamperProxy {
 public:
  /// Listens on 127.0.0.1 inside namespace `netns`; port() once it does.
  TamperProxy(const std::string& netns, Tamper tamper) : tamper_(tamper) {
    std::promise<int> port;
    std::future<int> ready = port.get_future();
    thread_ = std::thread([this, netns, &port] { Run(netns, port); });
    port_ = ready.get();
  }
  ~TamperProxy() {
    stop_ = true;
    if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    for (auto& t : relays_) t.join();
    for (int fd : fds_) ::close(fd);
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }
  int port() const { return port_; }
  int connections() const { return connections_.load(); }

 private:
  void Run(const std::string& netns, std::promise<int>& port) {
    int ns = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    // This thread alone moves into the namespace: the sockets it makes live there.
    if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0) return port.set_value(0);
    ::close(ns);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return port.set_value(0);
    }
    port.set_value(ntohs(addr.sin_port));
    while (!stop_) {
      int in = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (in < 0) break;
      sockaddr_in original{};
      socklen_t olen = sizeof original;
      int out = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      int mark = kProxyMark;
      if (::getsockopt(in, SOL_IP, kSoOriginalDst, &original, &olen) != 0 ||
          ::setsockopt(out, SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0 ||
          ::connect(out, reinterpret_cast<sockaddr*>(&original), sizeof original) != 0) {
        ::close(in);
        ::close(out);
        continue;
      }
      connections_.fetch_add(1);
      fds_.push_back(in);
      fds_.push_back(out);
      relays_.emplace_back([this, in, out] { Relay(in, out, &tamper_); });
      relays_.emplace_back([in, out] { Relay(out, in, nullptr); });
    }
  }

  Tamper tamper_;
  std::thread thread_;
  /// Written by the proxy thread before the port is handed out (listen_fd_)
  /// or while the test waits on the copy; read by the destructor after the
  /// thread is stopped and joined.
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::vector<int> fds_;
  std::vector<std::thread> relays_;
};

class TamperTest : public SealedTest {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "network namespaces need root";
    if (!Installed("ip") || !Installed("nft")) GTEST_SKIP() << "ip and nft are needed";
    netns_ = "braid-seal-" + std::to_string(::getpid());
    ProcessResult add = RunProcess({"ip", "netns", "add", netns_});
    ASSERT_EQ(add.exit_code, 0) << add.err;
    made_ = true;
    ProcessResult up = RunProcess({"ip", "-n", netns_, "link", "set", "lo", "up"});
    ASSERT_EQ(up.exit_code, 0) << up.err;
  }
  void TearDown() override {
    if (made_) RunProcess({"ip", "netns", "del", netns_});
  }

  /// Sends the data ports' connections in the namespace to `proxy_port`.
  void Redirect(std::pair<int, int> ports, int proxy_port) {
    std::string rules = dir + "/redirect.nft";
    std::ostringstream text;
    text << "table ip braidtest {\n chain out {\n  type nat hook output priority -100;"
         << " policy accept;\n  meta mark " << kProxyMark << " return\n  tcp dport " << ports.first
         << "-" << ports.second << " redirect to :" << proxy_port << "\n }\n}\n";
    testing::WriteText(rules, text.str());
    ProcessResult r = RunProcess({"ip", "netns", "exec", netns_, "nft", "-f", rules});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  /// A local copy of 2 MiB (32 frames) on one stream through a proxy doing `tamper`.
  ProcessResult CopyThrough(const Tamper& tamper, const std::vector<std::string>& extra = {}) {
    src_ = dir + "/precious";
    dst_ = dir + "/copied";
    WritePatternFile(src_, 32 * kBlock, 3);
    TamperProxy proxy(netns_, tamper);
    EXPECT_NE(proxy.port(), 0) << "the proxy could not listen in " << netns_;
    auto ports = OwnPorts(0);
    Redirect(ports, proxy.port());
    std::vector<std::string> argv = {"ip", "netns", "exec", netns_, BRAID_BINARY,    "-s",
                                     "1",  "-B",    "64K",  "-Z",   PortRange(ports)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {src_, dst_});
    ProcessResult r = RunProcess(argv, {}, "", 120);
    EXPECT_EQ(proxy.connections(), 1) << "the stream did not go through the proxy";
    return r;
  }

  std::string netns_;
  bool made_ = false;
  std::string src_;
  std::string dst_;
};

TEST_F(TamperTest, UntouchedCopyThroughTheProxyArrives) {
  ProcessResult r = CopyThrough(Tamper{});  // the set-up itself is sound
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src_, dst_));
}

TEST_F(TamperTest, FlippedPayloadByteFailsAuthenticationAndNothingIsPlaced) {
  Tamper flip;
  flip.flip_at = kHandshakeBytes + 10 * kSealedFrame + kFrameHeaderSize + 1000;
  ProcessResult r = CopyThrough(flip);
  EXPECT_EQ(r.exit_code, 12) << r.err;
  EXPECT_NE(r.err.find("data stream 0 from "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(kAltered), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dst_)) << "an altered copy must never appear under its final name";
}

TEST_F(TamperTest, ReplayedFrameFailsAuthenticationAndNothingIsPlaced) {
  Tamper replay;
  replay.copy_from = kHandshakeBytes + 3 * kSealedFrame;
  replay.copy_to = replay.copy_from + kSealedFrame;
  replay.insert_at = kHandshakeBytes + 8 * kSealedFrame;  // a whole, genuine, earlier frame
  ProcessResult r = CopyThrough(replay);
  EXPECT_EQ(r.exit_code, 12) << r.err;
  EXPECT_NE(r.err.find(kAltered), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dst_));
}

TEST_F(TamperTest, ClearFrameFlipIsCaughtOnlyByItsChecksum) {
  // Under --cipher none the checksum is no MAC: the same flip is caught only
  // because this proxy does not fix the checksum up, and the message says so.
  Tamper flip;
  constexpr std::uint64_t kClearFrame = kFrameHeaderSize + kBlock;
  flip.flip_at = kHandshakeBytes + 10 * kClearFrame + kFrameHeaderSize + 1000;
  ProcessResult r = CopyThrough(flip, {"--cipher", "none"});
  EXPECT_EQ(r.exit_code, 12) << r.err;
  EXPECT_NE(r.err.find("checksum mismatch"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kAltered), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dst_));
}

// ---------------------------------------------------------------------------
// (d) A far end of another protocol version.

/// `message` framed as on the control channel.
std::string Framed(const ControlMessage& message) {
  std::vector<std::uint8_t> body = EncodeMessage(message);
  std::string framed(4, '\0');
  for (int i = 0; i < 4; ++i) framed[i] = static_cast<char>(body.size() >> (24 - 8 * i));
  framed.append(body.begin(), body.end());
  return framed;
}

TEST_F(SealedTest, FarEndOfAnotherProtocolVersionIsRefusedNamingBoth) {
  // A fake `braid --serve` that answers Hello as a later braid would.
  const std::uint16_t later = kProtocolVersion + 1;
  std::string reply = dir + "/new-hello-reply";
  testing::WriteText(reply, Framed(HelloReply{later, "9.9.9", "new", ""}));
  std::string src = dir + "/src";
  WritePatternFile(src, 1000, 1);
  // The agent appends " --serve ..." to -T: those words go to `true`.
  ProcessResult r = RunBraid({"-T", "cat " + reply + "; sleep 1; true", src, Remote(dir + "/d")});
  EXPECT_EQ(r.exit_code, 10) << r.err;
  // One line: both versions and the fix.
  EXPECT_EQ(r.err, "braid: braidtest runs braid 9.9.9 (protocol " + std::to_string(later) +
                       "), this is braid " + BraidVersion() + " (protocol " +
                       std::to_string(kProtocolVersion) +
                       "): run again with --deploy to use this braid there, or give a matching "
                       "braid's path with -T\n");
  // A braid before protocol 6 cannot decode this Hello: it exits 1 unanswered.
  ProcessResult old_far =
      RunBraid({"-T", "head -c 4 >/dev/null; exit 1; true", src, Remote(dir + "/d")});
  EXPECT_EQ(old_far.exit_code, ExitCodeFor(ErrorCode::kPeerLost)) << old_far.err;
  EXPECT_NE(old_far.err.find("before it answered Hello, as a braid older than protocol 6 does: "
                             "run again with --deploy"),
            std::string::npos)
      << old_far.err;
  // A real server answers a later agent's Hello with its own versions...
  ProcessResult serve = RunProcess({BRAID_BINARY, "--serve"}, {{"SSH_CONNECTION", ""}},
                                   Framed(Hello{kControlMagic, later, "9.9.9", "x"}), 30);
  utsname node{};
  ::uname(&node);
  EXPECT_EQ(serve.out, Framed(HelloReply{kProtocolVersion, BraidVersion(), node.nodename, ""}));
  // ...and an older one's (no braid version in its Hello) with an Error naming both.
  ProcessResult old =
      RunProcess({BRAID_BINARY, "--serve"}, {}, Framed(Hello{kControlMagic, 2, "", ""}), 30);
  EXPECT_NE(old.out.find("protocol version 2 is not supported (this braid, " + BraidVersion() +
                         ", speaks " + std::to_string(kProtocolVersion) + ")"),
            std::string::npos);
}

}  // namespace
}  // namespace braid
