#pragma once
/// Random (Bernoulli) loss: each segment is dropped with a fixed probability,
/// independently of the others, which is what "0.01% loss" on a long path
/// means in the TCP throughput models the experiments are checked against.

#include <cstdint>
#include <functional>

namespace wanem {

/// SplitMix64: tiny, fast and statistically fine for loss decisions. Seeded, so
/// a run (and a test) can be repeated exactly.
class SplitMix64 {
 public:
  using result_type = std::uint64_t;
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

class LossModel {
 public:
  /// Where the 64-bit random numbers come from; injectable so tests can force
  /// a sequence, defaulting to SplitMix64.
  using Source = std::function<std::uint64_t()>;

  /// `probability` in [0, 1].
  LossModel(double probability, std::uint64_t seed);
  LossModel(double probability, Source source);

  /// True when the next segment is lost. Draws nothing at probability 0, so a
  /// loss-free link costs nothing per packet.
  bool Drop();

  double probability() const { return probability_; }

 private:
  double probability_;
  std::uint64_t threshold_;  ///< drop when a draw is below this
  bool always_ = false;      ///< probability 1: the threshold cannot express it
  Source source_;
};

}  // namespace wanem
