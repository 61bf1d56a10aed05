#!/usr/bin/env bash
# The stock 16.0 test ratio in a summary kept by netlib_blas_tests.sh: every routine's computational line must read
# PASSED; a ratio above 16 reads "COMPLETED ... BUT WITH MAXIMUM TEST RATIO r - SUSPECT".
# Usage: netlib_threshold.sh WORKDIR
set -euo pipefail
summary=$1/summary.txt
[ -f "$summary" ] || { echo "netlib_threshold.sh: no $summary (its netlib_blas_tests.sh run failed)"; exit 1; }
grep -A1 -E "^ *[A-Za-z_0-9]+ +(PASSED|COMPLETED) THE .*COMPUTATIONAL" "$summary" | grep -v '^--'
fail=0
for r in $(grep -oE "^ *[A-Za-z_0-9]+ +COMPLETED THE .*COMPUTATIONAL" "$summary" | awk '{print $1}'); do
  echo "FAIL: $r exceeded the 16.0 test ratio"
  fail=1
done
grep -qE "^ *[A-Za-z_0-9]+ +PASSED THE .*COMPUTATIONAL" "$summary" || { echo "FAIL: no computational summary"; exit 1; }
exit $fail
