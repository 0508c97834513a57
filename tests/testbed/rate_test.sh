#!/usr/bin/env bash
# The bottleneck rate holds: iperf3's goodput is the rate (less header bytes)
# within 5%, and never above it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require iperf3 python3
  exec "$TESTBED" run --no-ssh --rate 500M --rtt 50ms -- "$0" inside
fi

out=$(mktemp -d)
trap 'cleanup_background; rm -rf "$out"' EXIT
iperf_server "$TB_NS_B" 5201
# -O 2: leave out slow start; 2 streams so one stream's window is no limit.
iperf_client "$out/rate.json" "$TB_NS_A" "$TB_ADDR_B" 5201 -t 6 -O 2 -P 2
got=$(json "$out/rate.json" "j['end']['sum_received']['bits_per_second']")
expect=$(goodput_of 500e6 1500)
within "$got" "$expect" 5 "goodput at --rate 500M (bit/s)"
at_most "$got" 500e6 "goodput (bit/s)"
