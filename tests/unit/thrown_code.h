#pragma once
/// Test helper: which BraidError a piece of code throws.

#include <gtest/gtest.h>

#include "braid/error.h"

namespace braid {

/// Runs `fn` and returns the code of the BraidError it throws; fails the test if none.
template <typename Fn>
ErrorCode ThrownCode(Fn fn) {
  try {
    fn();
  } catch (const BraidError& e) {
    return e.code();
  }
  ADD_FAILURE() << "no BraidError thrown";
  return ErrorCode::kOk;
}

}  // namespace braid
