#!/usr/bin/env bash
# LAPACK's own testers (Debian's liblapack-test) through bf16x with bf16x-run: the reference LAPACK in front of the
# host's, so that every blocked routine's level-3 BLAS calls (dgemm, dtrsm, dsyrk, dtrmm, dsymm, dsyr2k...) reach
# the shim. Passes when the tester, with its stock input file, fails no more tests in MODE than natively through the
# same launcher (the same reference LAPACK, the host's BLAS), and the summary shows level-3 routines other than GEMM
# run in MODE (NEED = emulated, the default), or reaching bf16x at all (NEED = reached: an input whose level-3 calls
# are all under the guard's host size, 512 multiply-adds, which the guard gives to the host).
# Usage: lapack_testers.sh BF16X_RUN PROGRAM INPUT MODE WORKDIR [NEED]
set -euo pipefail
run=$1 prog=$2 input=$3 mode=$4 work=$5 need=${6:-emulated}
command -v dpkg > /dev/null || { echo "lapack_testers.sh: needs Debian's liblapack-test (dpkg)"; exit 1; }
exe=$(dpkg -L liblapack-test 2> /dev/null | grep -E "/$prog\$" || true)
[ -n "$exe" ] || { echo "lapack_testers.sh: $prog not found (scripts/deps installs liblapack-test)"; exit 1; }
in=$(dirname "$exe")/$input
mkdir -p "$work" && cd "$work"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=2

# The tests a tester output failed: the counts of "N out of M tests failed" lines, plus one per other failure line.
failed() {
  local n
  n=$(grep -Eo '[0-9]+ out of +[0-9]+ tests failed' "$1" | awk '{s += $1} END {print s + 0}' || true)
  echo $((n + $(grep -Ec 'FAILED|failed to pass the tests of the error exits|\*\*\* .*(error|fail)' "$1" || true)))
}
# Tests run: the "( N tests run)" lines and the M of "N out of M".
ran() {
  {
    grep -Eo '\( *[0-9]+ tests run\)' "$1" | grep -Eo '[0-9]+' || true
    grep -Eo 'out of +[0-9]+' "$1" | grep -Eo '[0-9]+' || true
  } |
    awk '{s += $1} END {print s + 0}'
}
"$run" --mode native "$exe" < "$in" > native.out 2> native.err || true
start=$(date +%s.%N)
"$run" --mode "$mode" --summary "$exe" < "$in" > "$mode.out" 2> "$mode.err" || true
secs=$(echo "$(date +%s.%N) - $start" | bc)
grep -q "End of tests" native.out || { echo "native run did not finish"; tail native.out native.err; exit 1; }
grep -q "End of tests" "$mode.out" || { echo "$mode run did not finish"; tail "$mode.out" "$mode.err"; exit 1; }
fn=$(failed native.out) fm=$(failed "$mode.out") tn=$(ran native.out) tm=$(ran "$mode.out")
level3() {
  grep -E '^BF16X_SUMMARY,routine=[sdcz](trsm|trmm|syrk|herk|syr2k|her2k|symm|hemm)' "$mode.err" | grep -v "$1" |
    sed -E 's/.*routine=([a-z0-9]+).*/\1/' | sort -u | tr '\n' ' ' || true
}
emulated=$(level3 'mode=native') reached=$(level3 '^$')
echo "$prog < $input, $mode: $tm tests, $fm failed (native: $tn tests, $fn failed); $(printf %.1f "$secs") s; level 3 in $mode: $emulated; reached bf16x: $reached"
grep '^BF16X_SUMMARY,total' "$mode.err" || true
[ "$tm" -eq "$tn" ] || { echo "FAIL: a different number of tests ran"; exit 1; }
[ "$fm" -le "$fn" ] || { echo "FAIL: more tests failed than natively"; grep -E 'out of|FAILED|\*\*\*' "$mode.out" | head -20; exit 1; }
[ -n "$reached" ] || { echo "FAIL: no level-3 routine beside GEMM reached bf16x"; exit 1; }
[ "$mode" = native ] || [ "$need" = reached ] || [ -n "$emulated" ] ||
  { echo "FAIL: no level-3 routine beside GEMM ran in $mode"; exit 1; }
