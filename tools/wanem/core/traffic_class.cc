#include "core/traffic_class.h"

namespace wanem {

std::string_view ClassName(TrafficClass c) {
  switch (c) {
    case TrafficClass::kPriority:
      return "priority";
    case TrafficClass::kBestEffort:
      return "best-effort";
    case TrafficClass::kScavenger:
      return "scavenger";
  }
  return "?";
}

void ClassMap::Clear(TrafficClass c) {
  for (TrafficClass& entry : by_dscp_) {
    if (entry == c) entry = TrafficClass::kBestEffort;
  }
}

ClassMap::ClassMap() {
  by_dscp_.fill(TrafficClass::kBestEffort);
  Set(kAf11, TrafficClass::kPriority);
  Set(kEf, TrafficClass::kPriority);
  Set(kCs1, TrafficClass::kScavenger);
  Set(kLe, TrafficClass::kScavenger);
}

}  // namespace wanem
