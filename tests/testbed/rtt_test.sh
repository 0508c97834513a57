#!/usr/bin/env bash
# The configured RTT is what ping and TCP measure, within 2%.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require iperf3 ping python3
  exec "$TESTBED" run --no-ssh --rate 500M --rtt 50ms -- "$0" inside
fi

out=$(mktemp -d)
trap 'cleanup_background; rm -rf "$out"' EXIT
ping_avg=$(ip netns exec "$TB_NS_A" ping -q -c 20 -i 0.05 "$TB_ADDR_B" |
  awk -F/ '/^rtt|^round-trip/ { print $5 }')
within "$ping_avg" 50 2 "ping mean RTT (ms)"

# An application-limited flow keeps the bottleneck queue empty, so its
# smoothed and minimum RTT are the path's.
iperf_server "$TB_NS_B" 5201
iperf_client "$out/tcp.json" "$TB_NS_A" "$TB_ADDR_B" 5201 -t 3 -b 20M
min_rtt=$(json "$out/tcp.json" "j['end']['streams'][0]['sender']['min_rtt'] / 1000")
mean_rtt=$(json "$out/tcp.json" "j['end']['streams'][0]['sender']['mean_rtt'] / 1000")
within "$min_rtt" 50 2 "TCP min RTT (ms)"
info "TCP mean RTT $mean_rtt ms"
