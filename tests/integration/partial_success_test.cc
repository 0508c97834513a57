// Partial success: a source that cannot be read does not stop the others.
// They are copied, the one left out is named on its own line, and braid
// exits 23 (docs/errors.md), as rsync does for a partial transfer.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "braid/error.h"
#include "support/mini_json.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::Exists;
using testing::JsonReader;
using testing::ReadWhole;
using testing::RunBraid;
using testing::WriteText;

class PartialSuccessTest : public testing::SshdTest {};

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(PartialSuccessTest, AMissingSourceAmongSeveralIsNamedAndTheRestCopied) {
  WriteText(dir + "/a", "first\n");
  WriteText(dir + "/b", "second\n");
  const std::string dst = dir + "/dst/";
  std::filesystem::create_directories(dst);
  for (bool pull : {false, true}) {
    SCOPED_TRACE(pull ? "pull" : "push");
    std::filesystem::remove_all(dst);
    std::filesystem::create_directories(dst);
    auto src = [&](const std::string& name) {
      return pull ? Remote(dir + "/" + name) : dir + "/" + name;
    };
    auto r = RunBraid({"--json", src("a"), src("missing"), src("b"), pull ? dst : Remote(dst)});
    EXPECT_EQ(r.exit_code, 23) << r.err;
    EXPECT_EQ(ExitCodeFor(ErrorCode::kPartial), 23);
    EXPECT_EQ(ReadWhole(dst + "a"), "first\n");
    EXPECT_EQ(ReadWhole(dst + "b"), "second\n");
    EXPECT_FALSE(Exists(dst + "missing"));
    EXPECT_TRUE(Has(r.err, dir + "/missing: No such file or directory; not copied")) << r.err;
    EXPECT_TRUE(Has(r.err, "braid: 1 source entry not copied (named above)")) << r.err;
    auto doc = JsonReader::Parse(r.out);
    EXPECT_EQ(doc["end"]["exit_code"].number, 23);
    EXPECT_EQ(doc["end"]["error_name"].string, "partial");
    EXPECT_EQ(doc["end"]["files"].number, 2);
  }
}

TEST_F(PartialSuccessTest, NothingReadableAtAllIsStillAFailure) {
  auto r = RunBraid({dir + "/missing1", dir + "/missing2", Remote(dir + "/")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  EXPECT_TRUE(Has(r.err, dir + "/missing1: No such file or directory")) << r.err;
}

}  // namespace
}  // namespace braid
