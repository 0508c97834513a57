#!/usr/bin/env bash
# whole.sh: braid's default stream count against fixed ones on the emulated
# WAN (tools/testbed), timed as whole commands, cell by cell.
#
#   tools/bench/whole.sh [--rtts LIST] [--losses LIST] [--ccs LIST] [--rate RATE]
#                        [--size SIZE] [--runs N] [--lossy-counts LIST]
#                        [--clean-counts LIST] [--clear] [--braid PATH] [--out DIR]
#
# wan.sh measures plateau rates after a warm-up; a user pays for the whole
# command (ssh, both servers, stream set-up, the climb, the end). So here every
# run is `braid [-s N] --cc CC --size SIZE /dev/zero hostb:/dev/null` from host
# A, timed from before `ip netns exec` to its exit. Variants alternate within a
# round and the order rotates between rounds. Lossy cells compare -s auto with
# --lossy-counts (default 16,32: -s 4 takes minutes there, 2.6x as long as
# -s 16 at 50 ms / 0.01%, docs/bench-wan/climb.md), loss-free cells with
# --clean-counts (default 4,16). --clear adds `-s auto --cipher none` (the
# variant auto:none) beside the default, which seals every block.
#
# Writes DIR/whole.csv (one row per run) and DIR/whole.md (per cell: min,
# median and max seconds of each variant, and -s auto's time ratio to the best
# fixed count at the median: above 0.9 meets issue 12's target; with --clear,
# also -s auto --cipher none's median time over the sealed default's: above
# 0.95 meets issue 14's "within 5%").
# Needs root (tools/testbed). Traffic stays inside the testbed's namespaces.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TESTBED=$REPO/tools/testbed
RTTS=20,50,100 LOSSES=0,0.01%,0.1% CCS=cubic RATE=500M SIZE=600M RUNS=7
LOSSY_COUNTS=16,32 CLEAN_COUNTS=4,16 CLEAR=0 OUT="" BRAID_IN=${BRAID:-$REPO/build/src/braid}

die() { echo "whole.sh: $*" >&2; exit 1; }
say() { echo "whole.sh: $(date +%T) $*" >&2; }

while (($#)); do
  case $1 in
    --rtts) RTTS=$2; shift 2 ;;
    --losses) LOSSES=$2; shift 2 ;;
    --ccs) CCS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --lossy-counts) LOSSY_COUNTS=$2; shift 2 ;;
    --clean-counts) CLEAN_COUNTS=$2; shift 2 ;;
    --clear) CLEAR=1; shift ;;
    --braid) BRAID_IN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[[ $(id -u) -eq 0 ]] || die "needs root (tools/testbed)"
[[ -x $BRAID_IN ]] || die "braid not found at $BRAID_IN"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs is a whole number"
OUT=${OUT:-$PWD/whole-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CSV=$OUT/whole.csv
[[ -s $CSV ]] || echo "date,rate,rtt_ms,loss,cc,variant,seconds,exit,load" >"$CSV"

WORK=$(mktemp -d /tmp/braid-whole.XXXXXX)
cp "$BRAID_IN" "$WORK/braid"
BRAID_BIN=$WORK/braid
STATE=$WORK/tb
cleanup() {
  set +e
  [[ -f $STATE/testbed.state ]] && "$TESTBED" down --state "$STATE" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One whole command; prints seconds and exit status. VARIANT: auto, a count,
# or either with :CIPHER (auto:none).
time_one() { # CC VARIANT
  local cc=$1 variant=$2 args=() t0 t1 rc=0 count=${2%%:*}
  [[ $count == auto ]] || args=(-s "$count")
  [[ $variant == *:* ]] && args+=(--cipher "${variant#*:}")
  t0=$(date +%s.%N)
  ip netns exec "$TB_NS_A" env HOME="$TB_HOME" "$BRAID_BIN" "${args[@]}" --cc "$cc" \
    --size "$SIZE" /dev/zero hostb:/dev/null >"$WORK/out" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $rc"
}

for rtt in ${RTTS//,/ }; do
  for loss in ${LOSSES//,/ }; do
    "$TESTBED" up --state "$STATE" --braid "$BRAID_BIN" --rate "$RATE" --rtt "${rtt}ms" \
      --loss "$loss" >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; die "testbed up failed"; }
    # shellcheck disable=SC1091
    source "$STATE/env"
    counts=$LOSSY_COUNTS
    [[ $loss == 0 || $loss == 0% ]] && counts=$CLEAN_COUNTS
    for cc in ${CCS//,/ }; do
      variants=(auto ${counts//,/ })
      ((CLEAR)) && variants+=(auto:none)
      say "cell ${rtt} ms / loss $loss / $cc: ${variants[*]}, $RUNS rounds"
      for ((round = 0; round < RUNS; round++)); do
        n=${#variants[@]}
        for ((i = 0; i < n; i++)); do
          v=${variants[$(((i + round) % n))]}
          read -r secs rc < <(time_one "$cc" "$v")
          load=$(cut -d' ' -f1 /proc/loadavg)
          echo "$(date +%FT%T),$RATE,$rtt,$loss,$cc,$v,$secs,$rc,$load" >>"$CSV"
          ((rc == 0)) || say "  $v exited $rc: $(tail -1 "$WORK/out")"
        done
      done
    done
    "$TESTBED" down --state "$STATE" >/dev/null 2>&1 || true
  done
done

python3 - "$CSV" "$OUT/whole.md" "$SIZE" <<'PY'
import csv, statistics, sys, collections
path, out, size = sys.argv[1:4]
runs = collections.defaultdict(list)
for r in csv.DictReader(open(path)):
    if r["exit"] == "0":
        runs[(r["rate"], int(r["rtt_ms"]), r["loss"], r["cc"])].append((r["variant"], float(r["seconds"])))
lines = [f"# Whole commands on the testbed: {size} /dev/zero -> hostb:/dev/null", "",
         "Produced by `tools/bench/whole.sh` (see its header). Seconds from before",
         "`ip netns exec` to exit; min / median / max of the runs; ratio = best fixed",
         "count's median time / -s auto's (above 1: auto is faster); on the",
         "`--cipher none` row, its median time / the sealed default's (above 0.95:",
         "sealing costs under 5%).", "",
         "| rate | RTT ms | loss | cc | variant | runs | min s | median s | max s | ratio |",
         "|---|---:|---|---|---|---:|---:|---:|---:|---:|"]
for cell in sorted(runs, key=lambda c: (c[3], c[1], c[2])):
    by = collections.defaultdict(list)
    for v, s in runs[cell]:
        by[v].append(s)
    med = {v: statistics.median(s) for v, s in by.items()}
    fixed = [m for v, m in med.items() if v.isdigit()]
    ratio = f"{min(fixed) / med['auto']:.2f}" if fixed and "auto" in med else "-"
    clear = f"{med['auto:none'] / med['auto']:.2f}" if "auto:none" in med and "auto" in med else ""
    def label(v):
        count, _, cipher = v.partition(":")
        return f"-s {count}" + (f" --cipher {cipher}" if cipher else "")
    for v in sorted(by, key=lambda v: (not v.startswith("auto"), v, int(v) if v.isdigit() else 0)):
        s = by[v]
        r = ratio if v == "auto" else clear if v == "auto:none" else ""
        lines.append(f"| {cell[0]} | {cell[1]} | {cell[2]} | {cell[3]} | "
                     f"{label(v)} | {len(s)} | {min(s):.2f} | "
                     f"{statistics.median(s):.2f} | {max(s):.2f} | {r} |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
