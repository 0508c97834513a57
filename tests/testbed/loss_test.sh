#!/usr/bin/env bash
# Configured loss shows up as TCP retransmits (and in wanem's counters);
# without loss an application-limited flow retransmits nothing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

case ${1:-} in
  "")
    require iperf3 python3
    "$TESTBED" run --no-ssh --rate 500M --rtt 50ms --loss 0 -- "$0" no-loss
    exec "$TESTBED" run --no-ssh --rate 500M --rtt 50ms --loss 0.1% -- "$0" loss
    ;;
esac

out=$(mktemp -d)
trap 'cleanup_background; rm -rf "$out"' EXIT
iperf_server "$TB_NS_B" 5201
# 100 Mbit/s on a 500 Mbit/s link: no queue drops, so loss is the only cause.
iperf_client "$out/loss.json" "$TB_NS_A" "$TB_ADDR_B" 5201 -t 3 -b 100M
retransmits=$(json "$out/loss.json" "j['end']['sum_sent']['retransmits']")
counters=$("$TESTBED" counters --state "$TB_STATE")
lost=$(sed -n 's/^wanem a->b:.* lost \([0-9]*\) segments.*/\1/p' <<<"$counters")
drops=$(sed -n 's/^wanem a->b:.* queue drops \([0-9]*\) segments.*/\1/p' <<<"$counters")
info "retransmits $retransmits, wanem a->b lost $lost, queue drops $drops"
[[ $drops == 0 ]] || fail "queue drops ($drops) would confound the loss check"
if [[ $1 == no-loss ]]; then
  [[ $lost == 0 ]] || fail "wanem lost $lost segments with --loss 0"
  at_most "$retransmits" 2 "retransmits without loss"
else
  at_least "$lost" 5 "segments wanem dropped at 0.1%"
  at_least "$retransmits" 1 "retransmits with 0.1% loss"
  # Every lost segment is retransmitted once (more only if a retransmit is lost too).
  at_least "$retransmits" "$((lost / 2))" "retransmits vs. wanem's lost segments"
fi
