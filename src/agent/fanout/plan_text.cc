#include "agent/fanout/plan_text.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace braid {
namespace {

std::string Fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string NodeName(const FanoutNetwork& network, int node) {
  const std::string& name = network.nodes[static_cast<std::size_t>(node)].name;
  return name.empty() ? "node " + std::to_string(node) : name;
}

/// "50.0 MiB/s", or "125.0 MiB/s shared by 2 streams".
std::string Share(const Constraint& constraint) {
  std::string text = RateText(constraint.capacity);
  if (constraint.streams > 1) {
    text += " shared by " + std::to_string(constraint.streams) + " streams";
  }
  return text;
}

std::string HopLine(const FanoutNetwork& network, const FanoutEdge& edge) {
  const auto parent = static_cast<std::size_t>(edge.parent);
  const auto child = static_cast<std::size_t>(edge.child);
  std::string line = "  " + NodeName(network, edge.parent) + " -> " +
                     NodeName(network, edge.child) + ": " + RateText(edge.rate) + ", RTT ";
  std::optional<double> rtt = network.rtt.Between(parent, child);
  line += rtt ? Fixed(*rtt) + " ms" : "unknown";
  const int from = network.nodes[parent].site;
  const int to = network.nodes[child].site;
  if (from != kUnknownSite && to != kUnknownSite && from != to) {
    line += ", site " + std::to_string(from) + " -> " + std::to_string(to);
  }
  return line + "\n";
}

}  // namespace

std::string RateText(double bytes_per_s) {
  if (std::isinf(bytes_per_s)) return "unbounded";
  return Fixed(bytes_per_s / (1024.0 * 1024.0)) + " MiB/s";
}

std::string ConstraintText(const FanoutNetwork& network, const Constraint& constraint) {
  const std::string who = constraint.node >= 0 ? NodeName(network, constraint.node) + "'s " : "";
  switch (constraint.kind) {
    case ConstraintKind::kNetIn:
      return who + "network in (" + Share(constraint) + ")";
    case ConstraintKind::kNetOut:
      return who + "network out (" + Share(constraint) + ")";
    case ConstraintKind::kDiskWrite:
      return who + "disk write (" + Share(constraint) + ")";
    case ConstraintKind::kForwardCpu:
      return who + "forwarding CPU (" + Share(constraint) + ")";
    case ConstraintKind::kSiteLink:
      return "the link from site " + std::to_string(constraint.from_site) + " to site " +
             std::to_string(constraint.to_site) + " (" + Share(constraint) + ")";
    case ConstraintKind::kNone:
      break;
  }
  return "no capacity known";
}

std::string PlanText(const FanoutNetwork& network, const FanoutPlan& plan) {
  std::string text = "layout " + TopologyText(plan.topology) + ": " + RateText(plan.rate) +
                     " predicted, bound by " + ConstraintText(network, plan.bound) + "\n";
  if (plan.considered.size() > 1) {
    text += "weighed:";
    for (std::size_t i = 0; i < plan.considered.size(); ++i) {
      text += (i == 0 ? " " : ", ") + TopologyText(plan.considered[i].topology) + " " +
              RateText(plan.considered[i].rate);
    }
    text += "\n";
  }
  for (const FanoutEdge& edge : plan.edges) text += HopLine(network, edge);
  return text;
}

}  // namespace braid
