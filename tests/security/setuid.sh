#!/usr/bin/env bash
# A setuid-root program linked to libbf16x, started by an unprivileged user (nobody, through setpriv) with a library
# in BF16X_HOST_BLAS and a file in BF16X_VERBOSE_OUTPUT_FILE: the library must load neither that library nor create
# the file (secure_getenv, docs/security.md). The same program without the setuid bit honours both, and the verbose
# file it creates is private to its owner. Needs root (CI runs as root); exits 77 (skipped) where setuid cannot be
# tried, saying why.
# Usage: setuid.sh LIBBF16X INCLUDE_DIR BUILD_INCLUDE_DIR CC
set -euo pipefail
lib=$(realpath "$1") inc=$2 binc=$3 cc=$4
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "skipped: needs root to make a setuid-root program (CI runs as root)"; exit 77; }
command -v setpriv > /dev/null || { echo "skipped: setpriv (util-linux) missing"; exit 77; }
work=$(mktemp -d /tmp/bf16x-setuid.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -m 1777 "$work/out"
cp "$lib" "$work/libbf16x.so.1"
"$cc" -O2 -I"$inc" -I"$binc" "$here/setuid_probe.c" -L"$work" -l:libbf16x.so.1 -Wl,-rpath,"$work" -o "$work/probe"
"$cc" -O2 -shared -fPIC -DEVIL_MARKER="\"$work/out/evil-loaded\"" "$here/evil.c" -o "$work/evil.so"
cp "$work/probe" "$work/probe-setuid"
chown root:root "$work/probe-setuid" "$work/libbf16x.so.1"
chmod 4755 "$work/probe-setuid"

# run PROGRAM: as nobody, with the environment an attacker would set
run() {
  rm -f "$work/out/"*
  env -i PATH=/usr/bin:/bin BF16X_HOST_BLAS="$work/evil.so" BF16X_VERBOSE=1 \
    BF16X_VERBOSE_OUTPUT_FILE="$work/out/rootfile" BF16X_DGEMM_MODE=fp64x6 \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@" > "$work/stdout" 2> "$work/stderr" || true
}
fail=0
run "$work/probe-setuid"
if ! grep -q "euid=0" "$work/stdout"; then
  echo "skipped: the setuid bit gave no privilege here (nosuid mount or no_new_privs): $(head -1 "$work/stdout")"
  exit 77
fi
echo "setuid: $(tr '\n' ' ' < "$work/stdout")"
if [ -e "$work/out/evil-loaded" ]; then echo "FAIL setuid: BF16X_HOST_BLAS's library was loaded"; fail=1; fi
if [ -e "$work/out/rootfile" ]; then
  echo "FAIL setuid: BF16X_VERBOSE_OUTPUT_FILE was created ($(stat -c '%U %a' "$work/out/rootfile"))"
  fail=1
fi
grep -q "status=0" "$work/stdout" || { echo "FAIL setuid: the call failed"; fail=1; }
grep -q "secure-execution process" "$work/stderr" || { echo "FAIL setuid: no note that BF16X_* is ignored"; fail=1; }
grep -q "mode=native" "$work/stderr" || { echo "FAIL setuid: no verbose line on stderr"; fail=1; }
sed 's/^/  stderr: /' "$work/stderr" | head -4

run "$work/probe"
echo "plain:  $(tr '\n' ' ' < "$work/stdout")"
[ -e "$work/out/evil-loaded" ] || { echo "FAIL plain: BF16X_HOST_BLAS was not honoured"; fail=1; }
if [ -e "$work/out/rootfile" ]; then
  perm=$(stat -c '%U %a' "$work/out/rootfile")
  echo "plain:  the verbose file: owner, mode: $perm"
  [ "$perm" = "nobody 600" ] || { echo "FAIL plain: the verbose file is not private to its owner"; fail=1; }
else
  echo "FAIL plain: BF16X_VERBOSE_OUTPUT_FILE was not honoured"
  fail=1
fi
# The verbose file is never followed through a symbolic link.
rm -f "$work/out/"*
ln -s "$work/out/target" "$work/out/rootfile"
env -i BF16X_VERBOSE_OUTPUT_FILE="$work/out/rootfile" setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$work/probe" > /dev/null 2> "$work/stderr" || true
if [ -e "$work/out/target" ]; then echo "FAIL plain: the verbose file was opened through a symbolic link"; fail=1; fi
grep -q "cannot be opened" "$work/stderr" || { echo "FAIL plain: no line about the refused verbose file"; fail=1; }
[ "$fail" = 0 ] && echo "ok: the environment gives no privilege"
exit $fail
