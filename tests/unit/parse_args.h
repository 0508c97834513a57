#pragma once
/// Test helper: runs the command-line parser on a list of words.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "cli/command_line.h"

namespace braid {

/// Parses `args` (the program name is added), capturing --help/--version in `out`.
inline CommandLine ParseArgs(std::vector<std::string> args, std::string* out = nullptr) {
  args.insert(args.begin(), "braid");
  std::vector<const char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  std::ostringstream stream;
  CommandLine result = ParseCommandLine(static_cast<int>(args.size()), argv.data(), stream);
  if (out != nullptr) *out = stream.str();
  return result;
}

/// The kUsage message the parser gives for `args`; fails the test when they parse.
inline std::string UsageErrorOf(const std::vector<std::string>& args) {
  try {
    ParseArgs(args);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for " << ::testing::PrintToString(args);
  return "";
}

}  // namespace braid
