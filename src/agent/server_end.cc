#include "agent/server_end.h"

#include <cstdio>

#include "launch/local_server.h"
#include "launch/ssh_command_server.h"
#include "security/ssh/ssh_connection.h"

namespace braid {
ServerEnd::ServerEnd(Side side, const Endpoint& endpoint, const Options& options,
                     BlockingQueue<AgentEvent>& events)
    : side_(side), label_(endpoint.host), events_(events) {
  auto print_stderr = [](const std::string& host, std::string_view text) {
    std::fprintf(stderr, "%s: %.*s", host.c_str(), static_cast<int>(text.size()), text.data());
    if (!text.empty() && text.back() != '\n') std::fputc('\n', stderr);
  };
  if (endpoint.is_remote() && !options.ssh_command.empty()) {
    // -S: the user's own ssh client, with everything in their ssh setup.
    command_ = options.remote_command + " --serve";
    channel_ = SpawnSshCommand({options.ssh_command, endpoint.host, endpoint.user, options.ssh_port,
                                options.identity_files, options.accept_new_host_key, command_},
                               print_stderr);
  } else if (endpoint.is_remote()) {
    SshTarget target;
    target.host = endpoint.host;
    target.user = endpoint.user;
    target.port = options.ssh_port;
    target.identity_files = options.identity_files;
    target.accept_new_host_key = options.accept_new_host_key;
    ssh_ = SshConnection::Open(target);
    // -T is a command line the user wrote for the remote shell, used as is.
    command_ = options.remote_command + " --serve";
    channel_ = ssh_->Exec(command_, print_stderr);
  } else {
    command_ = "braid --serve";
    channel_ = SpawnLocalServer();
  }
  control_ = std::make_unique<ControlChannel>(*channel_);
  Hello hello;
  hello.label = label_;
  std::optional<ControlMessage> reply;
  try {
    control_->Send(hello);  // fails if an ssh client already gave up
    reply = control_->Receive();
  } catch (const BraidError& e) {
    if (e.code() != ErrorCode::kProtocol) throw DescribeEnd();
    throw BraidError(ErrorCode::kProtocol, (label_.empty() ? std::string("local server") : label_) +
                                               " did not answer like braid --serve (" + e.what() +
                                               "); check -T");
  }
  if (!reply) throw DescribeEnd();
  if (auto* err = std::get_if<ErrorMessage>(&*reply)) throw BraidError(err->code, err->message);
  auto* hr = std::get_if<HelloReply>(&*reply);
  if (hr != nullptr && hr->version != kProtocolVersion) {
    throw BraidError(ErrorCode::kProtocol,
                     (label_.empty() ? std::string("local server") : label_) +
                         " speaks braid protocol version " + std::to_string(hr->version) +
                         "; this braid speaks " + std::to_string(kProtocolVersion) +
                         "; install matching versions");
  }
  if (hr == nullptr) {
    throw BraidError(ErrorCode::kProtocol,
                     "protocol error: " + (label_.empty() ? std::string("local server") : label_) +
                         " did not answer like braid --serve (check -T)");
  }
  hello_ = *hr;
  reader_ = std::thread([this] { ReadLoop(); });
}

ServerEnd::~ServerEnd() {
  if (!closed_) Close(std::string("agent exiting"));
}

BraidError ServerEnd::DescribeEnd() {
  if (std::optional<BraidError> why = channel_->DescribeFailure()) return *why;
  std::optional<int> status = channel_->ExitStatus();
  std::string where = label_.empty() ? std::string("this host") : label_;
  if (status && *status == 127) {
    return BraidError(ErrorCode::kRemoteMissing,
                      "braid was not found on " + where + " (ran '" + command_ +
                          "'); install braid there or give its path with -T /path/to/braid");
  }
  return BraidError(ErrorCode::kPeerLost,
                    "braid --serve on " + where + " ended unexpectedly" +
                        (status ? " (exit status " + std::to_string(*status) + ")" : ""));
}

void ServerEnd::ReadLoop() {
  for (;;) {
    AgentEvent event;
    event.side = side_;
    try {
      event.message = control_->Receive();
    } catch (const BraidError& e) {
      event.error = e;
    }
    bool end = !event.message;
    events_.Push(std::move(event));
    if (end) break;
  }
  std::lock_guard lock(reader_mu_);
  reader_done_ = true;
  reader_cv_.notify_all();
}

void ServerEnd::Send(const ControlMessage& message) {
  try {
    control_->Send(message);
  } catch (const BraidError& e) {
    events_.Push(AgentEvent{side_, std::nullopt, e});
  }
}

void ServerEnd::Close(const std::optional<std::string>& abort_reason,
                      std::chrono::milliseconds grace) {
  closed_ = true;
  try {
    if (abort_reason) {
      control_->Send(Abort{*abort_reason});
    } else {
      control_->Send(Bye{});
    }
    channel_->CloseWrite();
  } catch (const BraidError&) {
    // Already gone: nothing to tell it.
  }
  if (reader_.joinable()) {
    std::unique_lock lock(reader_mu_);
    if (!reader_cv_.wait_for(lock, grace, [this] { return reader_done_; })) {
      lock.unlock();
      channel_->Abandon();
    }
  }
  if (reader_.joinable()) reader_.join();
  channel_->ExitStatus();
}

std::string ServerEnd::local_address() const {
  std::string address = channel_->LocalAddress();
  // -S: ssh's socket is not ours to ask, so take our route to the address the
  // far end says it was reached on.
  if (address.empty() && !hello_.ssh_address.empty()) {
    address = LocalAddressToward(hello_.ssh_address);
  }
  return address;
}

}  // namespace braid
