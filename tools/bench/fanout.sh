#!/usr/bin/env bash
# fanout.sh: one source, many destinations (issue 16) on the LAN testbed
# (tools/testbed --lan: hosts on a bridge, each host's link limited by tbf).
# The time until all N destinations hold the file, for braid --topology chain,
# star and tree:2, N separate braid copies one after another and all at once,
# scp to each one after another, and udpcast (multicast) when it is installed.
#
# Every run is timed from the command's start to the end of the last copy.
# Runs alternate: for each repetition, each N, every tool in turn (the order
# rotated each repetition), so a slow minute of the machine is spread over all.
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)
TESTBED=$REPO/tools/testbed

usage() {
  cat <<'EOF'
Usage: tools/bench/fanout.sh [OPTIONS]

Needs root, a built braid and sshd (tools/testbed --lan). Brings up a LAN of
max(N)+1 hosts, host1 the source and host2.. the destinations, runs every
tool for every N --runs times, alternating, and writes the results.

  --ns LIST          destination counts (default 1,2,4,6)
  --runs N           repetitions of every (N, tool) (default 7)
  --size SIZE        the file (default 128M: about 5.6 s at 200 Mbit/s)
  --rate RATE        each host's link rate each way (default 200M)
  --tools LIST       any of chain,star,tree2,seq,par,scp,udpcast
                     (default all; udpcast only if udp-sender is installed)
                       chain    braid FILE --to ... --topology chain
                       star     braid FILE --to ... --topology star
                       tree2    braid FILE --to ... --topology tree:2
                       seq      braid FILE hostK:DIR/ for each K, one after another
                       par      the same N copies all at once
                       scp      scp -O FILE hostK:DIR/ for each K, one after another
                       udpcast  udp-receiver on each destination, udp-sender on host1
                     braid runs with its default options.
  --dir DIR          where the source file and the destinations' directories
                     are (all hosts share this machine's file systems; default
                     /var/tmp/braid-fanout-PID, on the real disk; removed at the end)
  --out DIR          results (default ./fanout-YYYYmmdd-HHMMSS)
  --braid PATH       braid binary (default $BRAID, else REPO/build/src/braid);
                     copied once, so a rebuild mid-run does not mix versions
  --report-only      only rebuild fanout.md from DIR/fanout.csv (with --out)
  -h, --help         this text

Results in OUT:
  fanout.csv         one row a run: date,rep,n,tool,seconds,exit,src_tx_ratio
                     (bytes host1's link sent / file size),load1 (1-min load at
                     start),model_err (|measured/predicted - 1| of the copy's
                     data time),model_s (size / least predicted rate)
  fanout.md          per tool and N: min / median / max seconds; chain to N vs
                     chain to 1; chain vs N copies one after another and at once;
                     the layout's model against the measured rates
  fanout.png         seconds against N per tool, the model's predicted data
                     time dashed (needs gnuplot)
  json/              braid's --json of every chain, star and tree:2 run
EOF
}

die() {
  echo "fanout.sh: $*" >&2
  exit 1
}
say() { echo "fanout.sh: $(date +%T) $*" >&2; }

NS_LIST=1,2,4,6 RUNS=7 SIZE=128M RATE=200M TOOLS="" DIR="" OUT="" MODE=bench
BRAID_IN=${BRAID:-$REPO/build/src/braid}
ORIG_ARGS="$*"
while (($#)); do
  case $1 in
    --ns) NS_LIST=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --braid) BRAID_IN=$2; shift 2 ;;
    --report-only) MODE=report; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

OUT=${OUT:-$PWD/fanout-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CSV=$OUT/fanout.csv

# ------------------------------------------------------------------ report --

report() {
  [[ -s $CSV ]] || die "no $CSV: nothing to report"
  python3 - "$CSV" "$OUT/fanout.md" <<'PY'
import csv, statistics, sys, collections
path, md = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
ok = [r for r in rows if r["exit"] == "0"]
failed = [r for r in rows if r["exit"] != "0"]
g = collections.defaultdict(list)
ratio = collections.defaultdict(list)
for r in ok:
    g[(r["tool"], int(r["n"]))].append(float(r["seconds"]))
    ratio[(r["tool"], int(r["n"]))].append(float(r["src_tx_ratio"]))
order = ["chain", "star", "tree2", "seq", "par", "scp", "udpcast"]
names = {"chain": "braid --topology chain", "star": "braid --topology star",
         "tree2": "braid --topology tree:2", "seq": "N braid copies, one after another",
         "par": "N braid copies, all at once", "scp": "scp -O to each, one after another",
         "udpcast": "udpcast (udp-sender, udp-receiver)"}
tools = [t for t in order if any(k[0] == t for k in g)]
ns = sorted({k[1] for k in g})
med = lambda t, n: statistics.median(g[(t, n)]) if g.get((t, n)) else None
L = []
L.append("| tool | " + " | ".join(f"N = {n}" for n in ns) + " |")
L.append("|---|" + "---:|" * len(ns))
for t in tools:
    cells = []
    for n in ns:
        v = g.get((t, n))
        if not v:
            cells.append("-")
            continue
        s = f"**{statistics.median(v):.2f}** ({min(v):.2f}-{max(v):.2f})"
        if len(v) != max(len(x) for x in g.values()):
            s += f" n={len(v)}"
        # Slow: more than twice what the same N copies one after another took
        # (a bound every layout should beat), else twice the row's fastest.
        bound = 2 * (med("seq", n) or min(v))
        slow = sum(1 for x in v if x > bound)
        if slow:
            s += f" [{slow} slow]"
        cells.append(s)
    L.append(f"| {names[t]} | " + " | ".join(cells) + " |")
L.append("")
L.append("Seconds until every destination holds the file: **median** (min-max) of "
         f"{min(len(v) for v in g.values())}-{max(len(v) for v in g.values())} runs; "
         "[k slow]: k runs took more than twice the median of the N braid copies one after another.")
L.append("")
L.append("| ratio of medians | " + " | ".join(f"N = {n}" for n in ns) + " |")
L.append("|---|" + "---:|" * len(ns))
def line(label, f):
    cells = []
    for n in ns:
        try:
            v = f(n)
        except (TypeError, ZeroDivisionError):
            v = None
        cells.append("-" if v is None else f"{v:.2f}")
    L.append(f"| {label} | " + " | ".join(cells) + " |")
line("chain to N / chain to 1", lambda n: med("chain", n) / med("chain", 1))
line("chain / N braid copies one after another", lambda n: med("chain", n) / med("seq", n))
line("chain / N braid copies at once", lambda n: med("chain", n) / med("par", n))
line("tree:2 / chain", lambda n: med("tree2", n) / med("chain", n))
line("star / chain", lambda n: med("star", n) / med("chain", n))
if "udpcast" in tools:
    line("chain / udpcast", lambda n: med("chain", n) / med("udpcast", n))
L.append("")
L.append("| bytes host1 sent / file size (median) | " + " | ".join(f"N = {n}" for n in ns) + " |")
L.append("|---|" + "---:|" * len(ns))
for t in tools:
    cells = [f"{statistics.median(ratio[(t, n)]):.2f}" if ratio.get((t, n)) else "-" for n in ns]
    L.append(f"| {names[t]} | " + " | ".join(cells) + " |")
model = collections.defaultdict(list)
model_s = collections.defaultdict(list)
for r in ok:
    if r.get("model_err"):
        model[(r["tool"], int(r["n"]))].append(float(r["model_err"]))
        model_s[(r["tool"], int(r["n"]))].append(float(r["model_s"]))
if model:
    L.append("")
    L.append("| the layout's model: \\|measured / predicted - 1\\| of the copy's data time, median (max) | " +
             " | ".join(f"N = {n}" for n in ns) + " |")
    L.append("|---|" + "---:|" * len(ns))
    for t in tools:
        cells = [f"{statistics.median(model[(t, n)]):.2f} ({max(model[(t, n)]):.2f})"
                 if model.get((t, n)) else "-" for n in ns]
        if any(c != "-" for c in cells):
            L.append(f"| {names[t]} | " + " | ".join(cells) + " |")
    L.append("")
    L.append("The copy's data time: the longest data phase of a destination (--json seconds), "
             "against the file's size over the least predicted_bits_per_second (the layout's "
             "share of a host's link times the link its first hops measured in their first 2 s).")
loads = [float(r["load1"]) for r in rows]
L.append("")
L.append(f"{len(rows)} runs from {rows[0]['date']} to {rows[-1]['date']}; 1-min load at a run's "
         f"start: median {statistics.median(loads):.2f}, max {max(loads):.2f}.")
if failed:
    L.append(f"{len(failed)} runs failed and are left out: " +
             ", ".join(f"{r['tool']} N={r['n']} rep {r['rep']} (exit {r['exit']})" for r in failed) + ".")
open(md, "w").write("\n".join(L) + "\n")
# fanout.png: time against N per tool, and the model's predicted data time
# (size / the least predicted rate) dashed beside the layouts it predicts.
import os, shutil, subprocess
if shutil.which("gnuplot"):
    out = os.path.dirname(md)
    dat = os.path.join(out, "fanout-plot.dat")
    series = [(names[t], lambda n, t=t: med(t, n)) for t in tools]
    for t in ("chain", "tree2", "star"):
        if any(model_s.get((t, n)) for n in ns):
            series.append((names[t] + ": model", lambda n, t=t: statistics.median(model_s[(t, n)])
                           if model_s.get((t, n)) else None))
    with open(dat, "w") as f:
        for label, value in series:
            f.write(f'"{label}"\n')
            for n in ns:
                v = value(n)
                if v is not None:
                    f.write(f"{n} {v:.3f}\n")
            f.write("\n\n")
    plots = ", ".join(
        f'"{dat}" index {i} with linespoints title columnheader(1)' +
        (" dashtype 2" if label.endswith(": model") else "")
        for i, (label, _) in enumerate(series))
    gp = (f'set terminal pngcairo size 800,480 font ",10"\nset output "{out}/fanout.png"\n'
          'set xlabel "destinations (N)"\nset ylabel "seconds until all hold the file"\n'
          'set key top left\nset grid\nset logscale y\n'
          f"plot {plots}\n")
    subprocess.run(["gnuplot"], input=gp.encode(), check=True)
print("\n".join(L))
PY
}

if [[ $MODE == report ]]; then
  report
  exit 0
fi

# ------------------------------------------------------------------- bench --

[[ $(id -u) -eq 0 ]] || die "needs root (tools/testbed)"
[[ -x $BRAID_IN ]] || die "no braid at $BRAID_IN (build it or give --braid)"
if ! [[ $RUNS =~ ^[0-9]+$ ]] || ((RUNS < 1)); then die "--runs takes a number"; fi
IFS=, read -r -a NS <<<"$NS_LIST"
MAX_N=0
for n in "${NS[@]}"; do
  if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1 || n > 15)); then die "--ns takes counts of 1 to 15"; fi
  ((n > MAX_N)) && MAX_N=$n
done
if [[ -z $TOOLS ]]; then
  TOOLS=chain,star,tree2,seq,par,scp
  if command -v udp-sender >/dev/null 2>&1; then TOOLS+=,udpcast; else say "udpcast is not installed: left out"; fi
fi
IFS=, read -r -a TOOL_LIST <<<"$TOOLS"
for t in "${TOOL_LIST[@]}"; do
  case $t in
    chain | star | tree2 | seq | par | scp) ;;
    udpcast) command -v udp-sender >/dev/null 2>&1 || die "udpcast: apt-get install -y udpcast" ;;
    *) die "unknown tool $t" ;;
  esac
done

DIR=${DIR:-/var/tmp/braid-fanout-$$}
[[ ! -e $DIR ]] || die "$DIR exists; give another --dir"
mkdir -p "$DIR" "$OUT/bin" "$OUT/json"
DIR=$(cd "$DIR" && pwd)
cp "$BRAID_IN" "$OUT/bin/braid"
BRAID=$OUT/bin/braid
TB_STATE_DIR=$OUT/testbed
cleanup() {
  local pid
  for pid in "${RECEIVERS[@]+"${RECEIVERS[@]}"}"; do kill "$pid" 2>/dev/null || true; done
  [[ -f $TB_STATE_DIR/testbed.state ]] && "$TESTBED" down --state "$TB_STATE_DIR" --keep >/dev/null 2>&1
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "testbed: $((MAX_N + 1)) hosts at $RATE each"
"$TESTBED" up --lan $((MAX_N + 1)) --rate "$RATE" --braid "$BRAID" --state "$TB_STATE_DIR" >"$OUT/testbed.txt"
# shellcheck disable=SC1091
source "$TB_STATE_DIR/env"
head -c "$(numfmt --from=iec "$SIZE")" /dev/urandom >"$DIR/src.dat"
FILE_SIZE=$(stat -c %s "$DIR/src.dat")
[[ -s $CSV ]] || echo "date,rep,n,tool,seconds,exit,src_tx_ratio,load1,model_err,model_s" >"$CSV"
{
  echo "# $(date -Is) tools/bench/fanout.sh $ORIG_ARGS"
  echo "# braid: $("$BRAID" --version 2>&1 | head -1); git $(git -C "$REPO" rev-parse --short HEAD)"
  echo "# size $FILE_SIZE bytes, rate $RATE per host, dir $DIR ($(df --output=fstype "$DIR" | tail -1))"
  echo "# $(nproc) cores; $(uname -r)"
} >>"$OUT/notes.txt"

ns_of() { local v=TB_NS_$1; echo "${!v}"; }
in_src() { HOME=$TB_HOME ip netns exec "$TB_NS_1" "$@"; }
src_tx() { ip netns exec "$TB_NS_1" cat /sys/class/net/eth0/statistics/tx_bytes; }

run_tool() { # TOOL N: one run, every destination hostK:DIR/dK/ for K = 2..N+1
  local tool=$1 n=$2 k to=() pids=() rc=0
  for ((k = 2; k <= n + 1; k++)); do to+=(--to "host$k:$DIR/d$k/"); done
  case $tool in
    chain | star | tree2)
      local topology=${tool/tree2/tree:2}
      # --json: each destination's rate, measured and as the layout's model predicted it.
      in_src timeout 300 "$BRAID" "$DIR/src.dat" "${to[@]}" --topology "$topology" --json \
        >"$JSON_OUT"
      ;;
    seq)
      for ((k = 2; k <= n + 1; k++)); do
        in_src timeout 300 "$BRAID" "$DIR/src.dat" "host$k:$DIR/d$k/" || return
      done
      ;;
    par)
      for ((k = 2; k <= n + 1; k++)); do
        in_src timeout 300 "$BRAID" "$DIR/src.dat" "host$k:$DIR/d$k/" &
        pids+=($!)
      done
      for k in "${pids[@]}"; do wait "$k" || rc=$?; done
      return "$rc"
      ;;
    scp)
      for ((k = 2; k <= n + 1; k++)); do
        in_src timeout 300 scp -O -q -F "$TB_SSH_CONFIG" "$DIR/src.dat" "host$k:$DIR/d$k/" || return
      done
      ;;
    udpcast)
      # The receivers were started (untimed) by start_receivers.
      ip netns exec "$TB_NS_1" timeout 300 udp-sender --interface eth0 --nokbd \
        --min-receivers "$n" --file "$DIR/src.dat" 2>>"$OUT/udpcast.log" || rc=$?
      for k in "${RECEIVERS[@]}"; do wait "$k" || rc=$?; done
      RECEIVERS=()
      return "$rc"
      ;;
  esac
}

RECEIVERS=()
start_receivers() { # N
  local k
  for ((k = 2; k <= $1 + 1; k++)); do
    ip netns exec "$(ns_of "$k")" timeout 300 udp-receiver --interface eth0 --nokbd \
      --file "$DIR/d$k/src.dat" 2>>"$OUT/udpcast.log" &
    RECEIVERS+=($!)
  done
  sleep 0.5
}

# check N TOOL REP: every destination has the file (cmp on the first repetition).
check() {
  local n=$1 tool=$2 rep=$3 k
  for ((k = 2; k <= n + 1; k++)); do
    [[ $(stat -c %s "$DIR/d$k/src.dat" 2>/dev/null) == "$FILE_SIZE" ]] || return 1
    if ((rep == 1)); then cmp -s "$DIR/src.dat" "$DIR/d$k/src.dat" || return 1; fi
  done
}

# model_of JSON: "ERR,SECONDS": the model's data time for the copy (the
# file's size over the least rate it predicts: its slowest destination's)
# against the measured one (the longest data phase of a destination), as
# |measured / predicted - 1|, and the model's time; "," when braid predicted
# nothing (a copy too short to measure the link).
model_of() {
  python3 - "$1" "$FILE_SIZE" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
predicted = [d["predicted_bits_per_second"] for d in doc["destinations"]
             if d.get("predicted_bits_per_second")]
if not predicted:
    print(",")
else:
    model_s = 8 * int(sys.argv[2]) / min(predicted)
    measured_s = max(d["seconds"] for d in doc["destinations"])
    print(f"{abs(measured_s / model_s - 1):.3f},{model_s:.3f}")
PY
}

one_run() { # REP N TOOL
  local rep=$1 n=$2 tool=$3 k t0 t1 tx0 rc=0 load
  for ((k = 2; k <= n + 1; k++)); do
    rm -rf "$DIR/d$k"
    mkdir -p "$DIR/d$k"
  done
  sync # what an earlier run left dirty (scp and udpcast do not sync) is not this run's
  sleep 0.5
  load=$(cut -d' ' -f1 /proc/loadavg)
  [[ $tool != udpcast ]] || start_receivers "$n"
  tx0=$(src_tx)
  JSON_OUT=$OUT/json/$rep-$n-$tool.json
  t0=$(date +%s.%N)
  run_tool "$tool" "$n" >>"$OUT/runs.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if ((rc == 0)) && ! check "$n" "$tool" "$rep"; then rc=99; fi
  local secs ratio
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  ratio=$(awk -v t="$(($(src_tx) - tx0))" -v s="$FILE_SIZE" 'BEGIN { printf "%.3f", t / s }')
  local model=","
  [[ ! -s $JSON_OUT ]] || model=$(model_of "$JSON_OUT")
  echo "$(date -Is),$rep,$n,$tool,$secs,$rc,$ratio,$load,$model" >>"$CSV"
  say "rep $rep N=$n $tool: $secs s (exit $rc, host1 sent ${ratio}x)"
}

say "$RUNS repetitions of ${TOOL_LIST[*]} for N = ${NS[*]}, $SIZE at $RATE per host"
for ((rep = 1; rep <= RUNS; rep++)); do
  for n in "${NS[@]}"; do
    count=${#TOOL_LIST[@]}
    for ((i = 0; i < count; i++)); do
      one_run "$rep" "$n" "${TOOL_LIST[(i + rep - 1) % count]}"
    done
  done
done
report
