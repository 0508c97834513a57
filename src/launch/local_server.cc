#include "launch/local_server.h"

#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "launch/child_process.h"
#include "transport/fd_byte_stream.h"

namespace braid {
namespace {

/// The fd number the child finds its control stream on.
constexpr int kChildControlFd = 3;
constexpr const char* kPeer = "local braid --serve";

ChildSpec LocalServerSpec(const std::vector<std::string>& extra_args) {
  ChildSpec spec;
  spec.what = "a local server";
  spec.path = "/proc/self/exe";  // this same executable
  spec.argv = {"braid", "--serve", "--serve-fd", std::to_string(kChildControlFd)};
  spec.argv.insert(spec.argv.end(), extra_args.begin(), extra_args.end());
  spec.control_fd = kChildControlFd;
  return spec;
}

/// Thread-safe as ByteStream asks (one reader, writers, Abandon from another
/// thread): the stream and the child are, and there is no other state.
class LocalServerChannel : public ServerChannel {
 public:
  explicit LocalServerChannel(const std::vector<std::string>& extra_args)
      : child_(LocalServerSpec(extra_args)), stream_(child_.TakeControl(), {kPeer, kPeer}) {}
  ~LocalServerChannel() override {
    stream_.Close();  // the child sees end of stream and exits
    child_.Wait();
  }
  LocalServerChannel(const LocalServerChannel&) = delete;
  LocalServerChannel& operator=(const LocalServerChannel&) = delete;

  std::size_t ReadSome(void* buf, std::size_t n) override { return stream_.ReadSome(buf, n); }
  void WriteAll(const void* buf, std::size_t n) override { stream_.WriteAll(buf, n); }
  void CloseWrite() override { stream_.CloseWrite(); }
  std::string host() const override { return "localhost"; }
  std::optional<int> ExitStatus() override { return child_.Wait(); }
  std::string LocalAddress() const override { return "127.0.0.1"; }
  void Abandon() override {
    // A stopped child dies of SIGKILL too.
    if (!child_.Signal(SIGKILL)) {
      std::fprintf(stderr, "braid: cannot stop the local braid --serve: %s\n",
                   std::strerror(errno));
    }
    stream_.Shutdown();
  }

 private:
  ChildProcess child_;   ///< declared first: the stream takes its socket
  FdByteStream stream_;  ///< owns our end of the socketpair
};

}  // namespace

std::unique_ptr<ServerChannel> SpawnLocalServer(const std::vector<std::string>& extra_args) {
  return std::make_unique<LocalServerChannel>(extra_args);
}

}  // namespace braid
