#!/usr/bin/env bash
# Many at once (issue 17): sixteen copies from sixteen sources to one host at
# the same time, with the default options, then with -Z sharing a range of 40
# ports, then eight with a range of 2 ports (so most must wait for a port):
# every copy completes byte-identical and none fails for want of a port.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require cmp
  require_braid_testbed
  exec "$TESTBED" run --braid "$BRAID" --rate 1G --rtt 10ms -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
for ((i = 1; i <= 16; i++)); do head -c $((8 * 1024 * 1024 + i)) /dev/urandom >"$work/src$i"; done

# copies N LABEL ARGS...: N copies at once, src1..N to dst1..N on B; all must succeed.
copies() {
  local n=$1 label=$2 i pids=() failed=0
  shift 2
  rm -f "$work"/dst*
  for ((i = 1; i <= n; i++)); do
    HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" "$@" "$work/src$i" "hostb:$work/dst$i" \
      2>"$work/err$i" &
    pids+=($!)
  done
  for ((i = 1; i <= n; i++)); do
    if ! wait "${pids[i - 1]}"; then
      echo "copy $i failed: $(cat "$work/err$i")" >&2
      failed=1
    fi
  done
  ((failed == 0)) || fail "$label: a copy failed"
  for ((i = 1; i <= n; i++)); do
    cmp "$work/src$i" "$work/dst$i" || fail "$label: copy $i differs"
  done
  info "ok: $label: $n copies byte-identical"
}

copies 16 "default options"
copies 16 "-Z over 40 ports" -Z 50000:50039
copies 8 "-Z over 2 ports" -Z 50100:50101
