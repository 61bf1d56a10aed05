#!/usr/bin/env bash
# ScaLAPACK PDGEMM over OpenMPI on one machine, 2 and 4 ranks: PDGEMM distributes the product block-cyclically
# and each rank's local DGEMMs (dgemm_, called by PBLAS through the PLT) run in libbf16x_blas.so.
# Usage: pdgemm.sh LIBBF16X_BLAS PDGEMM_CHECK WORKDIR
set -euo pipefail
shim=$1 prog=$2 work=$3
[ -x "$prog" ] || { echo "pdgemm.sh: $prog was not built (MPI or ScaLAPACK missing at configure time; run scripts/deps)"; exit 1; }
command -v mpirun > /dev/null || { echo "pdgemm.sh: no mpirun (scripts/deps installs openmpi-bin)"; exit 1; }
mkdir -p "$work" && cd "$work"
nm -D "$(ldd "$prog" | awk '/libscalapack/ {print $3}')" | grep -E ' U dgemm_$' > /dev/null ||
  { echo "pdgemm.sh: ScaLAPACK does not import dgemm_ dynamically; LD_PRELOAD cannot interpose it"; exit 1; }

fail=0
# run RANKS MODE TRANSA TRANSB: one PDGEMM; the shim only where the ranks start (-x), not in mpirun itself.
run() {
  local log="pdgemm_$1_$2_$3$4.log"
  # One thread per rank: the ranks are the parallelism (and CI has two cores).
  if ! mpirun --oversubscribe --allow-run-as-root --tag-output -np "$1" \
      -x LD_PRELOAD="$shim" -x BF16X_DGEMM_MODE="$2" -x BF16X_VERBOSE=1 -x OMP_NUM_THREADS=1 \
      -x OPENBLAS_NUM_THREADS=1 "$prog" 300 260 280 32 "$3" "$4" > "$log" 2>&1; then
    echo "FAIL: $1 ranks, $2, $3$4"
    cat "$log"
    fail=1
    return
  fi
  grep 'pdgemm_check:' "$log" | sed 's/^\[[0-9,]*\]<stdout>://'
  # Every rank ran its local products in the requested mode.
  local r
  for ((r = 0; r < $1; r++)); do
    grep -qE "^\[1,$r\]<stderr>:BF16X_VERBOSE,dgemm,.*mode=$2," "$log" ||
      { echo "FAIL: rank $r printed no BF16X_VERBOSE line with mode=$2"; fail=1; }
  done
}
for ranks in 2 4; do
  run $ranks fp64x6 N N
  run $ranks fp64x6 T N
  run $ranks fp64x21 N T
  run $ranks native N N
done
echo "a verbose line from a rank: $(grep -m1 -h 'mode=fp64x6' pdgemm_4_fp64x6_NN.log)"
exit $fail
