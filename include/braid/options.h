#pragma once
/// Everything the command line (and later the config file) can set.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/endpoint.h"

namespace braid {

constexpr int kMaxStreams = 64;
constexpr int kDefaultStreams = 4;
constexpr std::uint32_t kDefaultBlockSize = 1u << 20;
constexpr std::uint32_t kMinBlockSize = 4096;
constexpr std::uint32_t kMaxBlockSize = 64u << 20;

struct Options {
  std::vector<Endpoint> sources;
  Endpoint destination;

  int streams = kDefaultStreams;                ///< -s: 1..64
  std::uint64_t window = 0;                     ///< -w: socket buffer bytes; 0 = kernel autotuning
  std::uint32_t block_size = kDefaultBlockSize; ///< -B
  double progress_interval = 0;                 ///< -P seconds; 0 = bar on a TTY, else silent
  bool md5 = false;                             ///< -E md5 / -e
  bool force = false;                           ///< -f
  bool recursive = false;                       ///< -r
  bool preserve = false;                        ///< -p
  std::string remote_command = "braid";         ///< -T
  std::vector<std::string> identity_files;      ///< -i
  int ssh_port = 0;                             ///< --ssh-port; 0 = ~/.ssh/config or 22
  int verbose = 0;                              ///< -v, repeatable
  bool accept_new_host_key = false;             ///< --accept-new-host-key
  std::optional<std::uint64_t> size;            ///< --size: bytes to read from a device source
};

}  // namespace braid
