#include "transport/data_connector.h"

#include <boost/asio.hpp>

#include <array>
#include <memory>

#include "braid/error.h"
#include "security/crypto/stream_handshake.h"

namespace braid {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

/// One stream: try each address in turn, then authenticate.
class ConnectAttempt : public std::enable_shared_from_this<ConnectAttempt> {
 public:
  ConnectAttempt(asio::io_context& io, const std::vector<std::string>& addresses,
                 std::uint16_t port, const Secret& secret, const SessionId& session,
                 std::uint16_t index, Cipher cipher, const SocketTuning& tuning,
                 std::chrono::steady_clock::duration timeout, ConnectResult& result)
      : socket_(io),
        timer_(io),
        addresses_(addresses),
        port_(port),
        index_(index),
        cipher_(cipher),
        tuning_(tuning),
        timeout_(timeout),
        result_(result),
        handshake_(secret, session, index, RandomArray<kNonceSize>()) {}

  void Start() { TryNext(); }

 private:
  std::string Where() const { return addresses_[next_ - 1] + " port " + std::to_string(port_); }

  void Fail(const std::string& why) {
    result_.last_error = why;
    timer_.cancel();
    boost::system::error_code ignored;
    socket_.close(ignored);
    TryNext();
  }

  void TryNext() {
    if (next_ >= addresses_.size()) return;  // out of addresses: this stream failed
    const std::string& text = addresses_[next_++];
    boost::system::error_code ec;
    auto addr = asio::ip::make_address(text, ec);
    if (ec) return Fail("'" + text + "' is not a numeric address");
    tcp::endpoint endpoint(addr, port_);
    socket_.open(endpoint.protocol(), ec);
    if (ec) return Fail("socket: " + ec.message());
    // Before connect, so the SYN is marked and the window scale covers the buffers.
    try {
      ApplySocketTuning(socket_.native_handle(), tuning_);
    } catch (const BraidError& e) {
      return Fail(e.what());
    }
    timed_out_ = false;
    auto self = shared_from_this();
    timer_.expires_after(timeout_);
    timer_.async_wait([self](boost::system::error_code tec) {
      if (tec) return;
      self->timed_out_ = true;
      boost::system::error_code ignored;
      self->socket_.close(ignored);
    });
    socket_.async_connect(endpoint, [self](boost::system::error_code cec) {
      if (cec) return self->Fail(self->Describe("connect to", cec));
      self->SendHello();
    });
  }

  std::string Describe(const std::string& step, boost::system::error_code ec) const {
    return step + " " + Where() + ": " + (timed_out_ ? std::string("timed out") : ec.message());
  }

  void SendHello() {
    hello_ = handshake_.Hello();
    auto self = shared_from_this();
    asio::async_write(
        socket_, asio::buffer(hello_), [self](boost::system::error_code ec, std::size_t) {
          if (ec) return self->Fail(self->Describe("handshake with", ec));
          asio::async_read(self->socket_, asio::buffer(self->challenge_),
                           [self](boost::system::error_code ec2, std::size_t) {
                             if (ec2) return self->Fail(self->Describe("handshake with", ec2));
                             self->SendProof();
                           });
        });
  }

  void SendProof() {
    try {
      proof_ = handshake_.OnChallenge(challenge_);
    } catch (const BraidError& e) {
      return Fail(std::string(e.what()) + " at " + Where());
    }
    auto self = shared_from_this();
    asio::async_write(
        socket_, asio::buffer(proof_), [self](boost::system::error_code ec, std::size_t) {
          if (ec) return self->Fail(self->Describe("handshake with", ec));
          asio::async_read(self->socket_, asio::buffer(&self->accept_, 1),
                           [self](boost::system::error_code ec2, std::size_t) {
                             if (ec2) return self->Fail(self->Describe("stream refused by", ec2));
                             if (self->accept_ != kAcceptByte) {
                               return self->Fail("stream refused by " + self->Where());
                             }
                             self->Done();
                           });
        });
  }

  void Done() {
    timer_.cancel();
    AuthenticatedStream stream;
    stream.index = index_;
    stream.peer = Where();
    stream.fd = UniqueFd(socket_.release());
    if (cipher_ != Cipher::kNone) stream.keys = handshake_.Keys(cipher_);
    result_.streams.push_back(std::move(stream));
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  const std::vector<std::string>& addresses_;
  std::uint16_t port_;
  std::uint16_t index_;
  Cipher cipher_;
  SocketTuning tuning_;
  std::chrono::steady_clock::duration timeout_;
  ConnectResult& result_;
  HandshakeConnector handshake_;
  std::size_t next_ = 0;
  bool timed_out_ = false;
  std::vector<std::uint8_t> hello_;
  std::array<std::uint8_t, kChallengeSize> challenge_{};
  std::vector<std::uint8_t> proof_;
  std::uint8_t accept_ = 0;
};

}  // namespace

ConnectResult ConnectDataStreams(const std::vector<std::string>& addresses, std::uint16_t port,
                                 const Secret& secret, const SessionId& session,
                                 std::uint16_t count, Cipher cipher, const SocketTuning& tuning,
                                 std::chrono::steady_clock::duration timeout) {
  ConnectResult result;
  asio::io_context io{1};
  for (std::uint16_t i = 0; i < count; ++i) {
    std::make_shared<ConnectAttempt>(io, addresses, port, secret, session, i, cipher, tuning,
                                     timeout, result)
        ->Start();
  }
  io.run();
  return result;
}

}  // namespace braid
