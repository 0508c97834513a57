#include "sink/write_behind.h"

#include <algorithm>
#include <utility>

namespace braid {

namespace {
/// Writes in flight that this VM's disk needs to reach its rate (fio, 1 MiB
/// O_DIRECT writes: depth 4 is 1.35x depth 1, depth 8 little more).
constexpr std::size_t kDiskQueue = 4;
}  // namespace

WriteBehind::WriteBehind(TransferState& state, std::size_t depth)
    : state_(state), depth_(std::max<std::size_t>(depth, 1)) {}

WriteBehind::~WriteBehind() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

std::size_t WriteBehind::DepthFor(std::size_t streams) {
  return std::max<std::size_t>(1, kDiskQueue / std::max<std::size_t>(streams, 1));
}

void WriteBehind::Submit(std::function<void()> write) {
  {
    MutexLock lock(mutex_);
    while (in_flight_ >= depth_) cv_.wait(lock.native());
    if (error_) std::rethrow_exception(error_);
    // One thread for each write in flight, so they all run at once; made
    // before the write is queued, so a thread the system refuses loses nothing.
    if (threads_.size() < in_flight_ + 1) threads_.emplace_back([this] { Loop(); });
    queue_.push_back(std::move(write));
    ++in_flight_;
  }
  cv_.notify_all();
}

void WriteBehind::Drain() {
  MutexLock lock(mutex_);
  while (in_flight_ > 0) cv_.wait(lock.native());
  if (error_) std::rethrow_exception(error_);
}

void WriteBehind::Loop() {
  MutexLock lock(mutex_);
  for (;;) {
    while (queue_.empty() && !stopping_) cv_.wait(lock.native());
    // Writes handed over before the stop still run: the receiver counted on them.
    if (queue_.empty()) return;
    std::function<void()> write = std::move(queue_.front());
    queue_.pop_front();
    lock.Unlock();
    std::exception_ptr error = Run(write);
    write = nullptr;  // gives the block's buffer back before the receiver waits for one
    lock.Lock();
    --in_flight_;
    if (error && !error_) error_ = error;
    cv_.notify_all();
  }
}

std::exception_ptr WriteBehind::Run(const std::function<void()>& write) {
  try {
    write();
    return nullptr;
  } catch (const BraidError& e) {
    state_.Fail(e);
    return std::current_exception();
  } catch (const std::exception& e) {
    state_.Fail(BraidError(ErrorCode::kInternal, e.what()));
    return std::current_exception();
  }
}

}  // namespace braid
