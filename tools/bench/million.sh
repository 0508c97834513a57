#!/usr/bin/env bash
# million.sh: a tree of a million empty files, braid -r against rsync -a over
# ssh to a loopback host, time and peak memory per process (issue 17).
#
#   tools/bench/million.sh --host ALIAS [--ssh-config FILE] [--files N] [--bytes B]
#                          [--rounds 7] [--dir /dev/shm/braid-million]
#                          [--braid PATH] [--out FILE.csv] [--tools braid,braid-e,rsync]
#
# HOST is an ssh alias that braid (HOME's ~/.ssh/config) and ssh -F FILE
# (default ~/.ssh/config) both reach, on this machine: every process is
# sampled here. The tree: N files (default 1,000,000) of B bytes each
# (default 0; random, so each file differs) in N/1000 directories under DIR,
# used at both ends and removed after. Per round, the
# tools alternating: a copy into an empty target (braid -r -p, braid -r -p -e,
# rsync -a: -p keeps times, as -a does), then the same command again over
# the complete target (rerun).
# Each process's VmHWM is sampled every 0.1 s; a row's memory is the largest
# per role (agent, source, sink; rsync's sender and receiver). Prints the CSV
# and a table of min / median / max.
set -euo pipefail
host="" cfg="$HOME/.ssh/config" files=1000000 bytes=0 rounds=7 dir=/dev/shm/braid-million out=""
tools_asked=braid,braid-e,rsync
braid=$(cd "$(dirname "$0")/../.." && pwd)/build/src/braid
while (($#)); do
  case $1 in
    --host) host=$2; shift 2 ;;
    --ssh-config) cfg=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --braid) braid=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --tools) tools_asked=$2; shift 2 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "million.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $host ]] || { echo "million.sh: --host is needed (see --help)" >&2; exit 2; }
out=${out:-$dir.csv}
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

say() { echo "million.sh: $*" >&2; }
say "making $files files of $bytes bytes under $dir/tree"
per=1000
for ((d = 0; d * per < files; d++)); do
  mkdir -p "$dir/tree/d$d"
  if ((bytes == 0)); then
    (cd "$dir/tree/d$d" && seq -f 'f%g' 0 $((per - 1)) | head -n $((files - d * per)) | xargs touch)
  else
    python3 -c 'import os, sys
for i in range(int(sys.argv[2])):
    with open("%s/f%d" % (sys.argv[1], i), "wb") as f: f.write(os.urandom(int(sys.argv[3])))' \
      "$dir/tree/d$d" $((files - d * per < per ? files - d * per : per)) "$bytes"
  fi
done

# sample ROLEFILE: until killed, the largest VmHWM (KiB) per role of every
# braid and rsync process, written to ROLEFILE as role=KiB lines.
sample() {
  exec python3 - "$1" <<'EOF'
import os, signal, sys, time
peak = {}
def role(args):
    if args[0].endswith("braid"):
        if "--serve-fd" in args: return "source"
        if "--serve" in args: return "sink"
        return "agent"
    if args[0].endswith("rsync"):
        return "rsync-receiver" if "--server" in args else "rsync-sender"
    return None
def done(*_):
    # Whatever happens to the file (the script killed, its directory gone), exit.
    try:
        with open(sys.argv[1], "w") as f:
            for k, v in sorted(peak.items()): f.write("%s=%d\n" % (k, v))
    finally:
        os._exit(0)
signal.signal(signal.SIGTERM, done)
while True:
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        try:
            args = open("/proc/%s/cmdline" % pid, "rb").read().decode(errors="replace").split("\0")
            r = role(args)
            if not r: continue
            for line in open("/proc/%s/status" % pid):
                if line.startswith("VmHWM:"):
                    peak[r] = max(peak.get(r, 0), int(line.split()[1]))
        except OSError:
            pass
    time.sleep(0.1)
EOF
}

now() { date +%s.%N; }
echo "round,case,tool,seconds,agent_mib,source_mib,sink_mib" >"$out"
# run ROUND CASE TOOL: times one command, with its processes' peaks.
run() {
  local t0 t1 rc=0
  sample "$dir/peaks" & local sampler=$!
  sleep 0.3
  t0=$(now)
  case $3 in
    braid) "$braid" -r -p "$dir/tree" "$host:$dir/braid/" >/dev/null 2>&1 || rc=$? ;;
    braid-e) "$braid" -r -p -e "$dir/tree" "$host:$dir/braid/" >/dev/null 2>&1 || rc=$? ;;
    rsync) rsync -a -e "ssh -F $cfg" "$dir/tree" "$host:$dir/rsync/" || rc=$? ;;
  esac
  t1=$(now)
  kill "$sampler"; wait "$sampler" || true
  ((rc == 0)) || say "$3 failed in round $1 (exit $rc)"
  mib() { awk -F= -v k="$1" '$1 == k { printf "%.1f", $2 / 1024 }' "$dir/peaks"; }
  if [[ $3 == rsync ]]; then
    echo "$1,$2,$3,$(echo "$t1 - $t0" | bc),,$(mib rsync-sender),$(mib rsync-receiver)" >>"$out"
  else
    echo "$1,$2,$3,$(echo "$t1 - $t0" | bc),$(mib agent),$(mib source),$(mib sink)" >>"$out"
  fi
}
count() { find "$1" -type f | wc -l; }

for ((r = 1; r <= rounds; r++)); do
  say "round $r of $rounds"
  IFS=, read -r -a tools <<<"$tools_asked"
  if ((r % 2 == 0)); then
    for ((i = 0, j = ${#tools[@]} - 1; i < j; i++, j--)); do
      t=${tools[i]} tools[i]=${tools[j]} tools[j]=$t
    done
  fi
  for t in "${tools[@]}"; do
    target=$dir/${t%-e}
    rm -rf "$target"; mkdir -p "$target"
    run "$r" copy "$t"
    [[ $(count "$target") == "$files" ]] || say "$t's copy holds $(count "$target") files, not $files"
    run "$r" rerun "$t"
  done
done

python3 - "$out" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| case | tool | seconds min / median / max | peak RSS MiB, median (agent / source / sink) |")
print("|------|------|----------------------------|-----------------------------------------------|")
for case in ("copy", "rerun"):
    for tool in ("braid", "braid-e", "rsync"):
        sel = [r for r in rows if r["case"] == case and r["tool"] == tool]
        if not sel: continue
        s = sorted(float(r["seconds"]) for r in sel)
        mem = []
        for k in ("agent_mib", "source_mib", "sink_mib"):
            v = [float(r[k]) for r in sel if r[k]]
            mem.append("%.0f" % statistics.median(v) if v else "-")
        print("| %s | %s | %.1f / %.1f / %.1f | %s |" % (case, tool, s[0], statistics.median(s), s[-1], " / ".join(mem)))
EOF
