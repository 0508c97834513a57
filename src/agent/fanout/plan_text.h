#pragma once
/// The plan of a copy to many destinations as text, for -v (once the copy to
/// many destinations exists): the layout, its predicted rate and what bounds
/// it, the layouts weighed, and one line per hop.

#include <string>

#include "agent/fanout/fanout_network.h"
#include "agent/fanout/layout_planner.h"
#include "agent/fanout/partition_cast.h"

namespace braid {

/// Bytes per second as "117.2 MiB/s"; "unbounded" for kUnlimited.
std::string RateText(double bytes_per_s);

/// What a constraint is, by the names in `network`: "b2's disk write
/// (50.0 MiB/s)", "the link from site 0 to site 1 (12.0 MiB/s shared by 3 streams)".
std::string ConstraintText(const FanoutNetwork& network, const Constraint& constraint);

/// The whole plan, one line each, ending in a newline.
std::string PlanText(const FanoutNetwork& network, const FanoutPlan& plan);

}  // namespace braid
