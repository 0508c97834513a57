#include "support/sshd_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/loopback.h"
#include "support/process_runner.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSshd = "/usr/sbin/sshd";  // sshd insists on an absolute path
constexpr int kStartAttempts = 5;
constexpr auto kStartTimeout = std::chrono::seconds(10);

void WriteFile(const std::string& path, const std::string& text, mode_t mode = 0600) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    throw std::runtime_error("sshd fixture: cannot write " + path);
  }
  ::chmod(path.c_str(), mode);
}

std::string Lines(std::initializer_list<std::string> lines) {
  std::string out;
  for (const std::string& line : lines) {
    out += line + "\n";
  }
  return out;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

/// "ssh-ed25519 AAAA..." without the comment.
std::string KeyTypeAndBlob(const std::string& pub_line) {
  std::istringstream in(pub_line);
  std::string type;
  std::string blob;
  in >> type >> blob;
  return type + " " + blob;
}

void GenerateKey(const std::string& path, const std::string& comment,
                 const std::string& type = "ed25519") {
  const ProcessResult r =
      RunProcess({"ssh-keygen", "-q", "-t", type, "-N", "", "-C", comment, "-f", path});
  if (r.exit_code != 0) {
    throw std::runtime_error("sshd fixture: ssh-keygen failed: " + r.err);
  }
}

/// True once something on the port speaks SSH.
bool SshBannerOn(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return false;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    pollfd pfd{fd, POLLIN, 0};
    char banner[8] = {};
    ok = ::poll(&pfd, 1, 2000) == 1 && ::read(fd, banner, sizeof(banner)) == 8 &&
         std::string(banner, 8) == "SSH-2.0-";
  }
  ::close(fd);
  return ok;
}

std::string BraidBinaryDir() {
#ifdef BRAID_BINARY
  return fs::path(BRAID_BINARY).parent_path().string();
#else
  return "/usr/local/bin";
#endif
}

SshdFixture* g_instance = nullptr;

}  // namespace

SshdFixture& SshdFixture::Get() {
  static SshdFixture* instance = [] {
    auto* f = new SshdFixture();  // lives to process exit; the atexit hook tears it down
    f->Start();
    g_instance = f;
    std::atexit([] { g_instance->Stop(); });
    return f;
  }();
  return *instance;
}

void SshdFixture::Start() {
  owner_pid_ = ::getpid();
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/braid-sshd-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    throw std::runtime_error("sshd fixture: mkdtemp " + tmpl + " failed");
  }
  root_ = tmpl;
  home_ = root_ + "/home";
  fs::create_directories(home_ + "/.ssh");
  fs::create_directories(root_ + "/scratch");
  ::chmod((home_ + "/.ssh").c_str(), 0700);

  passwd* pw = ::getpwuid(::getuid());
  if (pw == nullptr) {
    throw std::runtime_error("sshd fixture: the current user has no passwd entry");
  }
  user_ = pw->pw_name;

  GenerateKey(root_ + "/ssh_host_ed25519_key", "braid-test-host");
  // A second host key type, as real servers have: the client must ask for the
  // type known_hosts holds rather than take the first one offered.
  GenerateKey(root_ + "/ssh_host_ecdsa_key", "braid-test-host", "ecdsa");
  GenerateKey(client_key(), "braid-test-user");
  host_public_key_ = KeyTypeAndBlob(ReadWhole(root_ + "/ssh_host_ed25519_key.pub"));
  WriteFile(root_ + "/authorized_keys", "environment=\"PATH=" + BraidBinaryDir() +
                                            ":/usr/local/bin:/usr/bin:/bin\" " +
                                            Trim(ReadWhole(client_key() + ".pub")) + "\n");
  if (::mkdir("/run/sshd", 0755) != 0 && errno != EEXIST) {
    throw std::runtime_error("sshd fixture: cannot create /run/sshd (privilege separation dir)");
  }

  std::string why;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    if (TryStartOn(UnusedLoopbackPort(), why)) {
      return;
    }
  }
  throw std::runtime_error("sshd fixture: sshd did not start: " + why);
}

bool SshdFixture::TryStartOn(int port, std::string& why) {
  port_ = port;
  const std::string cfg = root_ + "/sshd_config";
  const std::string log = root_ + "/sshd.log";
  const std::string early = root_ + "/sshd.stderr";
  const std::string p = std::to_string(port);
  WriteFile(
      cfg,
      Lines({"Port " + p, "ListenAddress 127.0.0.1", "HostKey " + root_ + "/ssh_host_ed25519_key",
             "HostKey " + root_ + "/ssh_host_ecdsa_key", "PidFile " + root_ + "/sshd.pid",
             "AuthorizedKeysFile " + root_ + "/authorized_keys", "UsePAM no", "StrictModes no",
             "PermitRootLogin yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
             "PubkeyAuthentication yes", "PermitUserEnvironment PATH", "MaxStartups 100:30:200",
             "MaxSessions 100", "PrintMotd no", "X11Forwarding no", "LogLevel ERROR"}));
  WriteFile(home_ + "/.ssh/known_hosts",
            Lines({"[127.0.0.1]:" + p + " " + host_public_key_,
                   "[" + alias() + "]:" + p + " " + host_public_key_}));
  // Full paths, so `ssh -F <home>/.ssh/config braidtest` works too (ssh ignores $HOME).
  WriteFile(home_ + "/.ssh/config",
            Lines({"Host " + alias(), "  HostName 127.0.0.1", "  Port " + p, "  User " + user_,
                   "  IdentityFile " + client_key(), "  IdentitiesOnly yes",
                   "  UserKnownHostsFile " + home_ + "/.ssh/known_hosts",
                   "  StrictHostKeyChecking yes", "  BatchMode yes"}));
  ::unlink(log.c_str());

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw std::runtime_error("sshd fixture: fork failed");
  }
  if (pid == 0) {
    // sshd must not outlive a crashed or killed test binary.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) {
      ::_exit(1);
    }
    const int null_fd = ::open("/dev/null", O_RDWR);
    const int err_fd = ::open(early.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(err_fd, 2);
    ::execl(kSshd, kSshd, "-D", "-f", cfg.c_str(), "-E", log.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  sshd_pid_ = pid;
  const Clock::time_point deadline = Clock::now() + kStartTimeout;
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      sshd_pid_ = -1;
      why = "sshd exited (status " + std::to_string(status) + "): " + ReadWhole(early) +
            ReadWhole(log);
      return false;  // most likely lost the port race; try another
    }
    if (SshBannerOn(port)) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  sshd_pid_ = -1;
  why = "port " + std::to_string(port) + " did not answer within 10 s: " + ReadWhole(early) +
        ReadWhole(log);
  return false;
}

void SshdFixture::Stop() {
  if (::getpid() != owner_pid_) {
    return;  // a forked child exiting must not stop it
  }
  if (sshd_pid_ > 0) {
    ::kill(sshd_pid_, SIGTERM);
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(3);
    bool reaped = false;
    while (!reaped && Clock::now() < deadline) {
      reaped = ::waitpid(sshd_pid_, nullptr, WNOHANG) == sshd_pid_;
      if (!reaped) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (!reaped) {
      ::kill(sshd_pid_, SIGKILL);
      ::waitpid(sshd_pid_, nullptr, 0);
    }
    sshd_pid_ = -1;
  }
  std::error_code ec;
  if (!root_.empty()) {
    fs::remove_all(root_, ec);
  }
}

std::string SshdFixture::NewDir(const std::string& stem) {
  std::string safe;
  for (char c : stem) {
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '.') ? c : '_';
  }
  std::string dir = root_ + "/scratch/" + safe + "-" + std::to_string(++next_dir_);
  fs::create_directories(dir);
  return dir;
}

std::string SshdFixture::scratch_dir() {
  std::lock_guard<std::mutex> lock(mu_);
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test =
      info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "global";
  auto it = scratch_by_test_.find(test);
  if (it != scratch_by_test_.end()) {
    return it->second;
  }
  std::string dir = NewDir(test);
  scratch_by_test_[test] = dir;
  return dir;
}

std::string SshdFixture::CloneHome() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string dir = NewDir("home");
  fs::copy(home_ + "/.ssh", dir + "/.ssh", fs::copy_options::recursive);
  ::chmod((dir + "/.ssh").c_str(), 0700);
  // The config names its key and known_hosts by full path (for ssh -F); point
  // those at the clone, so a test's edits there are the ones braid reads.
  std::string config = ReadWhole(dir + "/.ssh/config");
  for (std::size_t at = config.find(home_); at != std::string::npos;
       at = config.find(home_, at + dir.size())) {
    config.replace(at, home_.size(), dir);
  }
  WriteFile(dir + "/.ssh/config", config);
  return dir;
}

std::string SshdFixture::ReadLog() const { return ReadWhole(root_ + "/sshd.log"); }

}  // namespace braid::testing
