#include "agent/server_end.h"

#include <algorithm>
#include <cstdio>

#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "launch/ssh_command_server.h"

namespace braid {
ServerEnd::ServerEnd(Side side, const Endpoint& endpoint, const Options& options,
                     ServerLauncher& launcher, BlockingQueue<AgentEvent>& events)
    : side_(side),
      label_(endpoint.host),
      connect_timeout_s_(options.connect_timeout_seconds()),
      events_(&events) {
  auto print_stderr = [](const std::string& host, std::string_view text) {
    WritePeerText(stderr, host, text);
  };
  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout_ms();
  LaunchedServer launched = launcher.Launch(side, endpoint, options, print_stderr);
  channel_ = std::move(launched.channel);
  command_ = std::move(launched.command);
  control_ = std::make_unique<ControlChannel>(*channel_);
  reader_ = std::thread([this] { ReadLoop(); });
  try {
    Greet(deadline);
  } catch (const BraidError&) {
    StopHoldingBack();
    channel_->Abandon();
    reader_.join();
    throw;
  }
  if (options.verbose > 0 && is_remote()) {
    PrintLine(stderr, "braid: %s runs braid %s (protocol %u)", label_.c_str(),
              hello_.braid_version.c_str(), static_cast<unsigned>(hello_.version));
  }
}

void ServerEnd::Greet(std::chrono::steady_clock::time_point deadline) {
  Hello hello;
  hello.label = label_;
  try {
    control_->Send(hello);  // fails if an ssh client already gave up
  } catch (const BraidError& e) {
    if (e.code() != ErrorCode::kProtocol) throw DescribeEnd();
    throw;
  }
  AgentEvent reply = AwaitGreeting(deadline);
  if (reply.error) {
    if (reply.error->code() != ErrorCode::kProtocol) throw DescribeEnd();
    throw BraidError(ErrorCode::kProtocol, ServerName() + " did not answer like braid --serve (" +
                                               reply.error->what() + "); check -T");
  }
  if (!reply.message) throw EndedBeforeAnswer();
  if (auto* err = std::get_if<ErrorMessage>(&*reply.message)) {
    throw BraidError(err->code, err->message);
  }
  auto* hr = std::get_if<HelloReply>(&*reply.message);
  if (hr != nullptr && hr->version != kProtocolVersion) throw VersionMismatch(*hr);
  if (hr == nullptr) {
    throw BraidError(ErrorCode::kProtocol, "protocol error: " + ServerName() +
                                               " did not answer like braid --serve (check -T)");
  }
  hello_ = *hr;
}

namespace {

/// What to do about a remote braid of another protocol version.
constexpr const char* kVersionFix =
    "run again with --deploy to use this braid there, or give a matching braid's path with -T";

}  // namespace

BraidError ServerEnd::EndedBeforeAnswer() {
  BraidError why = DescribeEnd();
  const std::optional<int> status = channel_->ExitStatus();
  // A braid before protocol 6 cannot decode our Hello: it exits 1 unanswered.
  if (why.code() != ErrorCode::kPeerLost || !status || *status != 1) return why;
  return BraidError(ErrorCode::kPeerLost,
                    std::string(why.what()) +
                        " before it answered Hello, as a braid older than protocol " +
                        std::to_string(kFirstNamingVersion) + " does: " + kVersionFix);
}

BraidError ServerEnd::VersionMismatch(const HelloReply& reply) const {
  const std::string theirs = (reply.braid_version.empty() ? std::string("an older braid")
                                                          : "braid " + reply.braid_version) +
                             " (protocol " + std::to_string(reply.version) + ")";
  return BraidError(ErrorCode::kProtocol,
                    ServerName() + " runs " + theirs + ", this is braid " + BraidVersion() +
                        " (protocol " + std::to_string(kProtocolVersion) + "): " + kVersionFix);
}

AgentEvent ServerEnd::AwaitGreeting(std::chrono::steady_clock::time_point deadline) {
  constexpr auto kLook = std::chrono::milliseconds(100);
  MutexLock lock(reader_mu_);
  while (!greeting_) {
    ThrowIfInterrupted();
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", connect_timeout_s_);
      throw BraidError(ErrorCode::kHostUnreachable,
                       (label_.empty() ? std::string("the local braid --serve") : label_) +
                           " did not answer within " + limit + " s of the start (ran '" + command_ +
                           "'); a slow host may need a longer --connect-timeout");
    }
    reader_cv_.wait_until(lock.native(), std::min(deadline, now + kLook));
  }
  return std::move(*greeting_);
}

std::string ServerEnd::ServerName() const {
  return label_.empty() ? std::string("local server") : label_;
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
                          "'); run again with --deploy to copy this braid there, install it "
                          "there, or give its path with -T /path/to/braid");
  }
  return BraidError(ErrorCode::kPeerLost,
                    "braid --serve on " + where + " ended unexpectedly" +
                        (status ? " (exit status " + std::to_string(*status) + ")" : ""));
}

void ServerEnd::ReadLoop() {
  for (bool first = true;; first = false) {
    AgentEvent event;
    event.side = side_;
    try {
      event.message = control_->Receive();
    } catch (const BraidError& e) {
      event.error = e;
    }
    bool end = !event.message;
    if (first) {
      MutexLock lock(reader_mu_);
      greeting_ = std::move(event);
      reader_cv_.notify_all();
    } else {
      const bool list = event.message && std::holds_alternative<FileList>(*event.message);
      if (list) {
        MutexLock lock(reader_mu_);
        ++lists_queued_;
      }
      Deliver(std::move(event));
      if (list) HoldBack();
    }
    if (end) break;
  }
  MutexLock lock(reader_mu_);
  reader_done_ = true;
  reader_cv_.notify_all();
}

void ServerEnd::HoldBack() {
  MutexLock lock(reader_mu_);
  while (lists_queued_ >= kMaxQueuedLists && !stop_holding_back_) reader_cv_.wait(lock.native());
}

void ServerEnd::TookFileList() {
  MutexLock lock(reader_mu_);
  --lists_queued_;
  reader_cv_.notify_all();
}

void ServerEnd::StopHoldingBack() {
  MutexLock lock(reader_mu_);
  stop_holding_back_ = true;
  reader_cv_.notify_all();
}

void ServerEnd::Send(const ControlMessage& message) {
  try {
    control_->Send(message);
  } catch (const BraidError& e) {
    Deliver(AgentEvent{side_, std::nullopt, e});
  }
}

void ServerEnd::Deliver(AgentEvent event) {
  // Under the lock, so that no event goes to a queue Redirect has left.
  MutexLock lock(reader_mu_);
  events_->Push(std::move(event));
}

void ServerEnd::Redirect(BlockingQueue<AgentEvent>& events) {
  MutexLock lock(reader_mu_);
  // Deliver waits meanwhile, so the events keep their order.
  while (std::optional<AgentEvent> queued = events_->PopFor(std::chrono::milliseconds(0))) {
    events.Push(std::move(*queued));
  }
  events_ = &events;
}

void ServerEnd::Close(const std::optional<std::string>& abort_reason,
                      std::chrono::milliseconds grace) {
  BeginClose(abort_reason);
  FinishClose(std::chrono::steady_clock::now() + grace);
}

void ServerEnd::BeginClose(const std::optional<std::string>& abort_reason) {
  closed_ = true;
  StopHoldingBack();  // nobody takes the list any more: the reader must reach the end
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
}

void ServerEnd::FinishClose(std::chrono::steady_clock::time_point deadline) {
  if (reader_.joinable() && !WaitForReader(deadline)) channel_->Abandon();
  if (reader_.joinable()) reader_.join();
  channel_->ExitStatus();
}

bool ServerEnd::WaitForReader(std::chrono::steady_clock::time_point deadline) {
  MutexLock lock(reader_mu_);
  while (!reader_done_) {
    if (reader_cv_.wait_until(lock.native(), deadline) == std::cv_status::timeout) {
      return reader_done_;
    }
  }
  return true;
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
