# Sourced by the benchmarks that race rsync between the testbed's two hosts
# (rerun.sh, sparse.sh). Run from the script's top level:
#   bench_setup NAME HELP_LINES "$@"
# Outside the testbed it reads --runs N, --dir DIR, --braid PATH, --out DIR
# (and -h, which prints the script's lines 2..HELP_LINES), checks them, and
# runs the script again inside `tools/testbed run` (2 Gbit/s, 1 ms); inside,
# it sets RUNS, DIR, OUT, BRAID and WORK (a fresh directory under DIR,
# removed on exit), and defines die and say.

bench_setup() {
  BENCH_NAME=$1
  local help_lines=$2
  shift 2
  local repo
  repo=$(cd "$(dirname "$0")/../.." && pwd)
  die() { echo "$BENCH_NAME.sh: $*" >&2; exit 1; }
  say() { echo "$BENCH_NAME.sh: $(date +%T) $*" >&2; }
  if [[ ${1:-} == inside ]]; then
    RUNS=$2 DIR=$3 OUT=$4 BRAID=$5
    WORK=$(mktemp -d "$DIR/braid-$BENCH_NAME.XXXXXX")
    trap 'rm -rf -- "$WORK"' EXIT
    return
  fi
  local runs=7 dir=/var/tmp out="" braid=${BRAID:-$repo/build/src/braid}
  while (($#)); do
    case $1 in
      --runs) runs=$2; shift 2 ;;
      --dir) dir=$2; shift 2 ;;
      --braid) braid=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      -h | --help) sed -n "2,${help_lines}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
      *) die "unknown option $1 (see --help)" ;;
    esac
  done
  [[ $(id -u) -eq 0 ]] || die "needs root (tools/testbed)"
  [[ -x $braid ]] || die "braid not found at $braid"
  command -v rsync >/dev/null || die "rsync is not installed"
  [[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs is a whole number"
  out=${out:-$PWD/$BENCH_NAME-$(date +%Y%m%d-%H%M%S)}
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  # As arguments: the testbed does not pass this environment on to CMD.
  exec "$repo/tools/testbed" run --braid "$braid" --rate 2G --rtt 1ms -- \
    "$0" inside "$runs" "$dir" "$out" "$braid"
}
