#!/usr/bin/env bash
# braid benchmark against its peers, on loopback, in one run.
#
#   tools/bench/bench.sh [--braid PATH] [--size SIZE] [--runs N] [--targets LIST]
#                        [--disk-dir DIR] [--cases LIST] [--out FILE.md] [--csv FILE]
#                        [--rows LIST] [--login-home skel|own] [--quick] [--keep]
#
# Targets: every file, tiny and small row runs twice, onto a tmpfs (/dev/shm: the copier is
# measured) and onto the machine's real file system (--disk-dir, default under /var/tmp:
# the copier and the disk, with `cp`+`sync` and `dd conv=fdatasync` beside it as the durable
# limit, since braid syncs before it renames and most peers do not).
#
# Cases
#   file  a SIZE file of random bytes, page-cached, copied to a file in each target
#   tiny  a 1-byte file pushed over ssh: what a small copy costs (braid against scp)
#   zero  SIZE bytes from /dev/zero to /dev/null
#   mem   iperf3 -P 8 memory to memory: the ceiling of TCP on loopback here
#   md5   openssl speed -evp md5: one core's MD5 rate, the ceiling for braid -e
#   seal  openssl speed -evp of each --cipher: one core's sealing rate, the limit that the CPU
#         cost of sealing is held to (sealed minus --cipher none, both ends, /dev/zero rows)
#   small a tree of 10,000 files of 4 KiB in 100 directories (random bytes, made once),
#         copied into the target dir by braid -r, rsync -a, globus-url-copy -r -cc 4 -pp
#         and scp -r; before each copy the previous tree is removed and `sync` run, so no
#         tool pays for another's dirty pages. Reported in seconds, not MB/s.
#
# Tools: braid (the default, local and pushed over ssh; -s 1/4/64; -e, -E sha256, -E xxh128 and
# -y none where the binary has them), scp (default SFTP protocol, and -O), rsync --whole-file
# over ssh, a pipe through ssh, globus-url-copy -p 4 with and without -fast against a GridFTP
# server (and -r -cc 4 -pp for the tree), cp+sync, dd conv=fdatasync, iperf3 -P 8. Everything talks to 127.0.0.1 only, through servers this script starts itself
# (a private sshd, GridFTP, iperf3) and stops by PID on exit.
#
# Per row: MB/s (10^6 bytes/s, wall clock of the client, min/median/max of N runs; tools alternate
# within a round and the order rotates between rounds; the small case reports the median
# seconds instead and has a table of its own), CPU seconds (user+sys of both ends:
# the client and its children from GNU time, plus the server side), peak RSS (the largest
# single process at either end) and braid's ratio to the row. Every copy is verified
# (cmp for files, diff -r for trees, byte counts for pipes and /dev/null where the tool reports them).
# A braid row that cannot run (binary missing, copy fails) is skipped with a note; the peers
# still run.
#
# Needs: root (private sshd, /run/sshd), openssh-server, rsync, iperf3,
# globus-gridftp-server-progs, globus-gass-copy-progs, GNU time, openssl, iproute2 (ss),
# diffutils and coreutils' split (the small case).

# shellcheck disable=SC2317  # functions are called through traps and "job_$id"
set -u -o pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

BRAID="$REPO_ROOT/build/src/braid"
SIZE_ARG=""
RUNS_ARG=""
TARGETS_ARG="tmpfs,disk"
DISK_DIR_ARG=""
OUT=""
CSV=""
QUICK=0
KEEP=0
ALL_CASES="file,tiny,zero,mem,md5,seal,small"
CASES_ARG=$ALL_CASES
ROWS_ARG=""
LOGIN_HOME=skel

usage() {
  cat <<EOF
usage: $0 [options]
  --braid PATH    braid binary (default: build/src/braid in the repo: $BRAID)
  --size SIZE     bytes per copy, suffixes K M G (IEC) allowed (default 2G)
  --runs N        runs per tool; min, median and max reported (default 7)
  --targets LIST  where file, tiny and small copies land, of tmpfs,disk (default both):
                  tmpfs = /dev/shm (or a tmpfs this script mounts), disk = --disk-dir
  --disk-dir DIR  a directory on the real file system for the disk target
                  (default: a new directory under /var/tmp)
  --cases LIST    comma-separated cases to run, of $ALL_CASES (default: all;
                  --cases small skips making the SIZE source file)
  --out FILE      also write the results as a Markdown section (for docs/benchmarks.md)
  --csv FILE      also write every single run as CSV
  --rows LIST     comma-separated row ids to run (e.g. braid_ynone_file,gridftp_file; the
                  ids are the first field of the ROWS table in this script); default: every
                  row of the chosen cases
  --login-home H  the HOME the remote shell of an ssh login starts in (default skel):
                  skel = a directory of this run's holding /etc/skel's files, what a new
                  account has; own = the account's own (root's here: its ~/.bashrc runs
                  pyenv init, about 1 s a login on this VM and 3 s under load, which every
                  ssh tool would pay on each copy). Both logins are timed and printed.
  --quick         smoke test: 256M, 1 run (explicit --size/--runs still win)
  --keep          keep the work directory (logs, configs) for inspection
  -h, --help      this text
EOF
}

BENCH_ARGS="$*"
while (($#)); do
  case "$1" in
    --braid) BRAID=${2:?--braid needs a path}; shift 2 ;;
    --braid=*) BRAID=${1#*=}; shift ;;
    --size) SIZE_ARG=${2:?--size needs a value}; shift 2 ;;
    --size=*) SIZE_ARG=${1#*=}; shift ;;
    --runs) RUNS_ARG=${2:?--runs needs a value}; shift 2 ;;
    --runs=*) RUNS_ARG=${1#*=}; shift ;;
    --targets) TARGETS_ARG=${2:?--targets needs a list}; shift 2 ;;
    --targets=*) TARGETS_ARG=${1#*=}; shift ;;
    --disk-dir) DISK_DIR_ARG=${2:?--disk-dir needs a directory}; shift 2 ;;
    --disk-dir=*) DISK_DIR_ARG=${1#*=}; shift ;;
    --cases) CASES_ARG=${2:?--cases needs a list}; shift 2 ;;
    --cases=*) CASES_ARG=${1#*=}; shift ;;
    --out) OUT=${2:?--out needs a file}; shift 2 ;;
    --out=*) OUT=${1#*=}; shift ;;
    --csv) CSV=${2:?--csv needs a file}; shift 2 ;;
    --csv=*) CSV=${1#*=}; shift ;;
    --rows) ROWS_ARG=${2:?--rows needs a list}; shift 2 ;;
    --rows=*) ROWS_ARG=${1#*=}; shift ;;
    --login-home) LOGIN_HOME=${2:?--login-home needs skel or own}; shift 2 ;;
    --login-home=*) LOGIN_HOME=${1#*=}; shift ;;
    --quick) QUICK=1; shift ;;
    --keep) KEEP=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

if ((QUICK)); then SIZE_DEFAULT=256M; RUNS_DEFAULT=1; else SIZE_DEFAULT=2G; RUNS_DEFAULT=7; fi
SIZE_STR=${SIZE_ARG:-$SIZE_DEFAULT}
RUNS=${RUNS_ARG:-$RUNS_DEFAULT}
if ! SIZE=$(numfmt --from=iec "$SIZE_STR" 2>/dev/null) || ((SIZE < 1048576)); then
  echo "bench.sh: --size '$SIZE_STR' is not a size of at least 1M" >&2; exit 2
fi
if ! [[ $RUNS =~ ^[0-9]+$ ]] || ((RUNS < 1 || RUNS > 50)); then
  echo "bench.sh: --runs must be 1..50" >&2; exit 2
fi
declare -A WANT=()
IFS=',' read -r -a _cases <<<"$CASES_ARG"
for c in "${_cases[@]}"; do
  [[ ,$ALL_CASES, == *",$c,"* ]] || { echo "bench.sh: unknown case '$c' in --cases (known: $ALL_CASES)" >&2; exit 2; }
  WANT[$c]=1
done
((${#WANT[@]})) || { echo "bench.sh: --cases is empty" >&2; exit 2; }
[[ $LOGIN_HOME == skel || $LOGIN_HOME == own ]] || { echo "bench.sh: --login-home takes skel or own" >&2; exit 2; }
want() { [[ -n ${WANT[$1]:-} ]]; }
row_wanted() { [[ -z $ROWS_ARG || ,$ROWS_ARG, == *",$1,"* ]]; }
TARGETS=()
IFS=',' read -r -a _targets <<<"$TARGETS_ARG"
for t in "${_targets[@]}"; do
  [[ $t == tmpfs || $t == disk ]] || { echo "bench.sh: unknown target '$t' in --targets (known: tmpfs,disk)" >&2; exit 2; }
  TARGETS+=("$t")
done
((${#TARGETS[@]})) || { echo "bench.sh: --targets is empty" >&2; exit 2; }
[[ $BRAID == /* ]] || BRAID="$PWD/$BRAID"
[[ -z $OUT || $OUT == /* ]] || OUT="$PWD/$OUT"
[[ -z $CSV || $CSV == /* ]] || CSV="$PWD/$CSV"

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

((EUID == 0)) || die "run as root (the private sshd and /run/sshd need it)"
for t in /usr/sbin/sshd ssh scp rsync iperf3 globus-gridftp-server globus-url-copy openssl \
         ss pgrep numfmt timeout awk cmp diff split ssh-keygen /usr/bin/time; do
  command -v "$t" >/dev/null 2>&1 || die "missing $t (see the header of $0)"
done
SFTP_SERVER=/usr/lib/openssh/sftp-server
[[ -x $SFTP_SERVER ]] || die "missing $SFTP_SERVER (openssh-server)"

# ---------------------------------------------------------------------------------------
# Cleanup: everything started here is recorded and stopped by PID.
WORK=""
TARGET=""         # the tmpfs target
TARGET_MADE=0     # 1: we created $TARGET (rm it), 2: we mounted a tmpfs on it (umount)
declare -A TDIR=()
SSHD_PID=""
SERVER_PID=""     # the per-run server (iperf3 or GridFTP, under GNU time) while one runs
GRIDFTPD_PID=""   # the small case's GridFTP daemon (forks per connection), whole run
CLIENT_PID=""     # the timed client (under timeout, which signals its own process group)
ORIG_HOME=$HOME

kill_pid() {  # kill_pid PID: TERM, then KILL after 3 s; only this PID
  local pid=$1 i
  [[ -n $pid ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 30; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
}
kill_tree() {  # kill_tree PID: its descendants (found by parent PID), then PID itself
  local pid=$1 c
  [[ -n $pid ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -STOP "$pid" 2>/dev/null   # no new children while we look
  for c in $(pgrep -P "$pid"); do kill_tree "$c"; done
  kill -CONT "$pid" 2>/dev/null
  kill_pid "$pid"
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  kill_pid "$CLIENT_PID"   # timeout passes the TERM on to the copy's process group
  kill_tree "$SERVER_PID"
  kill_tree "$GRIDFTPD_PID"
  kill_tree "$SSHD_PID"
  if ((TARGET_MADE == 2)); then
    umount "$TARGET" 2>/dev/null || log "warning: could not unmount $TARGET"
    rmdir "$TARGET" 2>/dev/null
  elif ((TARGET_MADE == 1)); then
    rm -rf -- "$TARGET"
  fi
  [[ -n ${TDIR[disk]:-} && -d ${TDIR[disk]}/braid-bench-run ]] && rm -rf -- "${TDIR[disk]}/braid-bench-run"
  [[ -n ${TDIR[disk]:-} && -d ${TDIR[disk]}/braid-bench-small ]] && rm -rf -- "${TDIR[disk]}/braid-bench-small"
  if [[ -n $WORK && -d $WORK ]]; then
    if ((KEEP)); then log "work directory kept: $WORK"; else rm -rf -- "$WORK"; fi
  fi
  export HOME=$ORIG_HOME
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

WORK=$(mktemp -d /var/tmp/braid-bench.XXXXXX) || die "mktemp failed"
mkdir -p "$WORK/home/.ssh" "$WORK/rbin" "$WORK/logs" "$WORK/t"
chmod 700 "$WORK/home/.ssh"

# ---------------------------------------------------------------------------------------
# Small helpers.

median() {  # median of the arguments (numbers)
  (($#)) || { echo ""; return; }
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{ if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2 }'
}
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }

# Sum of utime+stime+cutime+cstime of a process, in clock ticks. cutime/cstime include every
# waited-for descendant, which is how the server side of sshd and GridFTP is accounted.
CLK_TCK=$(getconf CLK_TCK)
proc_ticks() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  s=${s##*) }
  awk '{printf "%.0f\n", $12+$13+$14+$15}' <<<"$s"
}

# Busy CPU ticks of the whole machine (all CPUs), to see how much others used meanwhile.
sys_busy_ticks() { awk '$1 == "cpu" {printf "%.0f\n", $2 + $3 + $4; exit}' /proc/stat; }

port_listening() { [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]; }
free_port() {
  local i p
  for ((i = 0; i < 100; i++)); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    port_listening "$p" || { echo "$p"; return 0; }
  done
  return 1
}
wait_listen() {  # wait_listen PORT PID: up to 10 s
  local i
  for ((i = 0; i < 100; i++)); do
    port_listening "$1" && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
wait_exit() {  # wait_exit PID SECONDS: wait for a background child to end
  local i
  for ((i = 0; i < $2 * 10; i++)); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}
# GNU time line "%e %U %S %M" -> sets T_WALL T_CPU T_RSS (KiB); ignores other lines.
read_time() {
  T_WALL=""; T_CPU=""; T_RSS=""
  local line
  line=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$1" 2>/dev/null | tail -1)
  [[ -n $line ]] || return 1
  # shellcheck disable=SC2034  # T_WALL: read for completeness
  read -r T_WALL T_CPU T_RSS <<<"$(awk '{print $1, $2+$3, $4}' <<<"$line")"
}
TIMEFMT='%e %U %S %M'

# ---------------------------------------------------------------------------------------
# Targets: a tmpfs and a directory on the real file system, each checked for room.
need_kib=65536                                          # 64 MiB of slack
want file && need_kib=$((need_kib + (SIZE + SIZE / 20) / 1024))   # one destination + 5%
# the small case keeps every copy (4 tools per round), 10,000 x 4 KiB plus inodes each
want small && need_kib=$((need_kib + RUNS * 4 * 65536))
declare -A TKIND
for t in "${TARGETS[@]}"; do
  if [[ $t == disk ]]; then
    if [[ -n $DISK_DIR_ARG ]]; then
      mkdir -p -- "$DISK_DIR_ARG" || die "cannot create --disk-dir $DISK_DIR_ARG"
      TDIR[disk]=$(cd "$DISK_DIR_ARG" && pwd)
    else
      TDIR[disk]="$WORK/disk"; mkdir -p "${TDIR[disk]}"
    fi
    fs=$(df --output=fstype "${TDIR[disk]}" 2>/dev/null | tail -1)
    [[ $fs != tmpfs && $fs != ramfs ]] || die "--disk-dir ${TDIR[disk]} is on $fs, not a real file system"
    TKIND[disk]="$fs ($(df --output=source "${TDIR[disk]}" | tail -1), $(findmnt -no OPTIONS -T "${TDIR[disk]}" | tr ',' ' ' | grep -ow 'discard\|nodiscard\|data=[a-z]*' | tr '\n' ' ' | sed 's/ $//'))"
    continue
  fi
  shm_free=$(df -k --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ')
  if [[ -n $shm_free ]] && ((shm_free > need_kib)); then
    TARGET=$(mktemp -d /dev/shm/braid-bench.XXXXXX) || die "mktemp in /dev/shm failed"
    TARGET_MADE=1
    TKIND[tmpfs]="tmpfs (/dev/shm)"
  else
    TARGET="$WORK/tmpfs"
    mkdir -p "$TARGET"
    mount -t tmpfs -o "size=$((need_kib))k,mode=0755" braid-bench "$TARGET" ||
      die "no room in /dev/shm and cannot mount a tmpfs (leave tmpfs out of --targets)"
    TARGET_MADE=2
    TKIND[tmpfs]="tmpfs (own, $((need_kib / 1024)) MiB)"
  fi
  TDIR[tmpfs]=$TARGET
done
for t in "${TARGETS[@]}"; do
  target_free=$(df -k --output=avail "${TDIR[$t]}" | tail -1 | tr -d ' ')
  ((target_free > need_kib)) || die "target ${TDIR[$t]} has ${target_free} KiB free, needs ${need_kib}"
done
mem_avail=$(awk '/^MemAvailable:/{print $2}' /proc/meminfo)
if want file && ((mem_avail < 2 * SIZE / 1024 + 262144)); then
  log "warning: ${mem_avail} KiB available memory: the source may not stay in the page cache"
fi
RUNDIR=""      # the current target's run directory, emptied after every copy (use_target)
SMALL_ROOT=""  # the current target's small-case copies, one directory each, kept to the end
SMALL_DST=""   # the small case's current copy lands in $SMALL_DST/tree
SMALL_SEQ=0
use_target() {  # use_target tmpfs|disk
  RUNDIR="${TDIR[$1]}/braid-bench-run"
  SMALL_ROOT="${TDIR[$1]}/braid-bench-small"
}
use_target "${TARGETS[0]}"

# ---------------------------------------------------------------------------------------
# Private sshd on 127.0.0.1 with generated keys, and a HOME whose ~/.ssh braid reads.
BHOME="$WORK/home"
SSHCFG="$BHOME/.ssh/config"
REMOTE_TIME="$WORK/remote.time"
ME=$(id -un)

mkdir -p /run/sshd   # privilege separation directory; left in place for other sshds
ssh-keygen -q -t ed25519 -N '' -C braid-bench-host -f "$WORK/ssh_host_ed25519_key" || die "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -C braid-bench-user -f "$BHOME/.ssh/id_ed25519" || die "ssh-keygen"
SSH_PORT=$(free_port) || die "no free port"

# The remote side finds these first on PATH (environment= in authorized_keys): the built
# braid, and rsync/sftp-server, each under GNU time so their peak RSS is recorded.
for pair in "braid:$BRAID" "rsync:$(command -v rsync)" "scp:$(command -v scp)" \
            "sftp-server:$SFTP_SERVER"; do
  name=${pair%%:*}; real=${pair#*:}
  cat >"$WORK/rbin/$name" <<EOF
#!/bin/sh
exec /usr/bin/time -a -o '$REMOTE_TIME' -f '$TIMEFMT' '$real' "\$@"
EOF
  chmod 755 "$WORK/rbin/$name"
done

cat >"$WORK/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $WORK/ssh_host_ed25519_key
PidFile $WORK/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $WORK/authorized_keys
PermitUserEnvironment PATH,HOME
UseDNS no
LogLevel ERROR
MaxStartups 200:30:400
MaxSessions 100
X11Forwarding no
AllowTcpForwarding no
Subsystem sftp $WORK/rbin/sftp-server
EOF
REMOTE_PATH="$WORK/rbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# --login-home skel: the remote shell starts in a HOME of this run's with /etc/skel's files.
RHOME="$WORK/rhome"
mkdir -p "$RHOME"; cp -a /etc/skel/. "$RHOME/" 2>/dev/null
LOGIN_ENV=""; [[ $LOGIN_HOME == skel ]] && LOGIN_ENV=",environment=\"HOME=$RHOME\""
printf 'environment="PATH=%s"%s %s\n' "$REMOTE_PATH" "$LOGIN_ENV" "$(cat "$BHOME/.ssh/id_ed25519.pub")" \
  >"$WORK/authorized_keys"
hostkey=$(awk '{print $1, $2}' "$WORK/ssh_host_ed25519_key.pub")
{
  echo "[127.0.0.1]:$SSH_PORT $hostkey"
  echo "[braidbench]:$SSH_PORT $hostkey"
} >"$BHOME/.ssh/known_hosts"
cat >"$SSHCFG" <<EOF
Host braidbench
  HostName 127.0.0.1
  Port $SSH_PORT
  User $ME
  IdentityFile $BHOME/.ssh/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $BHOME/.ssh/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ControlMaster no
  LogLevel ERROR
EOF
chmod 600 "$SSHCFG" "$BHOME/.ssh/id_ed25519"

/usr/sbin/sshd -D -f "$WORK/sshd_config" -E "$WORK/logs/sshd.log" &
SSHD_PID=$!
wait_listen "$SSH_PORT" "$SSHD_PID" || die "sshd did not start: $(tail -3 "$WORK/logs/sshd.log" 2>/dev/null)"
export HOME=$BHOME   # braid reads ~/.ssh from $HOME; ssh/scp/rsync get -F
SSH=(ssh -F "$SSHCFG")
out=$("${SSH[@]}" braidbench 'command -v rsync' 2>&1) || die "ssh to the private sshd fails: $out"
[[ $out == "$WORK/rbin/rsync" ]] || die "remote PATH not taken from authorized_keys (got '$out')"
for t in "${TARGETS[@]}"; do log "target $t: ${TDIR[$t]} (${TKIND[$t]})"; done
log "sshd pid $SSHD_PID on 127.0.0.1:$SSH_PORT"
# What one login costs every ssh tool here, and what the account's own shell startup
# would add to it (both untimed for the rows; printed with the results).
elapsed() {  # elapsed CMD...: wall seconds of one run
  local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}'
}
logins=(); rcs=()
for _ in 1 2 3 4 5; do logins+=("$(elapsed "${SSH[@]}" braidbench true)"); done
for _ in 1 2 3; do rcs+=("$(elapsed env HOME="$ORIG_HOME" bash -c '[ -f ~/.bashrc ] && . ~/.bashrc')"); done
LOGIN_S=$(median "${logins[@]}"); OWN_RC_S=$(median "${rcs[@]}")
log "one ssh login (HOME: $LOGIN_HOME): ${LOGIN_S} s; the account's own ~/.bashrc alone: ${OWN_RC_S} s"

# ---------------------------------------------------------------------------------------
# Source file: random bytes (nothing compresses or is sparse), synced, then read into cache.
SRC="$WORK/src.bin"
TINY_SRC_FILE="$WORK/tiny.bin"
if want file; then
  log "creating a $SIZE_STR source file ($SIZE bytes)"
  head -c "$SIZE" /dev/urandom >"$SRC" || die "cannot create $SRC"
  sync "$SRC" 2>/dev/null || sync
  cat "$SRC" >/dev/null
fi

want tiny && printf 'x' >"$TINY_SRC_FILE"

# Small-file tree: 100 directories of 100 files of 4 KiB, random bytes, made once.
SMALL_DIRS=100
SMALL_PER_DIR=100
SMALL_FILE=4096
SMALL_COUNT=$((SMALL_DIRS * SMALL_PER_DIR))
SMALL_SRC="$WORK/small-src/tree"
if want small; then
  log "creating the small-file tree: $SMALL_COUNT files of $SMALL_FILE bytes in $SMALL_DIRS directories"
  mkdir -p "$SMALL_SRC" || die "cannot create $SMALL_SRC"
  for ((d = 0; d < SMALL_DIRS; d++)); do
    sub=$(printf '%s/d%02d' "$SMALL_SRC" "$d")
    mkdir -p "$sub" || die "cannot create $sub"
    head -c $((SMALL_PER_DIR * SMALL_FILE)) /dev/urandom |
      split -a 2 -d -b "$SMALL_FILE" - "$sub/f" || die "cannot create files in $sub"
  done
  n=$(find "$SMALL_SRC" -type f | wc -l)
  ((n == SMALL_COUNT)) || die "small tree has $n files, not $SMALL_COUNT"
  sync
fi

# ---------------------------------------------------------------------------------------
# One measured run.
#   measure KIND -- command...      KIND: none | ssh | server | daemon
# Sets M_OK M_WALL M_CPU M_RSS M_ERR. The command's stdout/stderr go to $WORK/t/out,err.
# For ssh, the server side is sshd's accounting delta (its cutime includes the session
# and the remote tool once reaped) and the remote tool's RSS from the wrapper's GNU time.
# For server, a per-run server was started with start_server; its GNU time is added.
# For daemon, the GridFTP daemon of the small case ($GRIDFTPD_PID): its accounting delta once
# its per-connection children are reaped, as for sshd (its RSS is not recorded).
TIMEOUT=$((60 + SIZE / 20000000))
M_OK=0; M_WALL=0; M_CPU=0; M_RSS=0; M_ERR=""; M_SPLIT=""; M_OTHER=0
OTHERS=""   # M_OTHER of every measured copy

start_server() {  # start_server PORT command...: one-connection server under GNU time
  local port=$1; shift
  rm -f "$WORK/t/srv.time"
  /usr/bin/time -o "$WORK/t/srv.time" -f "$TIMEFMT" "$@" >"$WORK/t/srv.out" 2>&1 &
  SERVER_PID=$!
  if ! wait_listen "$port" "$SERVER_PID"; then
    kill_tree "$SERVER_PID"; SERVER_PID=""
    return 1
  fi
}

measure() {
  local kind=$1; shift; [[ $1 == -- ]] && shift
  local t0 t1 rc before=0 after=0 i srv_cpu=0 srv_rss=0 busy0 busy1
  rm -f "$WORK/t/client.time"
  if [[ $kind == ssh ]]; then
    : >"$REMOTE_TIME"
    before=$(proc_ticks "$SSHD_PID")
  elif [[ $kind == daemon ]]; then
    before=$(proc_ticks "$GRIDFTPD_PID")
  fi
  busy0=$(sys_busy_ticks)
  t0=$(date +%s%N)
  timeout -k 5 "$TIMEOUT" /usr/bin/time -o "$WORK/t/client.time" -f "$TIMEFMT" "$@" \
    >"$WORK/t/out" 2>"$WORK/t/err" </dev/null &
  CLIENT_PID=$!
  wait "$CLIENT_PID"
  rc=$?
  CLIENT_PID=""
  t1=$(date +%s%N)
  busy1=$(sys_busy_ticks)
  M_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
  read_time "$WORK/t/client.time" || { T_CPU=0; T_RSS=0; }
  M_CPU=$T_CPU; M_RSS=$T_RSS
  case $kind in
    ssh)
      # Wait (bounded) until sshd has reaped the session, so its cutime is complete.
      for ((i = 0; i < 100; i++)); do
        [[ -z $(pgrep -P "$SSHD_PID") ]] && break
        sleep 0.1
      done
      after=$(proc_ticks "$SSHD_PID")
      srv_cpu=$(awk -v a="$before" -v b="$after" -v h="$CLK_TCK" 'BEGIN{printf "%.2f", (b-a)/h}')
      srv_rss=$(awk '$4 ~ /^[0-9]+$/ {if ($4 > m) m = $4} END{print m + 0}' "$REMOTE_TIME")
      ;;
    daemon)
      for ((i = 0; i < 100; i++)); do
        [[ -z $(pgrep -P "$GRIDFTPD_PID") ]] && break
        sleep 0.1
      done
      after=$(proc_ticks "$GRIDFTPD_PID")
      srv_cpu=$(awk -v a="$before" -v b="$after" -v h="$CLK_TCK" 'BEGIN{printf "%.2f", (b-a)/h}')
      ;;
    server)
      if [[ -n $SERVER_PID ]]; then
        wait_exit "$SERVER_PID" 10 || kill_tree "$SERVER_PID"
        wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=""
        if read_time "$WORK/t/srv.time"; then srv_cpu=$T_CPU; srv_rss=$T_RSS; fi
      fi
      ;;
  esac
  M_SPLIT="client ${M_CPU}s ${M_RSS}KiB, server ${srv_cpu}s ${srv_rss}KiB"
  M_CPU=$(awk -v a="$M_CPU" -v b="$srv_cpu" 'BEGIN{printf "%.2f", a+b}')
  # Share of the machine's CPU time over the run used by anything but this copy.
  M_OTHER=$(awk -v b0="$busy0" -v b1="$busy1" -v h="$CLK_TCK" -v c="$M_CPU" -v w="$M_WALL" \
    -v n="$(nproc)" 'BEGIN{o = (b1 - b0) / h - c; if (o < 0) o = 0; printf "%.0f", (w > 0) ? 100 * o / (w * n) : 0}')
  ((srv_rss > M_RSS)) && M_RSS=$srv_rss
  M_ERR=""
  if ((rc == 124 || rc == 137)); then
    M_ERR="timed out after ${TIMEOUT}s"
  elif ((rc != 0)); then
    M_ERR="exit $rc: $(grep -v '^Command exited' "$WORK/t/err" | tail -2 | tr '\n' ' ' | cut -c1-200)"
  fi
  [[ -z $M_ERR ]] && M_OK=1 || M_OK=0
}

verify_file() {  # verify_file DST: identical to SRC, and nothing else left in RUNDIR
  local dst=$1 extra
  [[ -f $dst ]] || { M_ERR="no destination file"; M_OK=0; return; }
  cmp -s "$SRC" "$dst" || { M_ERR="destination differs from source (cmp)"; M_OK=0; return; }
  extra=$(find "$RUNDIR" -mindepth 1 ! -path "$dst" 2>/dev/null | head -3 | tr '\n' ' ')
  [[ -z $extra ]] || log "  note: left beside the target: $extra"
}

# Memory freed by the previous run's rm is handed back to the hypervisor about 2 s later
# (free page reporting, order 9, in this VM), and the next 2 GiB written into the page cache
# then costs a host fault per page: 2 GiB of pwrite took 0.2 s right after an rm and 1.8 s
# five seconds later (docs/benchmarks.md). Whether a tool started before or after that
# moment decided its time, so every copy starts after it: all pay the same, as a machine
# that has not just freed memory would. The disk's discards of the rm settle meanwhile.
settle_memory() { sleep 3; }

# Every file copy starts from a page-cached source: this VM reclaims cold page
# cache (a DAMON kthread), and a run that happens to read from disk measured
# the disk, at three times the CPU, not the copier.
fresh_rundir() {
  rm -rf -- "$RUNDIR"; mkdir -p "$RUNDIR"
  [[ -f ${SRC:-} ]] && cat -- "$SRC" >/dev/null
  sync  # nobody pays for another run's (or the source's) writeback
  settle_memory
  return 0
}

# ---------------------------------------------------------------------------------------
# The jobs. Each job_<id> runs one copy and sets M_*; ROWS (below) describes them.
BRAID_LOCAL_OK=0
BRAID_VARIANT_DST="braidbench:"   # variants push over ssh unless only local works

run_braid_file() {  # run_braid_file DESTPREFIX braid-args...
  local prefix=$1; shift
  fresh_rundir
  local kind=none; [[ -n $prefix ]] && kind=ssh
  measure "$kind" -- "$BRAID" "$@" "$SRC" "${prefix}$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
# The default options are what users run; -s 4 is explicit where a row says so.
# Issue 12's rows measure the clear data path, as that issue's targets are set for it
# (sealing has rows of its own below): each variant is the default plus --cipher none.
CLEAR=(--cipher none)
job_braid_auto_file()  { run_braid_file "braidbench:"; }
job_braid_ssh_file()   { run_braid_file "braidbench:" -s 4 "${CLEAR[@]}"; }
job_braid_local_file() { run_braid_file ""; }
job_braid_s1_file()    { run_braid_file "$BRAID_VARIANT_DST" -s 1 "${CLEAR[@]}"; }
job_braid_s64_file()   { run_braid_file "$BRAID_VARIANT_DST" -s 64 "${CLEAR[@]}"; }
job_braid_ynone_file() { run_braid_file "$BRAID_VARIANT_DST" -y none "${CLEAR[@]}"; }
job_braid_e_file()     { run_braid_file "$BRAID_VARIANT_DST" -e "${CLEAR[@]}"; }
job_braid_sha_file()   { run_braid_file "$BRAID_VARIANT_DST" -E sha256 "${CLEAR[@]}"; }
job_braid_xxh_file()   { run_braid_file "$BRAID_VARIANT_DST" -E xxh128 "${CLEAR[@]}"; }
# Sealing (issue 14): the default is aes-128-gcm; each other --cipher, and none (clear frames).
job_braid_aes256_file() { run_braid_file "$BRAID_VARIANT_DST" --cipher aes-256-gcm; }
job_braid_chacha_file() { run_braid_file "$BRAID_VARIANT_DST" --cipher chacha20-poly1305; }
job_braid_clear_file()  { run_braid_file "$BRAID_VARIANT_DST" --cipher none; }
job_braid_ssh_zero()   { measure ssh -- "$BRAID" --size "$SIZE" /dev/zero braidbench:/dev/null; }
job_braid_local_zero() { measure none -- "$BRAID" --size "$SIZE" /dev/zero /dev/null; }
job_braid_aes256_zero() { measure ssh -- "$BRAID" --cipher aes-256-gcm --size "$SIZE" /dev/zero braidbench:/dev/null; }
job_braid_chacha_zero() { measure ssh -- "$BRAID" --cipher chacha20-poly1305 --size "$SIZE" /dev/zero braidbench:/dev/null; }
job_braid_clear_zero()  { measure ssh -- "$BRAID" --cipher none --size "$SIZE" /dev/zero braidbench:/dev/null; }

# The durable limit: the kernel's own copy, then everything on disk.
job_cpsync_file() {
  fresh_rundir
  measure none -- sh -c 'cp -- "$1" "$2" && sync' sh "$SRC" "$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
job_dd_file() {
  fresh_rundir
  measure none -- dd if="$SRC" of="$RUNDIR/dst" bs=1M conv=fdatasync status=none
  ((M_OK)) && verify_file "$RUNDIR/dst"
}

# The tiny case: one byte, pushed over ssh; what setting up a copy costs.
TINY_SRC=$TINY_SRC_FILE
verify_tiny() { cmp -s "$TINY_SRC" "$RUNDIR/tiny" || { M_OK=0; M_ERR="tiny copy differs or is missing"; }; }
job_braid_tiny() {
  fresh_rundir
  measure ssh -- "$BRAID" "$TINY_SRC" "braidbench:$RUNDIR/tiny"
  ((M_OK)) && verify_tiny
}
job_scp_tiny() {
  fresh_rundir
  measure ssh -- scp -q -F "$SSHCFG" "$TINY_SRC" "braidbench:$RUNDIR/tiny"
  ((M_OK)) && verify_tiny
}

job_scp_file() {
  fresh_rundir
  measure ssh -- scp -q -F "$SSHCFG" "$SRC" "braidbench:$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
job_scpO_file() {
  fresh_rundir
  measure ssh -- scp -O -q -F "$SSHCFG" "$SRC" "braidbench:$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
job_rsync_file() {
  fresh_rundir
  measure ssh -- rsync --whole-file -e "ssh -F $SSHCFG" "$SRC" "braidbench:$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
job_sshpipe_zero() {
  measure ssh -- sh -c "head -c $SIZE /dev/zero | ssh -F '$SSHCFG' braidbench 'wc -c'"
  if ((M_OK)); then
    local n; n=$(tr -d ' \n' <"$WORK/t/out")
    [[ $n == "$SIZE" ]] || { M_OK=0; M_ERR="remote counted '$n' bytes, not $SIZE"; }
  fi
}

GRIDFTP_PORT=""
gridftp_start() {
  GRIDFTP_PORT=$(free_port) || return 1
  start_server "$GRIDFTP_PORT" globus-gridftp-server -p "$GRIDFTP_PORT" -hostname 127.0.0.1 \
    -aa -anonymous-user "$ME" -allow-root -single -d ERROR -l "$WORK/logs/gridftp.log"
}
job_gridftp_file() {
  fresh_rundir
  gridftp_start || { M_OK=0; M_ERR="GridFTP server did not start"; return; }
  measure server -- globus-url-copy -p 4 "file://$SRC" "ftp://127.0.0.1:$GRIDFTP_PORT$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
job_gridftp_fast_file() {  # -fast: data channels kept open between files (and set up once)
  fresh_rundir
  gridftp_start || { M_OK=0; M_ERR="GridFTP server did not start"; return; }
  measure server -- globus-url-copy -fast -p 4 "file://$SRC" "ftp://127.0.0.1:$GRIDFTP_PORT$RUNDIR/dst"
  ((M_OK)) && verify_file "$RUNDIR/dst"
}
job_gridftp_zero() {  # /dev/null cannot be checked: exit status, after gridftp_zero_check
  gridftp_start || { M_OK=0; M_ERR="GridFTP server did not start"; return; }
  measure server -- globus-url-copy -p 4 -len "$SIZE" file:///dev/zero \
    "ftp://127.0.0.1:$GRIDFTP_PORT/dev/null"
}
gridftp_zero_check() {  # untimed: does -len from /dev/zero really move the bytes?
  local n=$((SIZE < (64 << 20) ? SIZE : (64 << 20)))
  fresh_rundir
  gridftp_start || return 1
  timeout -k 5 60 globus-url-copy -p 4 -len "$n" file:///dev/zero \
    "ftp://127.0.0.1:$GRIDFTP_PORT$RUNDIR/zero" >/dev/null 2>&1 </dev/null
  wait_exit "$SERVER_PID" 10 || kill_tree "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  [[ $(stat -c %s "$RUNDIR/zero" 2>/dev/null) == "$n" ]] && cmp -s -n "$n" /dev/zero "$RUNDIR/zero"
}

# The small case: every copy lands in a new $SMALL_DST/tree, and the copies are removed only
# when the run ends. ext4 without a journal (this VM's disk) will not reuse an inode freed in
# the last 60-300 s, and proves it by reading the inode table entry by entry
# (recently_deleted() in ialloc.c): perf showed a copy right after `rm -rf` of the previous
# 10,000-file tree spending 2 s of system CPU there, whoever made the files, where a user
# copying a dataset onto a disk pays nothing of the kind. Before each copy: the source tree
# read into the page cache, and `sync`, so nobody writes back another's pages.
small_prepare() {
  SMALL_SEQ=$((SMALL_SEQ + 1)); SMALL_DST="$SMALL_ROOT/$SMALL_SEQ"
  rm -rf -- "$RUNDIR"; mkdir -p "$SMALL_DST"
  find "$SMALL_SRC" -type f -exec cat -- {} + >/dev/null
  sync
  settle_memory
}
verify_tree() {  # untimed: diff -r of the source tree and the copy
  [[ -d $SMALL_DST/tree ]] || { M_OK=0; M_ERR="no destination tree"; return; }
  if ! diff -r -q "$SMALL_SRC" "$SMALL_DST/tree" >"$WORK/t/diff" 2>&1; then
    M_OK=0; M_ERR="copy differs (diff -r): $(head -2 "$WORK/t/diff" | tr '\n' ' ' | cut -c1-160)"
  fi
}
job_braid_small() {
  small_prepare
  measure ssh -- "$BRAID" -r "$SMALL_SRC" "braidbench:$SMALL_DST/"
  ((M_OK)) && verify_tree
}
job_braid_clear_small() {
  small_prepare
  measure ssh -- "$BRAID" -r "${CLEAR[@]}" "$SMALL_SRC" "braidbench:$SMALL_DST/"
  ((M_OK)) && verify_tree
}
job_rsync_small() {
  small_prepare
  measure ssh -- rsync -a -e "ssh -F $SSHCFG" "$SMALL_SRC" "braidbench:$SMALL_DST/"
  ((M_OK)) && verify_tree
}
job_scp_small() {
  small_prepare
  measure ssh -- scp -r -q -F "$SSHCFG" "$SMALL_SRC" "braidbench:$SMALL_DST/"
  ((M_OK)) && verify_tree
}
GRIDFTPD_PORT=""
gridftpd_start() {  # the small case's daemon: -cc 4 opens 4 control connections, so not -single
  GRIDFTPD_PORT=$(free_port) || return 1
  globus-gridftp-server -p "$GRIDFTPD_PORT" -hostname 127.0.0.1 -aa -anonymous-user "$ME" \
    -allow-root -d ERROR -l "$WORK/logs/gridftpd.log" >"$WORK/logs/gridftpd.out" 2>&1 &
  GRIDFTPD_PID=$!
  wait_listen "$GRIDFTPD_PORT" "$GRIDFTPD_PID" || { kill_tree "$GRIDFTPD_PID"; GRIDFTPD_PID=""; return 1; }
}
job_gridftp_small() {  # -cd: without it, -cc 4 races its own mkdir of the target tree
  [[ -n $GRIDFTPD_PID ]] || { M_OK=0; M_ERR="GridFTP daemon not running"; return; }
  small_prepare
  measure daemon -- globus-url-copy -cd -r -cc 4 -pp "file://$SMALL_SRC/" \
    "ftp://127.0.0.1:$GRIDFTPD_PORT$SMALL_DST/tree/"
  ((M_OK)) && verify_tree
}

# iperf3's own receiver rate is the figure (it leaves out process and control setup).
IPERF_RATE=""
job_iperf3_mem() {
  local port
  IPERF_RATE=""
  port=$(free_port) || { M_OK=0; M_ERR="no free port"; return; }
  start_server "$port" iperf3 -s -1 -B 127.0.0.1 -p "$port" ||
    { M_OK=0; M_ERR="iperf3 server did not start"; return; }
  measure server -- iperf3 -c 127.0.0.1 -p "$port" -P 8 -n "$SIZE" -J
  if ((M_OK)); then
    local got
    # sum_sent.bytes must reach SIZE; the rate is sum_received.bits_per_second.
    read -r got IPERF_RATE < <(awk '
      /"sum_sent"[ \t]*:/ {sec = "s"} /"sum_received"[ \t]*:/ {sec = "r"}
      /"bytes"/ {gsub(/[",]/, ""); if (sec == "s") b = $2}
      /"bits_per_second"/ {gsub(/[",]/, ""); if (sec == "r") r = $2; sec = ""}
      END {printf "%.0f %.1f\n", b, r / 8e6}' "$WORK/t/out")
    ((got >= SIZE)) || { M_OK=0; M_ERR="iperf3 sent $got bytes, not $SIZE"; }
  fi
}

CEIL_RATE=""   # the last openssl speed row's MB/s
# openssl_ceiling NAME: one core's rate of `openssl speed -evp NAME` on 1 MiB blocks.
openssl_ceiling() {
  measure none -- openssl speed -seconds 2 -evp "$1" -bytes 1048576
  if ((M_OK)); then
    # last line: "md5   758364.06k" (or "AES-128-GCM  5512345.00k") in 1000s of bytes per second
    CEIL_RATE=$(awk -v n="$1" 'tolower($1) == tolower(n) && $2 ~ /k$/ {v = $2}
      END{sub(/k$/, "", v); if (v != "") printf "%.1f", v / 1000}' "$WORK/t/out")
    [[ -n $CEIL_RATE ]] || { M_OK=0; M_ERR="cannot parse openssl speed output"; }
  fi
}
job_md5_ceiling() { openssl_ceiling md5; }
job_aes128_ceiling() { openssl_ceiling aes-128-gcm; }
job_aes256_ceiling() { openssl_ceiling aes-256-gcm; }
job_chacha_ceiling() { openssl_ceiling chacha20-poly1305; }
is_ceiling() { [[ $1 == *_ceiling ]]; }

# Row table: id | tool label | case | braid row it is compared with ("" for braid rows).
# Rows of the file, tiny and small cases run once per target (key ID@TARGET); the others
# once (key ID@-).
ROWS=(
  "braid_auto_file|braid, default (ssh push)|file|"
  "braid_ssh_file|braid -s 4 --cipher none (ssh push)|file|"
  "braid_local_file|braid, default (local)|file|"
  "braid_s1_file|braid -s 1 --cipher none|file|"
  "braid_s64_file|braid -s 64 --cipher none|file|"
  "braid_ynone_file|braid -y none --cipher none (no sync)|file|"
  "braid_e_file|braid -e --cipher none (MD5)|file|"
  "braid_sha_file|braid -E sha256 --cipher none|file|"
  "braid_xxh_file|braid -E xxh128 --cipher none|file|"
  "braid_aes256_file|braid --cipher aes-256-gcm|file|"
  "braid_chacha_file|braid --cipher chacha20-poly1305|file|"
  "braid_clear_file|braid --cipher none (clear)|file|"
  "cpsync_file|cp, then sync (durable limit)|file|braid_clear_file"
  "dd_file|dd bs=1M conv=fdatasync|file|braid_clear_file"
  "scp_file|scp (SFTP protocol, the default)|file|braid_auto_file"
  "scpO_file|scp -O (legacy SCP protocol)|file|braid_auto_file"
  "rsync_file|rsync --whole-file (ssh)|file|braid_auto_file"
  "gridftp_file|globus-url-copy -p 4|file|braid_auto_file"
  "gridftp_fast_file|globus-url-copy -fast -p 4|file|braid_auto_file"
  "braid_tiny|braid, default (ssh push)|tiny|"
  "scp_tiny|scp (SFTP protocol)|tiny|braid_tiny"
  "braid_ssh_zero|braid, default (ssh push)|zero|"
  "braid_local_zero|braid, default (local)|zero|"
  "braid_aes256_zero|braid --cipher aes-256-gcm (ssh push)|zero|"
  "braid_chacha_zero|braid --cipher chacha20-poly1305 (ssh push)|zero|"
  "braid_clear_zero|braid --cipher none (ssh push)|zero|"
  "sshpipe_zero|ssh pipe (head -c to remote wc -c)|zero|braid_ssh_zero"
  "gridftp_zero|globus-url-copy -p 4 -len|zero|braid_ssh_zero"
  "iperf3_mem|iperf3 -P 8 (ceiling)|mem|braid_ssh_zero"
  "md5_ceiling|openssl md5, 1 core (ceiling)|md5|braid_e_file"
  "aes128_ceiling|openssl aes-128-gcm, 1 core (ceiling)|seal|braid_ssh_zero"
  "aes256_ceiling|openssl aes-256-gcm, 1 core (ceiling)|seal|braid_aes256_zero"
  "chacha_ceiling|openssl chacha20-poly1305, 1 core (ceiling)|seal|braid_chacha_zero"
  "braid_small|braid -r, default (ssh push)|small|"
  "braid_clear_small|braid -r --cipher none (ssh push)|small|"
  "rsync_small|rsync -a (ssh)|small|braid_small"
  "gridftp_small|globus-url-copy -cd -r -cc 4 -pp|small|braid_small"
  "scp_small|scp -r (SFTP protocol)|small|braid_small"
)
per_target() { [[ $1 == file || $1 == tiny || $1 == small ]]; }
declare -A LABEL RCASE REF DISABLED NOTE RATES CPUS RSSS BASE TGT
ORDER=()
for r in "${ROWS[@]}"; do
  IFS='|' read -r id label cs ref <<<"$r"
  tgts=("-"); per_target "$cs" && tgts=("${TARGETS[@]}")
  for t in "${tgts[@]}"; do
    key="$id@$t"
    LABEL[$key]=$label; RCASE[$key]=$cs; BASE[$key]=$id; TGT[$key]=$t
    REF[$key]=""; [[ -n $ref ]] && REF[$key]="$ref@$t"
    # The MD5 ceiling is compared with -e onto the first target (a tmpfs by default).
    [[ $id == md5_ceiling ]] && REF[$key]="$ref@${TARGETS[0]}"
    DISABLED[$key]=0; NOTE[$key]=""; RATES[$key]=""; CPUS[$key]=""; RSSS[$key]=""
    want "$cs" && row_wanted "$id" && ORDER+=("$key")
  done
done
keys_of() {  # keys_of ID...: every key of these rows
  local id k
  for id in "$@"; do for k in "${!BASE[@]}"; do [[ ${BASE[$k]} == "$id" ]] && echo "$k"; done; done
}

disable_braid() {  # disable_braid REASON ids...: every target's row of each
  local reason=$1 k; shift
  for k in $(keys_of "$@"); do DISABLED[$k]=1; NOTE[$k]="skipped: $reason"; done
}
disable_key() {  # disable_key KEY REASON
  DISABLED[$1]=1; NOTE[$1]=$2
}
BRAID_IDS=(braid_ssh_file braid_auto_file braid_local_file braid_s1_file braid_s64_file braid_ynone_file
           braid_e_file braid_sha_file braid_xxh_file braid_aes256_file braid_chacha_file braid_clear_file
           braid_ssh_zero braid_local_zero braid_aes256_zero braid_chacha_zero braid_clear_zero
           braid_tiny braid_small braid_clear_small)

# ---------------------------------------------------------------------------------------
# braid pre-flight (untimed): can it run, copy locally, push over ssh, and does --size on
# /dev/zero really produce bytes (the /dev/null rows can only check its exit status).
BRAID_VERSION="(not run)"
if [[ ! -x $BRAID ]]; then
  log "NOTE: braid binary not found at $BRAID: braid rows skipped (build it, or pass --braid)"
  disable_braid "binary not found at $BRAID" "${BRAID_IDS[@]}"
elif ! BRAID_VERSION=$("$BRAID" --version 2>&1 | head -1) || [[ -z $BRAID_VERSION ]]; then
  log "NOTE: '$BRAID --version' failed: braid rows skipped"
  disable_braid "--version failed" "${BRAID_IDS[@]}"
  BRAID_VERSION="(--version failed)"
else
  BRAID_VERSION=${BRAID_VERSION#braid }
  log "braid: $BRAID_VERSION ($BRAID)"
  small="$WORK/small.bin"
  head -c $((4 << 20)) /dev/urandom >"$small"
  preflight() {  # preflight DESTPREFIX: copy 4 MiB, compare
    fresh_rundir
    timeout -k 5 60 "$BRAID" "$small" "$1$RUNDIR/small" >"$WORK/t/pre.out" 2>"$WORK/t/pre.err" &&
      cmp -s "$small" "$RUNDIR/small"
  }
  if preflight ""; then BRAID_LOCAL_OK=1; else
    why="local copy failed: $(tail -1 "$WORK/t/pre.err" | cut -c1-160)"
    log "NOTE: braid $why"
    disable_braid "$why" braid_local_file braid_local_zero
  fi
  if ! preflight "braidbench:"; then
    why="push over ssh failed: $(tail -1 "$WORK/t/pre.err" | cut -c1-160)"
    log "NOTE: braid $why"
    disable_braid "$why" braid_ssh_file braid_auto_file braid_ssh_zero braid_tiny braid_small braid_clear_small \
      braid_aes256_zero braid_chacha_zero braid_clear_zero
    variants=(braid_s1_file braid_s64_file braid_ynone_file braid_e_file braid_sha_file braid_xxh_file
              braid_aes256_file braid_chacha_file braid_clear_file)
    if ((BRAID_LOCAL_OK)); then
      BRAID_VARIANT_DST=""
      for k in $(keys_of "${variants[@]}"); do LABEL[$k]="${LABEL[$k]} (local)"; done
    else
      disable_braid "neither local nor ssh copies work" "${variants[@]}"
    fi
  fi
  # Options a binary from before issue 12 lacks: their rows are skipped, not failed.
  help=$("$BRAID" --help 2>&1)
  grep -q -- '--fsync' <<<"$help" || disable_braid "this braid has no -y/--fsync" braid_ynone_file
  grep -q 'sha256' <<<"$help" || disable_braid "this braid has no -E sha256" braid_sha_file
  grep -q 'xxh128' <<<"$help" || disable_braid "this braid has no -E xxh128" braid_xxh_file
  grep -q -- '--cipher' <<<"$help" || CLEAR=()   # before issue 14 every path was clear
  grep -q -- '--cipher' <<<"$help" || disable_braid "this braid has no --cipher" \
    braid_aes256_file braid_chacha_file braid_clear_file braid_aes256_zero braid_chacha_zero braid_clear_zero
  if ((BRAID_LOCAL_OK)); then
    zn=$((SIZE < (64 << 20) ? SIZE : (64 << 20)))
    fresh_rundir
    if timeout -k 5 60 "$BRAID" --size "$zn" /dev/zero "$RUNDIR/zero" >/dev/null 2>"$WORK/t/pre.err" &&
       [[ $(stat -c %s "$RUNDIR/zero" 2>/dev/null) == "$zn" ]] && cmp -s -n "$zn" /dev/zero "$RUNDIR/zero"; then
      :
    else
      why="--size $zn /dev/zero to a file did not give $zn zero bytes"
      log "NOTE: braid $why: /dev/null rows skipped"
      disable_braid "$why" braid_ssh_zero braid_local_zero braid_aes256_zero braid_chacha_zero braid_clear_zero
    fi
  fi
  fresh_rundir
fi

if want zero && ! gridftp_zero_check; then
  log "NOTE: globus-url-copy -len from /dev/zero to a file did not give the bytes: its /dev/null row skipped"
  disable_key gridftp_zero@- "skipped: -len from /dev/zero did not give the bytes"
fi
fresh_rundir
if want small && ! gridftpd_start; then
  log "NOTE: the GridFTP daemon for the small case did not start: its row skipped"
  for k in $(keys_of gridftp_small); do disable_key "$k" "skipped: GridFTP daemon did not start"; done
fi

# ---------------------------------------------------------------------------------------
# Rounds: every tool once per round, the order rotated each round.
in_seconds() { [[ $1 == small || $1 == tiny ]]; }   # these cases report seconds, not MB/s
[[ -n $CSV ]] && echo "round,id,tool,case,target,ok,wall_s,mb_s,cpu_s,peak_rss_kib,error" >"$CSV"   # mb_s empty for small, tiny
n=${#ORDER[@]}
for ((round = 1; round <= RUNS; round++)); do
  log "round $round/$RUNS"
  for ((k = 0; k < n; k++)); do
    key=${ORDER[$(((k + round - 1) % n))]}
    ((DISABLED[$key])) && continue
    id=${BASE[$key]}; tgt=${TGT[$key]}; cs=${RCASE[$key]}
    [[ $tgt != - ]] && use_target "$tgt"
    M_OK=0; M_ERR=""; M_SPLIT=""
    "job_$id"
    rm -rf -- "$RUNDIR"
    if ((M_OK)); then
      if [[ $id == iperf3_mem ]]; then rate=$IPERF_RATE
      elif is_ceiling "$id"; then rate=$CEIL_RATE; M_CPU=""; M_RSS=""
      elif in_seconds "$cs"; then rate=$M_WALL
      else rate=$(awk -v s="$SIZE" -v w="$M_WALL" 'BEGIN{printf "%.1f", s / w / 1e6}')
      fi
      RATES[$key]+=" $rate"; CPUS[$key]+=" $M_CPU"; RSSS[$key]+=" $M_RSS"
      shown="$(printf '%8s MB/s %7ss' "$rate" "$M_WALL")"
      in_seconds "$cs" && shown="$(printf '%8s s' "$M_WALL")"
      log "  $(printf '%-36s %-5s %-5s %s  cpu %6s  rss KiB %s' "${LABEL[$key]}" "$cs" "$tgt" "$shown" "${M_CPU:--}" "${M_RSS:--}")"
      if ! is_ceiling "$id"; then
        log "      ($M_SPLIT; other processes ${M_OTHER}% of the CPUs)"
        OTHERS+=" $M_OTHER"
      fi
    else
      rate=""
      log "  ${LABEL[$key]} ($cs, $tgt) FAILED: $M_ERR"
      if [[ $id == braid_* ]]; then
        NOTE[$key]="skipped after a failed copy: $M_ERR"
      else
        NOTE[$key]="failed: $M_ERR"
      fi
      DISABLED[$key]=1
    fi
    if [[ -n $CSV ]]; then
      csv_rate=$rate; in_seconds "$cs" && csv_rate=""
      printf '%d,%s,"%s",%s,%s,%d,%s,%s,%s,%s,"%s"\n' "$round" "$id" "${LABEL[$key]}" "$cs" "$tgt" \
        "$M_OK" "$M_WALL" "$csv_rate" "$M_CPU" "$M_RSS" "${M_ERR//\"/\'}" >>"$CSV"
    fi
  done
done

# ---------------------------------------------------------------------------------------
# Results.
declare -A MED_RATE MIN_RATE MAX_RATE
for key in "${!LABEL[@]}"; do   # every row, so lookups of cases not run give ""
  # shellcheck disable=SC2086
  MED_RATE[$key]=$(median ${RATES[$key]})
  # shellcheck disable=SC2086
  MIN_RATE[$key]=$( [[ -n ${RATES[$key]// /} ]] && printf '%s\n' ${RATES[$key]} | sort -g | head -1)
  # shellcheck disable=SC2086
  MAX_RATE[$key]=$( [[ -n ${RATES[$key]// /} ]] && maxof ${RATES[$key]} )
done
# slowest run / median run, in time: for MB/s rows median/min, for seconds rows max/median.
spread_of() {
  local k=$1
  [[ -n ${MED_RATE[$k]} ]] || { echo ""; return; }
  if in_seconds "${RCASE[$k]}"; then
    awk -v m="${MED_RATE[$k]}" -v x="${MAX_RATE[$k]}" 'BEGIN{printf "%.2f", x / m}'
  else
    awk -v m="${MED_RATE[$k]}" -v x="${MIN_RATE[$k]}" 'BEGIN{printf "%.2f", m / x}'
  fi
}
fmt_num() {  # fmt_num CASE VALUE: seconds with 2 decimals, MB/s whole
  [[ -n $2 ]] || { echo "n/a"; return; }
  if in_seconds "$1"; then awk -v r="$2" 'BEGIN{printf "%.2f", r}'; else awk -v r="$2" 'BEGIN{printf "%.0f", r}'; fi
}
fmt_row() {  # fmt_row KEY -> "tool|case|target|median|min|max|slowest/median|CPU|RSS|ratio|note"
  local k=$1 cs=${RCASE[$1]} cpu rss ratio="" ref=${REF[$1]} rate=${MED_RATE[$1]} lo hi
  # shellcheck disable=SC2086
  cpu=$(median ${CPUS[$k]})
  # shellcheck disable=SC2086
  rss=$( [[ -n ${RSSS[$k]// /} ]] && maxof ${RSSS[$k]} )
  [[ -n $rss ]] && rss=$(awk -v k="$rss" 'BEGIN{printf "%.1f", k / 1024}')
  if [[ -n $rate && -n $ref && -n ${MED_RATE[$ref]:-} ]]; then
    if in_seconds "$cs"; then   # seconds: this row's time / braid's time
      ratio=$(awk -v b="${MED_RATE[$ref]}" -v p="$rate" 'BEGIN{printf "%.2f", p / b}')
    else
      ratio=$(awk -v b="${MED_RATE[$ref]}" -v p="$rate" 'BEGIN{printf "%.2f", b / p}')
    fi
  elif [[ -z $ref ]]; then
    ratio="-"
  fi
  lo=${MIN_RATE[$k]}; hi=${MAX_RATE[$k]}
  printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' "${LABEL[$k]}" "$cs" "${TGT[$k]}" \
    "$(fmt_num "$cs" "$rate")" "$(fmt_num "$cs" "$lo")" "$(fmt_num "$cs" "$hi")" \
    "$(spread_of "$k")" "${cpu:-"-"}" "${rss:-"-"}" "${ratio:-n/a}" "${NOTE[$k]}"
}

CPU_MODEL=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
SSH_VER=$(ssh -V 2>&1 | cut -d, -f1)
SSH_CIPHER=$("${SSH[@]}" -G braidbench 2>/dev/null | awk '$1 == "ciphers" {split($2, c, ","); print c[1]}')
RSYNC_VER=$(rsync --version | head -1 | awk '{print $3}')
GUC_VER=$(globus-url-copy -version 2>&1 | head -1 | awk '{print $2}')
IPERF_VER=$(iperf3 --version | head -1 | awk '{print $2}')
OPENSSL_VER=$(openssl version | awk '{print $2}')

ratio_line() {  # ratio_line A B TEXT: "TEXT: A/B" when both medians exist
  [[ -n ${MED_RATE[$1]:-} && -n ${MED_RATE[$2]:-} ]] || return 0
  awk -v a="${MED_RATE[$1]}" -v b="${MED_RATE[$2]}" -v t="$3" 'BEGIN{printf "%s: %.2f\n", t, a / b}'
}
# check TEXT VALUE OP LIMIT: one line of the targets list, "met" or "MISSED".
check() {
  [[ -n $2 ]] || { echo "$1: not measured"; return 0; }
  awk -v t="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN{
    ok = (op == ">=") ? (v >= l) : (v <= l)
    printf "%s: %.2f (target %s %s): %s\n", t, v, op, l, ok ? "met" : "MISSED"}'
}
ratio_of() {  # ratio_of A B: median A / median B, or "" when either is missing
  [[ -n ${MED_RATE[$1]:-} && -n ${MED_RATE[$2]:-} ]] || { echo ""; return; }
  awk -v a="${MED_RATE[$1]}" -v b="${MED_RATE[$2]}" 'BEGIN{printf "%.4f", a / b}'
}
# seal_cost_ratio SEALED CLEAR CEILING: the CPU seconds sealing added (median CPU of SEALED
# minus CLEAR, both ends) over what one core at CEILING's openssl rate needs to seal and open
# SIZE bytes (2 x SIZE / rate), or "" when a figure is missing.
seal_cost_ratio() {
  local a b
  # shellcheck disable=SC2086
  a=$(median ${CPUS[$1]:-})
  # shellcheck disable=SC2086
  b=$(median ${CPUS[$2]:-})
  [[ -n $a && -n $b && -n ${MED_RATE[$3]:-} ]] || { echo ""; return; }
  awk -v a="$a" -v b="$b" -v r="${MED_RATE[$3]}" -v s="$SIZE" 'BEGIN{printf "%.4f", (a - b) / (2 * s / (r * 1e6))}'
}
summary_lines() {
  local o t
  # shellcheck disable=SC2086
  o=$(median $OTHERS)
  if [[ -n $o ]]; then
    echo "other processes used ${o}% of the CPUs during a copy (median; above ~10% the figures are depressed, compare ratios)"
  fi
  ratio_line braid_ssh_zero@- iperf3_mem@- "braid /dev/zero->/dev/null (ssh push) / iperf3 -P 8 ceiling"
  ratio_line braid_ssh_zero@- braid_clear_zero@- "braid /dev/zero->/dev/null: sealed (default) / --cipher none"
  for t in "${TARGETS[@]}"; do
    ratio_line "braid_clear_file@$t" "braid_ssh_file@$t" "onto $t: braid --cipher none / -s 4 --cipher none"
    ratio_line "braid_s64_file@$t" "braid_ssh_file@$t" "onto $t: braid -s 64 / -s 4 (both --cipher none)"
    ratio_line "braid_e_file@$t" "braid_clear_file@$t" "onto $t: braid -e / braid without a hash (both --cipher none)"
    ratio_line "braid_sha_file@$t" "braid_clear_file@$t" "onto $t: braid -E sha256 / braid without a hash (both --cipher none)"
    ratio_line "braid_auto_file@$t" "braid_clear_file@$t" "onto $t: braid sealed (default) / --cipher none"
  done
}
# The targets of issue 12, each with its figure from this run.
target_lines() {
  local t=${TARGETS[0]} spread cp_spread
  if [[ -n ${TDIR[disk]:-} ]]; then
    check "onto disk: braid --cipher none / cp+sync (median)" "$(ratio_of braid_clear_file@disk cpsync_file@disk)" ">=" 0.95
    spread=$(spread_of braid_clear_file@disk); cp_spread=$(spread_of cpsync_file@disk)
    if [[ -n $spread && -n $cp_spread ]]; then
      check "onto disk: braid --cipher none slowest/median (cp+sync's own: $cp_spread)" "$spread" "<=" \
        "$(awk -v a=1.3 -v b="$cp_spread" 'BEGIN{print (a > b) ? a : b}')"
    fi
    check "onto disk: braid -y none / globus-url-copy -p 4" "$(ratio_of braid_ynone_file@disk gridftp_file@disk)" ">=" 1.0
    check "onto disk: braid -s 1 / -s 4" "$(ratio_of braid_s1_file@disk braid_ssh_file@disk)" ">=" 0.8
    check "onto disk: 10,000 x 4 KiB, rsync -a time / braid --cipher none time" "$(ratio_of rsync_small@disk braid_clear_small@disk)" ">=" 1.5
    check "onto disk: 10,000 x 4 KiB, rsync -a time / braid (sealed) time" "$(ratio_of rsync_small@disk braid_small@disk)" ">=" 1.5
  fi
  if [[ -n ${TDIR[tmpfs]:-} ]]; then
    check "onto tmpfs: braid -y none / globus-url-copy -fast -p 4" "$(ratio_of braid_ynone_file@tmpfs gridftp_fast_file@tmpfs)" ">=" 1.0
  fi
  for t in "${TARGETS[@]}"; do
    check "onto $t: 1-byte push, braid time / scp time" "$(ratio_of braid_tiny@$t scp_tiny@$t)" "<=" 1.2
  done
  t=${TARGETS[0]}
  check "onto $t: braid -e / one core's MD5 rate" "$(ratio_of braid_e_file@$t md5_ceiling@-)" ">=" 0.65
  # Issue 14: sealing by default, at bulk speed.
  check "/dev/zero->/dev/null: braid sealed (default) / --cipher none" "$(ratio_of braid_ssh_zero@- braid_clear_zero@-)" ">=" 0.7
  check "CPU of sealing (default minus --cipher none, both ends, /dev/zero) / openssl aes-128-gcm's" \
    "$(seal_cost_ratio braid_ssh_zero@- braid_clear_zero@- aes128_ceiling@-)" "<=" 1.25
  for t in "${TARGETS[@]}"; do
    check "onto $t: braid sealed (default) / --cipher none" "$(ratio_of braid_auto_file@$t braid_clear_file@$t)" ">=" 0.7
    check "onto $t: braid sealed (default) / scp" "$(ratio_of braid_auto_file@$t scp_file@$t)" ">=" 3
  done
  t=${TARGETS[0]}
  check "onto $t: braid -E xxh128 / braid without a hash (both --cipher none)" "$(ratio_of braid_xxh_file@$t braid_clear_file@$t)" ">=" 0.8
  for t in "${TARGETS[@]}"; do
    # shellcheck disable=SC2086
    rss=$( [[ -n ${RSSS[braid_s64_file@$t]// /} ]] && maxof ${RSSS[braid_s64_file@$t]} )
    [[ -n $rss ]] && check "onto $t: peak RSS MiB of one process at -s 64" "$(awk -v k="$rss" 'BEGIN{print k / 1024}')" "<=" 256
  done
  return 0
}
env_line() {
  local t
  printf '%s, %s cores, Linux %s; %s bytes (%s) per copy; min, median and max of %s run(s).\n' \
    "${CPU_MODEL:-unknown CPU}" "$(nproc)" "$(uname -r)" "$SIZE" "$SIZE_STR" "$RUNS"
  for t in "${TARGETS[@]}"; do printf 'Target %s: %s.\n' "$t" "${TKIND[$t]}"; done
  printf 'braid %s; %s (cipher %s); rsync %s; globus-url-copy %s; iperf3 %s; OpenSSL %s.\n' \
    "$BRAID_VERSION" "$SSH_VER" "${SSH_CIPHER:-default}" "$RSYNC_VER" "$GUC_VER" "$IPERF_VER" "$OPENSSL_VER"
  if [[ $CASES_ARG != "$ALL_CASES" ]]; then printf 'Cases run: %s.\n' "$CASES_ARG"; fi
  if [[ -n $ROWS_ARG ]]; then printf 'Rows run: %s.\n' "$ROWS_ARG"; fi
  printf 'One ssh login (`ssh host true`, median of 5): %s s, with the remote shell in HOME=%s;\n' \
    "$LOGIN_S" "$([[ $LOGIN_HOME == skel ]] && echo "a directory holding /etc/skel's files" || echo "the account's own")"
  printf "the account's own ~/.bashrc alone takes %s s (--login-home own would add it to every ssh copy).\n" "$OWN_RC_S"
  if want small; then
    printf 'small: %s files of %s bytes in %s directories, pushed into the target dir; sync before each copy.\n' \
      "$SMALL_COUNT" "$SMALL_FILE" "$SMALL_DIRS"
  fi
}
NOTES_TEXT="MB/s is 10^6 bytes/s over the client's wall clock (setup included), except iperf3
(its own receiver rate) and the openssl speed rows (one core hashing or sealing); min and max are the slowest and
fastest run, slow/med the slowest run's time over the median's. CPU s is user+sys at both ends
(client with children, plus the sshd session or the server process); peak RSS is the largest
single process at either end. braid ratio = the braid row compared (the default push onto the
same target for the peers, braid -e for the MD5 ceiling) divided by this row: above 1, braid
is faster. file = page-cached random file to a file; zero = /dev/zero to /dev/null; every
file copy is compared with cmp, pipes and /dev/null by the byte count the tool reports
(braid and globus-url-copy to /dev/null by exit status, after an untimed check that their
reads of /dev/zero to a file give the bytes). tiny = a 1-byte file and small = the tree of
small files: seconds (client wall clock, setup included) instead of MB/s, and braid ratio =
this row's seconds / braid's seconds (above 1, braid is faster); each copy lands in a
new directory after \`sync\` and is compared with cmp or diff -r. braid syncs every file
before it renames it (unless -y none); cp+sync and dd conv=fdatasync are the durable limit;
scp, rsync and globus-url-copy return before their data is on disk."

ids_of_table() {  # ids_of_table 0|1: the keys of the MB/s table (0) or the seconds one (1), by target
  local k t secs found=1
  for t in "${TARGETS[@]}" -; do
    for k in "${ORDER[@]}"; do
      [[ ${TGT[$k]} == "$t" ]] || continue
      secs=0; in_seconds "${RCASE[$k]}" && secs=1
      ((secs == $1)) || continue
      echo "$k"; found=0
    done
  done
  return "$found"
}
print_table() {
  echo
  echo "braid benchmark on loopback"
  env_line | sed 's/^/  /'
  echo
  local k secs unit
  for secs in 0 1; do
    unit="MB/s"; ((secs)) && unit="seconds"
    ids_of_table "$secs" >/dev/null || continue
    printf '%-38s %-5s %-6s %8s %8s %8s %5s %7s %8s %6s  %s\n' "tool" "case" "target" "$unit" "min" "max" \
      "s/med" "CPU s" "RSS MiB" "braid" "note"
    for k in $(ids_of_table "$secs"); do
      IFS='|' read -r t c tg r lo hi sp cpu rss ratio note <<<"$(fmt_row "$k")"
      printf '%-38s %-5s %-6s %8s %8s %8s %5s %7s %8s %6s  %s\n' "$t" "$c" "$tg" "$r" "$lo" "$hi" "${sp:--}" \
        "$cpu" "$rss" "$ratio" "$note"
    done
    echo
  done
  summary_lines | sed 's/^/  /'
  echo
  echo "  targets (issues 12 and 14):"
  target_lines | sed 's/^/    /'
  echo
  while IFS= read -r l; do echo "  $l"; done <<<"$NOTES_TEXT"
}

write_markdown() {
  {
    echo "### Loopback benchmark ($(date +%Y-%m-%d))"
    echo
    env_line
    echo
    echo "Produced by \`tools/bench/bench.sh $BENCH_ARGS\`."
    echo
    local k secs unit
    for secs in 0 1; do
      unit="MB/s"; ((secs)) && unit="seconds"
      ids_of_table "$secs" >/dev/null || continue
      echo "| tool | case | target | $unit | min | max | slowest/median | CPU s | peak RSS MiB | braid ratio | note |"
      echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
      for k in $(ids_of_table "$secs"); do
        IFS='|' read -r t c tg r lo hi sp cpu rss ratio note <<<"$(fmt_row "$k")"
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${t//|/\\|}" "$c" "$tg" "$r" \
          "$lo" "$hi" "${sp:--}" "$cpu" "$rss" "$ratio" "$note"
      done
      echo
    done
    summary_lines | sed 's/^/- /'
    echo
    echo "Targets (issues 12 and 14), from this run:"
    echo
    target_lines | sed 's/^/- /'
    echo
    echo "$NOTES_TEXT"
  } >"$OUT"
}

print_table
if [[ -n $OUT ]]; then write_markdown && log "Markdown written to $OUT"; fi
[[ -n $CSV ]] && log "per-run CSV written to $CSV"
exit 0
