#pragma once
/// Test helper: two FileEntry values agree on what every list carries.

#include <gtest/gtest.h>

#include "braid/file_entry.h"

namespace braid {

/// id, top, kind, path, size, mode, mtime, link target and the sparse flag: what the wire and
/// the packed list both keep for every entry.
inline void ExpectSameListedFields(const FileEntry& a, const FileEntry& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.top, b.top);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.mtime_sec, b.mtime_sec);
  EXPECT_EQ(a.mtime_nsec, b.mtime_nsec);
  EXPECT_EQ(a.link_target, b.link_target);
  EXPECT_EQ(a.sparse, b.sparse);
}

}  // namespace braid
