#!/usr/bin/env bash
# A program linked to OpenBLAS makes bad-argument CBLAS calls: under the shim it must print what OpenBLAS alone
# prints and exit as it does (OpenBLAS exports a cblas_xerbla that exits, but its own cblas_xgemm never calls it),
# and every rejected call gets its BF16X_VERBOSE line, naming the argument as XERBLA's message does.
# Usage: openblas_bad_args.sh SHIM PROGRAM WORKDIR
set -uo pipefail
shim=$1 prog=$2 work=$3
mkdir -p "$work"
"$prog" >"$work/alone.out" 2>&1
alone=$?
LD_PRELOAD="$shim" "$prog" >"$work/shim.out" 2>&1
under=$?
rm -f "$work/verbose.txt"
LD_PRELOAD="$shim" BF16X_VERBOSE=1 BF16X_VERBOSE_OUTPUT_FILE="$work/verbose.txt" "$prog" >/dev/null 2>&1
echo "OpenBLAS alone: rc $alone"; cat "$work/alone.out"
echo "under the shim: rc $under"; cat "$work/shim.out"
fail=0
[ "$alone" = "$under" ] || { echo "FAIL: exit status differs"; fail=1; }
diff "$work/alone.out" "$work/shim.out" || { echo "FAIL: output differs"; fail=1; }
rejected=$(grep -c 'mode=-,engine=-' "$work/verbose.txt" 2>/dev/null || true)
echo "verbose lines of rejected calls: $rejected (want 8)"
[ "$rejected" = 8 ] || fail=1
# Each rejected call's line names the argument as the XERBLA message does (routine and number), not by the C API's
# numbering: "status=lda too small (DGEMM argument 8)" beside "On entry to DGEMM parameter number 8".
xerbla=$(sed -nE 's/.*On entry to ([A-Z]+) +parameter number +([0-9]+).*/\1 \2/p' "$work/shim.out")
named=$(grep 'mode=-,engine=-' "$work/verbose.txt" |
  sed -nE 's/.*,status=[^,]* \(([A-Za-z_]+) argument ([0-9]+)\),.*/\1 \2/p')
echo "argument numbers, XERBLA / verbose lines: $(echo $xerbla) / $(echo $named)"
[ -n "$xerbla" ] && [ "$xerbla" = "$named" ] ||
  { echo "FAIL: the verbose lines number the arguments otherwise"; fail=1; }
exit $fail
