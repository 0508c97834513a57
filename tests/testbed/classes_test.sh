#!/usr/bin/env bash
# QBSS classes: a scavenger (TOS 0x20) flow gets nearly the whole link alone,
# and at most its minimum share + 5% while a best-effort flow is active.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

readonly SHARE=2 # percent
if [[ ${1:-} != inside ]]; then
  require iperf3 python3
  exec "$TESTBED" run --no-ssh --rate 500M --rtt 50ms --classes --scavenger-share "$SHARE%" \
    -- "$0" inside
fi

out=$(mktemp -d)
trap 'cleanup_background; rm -rf "$out"' EXIT
goodput=$(goodput_of 500e6 1500)

info "scavenger alone"
iperf_server "$TB_NS_B" 5202
iperf_client "$out/alone.json" "$TB_NS_A" "$TB_ADDR_B" 5202 -S 0x20 -t 5 -O 2
alone=$(json "$out/alone.json" "j['end']['sum_received']['bits_per_second']")
at_least "$alone" "$(python3 -c "print($goodput * 0.85)")" "scavenger alone (bit/s)"

info "scavenger beside best effort"
iperf_server "$TB_NS_B" 5201
iperf_server "$TB_NS_B" 5202
ip netns exec "$TB_NS_A" iperf3 -c "$TB_ADDR_B" -p 5201 -t 9 -J >"$out/be.json" &
be_pid=$!
BG_PIDS+=("$be_pid")
sleep 2 # best effort owns the link first
iperf_client "$out/scav.json" "$TB_NS_A" "$TB_ADDR_B" 5202 -S 0x20 -t 6 -O 2
wait "$be_pid" || fail "best-effort iperf3 failed"
scav=$(json "$out/scav.json" "j['end']['sum_received']['bits_per_second']")
be=$(json "$out/be.json" "j['end']['sum_received']['bits_per_second']")
info "best effort $be bit/s over its whole run"
at_most "$scav" "$(python3 -c "print(500e6 * ($SHARE + 5) / 100)")" "scavenger beside best effort (bit/s)"
"$TESTBED" counters --state "$TB_STATE" >&2
