#!/usr/bin/env bash
# Sixteen copies at once against one alone (issue 17): one braid copy of
# COPIES x SIZE bytes, then COPIES concurrent copies of SIZE bytes each, to
# HOST:DIR, alternating for ROUNDS rounds; prints a CSV of the seconds each
# took and checks every copy.
#
#   tools/bench/concurrent.sh --host ALIAS [--size 256M] [--copies 16] [--rounds 7]
#                             [--warmup 1] [--dir /dev/shm/braid-concurrent] [--braid PATH]
# HOST is an ssh alias braid reaches (HOME's ~/.ssh/config); DIR is used at
# both ends (a loopback host), and removed after. Sixteen logins at once cost
# sixteen runs of the remote user's shell start-up files: log in as a user
# whose ~/.bashrc returns early when not interactive (Debian's skeleton does).
# The first WARMUP rounds run and are checked but not printed: in this VM,
# memory just written (the sources, the first targets) is slow to touch for a
# while (a first single copy took 9-10 s, later ones 1.7 s).
set -euo pipefail
host="" size=256M copies=16 rounds=7 warmup=1 dir=/dev/shm/braid-concurrent
braid=$(cd "$(dirname "$0")/../.." && pwd)/build/src/braid
while (($#)); do
  case $1 in
    --host) host=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --copies) copies=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --braid) braid=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "concurrent.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $host ]] || { echo "concurrent.sh: --host is needed (see --help)" >&2; exit 2; }
mkdir -p "$dir/out"
chmod 1777 "$dir/out"  # HOST may log in as another user than the one running this
trap 'rm -rf "$dir"' EXIT
for ((i = 1; i <= copies; i++)); do head -c "$(numfmt --from=iec "$size")" /dev/urandom >"$dir/s$i"; done
cat "$dir"/s* >"$dir/all"
now() { date +%s.%N; }
echo "round,one_s,concurrent_s"
for ((r = 1 - warmup; r <= rounds; r++)); do
  rm -rf "${dir:?}"/out/*
  t0=$(now)
  "$braid" "$dir/all" "$host:$dir/out/all" 2>/dev/null || echo "the single copy failed" >&2
  t1=$(now)
  rm -rf "${dir:?}"/out/*
  pids=()
  for ((i = 1; i <= copies; i++)); do "$braid" "$dir/s$i" "$host:$dir/out/s$i" 2>/dev/null & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || echo "a concurrent copy failed" >&2; done
  t2=$(now)
  for ((i = 1; i <= copies; i++)); do cmp -s "$dir/s$i" "$dir/out/s$i" || echo "copy $i differs" >&2; done
  ((r < 1)) || echo "$r,$(echo "$t1 - $t0" | bc),$(echo "$t2 - $t1" | bc)"
done
