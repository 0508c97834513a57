#include "transport/data_listener.h"

#include <boost/asio.hpp>

#include <array>
#include <random>
#include <thread>
#include <vector>

#include "braid/error.h"
#include "security/crypto/stream_handshake.h"

namespace braid {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

/// A stranger gets this long to finish the handshake before it is dropped.
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);

/// State shared by the accept loop and its handshakes; all on one io thread.
struct AcceptState {
  const Secret& secret;
  const SessionId& session;
  std::uint16_t limit;
  Cipher cipher;
  const std::function<void(AuthenticatedStream)>& on_stream;
  std::atomic<int>& rejected;
  tcp::acceptor& acceptor;
  asio::io_context& io;
  const SocketTuning& tuning;
  std::vector<bool> taken;
  std::uint16_t delivered = 0;

  void Reject() { rejected.fetch_add(1); }
  void Finish() {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    io.stop();
  }
};

class ListenerHandshake : public std::enable_shared_from_this<ListenerHandshake> {
 public:
  ListenerHandshake(tcp::socket socket, AcceptState& state)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        state_(state),
        handshake_(state.secret, state.session, state.limit, RandomArray<kNonceSize>()) {}

  void Start() {
    auto self = shared_from_this();
    timer_.expires_after(kHandshakeTimeout);
    timer_.async_wait([self](boost::system::error_code ec) {
      if (!ec) self->Close();
    });
    asio::async_read(socket_, asio::buffer(hello_),
                     [self](boost::system::error_code ec, std::size_t) { self->OnHello(ec); });
  }

 private:
  void Close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }
  void Reject() {
    state_.Reject();  // counted before the peer can see the close
    timer_.cancel();
    Close();
  }

  void OnHello(boost::system::error_code ec) {
    if (ec) return Reject();
    try {
      challenge_ = handshake_.OnHello(hello_);
    } catch (const BraidError&) {
      return Reject();
    }
    auto self = shared_from_this();
    asio::async_write(
        socket_, asio::buffer(challenge_), [self](boost::system::error_code ec2, std::size_t) {
          if (ec2) return self->Reject();
          asio::async_read(
              self->socket_, asio::buffer(self->proof_),
              [self](boost::system::error_code ec3, std::size_t) { self->OnProof(ec3); });
        });
  }

  void OnProof(boost::system::error_code ec) {
    if (ec) return Reject();
    std::uint16_t index = 0;
    try {
      index = handshake_.OnProof(proof_);
    } catch (const BraidError&) {
      return Reject();
    }
    // A second connection for a stream already in is surplus, even if genuine.
    if (state_.delivered >= state_.limit || state_.taken[index]) return Reject();
    state_.taken[index] = true;
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(&kAcceptByte, 1),
                      [self, index](boost::system::error_code ec2, std::size_t) {
                        self->OnAccepted(ec2, index);
                      });
  }

  void OnAccepted(boost::system::error_code ec, std::uint16_t index) {
    if (ec) {
      state_.taken[index] = false;
      return Reject();
    }
    timer_.cancel();
    boost::system::error_code peer_ec;
    auto peer = socket_.remote_endpoint(peer_ec);
    AuthenticatedStream stream;
    stream.index = index;
    stream.peer =
        peer_ec ? std::string("?") : peer.address().to_string() + ":" + std::to_string(peer.port());
    stream.fd = UniqueFd(socket_.release());
    if (state_.cipher != Cipher::kNone) stream.keys = handshake_.Keys(state_.cipher);
    state_.on_stream(std::move(stream));
    if (++state_.delivered == state_.limit) state_.Finish();
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  AcceptState& state_;
  HandshakeListener handshake_;
  std::array<std::uint8_t, kHelloSize> hello_{};
  std::vector<std::uint8_t> challenge_;
  std::array<std::uint8_t, kProofSize> proof_{};
};

void AcceptLoop(AcceptState& state) {
  state.acceptor.async_accept([&state](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !state.acceptor.is_open()) return;
    if (!ec) {
      // Linux copies TOS and congestion control from the listener, but not every
      // kernel does; setting them again costs two system calls per stream.
      ApplySocketTuning(socket.native_handle(), state.tuning);
      std::make_shared<ListenerHandshake>(std::move(socket), state)->Start();
    }
    AcceptLoop(state);
  });
}

/// Binds `acceptor` to a free port of [port_min, port_max], waiting for one
/// while they are all busy, at most DataListener::kPortWait.
void BindInRange(tcp::acceptor& acceptor, tcp::endpoint endpoint, std::uint16_t port_min,
                 std::uint16_t port_max, const std::string& address) {
  // The streams a listener accepted keep its port after it closes; with
  // SO_REUSEADDR another copy may listen there then, so a range is busy only
  // while copies are setting up their streams at the same moment.
  boost::system::error_code ec;
  acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  std::minstd_rand random(std::random_device{}());
  const std::uint32_t span = std::uint32_t{port_max} - port_min + 1;
  const auto give_up = std::chrono::steady_clock::now() + DataListener::kPortWait;
  for (;;) {
    // Start at a random port of the range, so transfers that start together
    // do not all race for its first port.
    const auto start = static_cast<std::uint32_t>(random() % span);
    for (std::uint32_t i = 0; i < span; ++i) {
      endpoint.port(static_cast<std::uint16_t>(port_min + (start + i) % span));
      acceptor.bind(endpoint, ec);
      if (!ec) return;
      if (ec != boost::asio::error::address_in_use) break;  // not a busy port: waiting won't help
    }
    if (ec != boost::asio::error::address_in_use || std::chrono::steady_clock::now() >= give_up) {
      throw BraidError(ErrorCode::kDataConnect,
                       "no free port in " + std::to_string(port_min) + ":" +
                           std::to_string(port_max) + " to listen for data on " + address + " (" +
                           ec.message() +
                           (ec == boost::asio::error::address_in_use ? ", for 60 s" : "") + ")");
    }
    // Every port is another copy's for now: wait a little, then look again.
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + random() % 200));
  }
}

}  // namespace

/// Used only by the thread that owns the DataListener: Accept runs the io
/// context on that thread, so nothing here is shared.
struct DataListener::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  SocketTuning tuning;
};

DataListener::DataListener(const std::string& address, const SocketTuning& tuning,
                           std::uint16_t port_min, std::uint16_t port_max)
    : impl_(std::make_unique<Impl>()), address_(address) {
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(address, ec);
  if (ec) {
    throw BraidError(ErrorCode::kDataConnect,
                     "cannot listen for data on '" + address + "': not a numeric address");
  }
  tcp::endpoint endpoint(addr, 0);
  auto fail = [&](const char* step) {
    throw BraidError(ErrorCode::kDataConnect, std::string("cannot listen for data on ") + address +
                                                  " (" + step + "): " + ec.message());
  };
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (ec) fail("socket");
  impl_->tuning = tuning;
  // Before listen, so the SYN-ACK is marked and the window scale covers the buffers.
  ApplySocketTuning(impl_->acceptor.native_handle(), tuning);
  if (port_min == 0) {
    impl_->acceptor.bind(endpoint, ec);
    if (ec) fail("bind");
  } else {
    BindInRange(impl_->acceptor, endpoint, port_min, port_max, address);
  }
  impl_->acceptor.listen(128, ec);
  if (ec) fail("listen");
}

DataListener::~DataListener() = default;

std::uint16_t DataListener::port() const {
  boost::system::error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

void DataListener::Run(const Secret& secret, const SessionId& session, std::uint16_t limit,
                       Cipher cipher, std::chrono::steady_clock::duration deadline,
                       const std::function<void(AuthenticatedStream)>& on_stream) {
  AcceptState state{
      secret,    session,         limit,     cipher,        on_stream,
      rejected_, impl_->acceptor, impl_->io, impl_->tuning, std::vector<bool>(limit, false)};
  asio::steady_timer timer(impl_->io);
  timer.expires_after(deadline);
  timer.async_wait([&state](boost::system::error_code ec) {
    if (!ec) state.Finish();
  });
  AcceptLoop(state);
  impl_->io.run();
  boost::system::error_code ignored;
  impl_->acceptor.close(ignored);
}

void DataListener::Stop() {
  asio::post(impl_->io, [this] {
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->io.stop();
  });
}

}  // namespace braid
