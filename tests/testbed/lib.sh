# Shared helpers for the testbed tests (sourced, not run). Each test script
# brings up its own testbed with `tools/testbed run ... -- "$0" PHASE`, so the
# testbed is torn down however the phase ends. Exit 77 means skipped.
# shellcheck shell=bash

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TESTBED=${TESTBED:-$REPO/tools/testbed}
BG_PIDS=()

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

info() { echo "--- $*" >&2; }

skip() {
  echo "SKIP: $*" >&2
  exit 77
}

# Skips unless root, TUN, ip netns, wanem and the given tools are all there.
require() {
  "$TESTBED" check || exit $?
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (apt-get install -y $tool)"
  done
}

# require_braid_testbed: skips unless ctest gave a built braid ($BRAID) and
# sshd is installed: what every testbed that runs braid over ssh needs.
require_braid_testbed() {
  [[ -n ${BRAID:-} && -x ${BRAID:-} ]] || skip "set BRAID to a built braid binary (ctest does)"
  [[ -x /usr/sbin/sshd ]] || skip "sshd is not installed (apt-get install -y openssh-server)"
}

cleanup_background() {
  local pid
  for pid in "${BG_PIDS[@]+"${BG_PIDS[@]}"}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup_background EXIT

# iperf_server NS PORT: one iperf3 server for one test, in the background.
iperf_server() {
  local ns=$1 port=$2 i
  ip netns exec "$ns" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  BG_PIDS+=($!)
  for ((i = 0; i < 50; i++)); do
    ip netns exec "$ns" ss -Hltn "sport = :$port" | grep -q LISTEN && return 0
    sleep 0.1
  done
  fail "iperf3 server on port $port in $ns did not start"
}

# iperf_client OUT NS ADDR PORT ARGS...: a client run writing JSON to OUT.
iperf_client() {
  local out=$1 ns=$2 addr=$3 port=$4
  shift 4
  ip netns exec "$ns" iperf3 -c "$addr" -p "$port" -J "$@" >"$out" ||
    fail "iperf3 client failed: $(head -c 400 "$out")"
}

# json FILE EXPR: evaluates a Python expression over the parsed JSON `j`.
json() {
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# within VALUE TARGET PERCENT WHAT: fails unless |VALUE-TARGET| <= PERCENT% of TARGET.
within() {
  local value=$1 target=$2 pct=$3 what=$4
  if python3 -c "import sys; v,t,p=map(float,sys.argv[1:4]); sys.exit(0 if abs(v-t) <= t*p/100 else 1)" \
    "$value" "$target" "$pct"; then
    info "ok: $what = $value (target $target +-$pct%)"
  else
    fail "$what = $value, not within $pct% of $target"
  fi
}

# at_most VALUE LIMIT WHAT / at_least VALUE LIMIT WHAT
at_most() {
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$1" "$2" ||
    fail "$3 = $1, more than $2"
  info "ok: $3 = $1 (at most $2)"
}
at_least() {
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$1" "$2" ||
    fail "$3 = $1, less than $2"
  info "ok: $3 = $1 (at least $2)"
}

# Goodput iperf3 can see over a link whose rate counts IP bytes: TCP payload
# per segment is MTU - 52 (20 IP + 20 TCP + 12 timestamp option).
goodput_of() { # RATE_BPS MTU
  python3 -c "import sys; r,m=map(float,sys.argv[1:3]); print(r*(m-52)/m)" "$1" "$2"
}
