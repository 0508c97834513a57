#include "sink/basis_table.h"

#include <algorithm>
#include <utility>

namespace braid {

std::vector<BasisTable::Basis>::const_iterator BasisTable::LowerBound(std::uint32_t id) const {
  return std::lower_bound(records_.begin(), records_.end(), id,
                          [](const Basis& b, std::uint32_t want) { return b.id < want; });
}

void BasisTable::Add(std::uint32_t id, std::uint64_t size) {
  auto at = records_.empty() || records_.back().id < id ? records_.cend() : LowerBound(id);
  if (at != records_.end() && at->id == id) {
    Basis& b = records_[static_cast<std::size_t>(at - records_.cbegin())];
    if (!b.live) --erased_;
    b.live = true;
    b.fd.Reset();
    b.size = size;
    return;
  }
  Basis b;
  b.id = id;
  b.size = size;
  records_.insert(at, std::move(b));
}

const BasisTable::Basis* BasisTable::Find(std::uint32_t id) const {
  auto at = LowerBound(id);
  return at != records_.end() && at->id == id && at->live ? &*at : nullptr;
}

BasisTable::Basis* BasisTable::Find(std::uint32_t id) {
  return const_cast<Basis*>(std::as_const(*this).Find(id));
}

void BasisTable::Erase(std::uint32_t id) {
  Basis* b = Find(id);
  if (b == nullptr) return;
  b->live = false;
  b->fd.Reset();
  ++erased_;
  CompactIfSparse();
}

void BasisTable::CompactIfSparse() {
  if (erased_ < 64 || erased_ * 2 < records_.size()) return;
  std::erase_if(records_, [](const Basis& b) { return !b.live; });
  records_.shrink_to_fit();
  erased_ = 0;
}

}  // namespace braid
