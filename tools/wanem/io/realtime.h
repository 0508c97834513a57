#pragma once
/// Real-time scheduling for the wire: on a machine whose cores are busy
/// (the sender, the receiver and anything else compete for them), a normal
/// process waits milliseconds for a CPU after its timer fires, which on a
/// 50 ms path is several percent of RTT error. SCHED_FIFO wakes it at once.
/// wanem sleeps in epoll between events, so it never hogs a core, and the
/// kernel's RT throttling (sched_rt_runtime_us) bounds it even if it did.

namespace wanem {

/// Switches the process to SCHED_FIFO at `priority` (1-99); throws with the
/// errno text if the kernel refuses (no CAP_SYS_NICE, or RT group limits).
void UseRealtimeScheduling(int priority);

}  // namespace wanem
