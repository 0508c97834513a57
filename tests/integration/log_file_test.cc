// -l/--log FILE (bbcp's -l): what braid prints on stderr is also appended to
// FILE, each line after its UTC time, across runs.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "braid/error.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::ReadWhole;
using testing::RunBraid;
using testing::SameContents;
using testing::WritePatternFile;

class LogFileTest : public testing::SshdTest {};

/// Every line of `log` begins with an ISO 8601 UTC time.
void ExpectStamped(const std::string& log) {
  const std::regex stamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ braid)");
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(std::regex_search(line, stamp)) << line;
  }
}

TEST_F(LogFileTest, StderrsLinesGoToTheLogTooAfterTheirTimeAndRunsAppend) {
  const std::string src = dir + "/src.dat";
  WritePatternFile(src, 3u << 20, 9);
  const std::string log = dir + "/braid.log";
  auto ok = RunBraid({"-v", "-l", log, src, Remote(dir + "/dst.dat")});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(SameContents(src, dir + "/dst.dat"));
  auto missing = RunBraid({"--log", log, dir + "/no-such-file", Remote(dir + "/dst2")});
  EXPECT_EQ(missing.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable));
  const std::string logged = ReadWhole(log);
  ExpectStamped(logged);
  // The first run's summary, then the second run's error, each as stderr had it.
  const std::size_t copied = logged.find("braid: copied 3.00 MiB");
  const std::size_t error = logged.find("braid: " + dir + "/no-such-file: No such file");
  ASSERT_NE(copied, std::string::npos) << logged;
  ASSERT_NE(error, std::string::npos) << logged;
  EXPECT_LT(copied, error);
  EXPECT_NE(missing.err.find("no-such-file: No such file"), std::string::npos) << missing.err;
}

TEST_F(LogFileTest, ALogThatCannotBeOpenedIsAUsageErrorNamingIt) {
  const std::string src = dir + "/src.dat";
  WritePatternFile(src, 1024, 3);
  auto r = RunBraid({"-l", dir + "/missing-dir/braid.log", src, dir + "/dst.dat"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("cannot open the log file " + dir + "/missing-dir/braid.log"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(testing::Exists(dir + "/dst.dat")) << "nothing is copied without its log";
}

}  // namespace
}  // namespace braid
