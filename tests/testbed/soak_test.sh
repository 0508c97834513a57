#!/usr/bin/env bash
# A brief kill-point soak (tools/soak.sh): a few copies broken by random
# faults and re-run, each ending byte-identical with at most 1.15x the data
# moved. The long run is by hand: tools/soak.sh --trials 50 --size 1G.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require cmp numfmt
[[ -n ${BRAID:-} && -x ${BRAID:-} ]] || skip "set BRAID to a built braid binary (ctest does)"
[[ -x /usr/sbin/sshd ]] || skip "sshd is not installed (apt-get install -y openssh-server)"
exec "$REPO/tools/soak.sh" --trials 3 --size 512M --braid "$BRAID"
