#!/usr/bin/env bash
# Kill-point soak: many trials of a copy broken at a random moment by a random
# fault, each followed by re-runs of the same command until it succeeds. Every
# trial must end byte-identical, with no final file visible before it is
# complete, and with the bytes that crossed the link over all runs at most
# 1.15x the data (a resume must not re-send what arrived).
#
#   tools/soak.sh [--trials N] [--size SIZE] [--seed S] [--braid PATH] [--keep-going]
#                 [--faults "kill-sink disk-full ..."]
#
# Runs on a 2-host testbed (tools/testbed, root only): A pushes to B over ssh;
# the link is wanem's, so its byte counters tell what crossed it.
# Faults: SIGKILL of the sink or the source server, SIGKILL or SIGINT of the
# agent, the ssh connection cut, one data stream reset, the target disk full,
# the link down for 20 s (wanem stopped). The first run has --stall-timeout 5
# and the default --retry 3, so the faults the network causes are recovered by
# the first command itself; the summary counts those.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
trials=4
size=256M
seed=$RANDOM
braid=${BRAID:-$here/build/src/braid}
keep_going=0
only=""
while (($#)); do
  case $1 in
    --trials) trials=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --braid) braid=$2; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    --faults) only=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

data=$(numfmt --from=iec "$size")
if [[ ${SOAK_INSIDE:-} != 1 ]]; then
  [[ $(id -u) == 0 ]] || { echo "soak: needs root (network namespaces)"; exit 77; }
  [[ -x $braid ]] || { echo "soak: no braid at $braid (build first or pass --braid)"; exit 77; }
  work=$(mktemp -d /tmp/braid-soak.XXXXXX)
  mkdir -p "$work/disk"
  # The target lives on its own small file system, so "disk full" is a fault
  # like the others: room for the copy and a little, filled by a filler file.
  # Mounted before the testbed starts, so the hosts' sshd see it too.
  mount -t tmpfs -o size=$((data + data / 4 + 64 * 1024 * 1024)) tmpfs "$work/disk"
  trap 'umount -l "$work/disk" 2>/dev/null || true; rm -rf "$work"' EXIT
  export SOAK_INSIDE=1 SOAK_WORK=$work BRAID=$braid
  "$here/tools/testbed" run --braid "$braid" --rate 2G --rtt 2ms --mtu 9000 -- \
    "$0" --trials "$trials" --size "$size" --seed "$seed" --braid "$braid" \
    --faults "$only" $( ((keep_going)) && echo --keep-going)
  exit
fi

RANDOM=$seed
work=$SOAK_WORK
disk=$work/disk
head -c "$data" /dev/urandom >"$work/src.dat"
cat >"$work/serve.sh" <<EOF
#!/bin/sh
echo \$\$ >> "$work/serve.pids"
exec braid "\$@"
EOF
chmod +x "$work/serve.sh"

rx_b() { # bytes B received over its link: the data plus headers and ssh
  ip netns exec "$TB_NS_B" sh -c 'n=0; for d in /sys/class/net/*; do
    [ "${d##*/}" = lo ] || n=$((n + $(cat "$d/statistics/rx_bytes"))); done; echo $n'
}
log() { echo "soak: $*" >&2; }

faults=(kill-sink kill-source kill-agent interrupt ssh-cut stream-reset disk-full link-down)
[[ -z $only ]] || read -r -a faults <<<"$only"
declare -A survived=()
failed=0
first_ok=0
for ((t = 1; t <= trials; t++)); do
  fault=${faults[RANDOM % ${#faults[@]}]}
  dst=$disk/dst.dat
  rm -f "$dst" "$dst".braid-* "$work/serve.pids" "$disk/filler"
  # Somewhere between 5% and 80% of the data.
  point=$((data / 100 * (5 + RANDOM % 76)))
  log "trial $t: $fault after ~$((point >> 20)) MiB of $((data >> 20)) MiB"
  before=$(rx_b)
  HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" -v -T "$work/serve.sh" -x 150M --stall-timeout 5 \
    "$work/src.dat" "hostb:$dst" 2>"$work/run1.err" &
  agent=$!
  seen_early=0
  # Wait for the kill point: bytes on disk at B.
  for ((i = 0; i < 3000; i++)); do
    cur=$(stat -c %s "$dst.braid-part" 2>/dev/null || echo 0)
    # The partial file is allocated up front; its used blocks tell the progress.
    used=$(($(stat -c %b "$dst.braid-part" 2>/dev/null || echo 0) * 512))
    ((cur > 0 && used >= point)) && break
    kill -0 "$agent" 2>/dev/null || break
    sleep 0.01
  done
  sink=$(head -1 "$work/serve.pids" 2>/dev/null || true)
  case $fault in
    kill-sink) [[ -z $sink ]] || kill -KILL "$sink" || true ;;
    kill-source)
      # The local source server is the agent's child.
      src=$(pgrep -P "$agent" | head -1 || true)
      [[ -z $src ]] || kill -KILL "$src" || true
      ;;
    kill-agent) kill -KILL "$agent" || true ;;
    interrupt) kill -INT "$agent" || true ;;
    ssh-cut) ip netns exec "$TB_NS_A" ss -K -t state established "( dport = :22 )" >/dev/null || true ;;
    stream-reset)
      port=$(sed -n 's/.*listening on [^ ]* port \([0-9]*\).*/\1/p' "$work/run1.err" | head -1)
      # One stream: the first established one to the sink's data port.
      one=$(ip netns exec "$TB_NS_A" ss -Htn state established "( dport = :${port:-0} )" |
        awk '{print $3}' | head -1)
      [[ -z $one ]] || ip netns exec "$TB_NS_A" ss -K -t state established \
        "( dport = :$port and src $one )" >/dev/null 2>&1 || true
      ;;
    disk-full) cat /dev/zero >"$disk/filler" 2>/dev/null || true ;;
    link-down)
      kill -STOP "$TB_WANEM_PID"
      sleep 20
      kill -CONT "$TB_WANEM_PID"
      ;;
  esac
  # No final name may appear unless the copy is complete.
  while kill -0 "$agent" 2>/dev/null; do
    if [[ -e $dst ]] && ! cmp -s "$work/src.dat" "$dst"; then seen_early=1; fi
    sleep 0.05
  done
  wait "$agent" && status=0 || status=$?
  # A killed agent leaves its remote sink to notice and journal; let it finish.
  for pid in $(cat "$work/serve.pids" 2>/dev/null); do
    for ((i = 0; i < 200 && $(kill -0 "$pid" 2>/dev/null && echo 1 || echo 0); i++)); do sleep 0.05; done
  done
  if [[ -e $dst ]] && ! cmp -s "$work/src.dat" "$dst"; then seen_early=1; fi
  rm -f "$disk/filler"
  runs=1
  while ! cmp -s "$work/src.dat" "$dst" 2>/dev/null; do
    ((runs < 4)) || break
    runs=$((runs + 1))
    HOME=$TB_HOME ip netns exec "$TB_NS_A" "$BRAID" "$work/src.dat" "hostb:$dst" \
      2>"$work/run$runs.err" || true
  done
  after=$(rx_b)
  moved=$((after - before))
  ratio=$(awk -v m="$moved" -v d="$data" 'BEGIN { printf "%.3f", m / d }')
  ok=1
  cmp -s "$work/src.dat" "$dst" || { ok=0; log "  FAIL: not byte-identical after $runs runs"; }
  ((seen_early == 0)) || { ok=0; log "  FAIL: an incomplete file appeared under the final name"; }
  awk -v r="$ratio" 'BEGIN { exit !(r <= 1.15) }' ||
    { ok=0; log "  FAIL: $ratio x the data crossed the link"; }
  [[ ! -e $dst.braid-part && ! -e $dst.braid-journal ]] ||
    { ok=0; log "  FAIL: partial state left after success"; }
  log "  first run exit $status; $runs runs; link carried ${ratio}x the data; $([[ $ok == 1 ]] && echo ok || echo FAILED)"
  if ((ok)); then
    survived[$fault]=$((${survived[$fault]:-0} + 1))
    ((status != 0)) || first_ok=$((first_ok + 1))
  else
    failed=$((failed + 1))
    tail -n 4 "$work"/run*.err >&2 || true
    ((keep_going)) || break
  fi
done
summary=""
for f in "${faults[@]}"; do summary+=" $f=${survived[$f]:-0}"; done
log "seed $seed: $((trials - failed)) of $trials trials survived;$summary; $first_ok recovered without a second command"
((failed == 0))
