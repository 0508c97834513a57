#pragma once
/// The holes of an open file, as its file system reports them (lseek's
/// SEEK_DATA and SEEK_HOLE). IO only; BlockPieces decides what they mean.

#include <cstdint>
#include <vector>

#include "source/block_pieces.h"

namespace braid {

/// The holes of `fd` within [begin, end), sorted; empty where the file
/// system cannot tell (it then reports the whole file as data). Throws
/// nothing: an error of lseek is taken as "no holes", and the read that
/// follows reports any real error.
std::vector<FileRange> FileHolesIn(int fd, std::uint64_t begin, std::uint64_t end);

}  // namespace braid
