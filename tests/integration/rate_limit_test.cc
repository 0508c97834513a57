// -x/--rate through the real binary: the rate is measured where the bytes
// arrive, by the test itself reading a FIFO, not by braid's own counters.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"

namespace braid {
namespace {

using testing::RunBraid;
using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kMiB = 1u << 20;
constexpr std::uint64_t kRate = 50 * kMiB;    // -x 50M
constexpr std::uint64_t kTotal = 500 * kMiB;  // --size 500M: 10 s at the limit

/// Copies onto a fifo in the test's scratch directory.
class RateLimitTest : public testing::SshdTest {};

/// Seconds from `from` to `to`.
double Seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

TEST_F(RateLimitTest, FiftyMegabytesPerSecondIsHeldEverySecond) {
  std::string fifo = dir + "/rate.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Read-write, so opening never blocks even if braid fails before opening
  // its end; the read loop stops on the byte count instead of on EOF.
  UniqueFd fd(::open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());

  auto braid = std::async(std::launch::async, [&] {
    return RunBraid({"-s", "4", "--size", "500M", "-x", "50M", "/dev/zero", fifo}, {}, "", 60);
  });

  struct Arrival {
    Clock::time_point at;
    std::uint64_t bytes;
  };
  std::vector<Arrival> arrivals;
  arrivals.reserve(kTotal / 4096);
  std::vector<char> buffer(kMiB);
  std::uint64_t total = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(45);
  while (total < kTotal && Clock::now() < deadline) {
    pollfd p{fd.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, 200);
    if (ready > 0) {
      ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
      if (n > 0) {
        arrivals.push_back({Clock::now(), static_cast<std::uint64_t>(n)});
        total += static_cast<std::uint64_t>(n);
        continue;
      }
    }
    if (ready == 0 && braid.wait_for(std::chrono::seconds(0)) == std::future_status::ready) break;
  }
  testing::ProcessResult result = braid.get();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(total, kTotal);
  char extra;
  EXPECT_LT(::read(fd.get(), &extra, 1), 0) << "braid wrote more than --size";

  // The whole transfer, first byte to last: within 5% of the limit.
  const Clock::time_point first = arrivals.front().at;
  const double duration = Seconds(first, arrivals.back().at);
  ASSERT_GT(duration, 5.0) << "500M at 50M/s took only " << duration << " s";
  const double average = static_cast<double>(total) / duration;
  // Per whole second after the first (start-up fills the pipeline): at most 1.2x.
  std::vector<std::uint64_t> per_second(static_cast<std::size_t>(duration) + 1, 0);
  std::vector<std::uint64_t> per_tenth(static_cast<std::size_t>(duration * 10) + 1, 0);
  for (const Arrival& a : arrivals) {
    per_second[static_cast<std::size_t>(Seconds(first, a.at))] += a.bytes;
    per_tenth[static_cast<std::size_t>(Seconds(first, a.at) * 10)] += a.bytes;
  }
  const std::uint64_t max_second = *std::max_element(per_second.begin() + 1, per_second.end());
  const std::uint64_t max_tenth = *std::max_element(per_tenth.begin() + 10, per_tenth.end());
  std::string figures = "average " + std::to_string(average / 1e6) + " MB/s over " +
                        std::to_string(duration) + " s; busiest second " +
                        std::to_string(static_cast<double>(max_second) / 1e6) +
                        " MB; busiest 0.1 s after the first second " +
                        std::to_string(static_cast<double>(max_tenth) / 1e5) + " MB/s; limit " +
                        std::to_string(static_cast<double>(kRate) / 1e6) + " MB/s";
  std::printf("[ figures  ] %s\n", figures.c_str());
  RecordProperty("figures", figures);
  EXPECT_GE(average, 0.95 * static_cast<double>(kRate)) << figures;
  EXPECT_LE(average, 1.05 * static_cast<double>(kRate)) << figures;
  EXPECT_LE(static_cast<double>(max_second), 1.2 * static_cast<double>(kRate)) << figures;
}

TEST_F(RateLimitTest, AnInterruptDoesNotWaitForTheBucket) {
  // At 1 KB/s every 1 MiB block after the first waits about 17 minutes: braid
  // ends promptly on SIGINT only if the abort wakes the sleeping senders.
  std::string err_path = dir + "/interrupt.err";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);  // so a hung braid can be killed with its server child
    ::setenv("HOME", sshd.home().c_str(), 1);
    FILE* err = std::freopen(err_path.c_str(), "w", stderr);
    (void)err;
    ::execl(BRAID_BINARY, "braid", "-x", "1K", "--size", "100M", "/dev/zero", "/dev/null",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto interrupted = Clock::now();
  ::kill(pid, SIGINT);
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
         Clock::now() - interrupted < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (done == 0) {  // hung: kill it so the test fails instead of hanging
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const double took = Seconds(interrupted, Clock::now());
  ASSERT_EQ(done, pid) << "braid still running 20 s after SIGINT";
  std::FILE* err = std::fopen(err_path.c_str(), "r");
  std::string message;
  if (err != nullptr) {
    for (int c; (c = std::fgetc(err)) != EOF;) message += static_cast<char>(c);
    std::fclose(err);
  }
  EXPECT_LT(took, 5.0) << message;
  EXPECT_NE(message.find("interrupted by SIGINT"), std::string::npos) << message;
  ASSERT_TRUE(WIFEXITED(status)) << message;
  EXPECT_EQ(WEXITSTATUS(status), ExitCodeFor(ErrorCode::kInterrupted));
}

TEST_F(RateLimitTest, ZeroRateIsAUsageError) {
  auto r = RunBraid({"-x", "0", "--size", "1M", "/dev/zero", "/dev/null"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("-x/--rate must be at least 1 byte/s"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid
