#pragma once
/// Test helper: what the resume journal beside a target vouches for, read
/// while a copy runs (the journal is append-only, so a torn last record is
/// ignored as the sink itself ignores it).

#include <cstdint>
#include <string>

namespace braid::testing {

/// Bytes the journal of `target` ("TARGET.braid-journal") vouches for, each
/// byte once whether its record is unsynced, synced or both; 0 without one.
std::uint64_t JournaledBytes(const std::string& target);

}  // namespace braid::testing
