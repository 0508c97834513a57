#include "sink/basis_table.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace braid {
namespace {

TEST(BasisTableTest, FindsWhatWasAddedInAnyOrderUntilErased) {
  BasisTable table;
  for (std::uint32_t id : {10u, 20u, 30u, 15u, 5u}) table.Add(id, id * 100u);
  EXPECT_EQ(table.size(), 5u);
  for (std::uint32_t id : {5u, 10u, 15u, 20u, 30u}) {
    ASSERT_NE(table.Find(id), nullptr) << id;
    EXPECT_EQ(table.Find(id)->size, id * 100u);
  }
  EXPECT_EQ(table.Find(11), nullptr);
  EXPECT_EQ(table.Find(31), nullptr);
  table.Erase(15);
  table.Erase(99);  // never added: nothing happens
  EXPECT_EQ(table.Find(15), nullptr);
  EXPECT_EQ(table.size(), 4u);
  // Added again after it was erased: live, with its new size.
  table.Add(15, 7);
  ASSERT_NE(table.Find(15), nullptr);
  EXPECT_EQ(table.Find(15)->size, 7u);
  EXPECT_EQ(table.size(), 5u);
}

TEST(BasisTableTest, ErasingClosesTheDescriptorAndCompactsOnlyLiveRecordsRemain) {
  BasisTable table;
  for (std::uint32_t id = 0; id < 1000; ++id) table.Add(id, id);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[1]);
  table.Find(999)->fd.Reset(fds[0]);
  for (std::uint32_t id = 0; id < 999; id += 1) table.Erase(id);
  EXPECT_EQ(table.size(), 1u);
  ASSERT_NE(table.Find(999), nullptr);  // survived the compactions, descriptor and all
  EXPECT_EQ(table.Find(999)->fd.get(), fds[0]);
  table.Erase(999);
  EXPECT_EQ(::fcntl(fds[0], F_GETFD), -1);  // closed with its record
  EXPECT_EQ(table.size(), 0u);
}

}  // namespace
}  // namespace braid
