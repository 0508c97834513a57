#!/usr/bin/env bash
# A copy to many destinations (--to, issue 16) on a LAN of hosts (tools/testbed
# --lan), each host's link at 200 Mbit/s each way. One case a run (ctest runs
# each as testbed.fanout_test.CASE; no CASE runs them all):
#   chain  host1 to hosts 2-5 with --topology chain: every copy byte-identical,
#          and the source's link carried the file about once
#   kill   the same with the second destination's sink killed (SIGKILL) at about
#          30% and --retry 0: the other three complete, exit 16 names it; the
#          same command again exits 0 and moves at most 1.15x what it lacked
#   tree   -r -p -e of a small tree to 3 destinations by chain: identical trees
#          and modification times
#   sites  two sites of 3 hosts joined by wanem (50 ms), the destinations given
#          alternating between the sites, the default layout (auto): it is a
#          chain, every copy completes, and ordered by RTT the chain crosses
#          wanem once (at most 1.05x the data)
# testbed-cases: chain kill tree sites
set -euo pipefail
source "$(dirname "$0")/lib.sh"

readonly CASES=(chain kill tree sites)

if [[ ${1:-} != inside ]]; then
  require cmp diff python3
  require_braid_testbed
  cases=("$@")
  ((${#cases[@]} > 0)) || cases=("${CASES[@]}")
  for c in "${cases[@]}"; do
    case $c in
      chain | kill | tree)
        "$TESTBED" run --braid "$BRAID" --lan 5 --rate 200M -- "$0" inside "$c" ;;
      sites)
        "$TESTBED" run --braid "$BRAID" --lan 6 --sites 2 --rate 200M --wan-rate 1G \
          --rtt 50ms -- "$0" inside "$c" ;;
      *) fail "unknown case $c (${CASES[*]})" ;;
    esac
  done
  exit 0
fi

work=$(mktemp -d)
trap 'cleanup_background; rm -rf "$work"' EXIT
case_name=$2

ns_of() { local v=TB_NS_$1; echo "${!v}"; }

link_bytes() { # HOST rx|tx: bytes on host K's link since the testbed came up
  ip netns exec "$(ns_of "$1")" cat "/sys/class/net/eth0/statistics/$2_bytes"
}

# braid_from HOST ARGS...: braid in host K's namespace with the testbed's ssh.
braid_from() {
  local host=$1
  shift
  HOME=$TB_HOME ip netns exec "$(ns_of "$host")" "$BRAID" "$@"
}

# to_args HOST...: --to hostK:$work/dK/ for each, each directory made first.
to_args() {
  local k
  TO=()
  for k in "$@"; do
    mkdir -p "$work/d$k"
    TO+=(--to "host$k:$work/d$k/")
  done
}

make_source() { # SIZE_MIB: $work/src.dat, not a multiple of a block
  head -c $(($1 * 1024 * 1024 + 12345)) /dev/urandom >"$work/src.dat"
}

# same_everywhere HOST...: every dK/src.dat is the source's bytes.
same_everywhere() {
  local k
  for k in "$@"; do
    cmp "$work/src.dat" "$work/d$k/src.dat" || fail "the copy at host$k differs"
  done
}

# json_dest FILE DEST EXPR: EXPR over destination DEST's object `d` in --json's FILE.
json_dest() {
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
d = [x for x in j["destinations"] if x["destination"] == sys.argv[2]][0]
print(eval(sys.argv[3]))' "$1" "$2" "$3"
}

case_chain() {
  make_source 64
  local size tx0 tx
  size=$(stat -c %s "$work/src.dat")
  to_args 2 3 4 5
  tx0=$(link_bytes 1 tx)
  local t0=$SECONDS
  braid_from 1 --topology chain "$work/src.dat" "${TO[@]}" || fail "chain exited $?"
  info "chain to 4 hosts took about $((SECONDS - t0)) s"
  same_everywhere 2 3 4 5
  tx=$(($(link_bytes 1 tx) - tx0))
  # A chain reads the source once: host1's link carries the file once, plus
  # headers (about 3% at MTU 1500) and the control sessions.
  at_most "$(awk -v t="$tx" -v s="$size" 'BEGIN { printf "%.3f", t / s }')" 1.10 \
    "bytes host1 sent / file size"
  info "ok: chain to 4 hosts, every copy byte-identical"
}

# sink_pid_of HOST DIR: the braid in host K's namespace that holds a journal in
# DIR open (the sink; the chain's next hop reads the partial file, not the journal).
sink_pid_of() {
  local host=$1 dir=$2 pid fd found=()
  for pid in $(ip netns pids "$(ns_of "$host")"); do
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == braid ]] || continue
    for fd in /proc/"$pid"/fd/*; do
      if [[ $(readlink "$fd" 2>/dev/null) == "$dir"/*.braid-journal ]]; then
        found+=("$pid")
        break
      fi
    done
  done
  ((${#found[@]} == 1)) || return 1
  echo "${found[0]}"
}

case_kill() {
  make_source 64
  local size rx0 i pid="" rc
  size=$(stat -c %s "$work/src.dat")
  to_args 2 3 4 5
  local victim="host3:$work/d3/"
  rx0=$(link_bytes 3 rx)
  braid_from 1 --topology chain --retry 0 --json "$work/src.dat" "${TO[@]}" \
    >"$work/run1.json" 2>"$work/run1.err" &
  local agent=$!
  # About 30%: what host3's link received (the data and a few % of headers).
  for ((i = 0; i < 3000; i++)); do
    (($(link_bytes 3 rx) - rx0 >= size * 3 / 10)) && break
    kill -0 "$agent" 2>/dev/null || fail "the copy ended before the kill: $(cat "$work/run1.err")"
    sleep 0.01
  done
  ((i < 3000)) || fail "host3 never received 30% of the file"
  for ((i = 0; i < 100; i++)); do
    pid=$(sink_pid_of 3 "$work/d3") && break
    sleep 0.02
  done
  [[ -n $pid ]] || fail "no single braid in host3's namespace holds $work/d3's journal open"
  info "killing host3's sink, pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-60)...)"
  kill -KILL "$pid"
  wait "$agent" && rc=0 || rc=$?
  sed 's/^/    /' "$work/run1.err" >&2
  ((rc == 16)) || fail "exit $rc after a destination's sink was killed, not 16"
  grep -q "^braid: $victim failed" "$work/run1.err" || fail "stderr does not name $victim as failed"
  same_everywhere 2 4 5
  [[ ! -e $work/d3/src.dat ]] || fail "host3 has a final name after its sink was killed"
  [[ -e $work/d3/src.dat.braid-journal ]] || fail "host3 kept no journal"
  info "ok: the other 3 complete, exit 16 names $victim"

  info "the same command again"
  braid_from 1 --topology chain --retry 0 --json "$work/src.dat" "${TO[@]}" \
    >"$work/run2.json" 2>"$work/run2.err" || {
    sed 's/^/    /' "$work/run2.err" >&2
    fail "the re-run exited $?"
  }
  sed 's/^/    /' "$work/run2.err" >&2
  same_everywhere 2 3 4 5
  # What the sink kept is what its journal proves (SinkReady's kept bytes,
  # the re-run's "bytes_skipped"); what the re-run moved to it is its "bytes".
  local kept moved
  kept=$(json_dest "$work/run2.json" "$victim" 'd["bytes_skipped"]')
  moved=$(json_dest "$work/run2.json" "$victim" 'd["bytes"]')
  info "host3 kept $kept of $size bytes; the re-run moved $moved to it"
  ((kept > 0 && kept < size)) || fail "host3 kept $kept of $size bytes: nothing to resume"
  at_most "$(awk -v m="$moved" -v k="$kept" -v s="$size" 'BEGIN { printf "%.3f", m / (s - k) }')" \
    1.15 "bytes moved to host3 / bytes it lacked"
  local k
  for k in 2 4 5; do
    moved=$(json_dest "$work/run2.json" "host$k:$work/d$k/" 'd["bytes"]')
    ((moved == 0)) || fail "the re-run moved $moved bytes to complete host$k"
  done
  info "ok: the re-run completed host3 alone"
}

case_tree() {
  local t=$work/tree
  mkdir -p "$t/sub1/sub2" "$t/sub3" "$t/empty"
  echo "top" >"$t/a.txt"
  head -c $((1024 * 1024 + 3)) /dev/urandom >"$t/sub1/b.bin"
  head -c $((6 * 1024 * 1024 + 5)) /dev/urandom >"$t/sub1/sub2/c.bin"
  printf 'd\n' >"$t/sub3/d.txt"
  : >"$t/sub3/zero"
  chmod 640 "$t/sub1/b.bin"
  chmod 750 "$t/sub3"
  # Distinct times, nanoseconds included, set after every write inside.
  local f n=0
  while IFS= read -r f; do
    n=$((n + 1))
    touch -h -d "2024-0$((n % 9 + 1))-1$((n % 9)) 12:34:56.$((123456789 + n))" "$f"
  done < <(find "$t" -mindepth 1 -depth)
  touch -d "2023-05-06 07:08:09.5" "$t"
  TO=()
  local k
  for k in 2 3 4; do TO+=(--to "host$k:$work/t$k"); done
  braid_from 1 -r -p -e --topology chain "$t" "${TO[@]}" >"$work/digests" ||
    fail "tree copy exited $?"
  # -e prints each file's MD5 once (the first destination to ask).
  diff <(cut -d' ' -f1 "$work/digests" | sort) \
    <(find "$t" -type f -exec md5sum {} + | cut -d' ' -f1 | sort) ||
    fail "-e's digest lines are not the source files' MD5s"
  for k in 2 3 4; do
    diff -r "$t" "$work/t$k" || fail "the tree at host$k differs"
    diff <(cd "$t" && find . -printf '%p %y %m %s %T@\n' | sort) \
      <(cd "$work/t$k" && find . -printf '%p %y %m %s %T@\n' | sort) ||
      fail "names, kinds, modes, sizes or mtimes at host$k differ"
  done
  info "ok: -r -p -e to 3 hosts by chain: identical trees, modes and mtimes"
}

wanem_bytes() { # the bytes wanem delivered a->b plus b->a so far
  "$TESTBED" counters --state "$TB_STATE" |
    sed -n 's/^wanem [ab]->[ab]: delivered [0-9]* segments in [0-9]* frames, \([0-9]*\) bytes.*/\1/p' |
    awk '{ n += $1 } END { print n + 0 }'
}

case_sites() {
  make_source 48
  local size k before after
  size=$(stat -c %s "$work/src.dat")
  local order=(4 2 5 3 6) site
  for k in 1 "${order[@]}"; do
    site=TB_SITE_$k
    echo -n "host$k at site ${!site}; " >&2
  done
  echo >&2
  [[ $TB_SITE_1$TB_SITE_4$TB_SITE_2$TB_SITE_5$TB_SITE_3$TB_SITE_6 == 121212 ]] ||
    fail "the testbed's sites are not hosts 1-3 and 4-6"
  to_args "${order[@]}"
  before=$(wanem_bytes)
  local t0=$SECONDS
  # The default layout (auto), as a user gets it: the model picks the chain.
  braid_from 1 --json "$work/src.dat" "${TO[@]}" >"$work/sites.json" ||
    fail "copy across sites exited $?"
  grep -q '"topology": "chain"' "$work/sites.json" || fail "auto did not lay out a chain"
  info "chain across 2 sites took about $((SECONDS - t0)) s"
  same_everywhere "${order[@]}"
  after=$(wanem_bytes)
  "$TESTBED" counters --state "$TB_STATE" | grep '^wanem [ab]->' >&2
  # braid orders the chain by the RTTs it measures (docs/protocol.md, "Probes"):
  # the hosts of site 1 first, then site 2's, so the data crosses wanem once
  # (the order given would cross it 5 times).
  local ratio
  ratio=$(awk -v b="$((after - before))" -v s="$size" 'BEGIN { printf "%.3f", b / s }')
  info "wanem carried $((after - before)) bytes: ${ratio}x the file"
  awk -v r="$ratio" 'BEGIN { exit !(r <= 1.05) }' ||
    fail "the data crossed the slow link ${ratio}x, not once (at most 1.05x)"
  info "ok: chain across 2 sites, every copy byte-identical"
}

"case_$case_name"
