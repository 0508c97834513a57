#!/usr/bin/env bash
# rerun.sh: re-runs of a dataset already at the target, braid against rsync,
# over ssh between the testbed's two hosts (tools/testbed, a LAN-like path).
#
#   tools/bench/rerun.sh [--runs N] [--dir DIR] [--braid PATH] [--out DIR]
#
# The dataset: 10,000 files of 2 KiB in 100 directories and three files of
# 100 MiB (random bytes), under DIR (default /var/tmp: the real file system).
# Copied once by each tool into its own target, then per round, tools
# alternating and the order rotating:
#   noop   the same command again: braid -r -p, rsync -a; `ssh hostb true`
#          beside them, so the login's share is visible
#   delta  after touching 100 small files and writing one block (4 KiB of
#          random bytes, at 50 MiB) into each 100 MiB file: braid -r -p
#          --delta, rsync -a; the bytes each sent (braid's --json "bytes",
#          rsync's "Literal data") against the 12,288 bytes changed
# Every copy is checked with diff -r. Writes DIR_OUT/rerun.csv and rerun.md
# (min, median, max seconds per row, and braid's time over rsync's at the
# median). Needs root (tools/testbed); traffic stays in its namespaces.
set -euo pipefail

# shellcheck source=tools/bench/against_rsync.sh
source "$(dirname "$0")/against_rsync.sh"
bench_setup rerun 19 "$@"
CSV=$OUT/rerun.csv
echo "round,case,tool,seconds,bytes_sent" >"$CSV"
SSH=(ssh -F "$TB_HOME/.ssh/config")
on_a() { HOME=$TB_HOME ip netns exec "$TB_NS_A" "$@"; }

say "making the dataset in $WORK/src"
mkdir -p "$WORK/src"
for d in $(seq 0 99); do
  mkdir -p "$WORK/src/d$d"
  head -c $((100 * 2048)) /dev/urandom | split -b 2048 -a 2 -d - "$WORK/src/d$d/f"
done
for b in 0 1 2; do head -c $((100 << 20)) /dev/urandom >"$WORK/src/big$b"; done
mkdir -p "$WORK/braid" "$WORK/rsync"
on_a "$BRAID" -r -p "$WORK/src" "hostb:$WORK/braid/" >/dev/null
on_a rsync -a -e "${SSH[*]}" "$WORK/src" "hostb:$WORK/rsync/"

now() { date +%s.%N; }
# run CASE TOOL ROUND: times one command, records its bytes sent.
run() {
  local t0 t1 sent=""
  t0=$(now)
  case $2 in
    ssh) on_a "${SSH[@]}" hostb true ;;
    braid)
      local extra=()
      [[ $1 == delta ]] && extra=(--delta)
      on_a "$BRAID" --json -r -p "${extra[@]}" "$WORK/src" "hostb:$WORK/braid/" >"$WORK/out"
      ;;
    rsync) on_a rsync -a --stats -e "${SSH[*]}" "$WORK/src" "hostb:$WORK/rsync/" >"$WORK/out" ;;
  esac
  t1=$(now)
  case $2 in
    braid) sent=$(python3 -c "import json,sys; print(json.load(sys.stdin)['end']['bytes'])" <"$WORK/out") ;;
    rsync) sent=$(awk -F': ' '/^Literal data/ { gsub(/[ ,a-z]/, "", $2); print $2 }' "$WORK/out") ;;
  esac
  echo "$3,$1,$2,$(echo "$t1 - $t0" | bc),$sent" >>"$CSV"
}
check() {
  diff -r "$WORK/src" "$WORK/braid/src" >/dev/null || die "braid's copy differs"
  diff -r "$WORK/src" "$WORK/rsync/src" >/dev/null || die "rsync's copy differs"
}

for round in $(seq 1 "$RUNS"); do
  say "round $round of $RUNS"
  tools=(ssh braid rsync)
  ((round % 2 == 0)) && tools=(rsync ssh braid)
  for t in "${tools[@]}"; do run noop "$t" "$round"; done
  check
  for d in $(seq 0 99); do touch "$WORK/src/d$d/f07"; done
  for b in 0 1 2; do
    head -c 4096 /dev/urandom | dd of="$WORK/src/big$b" bs=4096 seek=12800 conv=notrunc 2>/dev/null
  done
  for t in "${tools[@]}"; do [[ $t == ssh ]] || run delta "$t" "$round"; done
  check
done

python3 - "$CSV" "$OUT/rerun.md" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def cell(case, tool, key):
    v = [float(r[key]) for r in rows if r["case"] == case and r["tool"] == tool and r[key]]
    return (min(v), statistics.median(v), max(v)) if v else None
out = ["| case | tool | seconds min / median / max | bytes sent (median) | braid / rsync at the median |",
       "|------|------|----------------------------|---------------------|------------------------------|"]
for case in ("noop", "delta"):
    for tool in ("ssh", "braid", "rsync"):
        s = cell(case, tool, "seconds")
        if not s:
            continue
        b = cell(case, tool, "bytes_sent")
        ratio = ""
        if tool == "braid" and cell(case, "rsync", "seconds"):
            ratio = "%.2f" % (s[1] / cell(case, "rsync", "seconds")[1])
        out.append("| %s | %s | %.3f / %.3f / %.3f | %s | %s |" % (
            case, tool, s[0], s[1], s[2], "%d" % b[1] if b else "", ratio))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
