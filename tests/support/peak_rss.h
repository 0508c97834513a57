#pragma once
/// Peak resident memory of a process and every process under it, as the
/// kernel counts it (VmHWM in /proc/PID/status), for the memory-bound tests.
/// A thread samples the tree every 10 ms; VmHWM is a high-water mark, so a
/// sample only has to come before the process exits, not at its peak.

#include <sys/types.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>

#include "braid/mutex.h"

namespace braid::testing {

/// A memory bound as the plain build checks it. Under AddressSanitizer
/// (shadow memory, the freed-memory quarantine) resident memory says nothing
/// of braid's own, so there the bound is no bound and only behaviour is checked.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long RssBoundKib(long /*kib*/) { return 1L << 40; }
#else
constexpr long RssBoundKib(long kib) { return kib; }
#endif

struct PeakOf {
  long kib = 0;         ///< the highest VmHWM seen
  std::string command;  ///< its command line, spaces for NULs
};

class PeakRssSampler {
 public:
  /// Starts sampling `root` and its descendants at once.
  explicit PeakRssSampler(pid_t root);
  ~PeakRssSampler();
  PeakRssSampler(const PeakRssSampler&) = delete;
  PeakRssSampler& operator=(const PeakRssSampler&) = delete;

  /// Takes one last sample and stops; the peaks by pid.
  std::map<pid_t, PeakOf> Stop();
  /// The highest peak among processes whose command line contains `what`
  /// (0 if none was seen).
  static long PeakKib(const std::map<pid_t, PeakOf>& peaks, const std::string& what);
  /// One line per process: "PID  N MiB  COMMAND".
  static std::string Describe(const std::map<pid_t, PeakOf>& peaks);

 private:
  void SampleOnce();

  const pid_t root_;
  std::atomic<bool> stop_{false};
  Mutex mu_;
  std::map<pid_t, PeakOf> peaks_ BRAID_GUARDED_BY(mu_);
  std::thread thread_;  ///< started last, after every field it reads
};

}  // namespace braid::testing
