#!/usr/bin/env bash
# A per-class rate cap (wanem --priority-cap): a priority (TOS 0x28) flow alone
# is held to the cap within 5%, and beside it best effort gets the rest.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

readonly CAP=30 RATE=200e6 # percent, bit/s
if [[ ${1:-} != inside ]]; then
  require iperf3 python3
  exec "$TESTBED" run --no-ssh --rate 200M --rtt 20ms --classes --priority-cap "$CAP%" \
    -- "$0" inside
fi

out=$(mktemp -d)
trap 'cleanup_background; rm -rf "$out"' EXIT
goodput=$(goodput_of "$RATE" 1500)
capped=$(python3 -c "print($goodput * $CAP / 100)")
rest=$(python3 -c "print($goodput * (100 - $CAP) / 100)")

info "priority alone, capped at $CAP%"
iperf_server "$TB_NS_B" 5201
iperf_client "$out/alone.json" "$TB_NS_A" "$TB_ADDR_B" 5201 -S 0x28 -t 6 -O 2
alone=$(json "$out/alone.json" "j['end']['sum_received']['bits_per_second']")
within "$alone" "$capped" 5 "priority alone (bit/s)"

info "priority beside best effort"
iperf_server "$TB_NS_B" 5201
iperf_server "$TB_NS_B" 5202
ip netns exec "$TB_NS_A" iperf3 -c "$TB_ADDR_B" -p 5201 -S 0x28 -t 9 -O 3 -J >"$out/prio.json" &
prio_pid=$!
BG_PIDS+=("$prio_pid")
iperf_client "$out/be.json" "$TB_NS_A" "$TB_ADDR_B" 5202 -t 9 -O 3
wait "$prio_pid" || fail "priority iperf3 failed"
prio=$(json "$out/prio.json" "j['end']['sum_received']['bits_per_second']")
be=$(json "$out/be.json" "j['end']['sum_received']['bits_per_second']")
within "$prio" "$capped" 5 "priority beside best effort (bit/s)"
within "$be" "$rest" 5 "best effort beside capped priority (bit/s)"
"$TESTBED" counters --state "$TB_STATE" >&2
