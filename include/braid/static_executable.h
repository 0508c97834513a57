#pragma once
/// Whether this process is the statically linked braid (braid-static): the
/// same objects link both ways, so they ask at run time. A static glibc
/// reaches the passwd database only by loading the host's NSS modules, which
/// must be of the glibc it was built with: on another host that can crash, so
/// the static braid asks `getent` (the host's own) instead (session/remote_path).
/// It is also what --deploy uploads when the agent itself is static.

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

namespace braid {

inline bool IsStaticExecutable() {
  static const bool is_static = [] {
    // A dynamically linked program names its interpreter (ld.so) in a PT_INTERP header.
    const auto* headers = reinterpret_cast<const ElfW(Phdr)*>(::getauxval(AT_PHDR));
    const unsigned long count = ::getauxval(AT_PHNUM);
    if (headers == nullptr) return false;
    for (unsigned long i = 0; i < count; ++i) {
      if (headers[i].p_type == PT_INTERP) return false;
    }
    return true;
  }();
  return is_static;
}

}  // namespace braid
