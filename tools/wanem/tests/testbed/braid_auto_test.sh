#!/usr/bin/env bash
# -s auto on a lossy long path (50 ms, 0.01% loss, cubic): one stream is held
# to ~115 Mbit/s by the loss, so the controller must open more; it must
# deliver at least twice what -s 1 does.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require python3
  [[ -n ${BRAID:-} && -x ${BRAID:-} ]] || skip "set BRAID to a built braid binary (ctest does)"
  [[ -x /usr/sbin/sshd ]] || skip "sshd is not installed (apt-get install -y openssh-server)"
  exec "$TESTBED" run --braid "$BRAID" --rate 500M --rtt 50ms --loss 0.01% \
    -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
copy() { # OUT ARGS...: /dev/zero on A to /dev/null on B, --json into OUT
  local out=$1
  shift
  HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" --json --cc cubic "$@" /dev/zero \
    hostb:/dev/null >"$out" 2>"$out.err" || fail "braid $*: $(tail -3 "$out.err")"
}
info "-s 1"
copy "$work/one.json" -s 1 --size 160M
info "-s auto (-v shows the controller's steps)"
copy "$work/auto.json" -v -s auto:1-32 --size 640M
grep 'streams:' "$work/auto.json.err" >&2 || true
one=$(json "$work/one.json" 'j["end"]["bits_per_second"]')
auto=$(json "$work/auto.json" 'j["end"]["bits_per_second"]')
used=$(json "$work/auto.json" 'j["end"]["streams_used"]')
info "-s 1: $(python3 -c "print(round($one/1e6))") Mbit/s; -s auto: $(python3 -c "print(round($auto/1e6))") Mbit/s over up to $used streams"
python3 -c "import sys; sys.exit(0 if $auto >= 2 * $one else 1)" ||
  fail "-s auto delivered less than twice -s 1"
info "ok"
