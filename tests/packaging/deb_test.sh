#!/bin/bash
# The .deb as a user gets it, from this build: cpack makes it, lintian (when
# installed) finds no error in it, it holds braid, the man page, the bash
# completion and Debian's copyright file and changelog, and the braid it
# unpacks into a scratch root runs: --version, a local copy, and the
# completion offers the installed braid's options.
#
#   deb_test.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: deb_test.sh BUILD_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in cpack dpkg-deb; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (tools/quickstart.sh installs it)"
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/braid-deb-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$scratch/pkg" >"$scratch/cpack.log" 2>&1 ||
    { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB"; }
debs=("$scratch"/pkg/braid_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "cpack made no single braid_*.deb: ${debs[*]}"
deb=${debs[0]}
echo "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

dpkg-deb -f "$deb" Depends | grep -q 'libssh2' || fail "Depends does not name libssh2"
if command -v lintian >/dev/null; then
    # Errors fail the test; warnings are shown.
    lintian --fail-on error --tag-display-limit 0 "$deb" || fail "lintian found errors"
else
    echo "lintian is not installed: the package is not checked by it"
fi

root=$scratch/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/braid usr/share/man/man1/braid.1.gz usr/share/bash-completion/completions/braid \
    usr/share/doc/braid/copyright usr/share/doc/braid/changelog.Debian.gz; do
    [[ -f $root/$f ]] || fail "the package has no /$f"
done
braid=$root/usr/bin/braid

"$braid" --version | head -n 1 | grep -q '^braid [0-9]' || fail "the installed braid's --version"
head -c 3000000 /dev/urandom >"$scratch/src.bin"
"$braid" "$scratch/src.bin" "$scratch/dst.bin" || fail "a local copy with the installed braid"
cmp "$scratch/src.bin" "$scratch/dst.bin" || fail "the copy differs"

# The completion reads the options from the braid it completes for.
reply=$(PATH="$root/usr/bin:$PATH" bash -c '
    source "$1"
    COMP_LINE="braid --json-s"; COMP_POINT=${#COMP_LINE}
    COMP_WORDS=(braid --json-s); COMP_CWORD=1
    _braid
    printf "%s\n" "${COMPREPLY[@]}"' _ "$root/usr/share/bash-completion/completions/braid")
[[ $reply == --json-stream ]] || fail "completing --json-s gave '$reply'"
echo "ok"
