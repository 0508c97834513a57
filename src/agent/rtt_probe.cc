#include "agent/rtt_probe.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/copy_attempt.h"
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/server_end.h"

namespace braid {
namespace {

/// How long the probes may take in all once the servers are up: each node
/// connects to the others one after another, 3 tries of at most 1 s each.
constexpr auto kProbeDeadline = std::chrono::seconds(20);

/// One node's server while it is probed, and what it said.
struct ProbeNode {
  Endpoint endpoint;
  BlockingQueue<AgentEvent> events;
  std::unique_ptr<ServerEnd> end;
  std::optional<ProbeReady> ready;
  std::string failure;  ///< why it could not be probed; "" while it can
};

/// The next message of type T from `node`, skipping Progress, Warning and Note;
/// nullopt (and `failure` set) on an error, the end, an interrupt or `deadline`.
template <typename T>
std::optional<T> Await(ProbeNode& node, std::chrono::steady_clock::time_point deadline) {
  while (PendingInterrupt() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::optional<AgentEvent> ev = node.events.PopFor(CopyAttempt::kTick);
    if (!ev) continue;
    if (ev->error) {
      node.failure = ev->error->what();
      return std::nullopt;
    }
    if (!ev->message) {
      node.failure = node.end->DescribeEnd().what();
      return std::nullopt;
    }
    if (auto* m = std::get_if<T>(&*ev->message)) return std::move(*m);
    if (auto* e = std::get_if<ErrorMessage>(&*ev->message)) {
      node.failure = e->message;
      return std::nullopt;
    }
  }
  node.failure = "no answer in time";
  return std::nullopt;
}

/// Starts every node's server at once (each an ssh login, or a child).
void StartAll(std::vector<std::unique_ptr<ProbeNode>>& nodes, const Options& options,
              ServerLauncher& launcher) {
  std::vector<std::thread> starting;
  for (auto& node : nodes) {
    starting.emplace_back([&node, &options, &launcher] {
      try {
        node->end = std::make_unique<ServerEnd>(Side::kSink, node->endpoint, options, launcher,
                                                node->events);
      } catch (const BraidError& e) {
        node->failure = e.what();
      }
    });
  }
  for (std::thread& t : starting) t.join();
}

/// Where a local node listens: beside remote nodes, on our address of the ssh
/// connection to the first of them (as a local sink would); else on loopback.
std::string LocalListenAddress(const std::vector<std::unique_ptr<ProbeNode>>& nodes) {
  for (const auto& node : nodes) {
    if (node->end && node->end->is_remote()) return node->end->local_address();
  }
  return "127.0.0.1";
}

void OpenAll(std::vector<std::unique_ptr<ProbeNode>>& nodes, const Options& options,
             std::chrono::steady_clock::time_point deadline) {
  const std::string local = LocalListenAddress(nodes);
  for (auto& node : nodes) {
    if (node->end) {
      node->end->Send(ProbeOpen{node->end->is_remote() ? "" : local,
                                static_cast<std::uint8_t>(options.family), options.port_min,
                                options.port_max});
    }
  }
  for (auto& node : nodes) {
    if (node->end) node->ready = Await<ProbeReady>(*node, deadline);
  }
}

/// Asks each node that listens to probe every other that does; fills `rtt`.
void MeasureAll(std::vector<std::unique_ptr<ProbeNode>>& nodes, RttMatrix& rtt,
                std::chrono::steady_clock::time_point deadline) {
  std::vector<std::size_t> listening;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]->ready) listening.push_back(i);
  }
  for (std::size_t i : listening) {
    ProbeMeasure measure;
    for (std::size_t j : listening) {
      if (j != i) measure.targets.push_back({nodes[j]->ready->addresses, nodes[j]->ready->port});
    }
    nodes[i]->end->Send(measure);
  }
  for (std::size_t i : listening) {
    std::optional<ProbeResult> result = Await<ProbeResult>(*nodes[i], deadline);
    if (!result) continue;
    std::size_t k = 0;
    for (std::size_t j : listening) {
      if (j == i) continue;
      // A result shorter than the question leaves the rest unmeasured.
      if (k < result->rtt_us.size() && result->rtt_us[k] > 0) {
        rtt.Set(i, j, static_cast<double>(result->rtt_us[k]) / 1000.0);
      }
      ++k;
    }
  }
}

/// Moves each destination's server that answered every question into `kept`.
void Keep(std::vector<std::unique_ptr<ProbeNode>>& nodes,
          std::vector<std::unique_ptr<StartedServer>>& kept) {
  kept.resize(nodes.size() - 1);
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    ProbeNode& node = *nodes[i];
    if (!node.end || !node.failure.empty()) continue;
    auto server = std::make_unique<StartedServer>();
    node.end->Redirect(server->events);
    server->end = std::move(node.end);
    kept[i - 1] = std::move(server);
  }
}

}  // namespace

RttMatrix MeasureRtts(const Options& options, ServerLauncher& launcher,
                      std::vector<std::unique_ptr<StartedServer>>* kept) {
  std::vector<std::unique_ptr<ProbeNode>> nodes;
  nodes.push_back(std::make_unique<ProbeNode>());
  nodes.back()->endpoint = options.sources.front();
  nodes.back()->endpoint.path = ".";
  for (const Endpoint& d : options.destinations) {
    nodes.push_back(std::make_unique<ProbeNode>());
    nodes.back()->endpoint = d;
  }
  RttMatrix rtt(nodes.size());
  StartAll(nodes, options, launcher);
  const auto deadline = std::chrono::steady_clock::now() + kProbeDeadline;
  OpenAll(nodes, options, deadline);
  MeasureAll(nodes, rtt, deadline);
  if (kept != nullptr) Keep(nodes, *kept);
  for (auto& node : nodes) {
    if (node->end) node->end->BeginClose(std::nullopt);
  }
  const auto close_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (auto& node : nodes) {
    if (node->end) node->end->FinishClose(close_by);
    if (!node->failure.empty() && options.verbose > 0) {
      PrintLine(stderr, "braid: could not measure the RTT to %s: %s",
                node->endpoint.Display().c_str(), node->failure.c_str());
    }
  }
  return rtt;
}

}  // namespace braid
