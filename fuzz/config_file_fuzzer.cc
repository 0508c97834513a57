// The defaults file (~/.config/braid/config, -C FILE): ParseConfigText turns
// its lines into "--key=value" arguments, which are then parsed by the real
// command line in front of a copy's operands, so every option's value parser
// sees arbitrary text too. Both may throw kUsage only.

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/config_file.h"
#include "fuzz_support.h"

using namespace braid;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // ParseCommandLine reads ~/.config/braid/config: make it a file that is not there.
  setenv("HOME", "/nonexistent/braid-fuzz-home", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<ConfigEntry> entries;
  if (!fuzz::Accepts(ErrorCode::kUsage,
                     [&] { entries = ParseConfigText(fuzz::Text(data, size), "fuzz.conf"); })) {
    return 0;
  }

  std::vector<std::string> args = {"braid"};
  int last_line = 0;
  for (const ConfigEntry& e : entries) {
    BRAID_FUZZ_CHECK(!e.key.empty() && e.key.front() != '-');
    BRAID_FUZZ_CHECK(e.line > last_line);
    last_line = e.line;
    const std::string arg = ConfigArgument(e);
    BRAID_FUZZ_CHECK(arg.starts_with("--" + e.key));
    // -C names another file to read: a FIFO or /dev/stdin there would block
    // the fuzzer, and reading files is not what this target is about.
    if (e.key == "config" || e.key == "C") continue;
    args.push_back(arg);
  }
  args.push_back("src.bin");
  args.push_back("dtn:/data/");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  std::ostringstream out;  // --help and --version print here
  fuzz::Accepts(ErrorCode::kUsage,
                [&] { ParseCommandLine(static_cast<int>(args.size()), argv.data(), out); });
  return 0;
}
