#pragma once
/// A mutex clang's thread-safety analysis understands (-Wthread-safety).
/// libstdc++'s std::mutex carries no capability attributes, so a field marked
/// BRAID_GUARDED_BY(mu_) is checked only when mu_ is a braid::Mutex and the
/// code locks it with MutexLock. Under GCC the attributes expand to nothing and
/// these are plain wrappers.
///
///   braid::Mutex mu_;
///   int count_ BRAID_GUARDED_BY(mu_) = 0;
///   { MutexLock lock(mu_); ++count_; }
///   { MutexLock lock(mu_); while (count_ == 0) cv_.wait(lock.native()); }

#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define BRAID_THREAD_ATTRIBUTE(x) __attribute__((x))
#else
#define BRAID_THREAD_ATTRIBUTE(x)
#endif

#define BRAID_CAPABILITY(x) BRAID_THREAD_ATTRIBUTE(capability(x))
#define BRAID_SCOPED_CAPABILITY BRAID_THREAD_ATTRIBUTE(scoped_lockable)
/// The field is read and written only with `mu` held.
#define BRAID_GUARDED_BY(mu) BRAID_THREAD_ATTRIBUTE(guarded_by(mu))
/// What the pointer points to is guarded by `mu` (the pointer itself is not).
#define BRAID_PT_GUARDED_BY(mu) BRAID_THREAD_ATTRIBUTE(pt_guarded_by(mu))
/// The caller must hold `mu` (a private helper called under the lock).
#define BRAID_REQUIRES(...) BRAID_THREAD_ATTRIBUTE(requires_capability(__VA_ARGS__))
/// The caller must not hold `mu` (the function takes it itself).
#define BRAID_EXCLUDES(...) BRAID_THREAD_ATTRIBUTE(locks_excluded(__VA_ARGS__))
#define BRAID_ACQUIRE(...) BRAID_THREAD_ATTRIBUTE(acquire_capability(__VA_ARGS__))
#define BRAID_RELEASE(...) BRAID_THREAD_ATTRIBUTE(release_capability(__VA_ARGS__))
#define BRAID_TRY_ACQUIRE(...) BRAID_THREAD_ATTRIBUTE(try_acquire_capability(__VA_ARGS__))
#define BRAID_RETURN_CAPABILITY(x) BRAID_THREAD_ATTRIBUTE(lock_returned(x))
/// For the rare function the analysis cannot follow; say why beside it.
#define BRAID_NO_THREAD_SAFETY_ANALYSIS BRAID_THREAD_ATTRIBUTE(no_thread_safety_analysis)

namespace braid {

class BRAID_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() BRAID_ACQUIRE() { mu_.lock(); }
  void unlock() BRAID_RELEASE() { mu_.unlock(); }
  bool try_lock() BRAID_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  /// For MutexLock only: the analysis tracks the wrapper, not this.
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

/// Holds a Mutex for its scope, and lends the std::unique_lock a
/// std::condition_variable needs. A wait releases and retakes the mutex inside
/// the library, which the analysis does not see, so it still counts the lock
/// as held across the wait, which is what the code after the wait relies on.
class BRAID_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) BRAID_ACQUIRE(mu) : lock_(mu.native()) {}
  ~MutexLock() BRAID_RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  /// Lets go early (before a notify, or slow work the lock must not cover).
  void Unlock() BRAID_RELEASE() { lock_.unlock(); }
  void Lock() BRAID_ACQUIRE() { lock_.lock(); }
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace braid
