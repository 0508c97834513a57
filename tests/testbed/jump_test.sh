#!/usr/bin/env bash
# -S with the system ssh client through a jump host: B accepts ssh only from
# A, so from C braid's own ssh client cannot reach B, but `-S 'ssh -F CFG -J
# hosta'` can (ProxyJump through A). The data streams still go from C to B
# directly.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require cmp nft ssh
  require_braid_testbed
  exec "$TESTBED" run --hosts 3 --braid "$BRAID" --rate 1G --rtt 2ms -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
ip netns exec "$TB_NS_B" nft -f - <<NFT
table inet braidtest {
  chain input {
    type filter hook input priority 0; policy accept;
    tcp dport 22 ip saddr != $TB_ADDR_A ct state new reject with tcp reset
  }
}
NFT
head -c $((8 * 1024 * 1024 + 99)) /dev/urandom >"$work/src.dat"
info "direct from C: refused by B's firewall"
if HOME=$TB_HOME ip netns exec "$TB_NS_C" "$BRAID" "$work/src.dat" "hostb:$work/direct.dat" \
  2>"$work/direct.err"; then
  fail "B should have refused ssh from C"
fi
cat "$work/direct.err" >&2
info "through A with -S 'ssh -F $TB_SSH_CONFIG -J hosta'"
HOME=$TB_HOME ip netns exec "$TB_NS_C" "$BRAID" -S "ssh -F $TB_SSH_CONFIG -J hosta" \
  "$work/src.dat" "hostb:$work/jumped.dat"
cmp "$work/src.dat" "$work/jumped.dat" || fail "copy through the jump host differs"
info "ok"
