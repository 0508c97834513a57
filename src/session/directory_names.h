#pragma once
/// The names in an open directory, read through a copy of its descriptor, so
/// the caller's stays open for what it looks up in the directory (fstatat).
/// Both ends walk a tree so: the source to list it, the sink to find the
/// partial files an earlier run left.

#include <functional>
#include <string_view>

namespace braid {

/// Calls `each` with every name in directory `dir_fd` but "." and "..", in
/// the order readdir(3) gives them; returns 0, or the errno of a failed read
/// (names given before it stand).
int ForEachName(int dir_fd, const std::function<void(std::string_view)>& each);

}  // namespace braid
