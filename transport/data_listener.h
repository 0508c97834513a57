#pragma once
/// Accepts data connections and authenticates each with the session secret
/// (security/crypto/stream_handshake.h). Strangers, slow talkers, wrong secrets and
/// surplus connections are closed without touching the transfer.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "braid/cipher.h"
#include "security/crypto/session_secret.h"
#include "transport/authenticated_stream.h"
#include "transport/socket_tuning.h"

namespace braid {

class DataListener {
 public:
  /// Binds `address` (numeric) on an ephemeral port, or on a free port in
  /// [port_min, port_max] when given (-Z, for firewalls that open a range);
  /// when every port of the range is busy, waits for one, at most kPortWait.
  /// Throws BraidError(kDataConnect) naming the address (and range) when it cannot.
  DataListener(const std::string& address, const SocketTuning& tuning, std::uint16_t port_min = 0,
               std::uint16_t port_max = 0);
  ~DataListener();
  DataListener(const DataListener&) = delete;
  DataListener& operator=(const DataListener&) = delete;

  /// How long a listener waits for a port of a busy -Z range.
  static constexpr std::chrono::seconds kPortWait{60};

  std::uint16_t port() const;
  const std::string& address() const { return address_; }

  /// Accepts until `limit` streams are authenticated, `deadline` passes or
  /// Stop() is called; `on_stream` gets each stream as it is authenticated,
  /// with its keys under `cipher` (none for kNone).
  /// The listening socket is closed when this returns.
  void Run(const Secret& secret, const SessionId& session, std::uint16_t limit, Cipher cipher,
           std::chrono::steady_clock::duration deadline,
           const std::function<void(AuthenticatedStream)>& on_stream);
  /// Ends Run() early; safe from any thread.
  void Stop();
  /// Connections closed because they failed or were surplus.
  int rejected() const { return rejected_.load(); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string address_;
  std::atomic<int> rejected_{0};
};

}  // namespace braid
