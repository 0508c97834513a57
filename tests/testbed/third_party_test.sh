#!/usr/bin/env bash
# A third-party copy steered from host C: control over C's direct links, data
# from A to B through wanem; the copy is byte-identical and wanem carried it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require cmp
  require_braid_testbed
  exec "$TESTBED" run --hosts 3 --braid "$BRAID" --rate 500M --rtt 20ms -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
head -c $((16 * 1024 * 1024 + 777)) /dev/urandom >"$work/src.dat"
HOME=$TB_HOME ip netns exec "$TB_NS_C" "$BRAID" -s 2 "hosta:$work/src.dat" "hostb:$work/dst.dat"
cmp "$work/src.dat" "$work/dst.dat" || fail "third-party copy differs"
counters=$("$TESTBED" counters --state "$TB_STATE")
carried=$(sed -n 's/^wanem a->b: delivered [0-9]* segments in [0-9]* frames, \([0-9]*\) bytes.*/\1/p' <<<"$counters")
at_least "$carried" $((16 * 1024 * 1024)) "bytes wanem carried A->B"
info "ok: third-party copy byte-identical and went through wanem"
