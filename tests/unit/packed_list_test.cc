#include "session/packed_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/error.h"
#include "expect_file_entry.h"

namespace braid {
namespace {

FileEntry Make(std::uint32_t id, FileKind kind, std::string path) {
  FileEntry e;
  e.id = id;
  e.kind = kind;
  e.path = std::move(path);
  return e;
}

/// A tree with every field set to something its neighbours do not share.
std::vector<FileEntry> Sample() {
  std::vector<FileEntry> v;
  v.push_back(Make(0, FileKind::kDirectory, "top"));
  v.back().mode = 0755;
  v.push_back(Make(1, FileKind::kRegular, "top/a file whose name is longer than fifteen"));
  v.back().size = 5u << 20;
  v.back().fingerprint = 0x1234567890abcdefULL;
  v.back().mtime_sec = -5;
  v.back().mtime_nsec = 999999999;
  v.back().uid = 1000;
  v.back().gid = 4294967295u;
  v.push_back(Make(2, FileKind::kSymlink, "top/l"));
  v.back().link_target = "../elsewhere";
  v.push_back(Make(3, FileKind::kRegular, "top/e"));  // empty
  v.back().sparse = true;
  v.push_back(Make(4, FileKind::kSymlink, "top/m"));
  v.back().link_target = "a file whose name is longer than fifteen";
  v.push_back(Make(5, FileKind::kStream, "pipe"));
  v.back().size = kUnknownSize;
  v.back().top = 65535;
  return v;
}

void ExpectSame(const FileEntry& a, const FileEntry& b) {
  ExpectSameListedFields(a, b);
  EXPECT_EQ(a.uid, b.uid);
  EXPECT_EQ(a.gid, b.gid);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
}

TEST(PackedListTest, EveryFieldComesBackAsItWent) {
  std::vector<FileEntry> sample = Sample();
  PackedList list(sample);
  ASSERT_EQ(list.size(), sample.size());
  for (std::uint32_t id = 0; id < sample.size(); ++id) {
    SCOPED_TRACE(id);
    ExpectSame(list.Entry(id), sample[id]);
    EXPECT_EQ(list.path(id), sample[id].path);
    EXPECT_EQ(list.sparse(id), sample[id].sparse);
    EXPECT_EQ(list.link_target(id), sample[id].link_target);
    EXPECT_EQ(list.fingerprint(id), sample[id].fingerprint);
    EXPECT_EQ(list.file_size(id), sample[id].size);
  }
  EXPECT_TRUE(list.carries_data(1));
  EXPECT_TRUE(list.carries_data(5));
  EXPECT_FALSE(list.carries_data(0));
  EXPECT_FALSE(list.carries_data(2));
}

TEST(PackedListTest, EntriesAddedOneByOneMatchThePackedVector) {
  std::vector<FileEntry> sample = Sample();
  PackedList list;
  for (const FileEntry& e : sample) list.Add(e);
  for (std::uint32_t id = 0; id < sample.size(); ++id) ExpectSame(list.Entry(id), sample[id]);
}

TEST(PackedListTest, AnEntryOutOfOrderIsRefused) {
  PackedList list;
  list.Add(Make(0, FileKind::kRegular, "a"));
  try {
    list.Add(Make(2, FileKind::kRegular, "b"));
    FAIL() << "an id out of order was taken";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    EXPECT_NE(std::string(e.what()).find("out of order"), std::string::npos) << e.what();
  }
  EXPECT_EQ(list.size(), 1u);
}

TEST(PackedListTest, APathPast64KiBIsRefused) {
  PackedList list;
  EXPECT_THROW(list.Add(Make(0, FileKind::kRegular, std::string(65536, 'x'))), BraidError);
  list.Add(Make(0, FileKind::kRegular, std::string(65535, 'x')));
  EXPECT_EQ(list.path(0).size(), 65535u);
}

TEST(PackedListTest, AModePastTheProtocolsIsRefused) {
  PackedList list;
  FileEntry e = Make(0, FileKind::kRegular, "f");
  e.mode = 010000;
  EXPECT_THROW(list.Add(e), BraidError);
  e.mode = 07777;
  list.Add(e);
  EXPECT_EQ(list.mode(0), 07777u);
}

TEST(PackedListTest, AMillionEntriesCostTheirFixedPartAndTheirNames) {
  // The figure docs/architecture.md's table gives: 32 bytes an entry and its
  // path, in blocks (so up to a block of each more).
  PackedList list;
  constexpr std::uint32_t kCount = (1u << 20) + 1;
  std::size_t names = 0;
  for (std::uint32_t id = 0; id < kCount; ++id) {
    FileEntry e =
        Make(id, FileKind::kRegular, "t/d" + std::to_string(id / 1000) + "/f" + std::to_string(id));
    names += e.path.size();
    list.Add(e);
  }
  EXPECT_GE(list.bytes_used(), std::size_t{kCount} * 32 + names);
  // One owner run, and the unused rest of the last block of each kind.
  EXPECT_LE(list.bytes_used(), std::size_t{kCount} * 32 + names + 12 +
                                   32 * PackedList::kEntriesPerBlock + PackedList::kNameBlockBytes);
  EXPECT_EQ(list.path(kCount - 1), "t/d1048/f1048576");
  EXPECT_EQ(list.path(0), "t/d0/f0");
  EXPECT_EQ(list.path(500000), "t/d500/f500000");
}

TEST(PackedListTest, OwnersAreKeptAsRunsAndReadBackPerEntry) {
  std::vector<FileEntry> v;
  const std::uint32_t uids[] = {0, 0, 1000, 1000, 1000, 0, 7, 7};
  for (std::uint32_t id = 0; id < 8; ++id) {
    v.push_back(Make(id, FileKind::kRegular, "f" + std::to_string(id)));
    v.back().uid = uids[id];
    v.back().gid = id == 3 ? 50 : uids[id];  // a change of group alone starts a run too
  }
  PackedList list(v);
  for (std::uint32_t id = 0; id < 8; ++id) {
    EXPECT_EQ(list.uid(id), v[id].uid) << id;
    EXPECT_EQ(list.gid(id), v[id].gid) << id;
  }
}

TEST(PackedListTest, PathsLongerThanWhatIsLeftOfABlockStartTheNext) {
  PackedList list;
  const std::string long_name(60000, 'n');
  for (std::uint32_t id = 0; id < 40; ++id) {
    list.Add(Make(id, FileKind::kRegular, long_name + std::to_string(id)));
  }
  for (std::uint32_t id = 0; id < 40; ++id)
    EXPECT_EQ(list.path(id), long_name + std::to_string(id));
}

}  // namespace
}  // namespace braid
