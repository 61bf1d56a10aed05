#!/usr/bin/env bash
# ScaLAPACK PDPOTRF and PDGETRF over OpenMPI on one machine, 2 and 4 ranks, each rank started by bf16x-run (the shim
# and the reference LAPACK in front of it): PBLAS's local dtrsm_, dsyrk_ and dgemm_ (ScaLAPACK imports them by
# symbol) run in libbf16x_blas.so. In fp64x21 and fp64cr the factorization's scaled residual r (pdfact_check.c) is
# within 10 times native's r from the same ranks: the componentwise guard bounds each fp64x21 product's error by
# 4 k u (|A||B|)_ij, four times native's deterministic bound gamma_k (|A||B|)_ij, so the backward error bounds of
# both factorizations (Higham, Thms 9.3 and 10.3) differ by that factor, and the factor 10 (native's order of
# magnitude) leaves room for measured errors being statistical rather than the bounds; fp64cr's correctly rounded
# updates hold fewer roundings than native's. And every rank's summary shows level-3 routines in the mode, the
# ranks together dtrsm, dgemm and (PDPOTRF) dsyrk.
# Usage: pdfact.sh BF16X_RUN PDFACT_CHECK WORKDIR
set -euo pipefail
run=$1 prog=$2 work=$3
[ -x "$prog" ] || { echo "pdfact.sh: $prog was not built (MPI or ScaLAPACK missing at configure time; run scripts/deps)"; exit 1; }
command -v mpirun > /dev/null || { echo "pdfact.sh: no mpirun (scripts/deps installs openmpi-bin)"; exit 1; }
mkdir -p "$work" && cd "$work"
nm -D "$(ldd "$prog" | awk '/libscalapack/ {print $3}')" | grep -cE ' U d(trsm|syrk|gemm)_$' | grep -qx 3 ||
  { echo "pdfact.sh: ScaLAPACK does not import dtrsm_/dsyrk_/dgemm_ dynamically; LD_PRELOAD cannot interpose them"; exit 1; }

fail=0
# factor RANKS ROUTINE MODE: one factorization; bf16x-run in front of each rank, not of mpirun. Prints r.
factor() {
  local log="pd$2_$1_$3.log"
  # One thread per rank: the ranks are the parallelism (and CI has two cores).
  if ! mpirun --oversubscribe --allow-run-as-root --tag-output -np "$1" -x OMP_NUM_THREADS=1 \
      -x OPENBLAS_NUM_THREADS=1 -x BF16X_NUM_THREADS=1 "$run" --mode "$3" --summary "$prog" 300 32 "$2" > "$log" 2>&1; then
    echo "FAIL: $1 ranks, pd$2, $3" >&2
    cat "$log" >&2
    return 1
  fi
  grep 'pdfact_check:' "$log" | sed 's/^\[[0-9,]*\]<stdout>://' >&2
  grep -oE 'r = [0-9.e+-]+' "$log" | awk '{print $3}'
}
for ranks in 2 4; do
  for routine in potrf getrf; do
    rn=$(factor $ranks $routine native) || { fail=1; continue; }
    for mode in fp64x21 fp64cr; do
      r=$(factor $ranks $routine $mode) || { fail=1; continue; }
      log=pd${routine}_${ranks}_$mode.log
      awk -v r="$r" -v n="$rn" 'BEGIN {exit !(r <= 10 * n)}' ||
        { echo "FAIL: $ranks ranks, pd$routine, $mode: r = $r beyond 10 times native's $rn"; fail=1; }
      # Each rank ran level-3 routines in the mode; all of them together dtrsm, dgemm and, for potrf, dsyrk.
      for ((k = 0; k < ranks; k++)); do
        grep -qE "^\[1,$k\]<stderr>:BF16X_SUMMARY,routine=d(trsm|syrk|gemm),mode=$mode," "$log" ||
          { echo "FAIL: rank $k ran no dtrsm/dsyrk/dgemm in $mode"; fail=1; }
      done
      want="dgemm dtrsm"
      [ $routine = getrf ] || want="dgemm dsyrk dtrsm"
      got=$(grep -E "BF16X_SUMMARY,routine=d(trsm|syrk|gemm),mode=$mode," "$log" |
        sed -E 's/.*routine=([a-z]+),.*/\1/' | sort -u | tr '\n' ' ')
      share=$(grep -E 'BF16X_SUMMARY,total' "$log" | grep -oE 'emulated_gflop_share=[0-9.]+' | cut -d= -f2 | tr '\n' ' ')
      echo "    $mode: r/native r = $(awk -v r="$r" -v n="$rn" 'BEGIN {printf "%.2f", r / n}'); in $mode: $got;" \
        "emulated share per rank: $share"
      [ "$got" = "$want " ] || { echo "FAIL: pd$routine in $mode ran $got, want $want"; fail=1; }
    done
  done
done
exit $fail
