#!/usr/bin/env bash
# -s auto on a lossy long path (50 ms, 0.01% loss, cubic): once its slow-start
# burst is over, one stream settles near 30-60 Mbit/s (the Mathis limit), so
# the controller must open more. Over the same late window of a 25 s copy,
# -s auto must deliver at least twice what -s 1 does.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [[ ${1:-} != inside ]]; then
  require python3
  require_braid_testbed
  exec "$TESTBED" run --braid "$BRAID" --rate 500M --rtt 50ms --loss 0.01% -- "$0" inside
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
# run NAME ARGS...: /dev/zero on A to /dev/null on B for 25 s, per-second CSV.
run() {
  local name=$1
  shift
  HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" -v --cc cubic --report-csv "$work/$name.csv" \
    "$@" --size 100G /dev/zero hostb:/dev/null 2>"$work/$name.err" &
  local pid=$!
  BG_PIDS+=("$pid")
  sleep 25
  kill -INT "$pid"
  wait "$pid" || true
}
# late NAME: mean Mbit/s from 10 s after the first row to the end.
late() {
  python3 - "$work/$1.csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
by_time = collections.defaultdict(int)
for r in rows:
    by_time[float(r["time"])] += int(r["bytes"])
times = sorted(by_time)
late = [t for t in times if t >= times[0] + 10]
print(round(8 * sum(by_time[t] for t in late) / (late[-1] - late[0] + 1) / 1e6))
PY
}
info "-s 1"
run one -s 1
info "-s auto (the controller's steps follow)"
run auto -s auto:1-32
grep 'streams:' "$work/auto.err" >&2 || true
one=$(late one)
auto=$(late auto)
info "from 10 s on: -s 1 $one Mbit/s, -s auto $auto Mbit/s"
((one > 0)) || fail "-s 1 moved nothing: $(tail -3 "$work/one.err")"
((auto >= 2 * one)) || fail "-s auto delivered less than twice -s 1"
info "ok"
