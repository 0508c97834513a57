#include "core/loss_model.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace wanem {

LossModel::LossModel(double probability, std::uint64_t seed)
    : LossModel(probability, Source(SplitMix64(seed))) {}

LossModel::LossModel(double probability, Source source)
    : probability_(probability), threshold_(0), source_(std::move(source)) {
  if (!(probability >= 0 && probability <= 1)) {
    throw std::invalid_argument("loss probability must be between 0 and 1");
  }
  always_ = probability >= 1;
  // 2^64 * p, computed in long double so tiny probabilities keep their digits.
  threshold_ =
      always_ ? 0
              : static_cast<std::uint64_t>(std::ldexp(static_cast<long double>(probability), 64));
}

bool LossModel::Drop() {
  if (always_) return true;
  if (threshold_ == 0) return false;
  return source_() < threshold_;
}

}  // namespace wanem
