#include "io/realtime.h"

#include <sched.h>

#include <stdexcept>
#include <string>

#include "io/sys_error.h"

namespace wanem {

void UseRealtimeScheduling(int priority) {
  if (priority < 1 || priority > 99) {
    throw std::invalid_argument("--realtime priority must be 1-99");
  }
  sched_param param{};
  param.sched_priority = priority;
  if (::sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
    ThrowErrno("sched_setscheduler(SCHED_FIFO, " + std::to_string(priority) + ")");
  }
}

}  // namespace wanem
