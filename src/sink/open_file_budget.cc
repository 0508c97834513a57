#include "sink/open_file_budget.h"

#include <algorithm>

namespace braid {
namespace {
constexpr std::size_t kMostWaiting = 4096;
constexpr std::size_t kMostBatch = 1024;
constexpr std::size_t kMostAhead = 4096;
}  // namespace

OpenFileBudget SplitOpenFiles(std::size_t files_open) {
  OpenFileBudget b;
  b.in_flight = files_open;
  b.commit_waiting = std::clamp<std::size_t>(files_open / 3, 1, kMostWaiting);
  b.commit_batch = std::clamp<std::size_t>(b.commit_waiting / 4, 1, kMostBatch);
  b.verify_ahead = std::clamp<std::size_t>(files_open / 3, 1, kMostAhead);
  return b;
}

}  // namespace braid
