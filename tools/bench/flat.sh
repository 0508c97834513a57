#!/usr/bin/env bash
# Flatness of a long copy (issue 17): runs one braid command and samples,
# every second, the resident memory (VmRSS) and open descriptors of the agent
# and of every `braid --serve` that started after it (the local children and,
# over a loopback sshd, the remote ends: on a quiet machine, since another
# copy's servers started meanwhile are sampled too). Prints a CSV (time, pid, role, rss
# KiB, fds) and, per process, the growth from second 10 to the end.
#
#   tools/bench/flat.sh [--out FILE.csv] -- braid ARGS...
#   e.g. HOME=/path/with/.ssh tools/bench/flat.sh --out flat.csv -- \
#          build/src/braid --size 100G /dev/zero lo:/dev/null
set -euo pipefail
out=/dev/stdout
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "flat.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
(($#)) || { echo "flat.sh: no command (see --help)" >&2; exit 2; }

since=$(awk '{print int($22)}' /proc/self/stat)  # start times in clock ticks since boot
"$@" &
agent=$!
trap 'kill "$agent" 2>/dev/null || true' EXIT
echo "time,pid,role,rss_kib,fds" >"$out"
t=0
while kill -0 "$agent" 2>/dev/null; do
  for pid in $agent $(pgrep -f '(^|/)braid --serve' || true); do
    [[ -r /proc/$pid/stat ]] || continue
    [[ $pid == "$agent" ]] || (($(awk '{print int($22)}' "/proc/$pid/stat" 2>/dev/null || echo 0) >= since)) || continue
    rss=$(awk '/^VmRSS/{print $2}' "/proc/$pid/status" 2>/dev/null) || continue
    fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    role=serve; [[ $pid == "$agent" ]] && role=agent
    echo "$t,$pid,$role,${rss:-0},$fds" >>"$out"
  done
  sleep 1
  t=$((t + 1))
done
wait "$agent" && rc=0 || rc=$?
trap - EXIT
[[ $out == /dev/stdout ]] || awk -F, 'NR > 1 {
    k = $2 " " $3
    if ($1 >= 10 && !(k in first)) { first[k] = $4; ffd[k] = $5 }
    if ($1 >= 10) { last[k] = $4; lfd[k] = $5; secs[k] = $1 }
    if ($4 > peak[k]) peak[k] = $4
  } END {
    for (k in first) printf "%s: seconds 10-%d: rss %+d KiB (%d -> %d, peak %d), fds %+d (%d -> %d)\n",
      k, secs[k], last[k] - first[k], first[k], last[k], peak[k], lfd[k] - ffd[k], ffd[k], lfd[k]
  }' "$out" >&2
exit "$rc"
