#!/usr/bin/env bash
# What a bulk copy does to response time, with QBSS classes on, on a short path
# where queueing dominates (as on SLAC's LAN: 1 ms RTT, 100 Mbit/s, a queue of
# 10 ms at the rate, braid --cc cubic so that it fills the queue). A best-effort
# ping's median RTT under a braid load marked -q qbss stays within 2x its
# unloaded median plus 1 ms; under the same load unmarked it is at least 4x,
# so the test shows the effect and fails if marking stops working.
# wanem runs without TUN offload so that the link interleaves 1500-byte
# packets: a 64 KiB GSO frame holds a 100 Mbit/s link for 5 ms.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

readonly PROBE_S=6 WARMUP_S=4
if [[ ${1:-} != inside ]]; then
  require ping python3
  require_braid_testbed
  exec "$TESTBED" run --braid "$BRAID" --rate 100M --rtt 1ms --queue 125000 --classes \
    --wanem-opt=--no-offload -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT

# median_rtt NAME: pings B at 10 Hz (best effort) for PROBE_S s; the median in ms.
median_rtt() {
  ip netns exec "$TB_NS_A" ping -n -i 0.1 -w "$PROBE_S" "$TB_ADDR_B" >"$work/$1.ping" || true
  python3 - "$work/$1.ping" <<'PY'
import re, statistics, sys
rtts = [float(x) for x in re.findall(r"time=([0-9.]+) ms", open(sys.argv[1]).read())]
if len(rtts) < 20:
    sys.exit(f"only {len(rtts)} ping replies")
print(f"{statistics.median(rtts):.3f}")
PY
}

# loaded NAME BRAID_ARGS...: the median RTT while braid sends /dev/zero to B.
loaded() {
  local name=$1 pid median
  shift
  HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" --cc cubic "$@" --size 100G \
    /dev/zero hostb:/dev/null 2>"$work/$name.err" &
  pid=$!
  BG_PIDS+=("$pid")
  sleep "$WARMUP_S"
  kill -0 "$pid" 2>/dev/null || fail "braid $* ended early: $(tail -n 3 "$work/$name.err")"
  median=$(median_rtt "$name") || fail "ping under the $name load failed"
  kill -INT "$pid"
  wait "$pid" || true
  echo "$median"
}

sleep 0.5
unloaded=$(median_rtt unloaded) || fail "ping on the idle path failed"
info "unloaded median RTT $unloaded ms"
qbss=$(loaded qbss -q qbss)
info "under a -q qbss load: median RTT $qbss ms"
unmarked=$(loaded unmarked)
info "under an unmarked load: median RTT $unmarked ms"
at_most "$qbss" "$(python3 -c "print(2 * $unloaded + 1)")" "median RTT under a qbss load (ms)"
at_least "$unmarked" "$(python3 -c "print(4 * $unloaded)")" "median RTT under an unmarked load (ms)"
"$TESTBED" counters --state "$TB_STATE" >&2
