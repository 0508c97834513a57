#pragma once
/// Entering a named network namespace (one made by `ip netns add NAME`, i.e.
/// bound at /var/run/netns/NAME) for the current thread, and leaving it again.
/// A TUN device or socket created inside stays in that namespace after we
/// leave, which is how one process joins two namespaces.

#include <string>

namespace wanem {

class NetnsScope {
 public:
  /// Enters `name`; throws naming the namespace and the errno text.
  explicit NetnsScope(const std::string& name);
  /// Returns to the namespace the thread was in (aborts if that fails: the
  /// process would otherwise carry on in the wrong namespace).
  ~NetnsScope();
  NetnsScope(const NetnsScope&) = delete;
  NetnsScope& operator=(const NetnsScope&) = delete;

 private:
  int original_fd_ = -1;
};

}  // namespace wanem
