#pragma once
/// The versions of the cryptographic libraries braid runs with, for
/// `braid --version`: the ones loaded at run time, which may be newer than
/// the headers it was built against.

#include <string>

namespace braid {

/// "OpenSSL 3.0.11 19 Sep 2023", as OpenSSL_version names itself.
std::string OpenSslVersion();
/// "0.8.1", from XXH_versionNumber.
std::string XxhashVersion();

}  // namespace braid
