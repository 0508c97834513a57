#include "session/range_set.h"

#include <algorithm>

namespace braid {

std::uint64_t RangeSet::Add(std::uint64_t begin, std::uint64_t end) {
  if (begin >= end) return 0;
  std::uint64_t before = covered_;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= begin) it = prev;
  }
  std::uint64_t new_begin = begin;
  std::uint64_t new_end = end;
  while (it != ranges_.end() && it->first <= new_end) {
    new_begin = std::min(new_begin, it->first);
    new_end = std::max(new_end, it->second);
    covered_ -= it->second - it->first;
    it = ranges_.erase(it);
  }
  ranges_.emplace(new_begin, new_end);
  covered_ += new_end - new_begin;
  return covered_ - before;
}

std::uint64_t RangeSet::ContiguousPrefix() const {
  if (ranges_.empty() || ranges_.begin()->first != 0) return 0;
  return ranges_.begin()->second;
}

std::uint64_t RangeSet::MaxEnd() const { return ranges_.empty() ? 0 : ranges_.rbegin()->second; }

bool RangeSet::Contains(std::uint64_t begin, std::uint64_t end) const {
  if (begin >= end) return true;
  auto it = ranges_.upper_bound(begin);
  if (it == ranges_.begin()) return false;
  --it;
  return it->first <= begin && it->second >= end;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> RangeSet::Ranges() const {
  return {ranges_.begin(), ranges_.end()};
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> RangeSet::Gaps(std::uint64_t end) const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::uint64_t at = 0;
  for (const auto& [b, e] : ranges_) {
    if (b >= end) break;
    if (b > at) out.emplace_back(at, b);
    at = std::max(at, e);
  }
  if (at < end) out.emplace_back(at, end);
  return out;
}

}  // namespace braid
