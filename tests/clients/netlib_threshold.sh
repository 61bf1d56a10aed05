#!/usr/bin/env bash
# The stock 16.0 test ratio for GEMM in a summary kept by netlib_blas_tests.sh: every GEMM computational line must
# read PASSED; a ratio above 16 reads "COMPLETED ... BUT WITH MAXIMUM TEST RATIO r - SUSPECT".
# Usage: netlib_threshold.sh GEMM_NAME WORKDIR
set -euo pipefail
gemm=$1 summary=$2/summary.txt
[ -f "$summary" ] || { echo "netlib_threshold.sh: no $summary (its netlib_blas_tests.sh run failed)"; exit 1; }
grep -A1 -E "^ *$gemm +(PASSED|COMPLETED) THE .*COMPUTATIONAL" "$summary" | grep -v '^--'
if grep -qE "^ *$gemm +COMPLETED THE .*COMPUTATIONAL" "$summary"; then
  echo "FAIL: $gemm exceeded the 16.0 test ratio"
  exit 1
fi
grep -qE "^ *$gemm +PASSED THE .*COMPUTATIONAL" "$summary" || { echo "FAIL: no $gemm computational summary"; exit 1; }
