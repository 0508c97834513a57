#!/usr/bin/env bash
# Networks as sites have them (issue: third-party copies, reachable addresses,
# firewalls), on a 3-host testbed:
#  1. a third-party copy steered from C moves 1 GiB and a tree from A to B,
#     byte-identical, with under 1% of the data crossing C's interfaces;
#  2. a host with two interfaces: --data-host picks the one the data uses;
#  3. a sink whose firewall refuses inbound connections: the plain copy fails
#     and suggests -z / -Z, -z succeeds, and -Z keeps the listener in range.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require cmp nft python3
  require_braid_testbed
  exec "$TESTBED" run --hosts 3 --braid "$BRAID" --rate 1G --rtt 2ms --mtu 9000 -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; ip -n "$TB_NS_A" link del x0 2>/dev/null || true; rm -rf "$work"' EXIT
braid_in() { # NS ARGS...: braid run in a host, with the testbed's ssh setup
  local ns=$1
  shift
  HOME=$TB_HOME ip netns exec "$ns" "$BRAID" "$@"
}
# bytes NS: rx+tx bytes over every interface of a host but lo
bytes() {
  ip netns exec "$1" sh -c 'total=0; for d in /sys/class/net/*; do
    [ "${d##*/}" = lo ] && continue
    total=$((total + $(cat "$d/statistics/rx_bytes") + $(cat "$d/statistics/tx_bytes"))); done
    echo $total'
}

info "1. third-party copy of 1 GiB and a tree, A -> B, steered from C"
head -c $((1024 * 1024 * 1024)) /dev/urandom >"$work/big.dat"
mkdir -p "$work/tree/sub" "$work/out"
for i in 1 2 3 4 5; do head -c $((i * 300000)) /dev/urandom >"$work/tree/sub/f$i"; done
before=$(bytes "$TB_NS_C")
braid_in "$TB_NS_C" -s 4 -e "hosta:$work/big.dat" "hostb:$work/big.copy" >/dev/null
braid_in "$TB_NS_C" -r "hosta:$work/tree" "hostb:$work/out/" >/dev/null
after=$(bytes "$TB_NS_C")
cmp "$work/big.dat" "$work/big.copy" || fail "third-party copy differs"
diff -r "$work/tree" "$work/out/tree" || fail "third-party tree differs"
crossed=$((after - before))
info "bytes across C's interfaces: $crossed for $((1024 * 1024 * 1024)) of data"
((crossed * 100 < 1024 * 1024 * 1024)) || fail "C carried $crossed bytes: 1% or more of the data"
rm -f "$work/big.copy"

info "2. two interfaces between A and B: --data-host picks the one for data"
ip link add x0 netns "$TB_NS_A" type veth peer name x1 netns "$TB_NS_B"
ip -n "$TB_NS_A" addr add 10.88.0.1/30 dev x0
ip -n "$TB_NS_B" addr add 10.88.0.2/30 dev x1
ip -n "$TB_NS_A" link set x0 up
ip -n "$TB_NS_B" link set x1 up
head -c $((64 * 1024 * 1024)) /dev/urandom >"$work/mid.dat"
x1_rx() { ip netns exec "$TB_NS_B" cat /sys/class/net/x1/statistics/rx_bytes; }
before=$(x1_rx)
braid_in "$TB_NS_A" --data-host 10.88.0.2 "$work/mid.dat" "hostb:$work/mid.copy"
cmp "$work/mid.dat" "$work/mid.copy" || fail "copy over the second interface differs"
over=$(($(x1_rx) - before))
info "bytes into B over x1: $over for $((64 * 1024 * 1024)) of data"
((over >= 64 * 1024 * 1024)) || fail "the data did not go over the interface --data-host named"
rm -f "$work/mid.copy"

info "3. B's firewall refuses inbound connections except ssh (and, later, 40000-40010)"
ip netns exec "$TB_NS_B" nft -f - <<'NFT'
table inet braidtest {
  chain input {
    type filter hook input priority 0; policy accept;
    tcp dport != 22 ct state new reject with tcp reset
  }
}
NFT
head -c $((8 * 1024 * 1024)) /dev/urandom >"$work/small.dat"
set +e
braid_in "$TB_NS_A" "$work/small.dat" "hostb:$work/small.copy" 2>"$work/plain.err"
status=$?
set -e
cat "$work/plain.err" >&2
((status == 11)) || fail "a sink that refuses connections should exit 11, got $status"
grep -q -- "-z" "$work/plain.err" || fail "the error does not suggest -z"
[[ ! -e $work/small.copy ]] || fail "a failed copy left the target"
braid_in "$TB_NS_A" -z "$work/small.dat" "hostb:$work/small.copy"
cmp "$work/small.dat" "$work/small.copy" || fail "-z copy differs"
rm -f "$work/small.copy"
ip netns exec "$TB_NS_B" nft flush ruleset
ip netns exec "$TB_NS_B" nft -f - <<'NFT'
table inet braidtest {
  chain input {
    type filter hook input priority 0; policy accept;
    tcp dport != { 22, 40000-40010 } ct state new reject with tcp reset
  }
}
NFT
braid_in "$TB_NS_A" -x 4M -Z 40000:40010 "$work/small.dat" "hostb:$work/small.copy" &
copy=$!
BG_PIDS+=("$copy")
port=""
for ((i = 0; i < 100; i++)); do
  # The listener closes once its streams are in: look at the streams' local ports.
  port=$(ip netns exec "$TB_NS_B" ss -Htn state established | awk '{print $3}' |
    sed 's/.*://' | awk '$1 >= 40000 && $1 <= 40010' | head -1)
  [[ -n $port ]] && break
  sleep 0.05
done
[[ -n $port ]] || fail "no data stream on a port in 40000:40010 at B during the copy"
wait "$copy" || fail "-Z copy failed"
cmp "$work/small.dat" "$work/small.copy" || fail "-Z copy differs"
info "ok: data on port $port; every case passed"
