#!/usr/bin/env bash
# sparse.sh: a sparse file, braid against rsync -S and cp --sparse=always.
#
#   tools/bench/sparse.sh [--runs N] [--dir DIR] [--braid PATH] [--out DIR]
#
# The file: 8 GiB holding 8 MiB of random data in eight 1 MiB pieces, the rest
# holes, under DIR (default /var/tmp: the real file system). Per round, tools
# alternating and the order rotating, each copies it into a fresh target:
#   braid     braid's default push between the testbed's two hosts over ssh
#   rsync -S  rsync -a -S over ssh between the same hosts
#   braid local, cp --sparse=always   on one host, the same file system
# and the copy's size on disk (du) is taken. Every copy is checked against
# the source with cmp. Writes DIR_OUT/sparse.csv and sparse.md (min, median,
# max seconds and disk bytes per row). Needs root (tools/testbed); traffic
# stays in its namespaces.
set -euo pipefail

# shellcheck source=tools/bench/against_rsync.sh
source "$(dirname "$0")/against_rsync.sh"
bench_setup sparse 16 "$@"
CSV=$OUT/sparse.csv
echo "round,tool,seconds,disk_bytes" >"$CSV"
SSH=(ssh -F "$TB_HOME/.ssh/config")
on_a() { HOME=$TB_HOME ip netns exec "$TB_NS_A" "$@"; }

SRC=$WORK/src.img
truncate -s 8G "$SRC"
for i in $(seq 0 7); do
  head -c $((1 << 20)) /dev/urandom | dd of="$SRC" bs=1M seek=$((i * 1000 + 3)) conv=notrunc status=none
done
say "source: $(du -k "$SRC" | cut -f1) KiB on disk of $(stat -c %s "$SRC") bytes"

now() { date +%s.%N; }
# run TOOL ROUND: one copy into a fresh target, timed; its size on disk.
run() {
  local dst=$WORK/$1.img t0 t1
  rm -f "$dst"
  sync
  t0=$(now)
  case $1 in
    braid) on_a "$BRAID" "$SRC" "hostb:$dst" ;;
    rsync) on_a rsync -a -S -e "${SSH[*]}" "$SRC" "hostb:$dst" ;;
    local) "$BRAID" "$SRC" "$dst" ;;
    cp) cp --sparse=always "$SRC" "$dst" ;;
  esac
  t1=$(now)
  cmp "$SRC" "$dst" || die "$1's copy differs"
  echo "$2,$1,$(echo "$t1 - $t0" | bc),$(($(stat -c %b "$dst") * 512))" >>"$CSV"
}

for round in $(seq 1 "$RUNS"); do
  say "round $round of $RUNS"
  tools=(braid rsync local cp)
  ((round % 2 == 0)) && tools=(rsync cp braid local)
  for t in "${tools[@]}"; do run "$t" "$round"; done
done

python3 - "$CSV" "$OUT/sparse.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
names = {"braid": "braid (push over ssh)", "rsync": "rsync -a -S (over ssh)",
         "local": "braid (local)", "cp": "cp --sparse=always"}
def stats(tool, key):
    v = [float(r[key]) for r in rows if r["tool"] == tool]
    return min(v), statistics.median(v), max(v)
out = ["| tool | seconds min / median / max | on disk (median) | time / peer's at the median |",
       "|------|----------------------------|------------------|------------------------------|"]
for tool, peer in (("braid", "rsync"), ("rsync", None), ("local", "cp"), ("cp", None)):
    s = stats(tool, "seconds")
    d = stats(tool, "disk_bytes")[1]
    ratio = "%.3f" % (s[1] / stats(peer, "seconds")[1]) if peer else ""
    out.append("| %s | %.3f / %.3f / %.3f | %.1f MiB | %s |" % (names[tool], *s, d / 2**20, ratio))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
