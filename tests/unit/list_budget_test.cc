#include "proto/list_budget.h"

#include <gtest/gtest.h>

#include "braid/error.h"

namespace braid {
namespace {

FileEntry Named(std::string path) {
  FileEntry e;
  e.path = std::move(path);
  return e;
}

std::string Refusal(ListBudget& budget, const FileEntry& e) {
  try {
    budget.Add(e);
  } catch (const BraidError& err) {
    EXPECT_EQ(err.code(), ErrorCode::kUsage);
    return err.what();
  }
  return "";
}

TEST(ListBudgetTest, DefaultsAreTheDocumentedOnes) {
  ListLimits limits;
  EXPECT_EQ(limits.max_entries, 10'000'000u);
  EXPECT_EQ(limits.max_list_bytes, 4ull << 30);
}

TEST(ListBudgetTest, EntriesUpToTheCapAreTakenAndOneMoreIsRefused) {
  ListBudget budget({3, 1u << 20}, "the source on dtn");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Refusal(budget, Named("a")), "");
  EXPECT_EQ(Refusal(budget, Named("a")),
            "the file list from the source on dtn has more than 3 entries (--max-entries; give a "
            "larger --max-entries to copy it)");
}

TEST(ListBudgetTest, BytesCountNamesAndLinkTargets) {
  FileEntry link = Named("top/l");
  link.link_target = "target";
  EXPECT_EQ(ListBytesOf(link), kListBytesPerEntry + 5 + 6);
  ListBudget budget({100, 2 * kListBytesPerEntry + 11}, "the local source");
  EXPECT_EQ(Refusal(budget, link), "");
  EXPECT_EQ(Refusal(budget, Named("")), "");
  const std::string why = Refusal(budget, Named(""));
  EXPECT_NE(why.find("the file list from the local source is larger than 139 bytes, names "
                     "included (--max-list-bytes"),
            std::string::npos)
      << why;
  EXPECT_EQ(budget.entries(), 3u);
}

}  // namespace
}  // namespace braid
