#include "engine/server_end.h"

#include <cstdio>

#include "engine/local_server.h"
#include "security/ssh_connection.h"

namespace braid {
ServerEnd::ServerEnd(Side side, const Endpoint& endpoint, const Options& options,
                     BlockingQueue<AgentEvent>& events)
    : side_(side), label_(endpoint.host), events_(events) {
  if (endpoint.is_remote()) {
    SshTarget target;
    target.host = endpoint.host;
    target.user = endpoint.user;
    target.port = options.ssh_port;
    target.identity_files = options.identity_files;
    target.accept_new_host_key = options.accept_new_host_key;
    ssh_ = SshConnection::Open(target);
    // -T is a command line the user wrote for the remote shell, used as is.
    command_ = options.remote_command + " --serve";
    channel_ = ssh_->Exec(command_, [](const std::string& host, std::string_view text) {
      std::fprintf(stderr, "%s: %.*s", host.c_str(), static_cast<int>(text.size()), text.data());
      if (!text.empty() && text.back() != '\n') std::fputc('\n', stderr);
    });
  } else {
    command_ = "braid --serve";
    channel_ = SpawnLocalServer();
  }
  control_ = std::make_unique<ControlChannel>(*channel_);
  Hello hello;
  hello.label = label_;
  control_->Send(hello);
  std::optional<ControlMessage> reply;
  try {
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
  if (hr == nullptr || hr->version != kProtocolVersion) {
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
    if (end) return;
  }
}

void ServerEnd::Send(const ControlMessage& message) {
  try {
    control_->Send(message);
  } catch (const BraidError& e) {
    events_.Push(AgentEvent{side_, std::nullopt, e});
  }
}

void ServerEnd::Close(const std::optional<std::string>& abort_reason) {
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
  if (reader_.joinable()) reader_.join();
  channel_->ExitStatus();
}

std::string ServerEnd::local_address() const { return channel_->LocalAddress(); }

}  // namespace braid
