#include "session/transfer_state.h"

namespace braid {

void TransferState::Fail(const BraidError& error) {
  {
    MutexLock lock(mutex_);
    if (!error_) error_ = error;
    failed_ = true;
  }
  failed_cv_.notify_all();
  RunHooks();
}

void TransferState::Abort(const std::string& why) {
  Fail(BraidError(ErrorCode::kInterrupted, why));
}

std::optional<BraidError> TransferState::error() const {
  MutexLock lock(mutex_);
  return error_;
}

void TransferState::OnAbort(std::function<void()> hook) {
  bool run_now = false;
  {
    MutexLock lock(mutex_);
    if (hooks_ran_) {
      run_now = true;
    } else {
      hooks_.push_back(hook);
    }
  }
  if (run_now) hook();
}

std::function<void()> TransferState::Guarded(std::function<void()> body) {
  return [this, body = std::move(body)] {
    try {
      body();
    } catch (const BraidError& e) {
      Fail(e);
    } catch (const std::exception& e) {
      Fail(BraidError(ErrorCode::kInternal, e.what()));
    }
  };
}

bool TransferState::FailsWithin(std::chrono::milliseconds timeout) const {
  MutexLock lock(mutex_);
  // failed_ is atomic, not guarded: the predicate needs no analysis.
  return failed_cv_.wait_for(lock.native(), timeout, [this] { return failed_.load(); });
}

void TransferState::RunHooks() {
  std::vector<std::function<void()>> hooks;
  {
    MutexLock lock(mutex_);
    if (hooks_ran_) return;
    hooks_ran_ = true;
    hooks.swap(hooks_);
  }
  for (auto& h : hooks) h();
}

}  // namespace braid
