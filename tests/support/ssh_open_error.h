#pragma once
/// Test helper: the error SshConnection::Open refuses a target with.

#include <gtest/gtest.h>

#include <string>

#include "braid/error.h"
#include "security/ssh/ssh_connection.h"

namespace braid::testing {

/// Expects Open to throw `code`; returns the message (empty, and a test
/// failure, when it connects).
inline std::string SshOpenError(const SshTarget& target, ErrorCode code) {
  try {
    SshConnection::Open(target);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "Open succeeded; expected " << ErrorName(code);
  return "";
}

}  // namespace braid::testing
