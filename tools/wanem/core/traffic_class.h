#pragma once
/// QBSS-style service classes chosen by the IP TOS / traffic-class byte, the
/// way an Internet2-era QBSS router mapped DSCP values onto its queues.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace wanem {

enum class TrafficClass : std::uint8_t {
  kPriority = 0,    ///< premium service: served first, up to a bound
  kBestEffort = 1,  ///< everything unmarked
  kScavenger = 2,   ///< QBSS / LE: what is left, plus a minimum share
};
constexpr std::size_t kClassCount = 3;

constexpr std::size_t Index(TrafficClass c) { return static_cast<std::size_t>(c); }
std::string_view ClassName(TrafficClass c);

/// DSCP (the TOS byte's upper six bits, so ECN bits never change the class) to
/// class. The default puts AF11 (TOS 0x28) and EF (TOS 0xb8) in priority,
/// CS1 (TOS 0x20, QBSS) and LE (DSCP 1, TOS 0x04, RFC 8622) in scavenger.
class ClassMap {
 public:
  ClassMap();
  void Set(std::uint8_t dscp, TrafficClass c) { by_dscp_[dscp & 0x3f] = c; }
  /// Moves every DSCP now in `c` to best effort, before a user-given list.
  void Clear(TrafficClass c);
  TrafficClass Classify(std::uint8_t tos) const { return by_dscp_[tos >> 2]; }

  static constexpr std::uint8_t kAf11 = 10;
  static constexpr std::uint8_t kEf = 46;
  static constexpr std::uint8_t kCs1 = 8;
  static constexpr std::uint8_t kLe = 1;

 private:
  std::array<TrafficClass, 64> by_dscp_;
};

}  // namespace wanem
