#!/usr/bin/env bash
# wan.sh: braid against scp, rsync, GridFTP and iperf3 on an emulated WAN
# (tools/testbed: namespaces A and B joined by wanem), cell by cell:
# RTT x loss at one rate and MTU, per TCP congestion control.
#
# Every tool is measured the same way: the IP bytes wanem delivers A->B
# (its own per-direction counters, read with SIGUSR1) over the window
# [warm-up, end] of a run of --seconds, divided by the window's length.
# So the link's own rate (e.g. 500 Mbit/s of IP bytes) is the ceiling for
# all of them, and a tool's set-up time (ssh, braid's handshake) counts only
# in the full-window figure [0, end], which is kept too.
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)
TESTBED=$REPO/tools/testbed

usage() {
  cat <<'EOF'
Usage: tools/bench/wan.sh [OPTIONS]

Runs the WAN matrix through tools/testbed (needs root, a built braid and wanem):
for each RTT x loss cell one testbed (A -> B through wanem), and in it, for
each congestion control, every tool for --seconds, one after the other.

Cells and tools:
  --rtts LIST        RTTs in ms (default 20,50,100)
  --losses LIST      random loss per segment (default 0,0.01%,0.1%)
  --ccs LIST         congestion control (default cubic,bbr): braid --cc and
                     iperf3 -C set it per socket; scp, rsync and GridFTP use the
                     host default, set per namespace (net.ipv4.tcp_congestion_control)
  --tools LIST       any of auto,s1,s2,s4,s8,s16,s32,s64,scp,rsync,gridftp4,gridftp16,iperf3
                     (default auto,s1,s4,s16,s64,scp,rsync,gridftp4,gridftp16,iperf3)
                       auto       braid -s auto:1-64 -v (its 'streams:' decisions are kept)
                       sN         braid -s N
                       scp        scp -O (legacy protocol: the testbed's sshd has no sftp subsystem)
                       rsync      rsync --whole-file over ssh, into a tmpfs file in B
                       gridftpN   globus-url-copy -p N -len, /dev/zero -> GridFTP /dev/null
                       iperf3     iperf3 -P 8 -C CC (the ceiling)
                     braid runs /dev/zero -> hostb:/dev/null (--size 1T), scp and rsync
                     read a sparse tmpfs file; all are stopped after --seconds.
  --sweep-cell R:L:CC  in this cell also run braid -s 2, 8, 32 for the stream-count
                     plot (default 50:0.01%:cubic; 'none' to skip)
  --rate RATE        bottleneck rate (default 500M; e.g. 1G)
  --mtu N            link MTU (default 1500; e.g. 9000)
  --seconds N        length of each run (default 15)
  --warmup N         seconds excluded at the start of each run (default 3)
  --quick            smoke test: 20 ms / 0.01% / cubic, every tool, 7 s runs (2 s warm-up)

Other modes:
  --polite-check     only the polite check (50 ms, 0% loss, each --ccs): an
                     iperf3 flow (1 stream, 30 s) alone, then again with braid
                     -s auto --polite started 5 s after it; reports the iperf3
                     flow's throughput beside braid / alone
  --report-only      only rebuild wan.md and streams.png from DIR/wan.csv

  --out DIR          results (default ./wan-YYYYmmdd-HHMMSS); wan.csv is appended
                     to, so several runs (phases) build one matrix; repeated
                     (cell, cc, tool) rows are shown as their median
  --braid PATH       braid binary (default $BRAID, else REPO/build/src/braid); it is
                     copied once at start so a rebuild mid-run does not mix versions
  -h, --help         this text

Results in DIR:
  wan.csv            one row per run: cell,rate,mtu,rtt_ms,loss,cc,tool,mbit_s (post-warm-up),
                     mbit_s_full ([0, end]), window seconds, wanem's lost/queue-dropped
                     segments in the window, 1-min load at start/end, exit note
  wan.md             per-cc tables with -s auto's ratios to the best fixed count and to
                     the link rate, and the load on the machine per cell
  streams.png        throughput vs braid stream count in the sweep cell, -s auto as a line
  auto-streams.log   -s auto's 'braid: streams:' lines per run, with seconds since start
  load.log           uptime at the start and end of each cell
  polite.csv, polite.md (--polite-check) per-second rates and the summary

Example:
  tools/bench/wan.sh --quick --out /tmp/wq
  tools/bench/wan.sh --ccs cubic --tools auto,s1,s4,s16,s64,iperf3 --out docs/bench-wan
  tools/bench/wan.sh --polite-check --ccs cubic --out docs/bench-wan
EOF
}

die() {
  echo "wan.sh: $*" >&2
  exit 1
}
say() { echo "wan.sh: $(date +%T) $*" >&2; }

RTTS=20,50,100 LOSSES=0,0.01%,0.1% CCS=cubic,bbr
TOOLS=auto,s1,s4,s16,s64,scp,rsync,gridftp4,gridftp16,iperf3
SWEEP_CELL=50:0.01%:cubic RATE=500M MTU=1500 SECONDS_RUN=15 WARMUP=3
MODE=matrix OUT="" BRAID_IN=${BRAID:-$REPO/build/src/braid}
POLITE_SECONDS=30 POLITE_DELAY=5

ORIG_ARGS="$*"
while (($#)); do
  case $1 in
    --rtts) RTTS=$2; shift 2 ;;
    --losses) LOSSES=$2; shift 2 ;;
    --ccs) CCS=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --sweep-cell) SWEEP_CELL=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --mtu) MTU=$2; shift 2 ;;
    --seconds) SECONDS_RUN=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --quick) RTTS=20 LOSSES=0.01% CCS=cubic SECONDS_RUN=7 WARMUP=2 SWEEP_CELL=none; shift ;;
    --polite-check) MODE=polite; shift ;;
    --report-only) MODE=report; shift ;;
    --out) OUT=$2; shift 2 ;;
    --braid) BRAID_IN=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[[ $SECONDS_RUN =~ ^[0-9]+$ && $WARMUP =~ ^[0-9]+$ ]] || die "--seconds and --warmup are whole seconds"
((SECONDS_RUN >= WARMUP + 2)) || die "--seconds must be at least --warmup + 2"
OUT=${OUT:-$PWD/wan-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CSV=$OUT/wan.csv
CSV_HEADER="date,cell,rate,mtu,rtt_ms,loss,cc,tool,mbit_s,mbit_s_full,window_s,lost_segs,queue_drop_segs,load_start,load_end,note"

# Rate to bits/s (500M, 1G, 1.5G, 800000000).
rate_bps() {
  awk -v r="$1" 'BEGIN { m = 1; u = substr(r, length(r), 1)
    if (u == "k" || u == "K") m = 1e3; else if (u == "M") m = 1e6; else if (u == "G") m = 1e9
    if (m > 1) r = substr(r, 1, length(r) - 1); printf "%.0f\n", r * m }'
}

# ------------------------------------------------------------------ report --

report() {
  [[ -s $CSV ]] || { say "no $CSV yet: nothing to report"; return 0; }
  python3 - "$CSV" "$OUT" "$SWEEP_CELL" <<'PY'
import csv, statistics, sys, os, subprocess, collections
path, out, sweep = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [r for r in csv.DictReader(open(path)) if r["mbit_s"] not in ("", "nan")]
def rate_bps(r):
    m = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}.get(r[-1], 1)
    return float(r[:-1] if m != 1 else r) * m
groups = collections.defaultdict(list)
for r in rows:
    groups[(r["rate"], r["mtu"], r["cell"], r["cc"], r["tool"])].append(r)
def med(rs, key):
    v = [float(r[key]) for r in rs if r[key] not in ("", "nan")]
    return statistics.median(v) if v else None
def fmt(x, nd=0):
    return "-" if x is None else f"{x:.{nd}f}"
cells = sorted({(r["rate"], r["mtu"], r["cell"], int(r["rtt_ms"]), r["loss"]) for r in rows},
               key=lambda c: (c[0], c[1], c[3], float(c[4].rstrip("%") or 0)))
ccs = [c for c in ("cubic", "bbr") if any(r["cc"] == c for r in rows)] + \
      sorted({r["cc"] for r in rows} - {"cubic", "bbr"})
fixed = ["s1", "s2", "s4", "s8", "s16", "s32", "s64"]
peers = [("iperf3", "iperf3 -P 8"), ("scp", "scp -O"), ("rsync", "rsync -W"),
         ("gridftp4", "GridFTP -p 4"), ("gridftp16", "GridFTP -p 16")]
# Load per cell: first run's start, last run's end (1-min average).
load = collections.defaultdict(list)
for r in rows:
    load[(r["rate"], r["mtu"], r["cell"], r["cc"])].append(r)
L = []
L.append("# braid on an emulated WAN (tools/bench/wan.sh)\n")
first, last = min(r["date"] for r in rows), max(r["date"] for r in rows)
L.append(f"Runs from {first} to {last}. Throughput is Mbit/s of IP bytes wanem delivered "
         "A->B over each run's window after the warm-up (the link's rate is the ceiling for "
         "every tool); *auto (full)* is -s auto over the whole run including ssh set-up and its "
         "stream search. A cell with several runs of a tool shows their median (n in brackets).\n")
targets = []
for cc in ccs:
    for (rate, mtu) in sorted({(c[0], c[1]) for c in cells}):
        cs = [c for c in cells if c[0] == rate and c[1] == mtu and any(
            groups.get((rate, mtu, c[2], cc, t)) for t in ["auto"] + fixed + [p for p, _ in peers])]
        if not cs:
            continue
        link = rate_bps(rate) / 1e6
        L.append(f"\n## {cc}, {rate}bit/s, MTU {mtu}\n")
        have_peers = [(p, n) for p, n in peers if any(groups.get((rate, mtu, c[2], cc, p)) for c in cs)]
        have_fixed = [f for f in fixed if any(groups.get((rate, mtu, c[2], cc, f)) for c in cs)]
        hdr = ["RTT", "loss", "auto", "auto (full)"] + [f"-s {f[1:]}" for f in have_fixed] + \
              ["best fixed", "auto / best fixed (≥0.9)", "auto / link (≥0.85)"] + \
              [n for _, n in have_peers] + ["load 1-min start→end"]
        L.append("| " + " | ".join(hdr) + " |")
        L.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(hdr) - 3) + ["---"]) + "|")
        for c in cs:
            g = lambda t: groups.get((rate, mtu, c[2], cc, t), [])
            def cellv(t, key="mbit_s"):
                rs = g(t)
                v = med(rs, key)
                s = fmt(v)
                if len(rs) > 1:
                    s += f" ({len(rs)})"
                return v, s
            a, a_s = cellv("auto")
            af, af_s = cellv("auto", "mbit_s_full")
            fv = {f: cellv(f) for f in have_fixed}
            best = max(((v[0], f) for f, v in fv.items() if v[0] is not None), default=(None, None))
            r_best = a / best[0] if a is not None and best[0] else None
            best_frac = best[0] / link if best[0] else None
            r_link = a / link if a is not None else None
            ok1 = "" if r_best is None else (" ✓" if r_best >= 0.9 else " ✗")
            if r_link is None:
                link_s = "-"
            elif best_frac is not None and best_frac >= 0.85:
                link_s = f"{r_link:.2f}" + (" ✓" if r_link >= 0.85 else " ✗")
            else:
                link_s = f"{r_link:.2f} (n/a: best fixed {best_frac:.2f})" if best_frac else f"{r_link:.2f}"
            lr = load[(rate, mtu, c[2], cc)]
            ld = f"{min(lr, key=lambda r: r['date'])['load_start']}→{max(lr, key=lambda r: r['date'])['load_end']}"
            line = [f"{c[3]} ms", c[4], a_s, af_s] + [fv[f][1] for f in have_fixed] + \
                   [f"{fmt(best[0])} ({best[1]})" if best[0] else "-",
                    (f"{r_best:.2f}" + ok1) if r_best is not None else "-", link_s] + \
                   [cellv(p)[1] for p, _ in have_peers] + [ld]
            L.append("| " + " | ".join(line) + " |")
            if r_best is not None:
                targets.append((cc, rate, mtu, c[3], c[4], r_best, r_link, best_frac))
if targets:
    L.append("\nTargets met by -s auto:\n")
    for key in sorted({(t[0], t[1], t[2]) for t in targets}, key=lambda k: (k[0] != "cubic", k)):
        ts = [t for t in targets if (t[0], t[1], t[2]) == key]
        n1 = sum(1 for t in ts if t[5] >= 0.9)
        el = [t for t in ts if t[7] is not None and t[7] >= 0.85]
        n2 = sum(1 for t in el if t[6] >= 0.85)
        L.append(f"- {key[0]}, {key[1]}bit/s MTU {key[2]}: ≥ 0.9x the best fixed count in {n1} of "
                 f"{len(ts)} cells; ≥ 0.85x the link rate in {n2} of the {len(el)} cells where a "
                 "fixed count reached 0.85x")
L.append("\nLink = the bottleneck's IP rate. Best fixed = the fastest of the braid -s N runs "
         "in that cell (1, 4, 16, 64; and 2, 8, 32 in the sweep cell). Load = the machine's "
         "1-minute load average (2 cores) at the first run's start and the last run's end of "
         "that cell and cc; other engineers' builds ran beside these measurements.\n")
open(os.path.join(out, "wan.md"), "w").write("\n".join(L) + "\n")

# Plot: throughput vs stream count in the sweep cell (else the first cell with fixed counts).
want = None
if sweep != "none":
    rtt, loss, cc = sweep.split(":")
    want = [k for k in groups if k[2] == f"{rtt}ms/{loss}" and k[3] == cc]
if not want:
    want = [k for k in groups if k[4] in fixed]
if not want:
    sys.exit(0)
key0 = sorted(want)[0]
rate, mtu, cell, cc = key0[:4]
pts = []
for f in fixed:
    v = med(groups.get((rate, mtu, cell, cc, f), []), "mbit_s")
    if v is not None:
        pts.append((int(f[1:]), v))
auto = med(groups.get((rate, mtu, cell, cc, "auto"), []), "mbit_s")
autof = med(groups.get((rate, mtu, cell, cc, "auto"), []), "mbit_s_full")
ip3 = med(groups.get((rate, mtu, cell, cc, "iperf3"), []), "mbit_s")
if not pts:
    sys.exit(0)
dat = os.path.join(out, ".streams.dat")
open(dat, "w").write("".join(f"{n} {v:.1f}\n" for n, v in pts))
link = rate_bps(rate) / 1e6
lines = [f"{link} title 'link {rate}bit/s' dt 3 lc rgb 'gray'"]
if auto is not None:
    lines.append(f"{auto:.1f} title sprintf('braid -s auto (after warm-up) %.0f', {auto:.1f}) lw 2 lc rgb 'red'")
if autof is not None:
    lines.append(f"{autof:.1f} title sprintf('-s auto, whole run %.0f', {autof:.1f}) dt 2 lc rgb 'red'")
if ip3 is not None:
    lines.append(f"{ip3:.1f} title sprintf('iperf3 -P 8 %.0f', {ip3:.1f}) dt 4 lc rgb 'dark-green'")
gp = f"""set terminal pngcairo size 800,480 font ",10"
set output "{os.path.join(out, 'streams.png')}"
set title "braid fixed stream counts, {cell}, {cc}, {rate}bit/s MTU {mtu}"
set xlabel "streams (-s N)"; set ylabel "Mbit/s (IP bytes, after warm-up)"
set logscale x 2; set xrange [0.8:80]; set yrange [0:{link * 1.1:.0f}]; set grid
set key bottom right
plot "{dat}" using 1:2 with linespoints lw 2 pt 7 title "braid -s N", \\
  """ + ", \\\n  ".join(lines) + "\n"
subprocess.run(["gnuplot"], input=gp.encode(), check=True)
os.unlink(dat)
PY
  say "wrote $OUT/wan.md$([[ -f $OUT/streams.png ]] && echo " and $OUT/streams.png")"
}

if [[ $MODE == report ]]; then
  report
  exit 0
fi

# ------------------------------------------------------------------ set-up --

[[ $(id -u) -eq 0 ]] || die "needs root (tools/testbed)"
for t in iperf3 scp rsync globus-url-copy globus-gridftp-server gnuplot python3 setsid; do
  command -v "$t" >/dev/null || die "$t is missing (apt-get install iperf3 openssh-client rsync \
globus-gass-copy-progs globus-gridftp-server-progs gnuplot-nox python3)"
done
# The binary can vanish for a moment while someone rebuilds: wait for it.
for ((i = 0; i < 60; i++)); do [[ -x $BRAID_IN ]] && break; sleep 5; done
[[ -x $BRAID_IN ]] || die "braid not found at $BRAID_IN"

WORK=$(mktemp -d /tmp/braid-wan.XXXXXX)
SHM=$(mktemp -d /dev/shm/braid-wan.XXXXXX)
TB_STATE_DIR=$WORK/tb
mkdir -p "$WORK/bin" "$WORK/logs" "$SHM/dst"
cp "$BRAID_IN" "$WORK/bin/braid"
BRAID_BIN=$WORK/bin/braid
BRAID_ID="$("$BRAID_BIN" --version 2>&1 | head -1), sha256 $(sha256sum "$BRAID_BIN" | cut -c1-12)"
truncate -s 1T "$SHM/src" # sparse: reads as zeros, costs no memory

# A namespace may only pick a congestion control the global allowed list
# names; add ours for the run and put the list back on exit.
CC_ALLOWED_SAVED=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
CC_ALLOWED_CHANGED=""
NETNS_HOSTS=()
CUR_PGID="" SERVER_PIDS=()

cleanup() {
  set +e
  [[ -n $CUR_PGID ]] && stop_group "$CUR_PGID"
  local p
  for p in "${SERVER_PIDS[@]+"${SERVER_PIDS[@]}"}"; do kill "$p" 2>/dev/null; done
  testbed_down
  if [[ -n $CC_ALLOWED_CHANGED ]]; then
    sysctl -qw net.ipv4.tcp_allowed_congestion_control="$CC_ALLOWED_SAVED"
  fi
  rm -rf "$SHM"
  rm -rf "$LASTLOGS"
  mv "$WORK/logs" "$LASTLOGS" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
LASTLOGS=${TMPDIR:-/tmp}/braid-wan-last-logs # every tool's stdout/stderr of the last run

allow_ccs() {
  local want=$CC_ALLOWED_SAVED cc
  for cc in ${CCS//,/ }; do
    [[ " $want " == *" $cc "* ]] || want="$want $cc"
  done
  if [[ $want != "$CC_ALLOWED_SAVED" ]]; then
    CC_ALLOWED_CHANGED=1
    sysctl -qw net.ipv4.tcp_allowed_congestion_control="$want" ||
      die "cannot allow congestion control '$want'"
    say "net.ipv4.tcp_allowed_congestion_control: '$CC_ALLOWED_SAVED' -> '$want' (restored on exit)"
  fi
}

testbed_up() { # RTT_MS LOSS [extra testbed options]
  local rtt=$1 loss=$2
  shift 2
  "$TESTBED" up --state "$TB_STATE_DIR" --braid "$BRAID_BIN" --rate "$RATE" --rtt "${rtt}ms" \
    --loss "$loss" --mtu "$MTU" "$@" >"$WORK/logs/testbed-up.log" 2>&1 ||
    { cat "$WORK/logs/testbed-up.log" >&2; die "testbed up failed"; }
  # shellcheck disable=SC1091
  source "$TB_STATE_DIR/env"
  # GridFTP resolves its own address; the namespaces have no DNS, so give
  # them a hosts file (ip netns exec mounts /etc/netns/NS/hosts on /etc/hosts).
  local ns
  for ns in "$TB_NS_A" "$TB_NS_B"; do
    mkdir -p "/etc/netns/$ns"
    printf '127.0.0.1 localhost %s\n%s hosta\n%s hostb\n' "$(hostname)" "$TB_ADDR_A" "$TB_ADDR_B" \
      >"/etc/netns/$ns/hosts"
    NETNS_HOSTS+=("/etc/netns/$ns")
  done
}

testbed_down() {
  local d
  for d in "${NETNS_HOSTS[@]+"${NETNS_HOSTS[@]}"}"; do rm -rf "$d"; done
  NETNS_HOSTS=()
  if [[ -f $TB_STATE_DIR/testbed.state ]]; then
    "$TESTBED" down --state "$TB_STATE_DIR" >"$WORK/logs/testbed-down.log" 2>&1 || true
  fi
}

set_host_cc() {
  local ns
  for ns in "$TB_NS_A" "$TB_NS_B"; do
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$1" ||
      die "namespace $ns cannot use congestion control $1"
  done
}

# Reads wanem's counters (SIGUSR1): sets C_T (unix time), C_BYTES, C_LOST,
# C_DROPS for A->B.
read_counters() {
  local before line i
  before=$(wc -l <"$TB_WANEM_LOG")
  C_T=$EPOCHREALTIME
  kill -USR1 "$TB_WANEM_PID"
  for ((i = 0; i < 200; i++)); do
    awk -v b="$before" 'NR > b && /^wanem loop:/ { f = 1 } END { exit !f }' "$TB_WANEM_LOG" && break
    sleep 0.01
  done
  line=$(awk -v b="$before" 'NR > b && /^wanem a->b:/ { l = $0 } END { print l }' "$TB_WANEM_LOG")
  [[ -n $line ]] || die "no counters from wanem (pid $TB_WANEM_PID)"
  C_BYTES=$(sed -E 's/.* frames, ([0-9]+) bytes.*/\1/' <<<"$line")
  C_LOST=$(sed -E 's/.*; lost ([0-9]+) segments.*/\1/' <<<"$line")
  C_DROPS=$(sed -E 's/.*queue drops ([0-9]+) segments.*/\1/' <<<"$line")
}

# Prefixes each line of stdin with the seconds since $1 (a unix time).
stamp() {
  local t0=${1/./} line now
  while IFS= read -r line; do
    now=${EPOCHREALTIME/./}
    printf '%3d.%02d %s\n' "$(((now - t0) / 1000000))" "$(((now - t0) % 1000000 / 10000))" "$line"
  done
}

load1() { cut -d' ' -f1 /proc/loadavg; }

sleep_until() { # unix time
  local d
  d=$(awk -v t="$1" -v n="$EPOCHREALTIME" 'BEGIN { d = t - n; if (d < 0) d = 0; printf "%.3f", d }')
  sleep "$d"
}

# Stops a process group started with setsid: INT, then TERM, then KILL.
stop_group() {
  local pg=$1 i sig
  for sig in INT TERM KILL; do
    kill -"$sig" -- -"$pg" 2>/dev/null || break
    for ((i = 0; i < 30; i++)); do
      kill -0 -- -"$pg" 2>/dev/null || break 2
      sleep 0.1
    done
  done
  STOP_RC=0
  wait "$pg" 2>/dev/null || STOP_RC=$?
}

wait_listen() { # NS PORT
  local i
  for ((i = 0; i < 100; i++)); do
    ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q LISTEN && return 0
    sleep 0.05
  done
  return 1
}

GRIDFTP_PORT=2811
gridftp_start() {
  [[ -f $WORK/gridftp.pid ]] && kill -0 "$(cat "$WORK/gridftp.pid")" 2>/dev/null && return 0
  rm -f "$WORK/gridftp.pid"
  ip netns exec "$TB_NS_B" globus-gridftp-server -S -p "$GRIDFTP_PORT" -hostname "$TB_ADDR_B" -aa \
    -anonymous-user root -allow-root -pidfile "$WORK/gridftp.pid" -l "$WORK/logs/gridftp.log" \
    >>"$WORK/logs/gridftp.out" 2>&1 || return 1
  wait_listen "$TB_NS_B" "$GRIDFTP_PORT" || return 1
  SERVER_PIDS+=("$(cat "$WORK/gridftp.pid")")
}
gridftp_stop() {
  [[ -f $WORK/gridftp.pid ]] || return 0
  kill "$(cat "$WORK/gridftp.pid")" 2>/dev/null || true
  rm -f "$WORK/gridftp.pid"
}

IPERF_PORT=5201
iperf3_server() {
  rm -f "$WORK/iperf3.pid"
  ip netns exec "$TB_NS_B" iperf3 -s -1 -D -p "$IPERF_PORT" -I "$WORK/iperf3.pid" \
    >>"$WORK/logs/iperf3-server.out" 2>&1
  wait_listen "$TB_NS_B" "$IPERF_PORT"
}
iperf3_server_stop() {
  local p
  [[ -f $WORK/iperf3.pid ]] || return 0
  p=$(cat "$WORK/iperf3.pid" 2>/dev/null) || return 0 # -1: it may have gone already
  for ((i = 0; i < 20; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill "$p" 2>/dev/null || true
  rm -f "$WORK/iperf3.pid"
}

# The command line of TOOL (CC) for a run of $1 seconds, in A's namespace.
tool_cmd() { # TOOL CC SECONDS
  local tool=$1 cc=$2 secs=$3
  CMD=()
  case $tool in
    auto) CMD=(env HOME="$TB_HOME" "$BRAID_BIN" -v -P 1 -s auto:1-64 --cc "$cc" --size 1T /dev/zero hostb:/dev/null) ;;
    s[0-9]*) CMD=(env HOME="$TB_HOME" "$BRAID_BIN" -s "${tool#s}" --cc "$cc" --size 1T /dev/zero hostb:/dev/null) ;;
    scp) CMD=(scp -O -F "$TB_SSH_CONFIG" "$SHM/src" hostb:/dev/null) ;;
    rsync) CMD=(rsync --whole-file -e "ssh -F $TB_SSH_CONFIG" "$SHM/src" "hostb:$SHM/dst/") ;;
    gridftp[0-9]*) CMD=(globus-url-copy -p "${tool#gridftp}" -len 1000000000000 file:///dev/zero
      "ftp://$TB_ADDR_B:$GRIDFTP_PORT/dev/null") ;;
    iperf3) CMD=(iperf3 -c "$TB_ADDR_B" -p "$IPERF_PORT" -P 8 -C "$cc" -t "$((secs + 5))" -i 0) ;;
    *) die "unknown tool $tool" ;;
  esac
}

# One run: appends a row to wan.csv.
run_tool() { # RTT LOSS CC TOOL
  local rtt=$1 loss=$2 cc=$3 tool=$4 cell="$1ms/$2" note="" log ls le
  local t0 b0 t1 b1 l1 d1 t2 b2 l2 d2 mbit mbit_full alive rc
  log=$WORK/logs/$tool-${rtt}ms-${loss%\%}-$cc
  case $tool in
    gridftp*) gridftp_start || note="GridFTP server did not start" ;;
    iperf3) iperf3_server || note="iperf3 server did not start" ;;
  esac
  tool_cmd "$tool" "$cc" "$SECONDS_RUN"
  ls=$(load1)
  read_counters
  t0=$C_T b0=$C_BYTES
  if [[ $tool == auto ]]; then
    # stderr with seconds since start, for the -v 'streams:' decisions
    setsid ip netns exec "$TB_NS_A" "${CMD[@]}" >"$log.out" 2> >(stamp "$t0" >"$log.err") </dev/null &
  else
    setsid ip netns exec "$TB_NS_A" "${CMD[@]}" >"$log.out" 2>"$log.err" </dev/null &
  fi
  CUR_PGID=$!
  sleep_until "$(awk -v t="$t0" -v w="$WARMUP" 'BEGIN { printf "%.6f", t + w }')"
  read_counters
  t1=$C_T b1=$C_BYTES l1=$C_LOST d1=$C_DROPS
  sleep_until "$(awk -v t="$t0" -v w="$SECONDS_RUN" 'BEGIN { printf "%.6f", t + w }')"
  read_counters
  t2=$C_T b2=$C_BYTES l2=$C_LOST d2=$C_DROPS
  alive=1
  kill -0 "$CUR_PGID" 2>/dev/null || alive=0
  stop_group "$CUR_PGID"
  rc=$STOP_RC
  CUR_PGID=""
  le=$(load1)
  if [[ $tool == iperf3 ]]; then iperf3_server_stop; fi
  if [[ $tool == rsync ]]; then rm -rf "${SHM:?}/dst/".??* "$SHM/dst/"* 2>/dev/null || true; fi
  if ((alive == 0)); then
    note="${note:+$note; }ended early (exit $rc): $(grep -v '^ *$' "$log.err" | tail -1 | tr ',\n' ';.' | cut -c1-120)"
  fi
  mbit=$(awk -v b="$((b2 - b1))" -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.1f", b * 8 / (t2 - t1) / 1e6 }')
  mbit_full=$(awk -v b="$((b2 - b0))" -v t1="$t0" -v t2="$t2" 'BEGIN { printf "%.1f", b * 8 / (t2 - t1) / 1e6 }')
  local win
  win=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
  echo "$(date -Is),$cell,$RATE,$MTU,$rtt,$loss,$cc,$tool,$mbit,$mbit_full,$win,$((l2 - l1)),$((d2 - d1)),$ls,$le,\"${note//\"/\'}\"" >>"$CSV"
  say "  $cell $cc $tool: $mbit Mbit/s (whole run $mbit_full; lost $((l2 - l1)), queue drops $((d2 - d1)); load $ls -> $le)${note:+ [$note]}"
  if [[ $tool == auto ]]; then
    {
      echo "## $(date -Is) $cell $cc $RATE MTU $MTU: $mbit Mbit/s after warm-up, $mbit_full whole run (seconds since start, stderr)"
      grep -E 'streams:|congestion' "$log.err" || true
    } >>"$OUT/auto-streams.log"
  fi
  sleep 1 # let the queue drain before the next run
}

[[ -f $CSV ]] || echo "$CSV_HEADER" >"$CSV"
echo "# $(date -Is) $0 $ORIG_ARGS : braid $BRAID_ID" >>"$OUT/load.log"

# ------------------------------------------------------------------ polite --

polite_check() {
  local cc t0 ib pg rtt=50 loss=0
  allow_ccs
  testbed_up "$rtt" "$loss" --wanem-opt "--stats-csv=$WORK/polite-wanem.csv"
  echo "polite check $RATE MTU $MTU ${rtt}ms/$loss start: $(uptime)" >>"$OUT/load.log"
  echo "cc,phase,second,iperf3_mbit_s,other_mbit_s" >"$WORK/polite.csv"
  for cc in ${CCS//,/ }; do
    set_host_cc "$cc"
    local phase
    for phase in alone beside; do
      say "polite check, $cc: iperf3 1 stream ${POLITE_SECONDS} s $phase"
      iperf3_server || die "iperf3 server did not start"
      t0=$EPOCHREALTIME
      # iperf3 marked CS1 (TOS 0x20) only so that wanem counts it apart from
      # braid; without --classes wanem serves one FIFO, and the kernel maps
      # 0x20 to the same pfifo_fast band as unmarked traffic.
      setsid ip netns exec "$TB_NS_A" iperf3 -c "$TB_ADDR_B" -p "$IPERF_PORT" -C "$cc" -S 0x20 \
        -t "$POLITE_SECONDS" -i 0 >"$WORK/logs/polite-iperf3-$cc-$phase.out" 2>&1 </dev/null &
      ib=$!
      pg=""
      if [[ $phase == beside ]]; then
        sleep "$POLITE_DELAY"
        setsid ip netns exec "$TB_NS_A" env HOME="$TB_HOME" "$BRAID_BIN" -v -P 1 -s auto:1-64 --polite \
          --cc "$cc" --size 1T /dev/zero hostb:/dev/null >/dev/null \
          2> >(stamp "$t0" >"$WORK/logs/polite-braid-$cc.err") </dev/null &
        pg=$!
        CUR_PGID=$pg
      fi
      wait "$ib" || true
      [[ -n $pg ]] && { stop_group "$pg"; CUR_PGID=""; }
      iperf3_server_stop
      sleep 2 # one more stats row
      # wanem's rows: scavenger = the iperf3 flow, best-effort = the rest (braid, ssh)
      awk -F, -v t0="$t0" -v cc="$cc" -v ph="$phase" -v n="$POLITE_SECONDS" '
        NR == 1 || $2 != "ab" { next }
        { s = int($1 - t0 + 0.5); if (s < 1 || s > n) next
          if ($3 == "scavenger") i[s] = $5; else o[s] += $5 }
        END { for (s = 1; s <= n; s++) printf "%s,%s,%d,%.1f,%.1f\n", cc, ph, s, i[s], o[s] }' \
        "$WORK/polite-wanem.csv" >>"$WORK/polite.csv"
      {
        echo "## $(date -Is) polite $cc $phase: iperf3 says"
        grep -E 'receiver|sender' "$WORK/logs/polite-iperf3-$cc-$phase.out" | tail -2 || true
        if [[ $phase == beside ]]; then grep -E 'streams:|polite' "$WORK/logs/polite-braid-$cc.err" || true; fi
      } >>"$OUT/auto-streams.log"
      sleep 1
    done
  done
  echo "polite check end: $(uptime)" >>"$OUT/load.log"
  testbed_down
  cp "$WORK/polite.csv" "$OUT/polite.csv"
  python3 - "$OUT" "$POLITE_DELAY" "$WARMUP" "$POLITE_SECONDS" "$RATE" "$MTU" <<'PY'
import csv, sys, os, collections, subprocess
out, delay, warm, n, rate, mtu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
rows = list(csv.DictReader(open(os.path.join(out, "polite.csv"))))
d = collections.defaultdict(dict)
for r in rows:
    d[(r["cc"], r["phase"])][int(r["second"])] = (float(r["iperf3_mbit_s"]), float(r["other_mbit_s"]))
def mean(cc, ph, a, b, k):
    v = [d[(cc, ph)][s][k] for s in range(a, b + 1) if s in d[(cc, ph)]]
    return sum(v) / len(v) if v else float("nan")
L = [f"# Polite check ({rate}bit/s, 50 ms, 0% loss, MTU {mtu})\n",
     f"An iperf3 flow (1 stream, {n} s, marked CS1 only so wanem counts it apart) alone, then "
     f"again with `braid -s auto --polite` started {delay} s after it (same cc for both). Mbit/s "
     "of IP bytes per wanem, means over the seconds given; braid's second "
     f"{delay}..{delay + warm} (ssh set-up, first RTTs) are left out of the main window.\n",
     "| cc | window (s) | iperf3 alone | iperf3 beside braid | share kept (≥0.8) | braid beside iperf3 | link used |",
     "|---|---|---:|---:|---:|---:|---:|"]
ccs = sorted({r["cc"] for r in rows}, key=lambda c: (c != "cubic", c))
for cc in ccs:
    for a, b in ((delay + warm + 1, n), (delay + 1, n)):
        al = mean(cc, "alone", a, b, 0); be = mean(cc, "beside", a, b, 0); br = mean(cc, "beside", a, b, 1)
        ok = "✓" if be / al >= 0.8 else "✗"
        L.append(f"| {cc} | {a}–{b} | {al:.0f} | {be:.0f} | {be / al:.2f} {ok} | {br:.0f} | {(be + br):.0f} |")
open(os.path.join(out, "polite.md"), "w").write("\n".join(L) + "\n")
cc = ccs[0]
dat = os.path.join(out, ".polite.dat")
with open(dat, "w") as f:
    for s in range(1, n + 1):
        al = d[(cc, "alone")].get(s, (0, 0)); be = d[(cc, "beside")].get(s, (0, 0))
        f.write(f"{s} {al[0]} {be[0]} {be[1]}\n")
gp = f"""set terminal pngcairo size 800,420 font ",10"
set output "{os.path.join(out, 'polite.png')}"
set title "iperf3 (1 stream) alone and beside braid -s auto --polite (from {delay} s), {cc}, 50 ms"
set xlabel "seconds"; set ylabel "Mbit/s (wanem, 1 s)"; set grid; set key center right
set arrow from {delay}, graph 0 to {delay}, graph 1 nohead dt 3
plot "{dat}" using 1:2 with lines lw 2 title "iperf3 alone", "" using 1:3 with lines lw 2 title "iperf3 beside braid", "" using 1:4 with lines title "braid --polite"
"""
subprocess.run(["gnuplot"], input=gp.encode(), check=True)
os.unlink(dat)
print(open(os.path.join(out, "polite.md")).read())
PY
}

if [[ $MODE == polite ]]; then
  polite_check
  exit 0
fi

# ------------------------------------------------------------------ matrix --

allow_ccs
say "braid: $BRAID_ID; $RATE MTU $MTU; RTTs $RTTS ms; losses $LOSSES; ccs $CCS; tools $TOOLS; ${SECONDS_RUN} s runs, ${WARMUP} s warm-up; results in $OUT"
for rtt in ${RTTS//,/ }; do
  for loss in ${LOSSES//,/ }; do
    say "cell ${rtt}ms/$loss: testbed up"
    testbed_up "$rtt" "$loss"
    echo "cell $RATE MTU $MTU ${rtt}ms/$loss start: $(uptime)" >>"$OUT/load.log"
    for cc in ${CCS//,/ }; do
      set_host_cc "$cc"
      tools=${TOOLS//,/ }
      if [[ $SWEEP_CELL == "$rtt:$loss:$cc" ]]; then
        for extra in s2 s8 s32; do [[ " $tools " == *" $extra "* ]] || tools="$tools $extra"; done
      fi
      for tool in $tools; do
        run_tool "$rtt" "$loss" "$cc" "$tool"
      done
    done
    echo "cell $RATE MTU $MTU ${rtt}ms/$loss end:   $(uptime)" >>"$OUT/load.log"
    gridftp_stop
    testbed_down
  done
done
report
