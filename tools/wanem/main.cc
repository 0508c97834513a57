/// wanem: a user-space WAN emulator joining two network namespaces through a
/// TUN device in each, with loss, a rate-limited drop-tail bottleneck, a delay
/// line and optional QBSS-style classes per direction. See README.md.

#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/direction.h"
#include "core/units.h"
#include "io/event_loop.h"
#include "io/realtime.h"
#include "io/tun_device.h"

namespace {

using namespace wanem;

/// The text form of each option as given; parsed after CLI11 so that every
/// message names the option and says what format it wants.
struct RawOptions {
  std::string ns_a, ns_b, dev = "wan0";
  std::string rate = "0", rtt, delay, loss = "0", queue;
  std::string rate_ab, rate_ba, delay_ab, delay_ba, loss_ab, loss_ba, queue_ab, queue_ba;
  bool classes = false;
  std::string scavenger_share = "2%", best_effort_share = "10%";
  std::string priority_cap, best_effort_cap, scavenger_cap;  ///< empty = no cap
  std::vector<int> priority_dscp, scavenger_dscp;
  int mtu = 1500, txqueuelen = 10000, batch = 64, realtime = 0;
  bool no_offload = false;
  std::uint64_t seed = 1;
  std::string late_threshold = "100us", spin = "0", stats_csv, stats_interval = "1s";
};

template <typename T, typename Parse>
T Parsed(const std::string& option, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(option + ": " + e.what());
  }
}

std::uint8_t Dscp(int value) {
  if (value < 0 || value > 63) {
    throw std::invalid_argument("DSCP " + std::to_string(value) + " is outside 0-63");
  }
  return static_cast<std::uint8_t>(value);
}

std::string Describe(const DirectionConfig& c) {
  double scaled = 0;
  const std::string_view unit = FormatRateUnit(static_cast<double>(c.rate_bps), scaled);
  char rate[64];
  if (c.rate_bps == 0) {
    std::snprintf(rate, sizeof rate, "unlimited");
  } else {
    std::snprintf(rate, sizeof rate, "%.4g %.*s", scaled, static_cast<int>(unit.size()),
                  unit.data());
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "rate %s, one-way delay %.3f ms, loss %.4f%%, queue %" PRIu64 " bytes%s", rate,
                static_cast<double>(c.delay_ns) / 1e6, c.loss * 100, c.queue_bytes,
                c.classes ? ", classes on" : "");
  for (std::size_t i = 0; i < kClassCount; ++i) {
    if (c.shares.cap[i] <= 0) continue;
    char cap[64];
    std::snprintf(cap, sizeof cap, ", %s capped at %.4g%%",
                  std::string(ClassName(static_cast<TrafficClass>(i))).c_str(),
                  c.shares.cap[i] * 100);
    std::strncat(line, cap, sizeof line - std::strlen(line) - 1);
  }
  return line;
}

/// The class options (shares, caps, DSCP maps) into `base`.
void ParseClasses(const RawOptions& raw, DirectionConfig& base) {
  base.shares.scavenger = Parsed<double>("--scavenger-share", raw.scavenger_share, ParseFraction);
  base.shares.best_effort =
      Parsed<double>("--best-effort-share", raw.best_effort_share, ParseFraction);
  if (base.shares.scavenger + base.shares.best_effort >= 1) {
    throw std::invalid_argument("--scavenger-share plus --best-effort-share must be below 100%");
  }
  for (auto [cls, text, name] :
       {std::tuple{TrafficClass::kPriority, &raw.priority_cap, "--priority-cap"},
        std::tuple{TrafficClass::kBestEffort, &raw.best_effort_cap, "--best-effort-cap"},
        std::tuple{TrafficClass::kScavenger, &raw.scavenger_cap, "--scavenger-cap"}}) {
    if (text->empty()) continue;
    const double cap = Parsed<double>(name, *text, ParseFraction);
    if (cap <= 0 || cap > 1)
      throw std::invalid_argument(std::string(name) + " must be in (0, 100%]");
    if (!raw.classes) throw std::invalid_argument(std::string(name) + " needs --classes");
    base.shares.cap[Index(cls)] = cap;
  }
  if (!raw.priority_dscp.empty()) {
    base.class_map.Clear(TrafficClass::kPriority);
    for (int d : raw.priority_dscp) base.class_map.Set(Dscp(d), TrafficClass::kPriority);
  }
  if (!raw.scavenger_dscp.empty()) {
    base.class_map.Clear(TrafficClass::kScavenger);
    for (int d : raw.scavenger_dscp) base.class_map.Set(Dscp(d), TrafficClass::kScavenger);
  }
}

int Run(const RawOptions& raw) {
  if (raw.ns_a.empty() || raw.ns_b.empty())
    throw std::invalid_argument("--ns-a and --ns-b are required");
  if (raw.ns_a == raw.ns_b) throw std::invalid_argument("--ns-a and --ns-b must differ");
  if (!raw.rtt.empty() && !raw.delay.empty()) {
    throw std::invalid_argument("give --rtt or --delay (one way), not both");
  }
  std::int64_t one_way = 0;
  if (!raw.rtt.empty()) one_way = Parsed<std::int64_t>("--rtt", raw.rtt, ParseDuration) / 2;
  if (!raw.delay.empty()) one_way = Parsed<std::int64_t>("--delay", raw.delay, ParseDuration);

  DirectionConfig base;
  base.rate_bps = Parsed<std::uint64_t>("--rate", raw.rate, ParseRate);
  base.delay_ns = one_way;
  base.loss = Parsed<double>("--loss", raw.loss, ParseFraction);
  base.classes = raw.classes;
  ParseClasses(raw, base);
  base.late_threshold_ns =
      Parsed<std::int64_t>("--late-threshold", raw.late_threshold, ParseDuration);

  DirectionConfig ab = base;
  DirectionConfig ba = base;
  ba.seed = raw.seed + 1;
  ab.seed = raw.seed;
  if (!raw.rate_ab.empty())
    ab.rate_bps = Parsed<std::uint64_t>("--rate-ab", raw.rate_ab, ParseRate);
  if (!raw.rate_ba.empty())
    ba.rate_bps = Parsed<std::uint64_t>("--rate-ba", raw.rate_ba, ParseRate);
  if (!raw.delay_ab.empty())
    ab.delay_ns = Parsed<std::int64_t>("--delay-ab", raw.delay_ab, ParseDuration);
  if (!raw.delay_ba.empty())
    ba.delay_ns = Parsed<std::int64_t>("--delay-ba", raw.delay_ba, ParseDuration);
  if (!raw.loss_ab.empty()) ab.loss = Parsed<double>("--loss-ab", raw.loss_ab, ParseFraction);
  if (!raw.loss_ba.empty()) ba.loss = Parsed<double>("--loss-ba", raw.loss_ba, ParseFraction);
  const std::int64_t rtt = ab.delay_ns + ba.delay_ns;
  for (auto [config, own, name] : {std::tuple{&ab, &raw.queue_ab, "--queue-ab"},
                                   std::tuple{&ba, &raw.queue_ba, "--queue-ba"}}) {
    if (!own->empty()) {
      config->queue_bytes = Parsed<std::uint64_t>(name, *own, ParseBytes);
    } else if (!raw.queue.empty()) {
      config->queue_bytes = Parsed<std::uint64_t>("--queue", raw.queue, ParseBytes);
    } else {
      config->queue_bytes = DefaultQueueBytes(config->rate_bps, rtt);
    }
  }

  LoopOptions loop;
  loop.batch = raw.batch;
  loop.spin_ns = Parsed<std::int64_t>("--spin", raw.spin, ParseDuration);
  loop.stats_csv = raw.stats_csv;
  loop.stats_interval_ns =
      Parsed<std::int64_t>("--stats-interval", raw.stats_interval, ParseDuration);
  if (loop.stats_interval_ns <= 0) throw std::invalid_argument("--stats-interval must be > 0");
  if (raw.batch < 1) throw std::invalid_argument("--batch must be >= 1");

  TunOptions tun;
  tun.name = raw.dev;
  tun.mtu = raw.mtu;
  tun.txqueuelen = raw.txqueuelen;
  tun.offload = !raw.no_offload;
  tun.netns = raw.ns_a;
  TunDevice a = TunDevice::Open(tun);
  tun.netns = raw.ns_b;
  TunDevice b = TunDevice::Open(tun);

  if (raw.realtime != 0) UseRealtimeScheduling(raw.realtime);
  Direction dir_ab(ab);
  Direction dir_ba(ba);
  EventLoop event_loop(a, b, dir_ab, dir_ba, loop);
  std::fprintf(stderr,
               "wanem: %s <-> %s, MTU %d, offload %s\n  a->b: %s\n  b->a: %s\nwanem: ready\n",
               a.label().c_str(), b.label().c_str(), raw.mtu, tun.offload ? "on" : "off",
               Describe(ab).c_str(), Describe(ba).c_str());
  event_loop.Run();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  RawOptions raw;
  CLI::App app{
      "wanem: join two network namespaces through a TUN device in each and emulate a WAN path\n"
      "between them: random loss, a rate-limited drop-tail bottleneck and a delay line, per\n"
      "direction, with optional QBSS-style classes by DSCP. Counters go to stderr on exit and\n"
      "on SIGUSR1.\n\n"
      "Rates are bits/s with decimal prefixes (500M, 1G); sizes are bytes with binary suffixes\n"
      "(6M); durations need a unit (50ms, 100us); loss and shares are '0.01%' or '0.0001'.\n"
      "Per-direction options (-ab: frames from --ns-a to --ns-b, -ba: the reverse) override.\n\n"
      "Example: wanem --ns-a tb-a --ns-b tb-b --rate 1G --rtt 50ms --loss 0.01% --classes",
      "wanem"};
  app.add_option("--ns-a", raw.ns_a, "Network namespace of side A (from `ip netns add`)")
      ->required();
  app.add_option("--ns-b", raw.ns_b, "Network namespace of side B")->required();
  app.add_option("--dev", raw.dev, "TUN interface name in both namespaces (default wan0)");
  app.add_option("--rate", raw.rate, "Bottleneck rate each way, e.g. 1G; 0 = unlimited (default)");
  app.add_option("--rtt", raw.rtt, "Round-trip delay, split evenly over the two directions");
  app.add_option("--delay", raw.delay, "One-way delay (instead of --rtt)");
  app.add_option("--loss", raw.loss, "Random loss per segment, e.g. 0.01%");
  app.add_option("--queue", raw.queue, "Drop-tail queue per direction and class (default 1 BDP)");
  app.add_option("--rate-ab", raw.rate_ab, "Rate A->B");
  app.add_option("--rate-ba", raw.rate_ba, "Rate B->A");
  app.add_option("--delay-ab", raw.delay_ab, "One-way delay A->B");
  app.add_option("--delay-ba", raw.delay_ba, "One-way delay B->A");
  app.add_option("--loss-ab", raw.loss_ab, "Loss A->B");
  app.add_option("--loss-ba", raw.loss_ba, "Loss B->A");
  app.add_option("--queue-ab", raw.queue_ab, "Queue A->B");
  app.add_option("--queue-ba", raw.queue_ba, "Queue B->A");
  app.add_flag("--classes", raw.classes,
               "QBSS-style classes by DSCP: priority (AF11 TOS 0x28, EF), best effort, scavenger "
               "(CS1 TOS 0x20, LE TOS 0x04)");
  app.add_option("--scavenger-share", raw.scavenger_share,
                 "Minimum share of the rate for scavenger while others are busy (default 2%)");
  app.add_option("--best-effort-share", raw.best_effort_share,
                 "Minimum share for best effort while priority is busy (default 10%)");
  app.add_option("--priority-cap", raw.priority_cap,
                 "Most of the rate priority may take, e.g. 30% (SLAC's Cisco 6500 policy); "
                 "enforced by shaping, even on an idle link (default: no cap)");
  app.add_option("--best-effort-cap", raw.best_effort_cap, "Most of the rate for best effort");
  app.add_option("--scavenger-cap", raw.scavenger_cap, "Most of the rate for scavenger");
  app.add_option("--priority-dscp", raw.priority_dscp,
                 "DSCP values (0-63) for priority (default 10,46)")
      ->delimiter(',');
  app.add_option("--scavenger-dscp", raw.scavenger_dscp, "DSCP values for scavenger (default 8,1)")
      ->delimiter(',');
  app.add_option("--mtu", raw.mtu, "MTU of both TUN devices (default 1500)");
  app.add_option("--txqueuelen", raw.txqueuelen,
                 "Kernel queue length of the TUN devices (default 10000)");
  app.add_flag("--no-offload", raw.no_offload,
               "No TSO/checksum offload: one read per MTU-sized packet");
  app.add_option("--batch", raw.batch, "Frames read per device per wakeup (default 64)");
  app.add_option("--seed", raw.seed, "Loss RNG seed (A->B uses SEED, B->A SEED+1; default 1)");
  app.add_option("--late-threshold", raw.late_threshold,
                 "A release later than this counts as late (default 100us)");
  app.add_option("--realtime", raw.realtime,
                 "Run as SCHED_FIFO with this priority (1-99): keeps release times exact on a "
                 "busy machine (default: normal scheduling)");
  app.add_option("--spin", raw.spin, "Wake this early and busy-wait to each deadline (default 0)");
  app.add_option("--stats-csv", raw.stats_csv,
                 "Write delivered bytes per direction and class every --stats-interval to FILE");
  app.add_option("--stats-interval", raw.stats_interval,
                 "Interval of --stats-csv rows (default 1s)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return Run(raw);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "wanem: %s (see --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wanem: %s\n", e.what());
    return 1;
  }
}
