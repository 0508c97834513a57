#include "session/stream_setup.h"

#include <condition_variable>
#include <thread>

#include "braid/mutex.h"
#include "transport/data_connector.h"

namespace braid {
namespace {

/// Per attempt; every stream tries every address within it.
constexpr auto kConnectTimeout = std::chrono::seconds(15);

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// What to try when no stream got through: the listening end (the sink, or
/// the source with -z) is the one a firewall may be guarding.
std::string FirewallHint(const TransferParams& p) {
  return p.reverse ? "the source's host may refuse inbound connections: try without -z, or "
                     "-Z A:B for ports its firewall opens"
                   : "the sink's host may refuse inbound connections: try -z (the source "
                     "listens instead) or -Z A:B (ports its firewall opens)";
}

/// What AcceptStreams' watchdog thread and the listener's callback share.
struct AcceptWatch {
  Mutex mutex;
  std::condition_variable cv;  ///< signals `done`
  std::size_t accepted BRAID_GUARDED_BY(mutex) = 0;
  std::chrono::steady_clock::time_point last BRAID_GUARDED_BY(mutex) =
      std::chrono::steady_clock::now();
  bool done BRAID_GUARDED_BY(mutex) = false;
};

}  // namespace

SocketTuning TuningFor(const TransferParams& p) {
  return SocketTuning{.window = p.window, .tos = p.tos, .congestion_control = p.congestion_control};
}

std::vector<AuthenticatedStream> ConnectStreams(
    const std::vector<std::string>& addresses, std::uint16_t port, const TransferParams& p,
    const std::function<void(const std::string&)>& warn) {
  ConnectResult connected = ConnectDataStreams(addresses, port, p.secret, p.session, p.streams,
                                               p.cipher, TuningFor(p), kConnectTimeout);
  if (connected.streams.empty()) {
    throw BraidError(ErrorCode::kDataConnect, "no data stream could connect to " + Join(addresses) +
                                                  " port " + std::to_string(port) + " (" +
                                                  connected.last_error + "); " + FirewallHint(p));
  }
  if (connected.streams.size() < p.streams) {
    warn("only " + std::to_string(connected.streams.size()) + " of " + std::to_string(p.streams) +
         " data streams connected (" + connected.last_error + "); continuing with those");
  }
  return std::move(connected.streams);
}

void AcceptStreams(DataListener& listener, const TransferParams& p,
                   std::chrono::steady_clock::duration deadline,
                   std::chrono::steady_clock::duration idle,
                   const std::function<void(AuthenticatedStream)>& on_stream,
                   const std::function<bool()>& stop) {
  const std::uint16_t port = listener.port();  // the socket closes when Run returns
  AcceptWatch watch;
  // The connector tries all its streams at once; once it has stopped sending
  // new ones for a while, the rest are not coming.
  std::thread watchdog([&] {
    MutexLock lock(watch.mutex);
    while (!watch.done) {
      watch.cv.wait_for(lock.native(), std::chrono::milliseconds(100));
      bool idle_out = watch.accepted > 0 && std::chrono::steady_clock::now() - watch.last > idle;
      if (idle_out || stop()) listener.Stop();
    }
  });
  listener.Run(p.secret, p.session, p.streams, p.cipher, deadline, [&](AuthenticatedStream s) {
    {
      MutexLock lock(watch.mutex);
      ++watch.accepted;
      watch.last = std::chrono::steady_clock::now();
    }
    on_stream(std::move(s));
  });
  std::size_t accepted = 0;
  {
    MutexLock lock(watch.mutex);
    watch.done = true;
    accepted = watch.accepted;
  }
  watch.cv.notify_all();
  watchdog.join();
  if (accepted == 0 && !stop()) {
    throw BraidError(ErrorCode::kDataConnect, "no data stream connected to " + listener.address() +
                                                  " port " + std::to_string(port) +
                                                  " within the time allowed; " + FirewallHint(p));
  }
}

}  // namespace braid
