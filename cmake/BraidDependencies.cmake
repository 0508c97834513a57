# The third-party libraries braid links, each behind a wrapper target
# (braid_dep_*), so that one set of objects links two ways: `braid` against
# the shared libraries, and with BRAID_STATIC `braid-static` against Debian's
# static archives (libssl.a, libcrypto.a, libssh2.a, libz.a, libxxhash.a from
# the -dev packages braid builds with; glibc's libc.a from libc6-dev). The
# static build compiles nothing twice: braid-static is one more link.
#
# A wrapper leaves its shared library out when the executable being linked has
# the property BRAID_STATIC_LINK ($<TARGET_PROPERTY:...> in a link interface is
# read on the executable being linked, not on the library naming the wrapper)
# and names the archives instead.

option(BRAID_STATIC "Also build braid-static: braid linked statically, for --deploy to any x86-64 Linux" OFF)
if(BRAID_STATIC AND (BRAID_SANITIZE OR BRAID_TSAN OR BRAID_FUZZ))
  message(FATAL_ERROR "BRAID_STATIC cannot link the sanitizers' runtimes statically: use a build dir without them")
endif()

set(_braid_static_link "$<BOOL:$<TARGET_PROPERTY:BRAID_STATIC_LINK>>")

# The archives, as one group (the linker rescans it, so their order does not
# matter). Named by each wrapper, so that it links after every library of ours
# that uses one.
if(BRAID_STATIC)
  set(archives)
  foreach(name IN ITEMS ssh2 ssl crypto z xxhash)
    find_library(BRAID_ARCHIVE_${name} NAMES lib${name}.a)
    if(NOT BRAID_ARCHIVE_${name})
      message(FATAL_ERROR "BRAID_STATIC: lib${name}.a not found (it comes with the -dev package braid builds with)")
    endif()
    list(APPEND archives ${BRAID_ARCHIVE_${name}})
  endforeach()
  list(JOIN archives "," group)
  add_library(braid_static_archives INTERFACE)
  target_link_libraries(braid_static_archives INTERFACE "$<LINK_GROUP:RESCAN,${group}>")
endif()

function(braid_dependency name shared)
  add_library(braid_dep_${name} INTERFACE)
  target_link_libraries(braid_dep_${name} INTERFACE "$<$<NOT:${_braid_static_link}>:${shared}>")
  if(BRAID_STATIC)
    target_link_libraries(braid_dep_${name} INTERFACE "$<${_braid_static_link}:braid_static_archives>")
  endif()
  # Its usage (include directories) applies to a static link too.
  target_include_directories(braid_dep_${name} SYSTEM INTERFACE
                             $<TARGET_PROPERTY:${shared},INTERFACE_INCLUDE_DIRECTORIES>)
endfunction()

braid_dependency(crypto OpenSSL::Crypto)
braid_dependency(ssh2 PkgConfig::LIBSSH2)
braid_dependency(zlib ZLIB::ZLIB)
braid_dependency(xxhash PkgConfig::XXHASH)

# braid_link_static(TARGET): TARGET links statically: its wrappers name the
# archives instead of the shared libraries.
function(braid_link_static target)
  set_target_properties(${target} PROPERTIES BRAID_STATIC_LINK ON)
  # -s: what --deploy uploads is the code; a debugger has the build tree.
  target_link_options(${target} PRIVATE -static -s)
endfunction()
