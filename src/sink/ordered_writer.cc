#include "sink/ordered_writer.h"

namespace braid {

OrderedWriter::OrderedWriter(std::uint64_t window, WriteFn write)
    : window_(window), write_(std::move(write)) {}

bool OrderedWriter::WaitForRoom(std::uint64_t offset) {
  MutexLock lock(mutex_);
  while (!aborted_ && offset >= position_ + window_) cv_.wait(lock.native());
  return !aborted_;
}

void OrderedWriter::Submit(std::uint64_t offset, BufferRef buffer, std::uint32_t length) {
  MutexLock lock(mutex_);
  if (aborted_ || offset < position_ || pending_.count(offset) != 0) return;
  pending_.emplace(offset, Held{std::move(buffer), length});
  // Writing under the lock keeps the output in order; other streams only
  // wait here while bytes they need to follow are being written.
  while (!pending_.empty() && pending_.begin()->first == position_) {
    Held next = std::move(pending_.begin()->second);
    pending_.erase(pending_.begin());
    write_(position_, next.buffer->data(), next.length);
    position_ += next.length;
  }
  lock.Unlock();
  cv_.notify_all();
}

void OrderedWriter::Abort() {
  {
    MutexLock lock(mutex_);
    aborted_ = true;
    pending_.clear();
  }
  cv_.notify_all();
}

std::uint64_t OrderedWriter::position() const {
  MutexLock lock(mutex_);
  return position_;
}

std::size_t OrderedWriter::held() const {
  MutexLock lock(mutex_);
  return pending_.size();
}

}  // namespace braid
