#!/usr/bin/env bash
# bench.sh: the figures in README.md. Brings up a testbed at RATE/RTT/MTU, runs
# iperf3 -P N from A to B, and prints goodput, wanem's CPU (utime+stime over
# the run, and the user part), ping's mean RTT on the idle link, and wanem's
# release lateness. Needs root, iperf3, ping and python3.
set -euo pipefail

usage() {
  cat <<'EOF2'
Usage: tools/wanem/bench.sh [--rate 1G] [--rtt 50ms] [--mtu 1500] [--cc cubic]
                            [-P 8] [-t 10] [--no-offload]
EOF2
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TESTBED=$HERE/../testbed
if [[ ${1:-} == --inside ]]; then
  streams=$2 seconds=$3 cc=$4
  mean_ping() {
    ip netns exec "$TB_NS_A" ping -q -c 20 -i 0.05 "$TB_ADDR_B" | awk -F/ '/^rtt/ { print $5 }'
  }
  idle_ping=$(mean_ping)
  ip netns exec "$TB_NS_B" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
  server=$!
  sleep 0.5
  read -r u0 s0 < <(awk '{ print $14, $15 }' "/proc/$TB_WANEM_PID/stat")
  t0=$(date +%s.%N)
  ip netns exec "$TB_NS_A" iperf3 -c "$TB_ADDR_B" -P "$streams" -t "$seconds" -O 3 -C "$cc" -J \
    >"$TB_STATE/iperf3.json"
  read -r u1 s1 < <(awk '{ print $14, $15 }' "/proc/$TB_WANEM_PID/stat")
  t1=$(date +%s.%N)
  wait "$server" 2>/dev/null || true
  python3 - "$TB_STATE/iperf3.json" "$u0" "$s0" "$u1" "$s1" "$t0" "$t1" "$(getconf CLK_TCK)" \
    "$idle_ping" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
u0, s0, u1, s1, t0, t1, tck = map(float, sys.argv[2:9])
e = j["end"]
d = (t1 - t0) * tck
print("iperf3 %.0f Mbit/s, retransmits %d; wanem CPU %.0f%% of a core (user %.1f%%); "
      "ping on the idle link %s ms" % (e["sum_received"]["bits_per_second"] / 1e6,
      e["sum_sent"]["retransmits"], (u1 + s1 - u0 - s0) / d * 100, (u1 - u0) / d * 100, sys.argv[9]))
PY
  "$TESTBED" counters --state "$TB_STATE" | grep -E '^wanem (a->b|b->a|loop)'
  exit 0
fi

rate=1G rtt=50ms mtu=1500 cc=cubic streams=8 seconds=10 extra=()
while (($#)); do
  case $1 in
    --rate) rate=$2; shift 2 ;;
    --rtt) rtt=$2; shift 2 ;;
    --mtu) mtu=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    -P) streams=$2; shift 2 ;;
    -t) seconds=$2; shift 2 ;;
    --no-offload) extra+=(--wanem-opt=--no-offload); shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
echo "rate $rate, RTT $rtt, MTU $mtu, $cc, -P $streams ${extra[*]+"${extra[*]}"}"
exec "$TESTBED" run --no-ssh --rate "$rate" --rtt "$rtt" --mtu "$mtu" "${extra[@]+"${extra[@]}"}" \
  -- "${BASH_SOURCE[0]}" --inside "$streams" "$seconds" "$cc"
