#!/usr/bin/env bash
# braid copies a file through the emulated path over its own ssh, byte for
# byte: a push from A to B and a pull back, with the testbed's HOME.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require cmp
  require_braid_testbed
  exec "$TESTBED" run --braid "$BRAID" --rate 500M --rtt 50ms --loss 0.01% -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
head -c $((48 * 1024 * 1024 + 12345)) /dev/urandom >"$work/src.dat"
info "push A -> hostb"
HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" -s 4 -e "$work/src.dat" "hostb:$work/pushed.dat"
cmp "$work/src.dat" "$work/pushed.dat" || fail "pushed copy differs"
info "pull hostb -> A"
HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" -s 4 "hostb:$work/pushed.dat" "$work/pulled.dat"
cmp "$work/src.dat" "$work/pulled.dat" || fail "pulled copy differs"
"$TESTBED" counters --state "$TB_STATE" >&2
info "ok: both copies byte-identical"
