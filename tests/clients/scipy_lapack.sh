#!/usr/bin/env bash
# numpy's X.T @ X (cblas_dsyrk) and scipy.linalg's cholesky, lu_factor, eigh and solve_triangular through bf16x-run:
# the shim and the reference LAPACK in front of the host's, so that scipy's dpotrf/dgetrf/dsyevd/dtrtrs reach the
# shim through their level-3 calls. Natively, in fp64x21 and in fp64cr: the results within the GEMM-level tolerance
# of native's (scipy_lapack.py derives it), numpy's dsyrk ran in the mode, and the summary shows the level-3
# routines in the mode: in fp64cr every one (dgemm, dsyrk, dsyr2k, dtrmm, dtrsm); in fp64x21 dgemm, dsyrk and dtrsm
# (the componentwise guard sends dsytrd's dsyr2k and dormtr's dtrmm to the host: their Householder updates cancel,
# too many entries stay unproved; docs/numerics.md, "Componentwise guard").
# Usage: scipy_lapack.sh BF16X_RUN WORKDIR
set -euo pipefail
run=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
n=300
"$py" -c 'import numpy, scipy.linalg' ||
  { echo "scipy_lapack.sh: $py has no numpy/scipy (scripts/deps installs python3-numpy python3-scipy)"; exit 1; }
mkdir -p "$work" && cd "$work"
export OPENBLAS_NUM_THREADS=1

fail=0
for mode in native fp64x21 fp64cr; do
  rm -f $mode.log $mode.log.gz  # the verbose file is appended to
  env BF16X_VERBOSE=all BF16X_VERBOSE_OUTPUT_FILE="$PWD/$mode.log" \
    "$run" --mode $mode "$py" "$here/scipy_lapack.py" compute $n $mode.npz > $mode.out 2>&1 ||
    { echo "FAIL: the $mode run failed"; cat $mode.out; exit 1; }
  [ $mode = native ] && rm -f $mode.log && continue
  in_mode=$(grep -E "^BF16X_SUMMARY,routine=d[a-z0-9]+,mode=$mode," $mode.log |
    sed -E 's/.*routine=([a-z0-9]+),.*calls=([0-9]+),gflop=([0-9.e+-]+),.*/\1 (\2 calls, \3 gflop)/' | paste -sd, - || true)
  host=$(grep -E "^BF16X_SUMMARY,routine=d[a-z0-9]+,mode=native," $mode.log |
    sed -E 's/.*routine=([a-z0-9]+),.*calls=([0-9]+),gflop=([0-9.e+-]+),.*/\1 (\2 calls, \3 gflop)/' | paste -sd, - || true)
  echo "$mode: in $mode: $in_mode; on the host: ${host:-none}"
  grep '^BF16X_SUMMARY,total' $mode.log
  want="dgemm dsyrk dtrsm"
  [ $mode = fp64cr ] && want="dgemm dsyr2k dsyrk dtrmm dtrsm"
  for r in $want; do
    grep -qE "^BF16X_SUMMARY,routine=$r,mode=$mode," $mode.log || { echo "FAIL: no $r call ran in $mode"; fail=1; }
  done
  # numpy's X.T @ X: one row-major CBLAS dsyrk of order n over k = n + 40 rows
  grep -qE "^BF16X_VERBOSE,dsyrk,.,T,$n,$n,$((n + 40)),mode=$mode,.*layout=row" $mode.log ||
    { echo "FAIL: numpy's X.T @ X made no dsyrk call in $mode"; fail=1; }
  gzip -f $mode.log
done
"$py" "$here/scipy_lapack.py" verify native.npz fp64x21.npz fp64cr.npz || fail=1
exit $fail
