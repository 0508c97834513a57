#!/usr/bin/env bash
# The README's two commands: `tools/quickstart.sh demo` and `tools/quickstart.sh test`.
# Each installs what braid needs from Debian's packages, builds, then either
# runs a real 1 GiB copy (demo) or the whole test suite (test).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
jobs=$(nproc 2>/dev/null || echo 2)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

install_packages() {
  local pkgs=(build-essential cmake pkg-config libssl-dev libssh2-1-dev libboost-dev
              zlib1g-dev libxxhash-dev libcli11-dev libgtest-dev openssh-server openssh-client
              diffutils util-linux procps tcpdump strace xxhash
              iproute2 iperf3 iputils-ping python3 nftables gnuplot-nox
              clang libclang-rt-14-dev dpkg-dev lintian)
  local missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

build() {  # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

demo() {
  install_packages
  build build
  # Global, not local: the EXIT trap runs after demo() has returned.
  DEMO_DIR=$(mktemp -d "${TMPDIR:-/tmp}/braid-demo.XXXXXX")
  trap 'rm -rf "$DEMO_DIR"' EXIT
  local work=$DEMO_DIR
  echo "== making a 1 GiB file of random data"
  head -c 1G /dev/urandom > "$work/dataset.bin"
  echo "== braid -P 1 -e $work/dataset.bin $work/copy.bin   (default: -s auto)"
  ./build/src/braid -P 1 -e "$work/dataset.bin" "$work/copy.bin"
  echo "== md5sum of source and copy"
  md5sum "$work/dataset.bin" "$work/copy.bin"
  local a b
  a=$(md5sum < "$work/dataset.bin" | cut -d' ' -f1)
  b=$(md5sum < "$work/copy.bin" | cut -d' ' -f1)
  if [ "$a" = "$b" ]; then echo "== MD5 match: $a"; else echo "== MD5 MISMATCH"; exit 1; fi
}

run_tests() {  # DIR [ctest args...]
  local dir=$1; shift
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 900 "$@")
}

test_all() {
  install_packages
  echo "== build and test (RelWithDebInfo; with braid-static, the portable binary: one more link)"
  build build -DBRAID_STATIC=ON
  run_tests build
  echo "== build and test under AddressSanitizer + UndefinedBehaviorSanitizer"
  build build-asan -DBRAID_SANITIZE=ON
  # The testbed tests measure rates and delays through wanem, which the
  # sanitizers would distort; the code they run is covered by the rest. The
  # .deb's test (label packaging) checks packaging, not the code, so it runs once.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_tests build-asan -LE 'testbed|packaging'
  echo "== the threaded parts under ThreadSanitizer"
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBRAID_TSAN=ON >/dev/null
  cmake --build build-tsan -j "$jobs" --target braid_unit_tests
  TSAN_OPTIONS=halt_on_error=1 run_tests build-tsan \
    -R '^(BlockingQueue|BufferPool|OrderedWriter|TransferState|TokenBucket|RateLimiter|Checkpointer|ForwardFeed|FuzzRegression)Test\.'
  echo "== every decoder fuzzed for 10 s (tools/fuzz.sh; longer runs: docs/security.md)"
  tools/fuzz.sh --seconds 10 --build build-fuzz
  echo "== clang's thread-safety analysis over every library (the BRAID_GUARDED_BY notes)"
  cmake --build build-fuzz -j "$jobs" --target braid
}

case "${1:-}" in
  demo) demo ;;
  test) test_all ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
