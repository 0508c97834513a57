#include "io/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "io/sys_error.h"

namespace wanem {

NetnsScope::NetnsScope(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw std::runtime_error("network namespace name '" + name + "' is not a plain name");
  }
  original_fd_ = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original_fd_ < 0) ThrowErrno("open /proc/self/ns/net");
  const std::string path = "/var/run/netns/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int saved = errno;
    ::close(original_fd_);
    errno = saved;
    ThrowErrno("network namespace " + name + " (" + path + "; create it with `ip netns add " +
               name + "`)");
  }
  if (::setns(fd, CLONE_NEWNET) != 0) {
    const int saved = errno;
    ::close(fd);
    ::close(original_fd_);
    errno = saved;
    ThrowErrno("setns into network namespace " + name + " (needs root / CAP_SYS_ADMIN)");
  }
  ::close(fd);
}

NetnsScope::~NetnsScope() {
  if (::setns(original_fd_, CLONE_NEWNET) != 0) {
    std::fprintf(stderr, "wanem: cannot return to the original network namespace: %s\n",
                 std::strerror(errno));
    std::abort();
  }
  ::close(original_fd_);
}

}  // namespace wanem
