#include "transport/socket_tuning.h"

#include <sys/socket.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace braid {

std::string ApplySocketTuning(int fd, const SocketTuning& tuning) {
  if (tuning.window == 0) return {};
  // The kernel doubles the value and caps it at net.core.[rw]mem_max; a
  // larger request is not an error, so only a failing call is reported.
  int value = tuning.window > INT_MAX ? INT_MAX : static_cast<int>(tuning.window);
  std::string warning;
  for (int opt : {SO_SNDBUF, SO_RCVBUF}) {
    if (setsockopt(fd, SOL_SOCKET, opt, &value, sizeof value) != 0) {
      warning = std::string("cannot set socket buffer: ") + std::strerror(errno);
    }
  }
  return warning;
}

}  // namespace braid
