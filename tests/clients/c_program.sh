#!/usr/bin/env bash
# A plain C program (gemm_semantics, linked with -lblas) under LD_PRELOAD=libbf16x_blas.so in several settings:
# host OpenBLAS and netlib's reference BLAS (whose cblas_dgemm calls dgemm_, which then binds to the shim: the
# re-entry must go to the host, not recurse), native and emulated modes, BF16X_MIN_SIZE and BF16X_ENGINE.
# Usage: c_program.sh LIBBF16X_BLAS GEMM_SEMANTICS WORKDIR
set -euo pipefail
shim=$1 prog=$2 work=$3
mkdir -p "$work" && cd "$work"
netlib_dir=$(dirname "$(dpkg -L libblas-test 2> /dev/null | grep -E '/xblat3d$' || echo /usr/lib/x86_64-linux-gnu/blas/x)")
netlib=()
[ -f "$netlib_dir/libblas.so.3" ] && netlib=(LD_LIBRARY_PATH="$netlib_dir" BF16X_HOST_BLAS="$netlib_dir/libblas.so.3")

fail=0
# run NAME ENV...: the program must pass; its verbose lines are kept in NAME.err
run() {
  local name=$1
  shift
  if env "$@" LD_PRELOAD="$shim" BF16X_VERBOSE=1 OMP_NUM_THREADS=2 timeout 120 "$prog" > "$name.out" 2> "$name.err"; then
    echo "ok   $name: $(tail -1 "$name.out")"
  else
    echo "FAIL $name (status $?)"
    grep -v '^BF16X_VERBOSE' "$name.out" "$name.err" | head -40
    fail=1
  fi
}
lines() { grep -cE "$2" "$1.err" || true; }
want_some() { [ "$(lines "$1" "$2")" -gt 0 ] || { echo "FAIL $1: no verbose line like $2"; fail=1; }; }
want_none() { [ "$(lines "$1" "$2")" -eq 0 ] || { echo "FAIL $1: verbose lines like $2"; fail=1; }; }

run native BF16X_DGEMM_MODE=native BF16X_SGEMM_MODE=native
want_some native '^BF16X_VERBOSE,dgemm,.*mode=native,engine=libblas'
want_none native 'mode=fp'
run fp64x6 BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=fp32x6
want_some fp64x6 '^BF16X_VERBOSE,dgemm,.*mode=fp64x6,'
want_some fp64x6 '^BF16X_VERBOSE,sgemm,.*mode=fp32x6,'
want_some fp64x6 'fallback=nonfinite'  # the Inf/NaN case went to the host
run fp64x21 BF16X_DGEMM_MODE=fp64x21 BF16X_SGEMM_MODE=fp32x6 BF16X_ENGINE=reference
want_some fp64x21 '^BF16X_VERBOSE,dgemm,.*mode=fp64x21,engine=reference,'
want_none fp64x21 'engine=(avx512bf16|amx)'
if ((${#netlib[@]})); then
  run netlib_native "${netlib[@]}" BF16X_DGEMM_MODE=native BF16X_SGEMM_MODE=native
  want_some netlib_native '^BF16X_VERBOSE,dgemm,.*mode=native,engine=libblas.so.3,'
  run netlib_fp64x6 "${netlib[@]}" BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=fp32x6
  want_some netlib_fp64x6 "engine=$netlib_dir/libblas.so.3,fallback=nonfinite"
else
  echo "FAIL: netlib's libblas.so.3 not found next to the libblas-test programs"
  fail=1
fi
# BF16X_MIN_SIZE=16: calls with min(m, n, k) < 16 stay native, the others are emulated.
run min_size BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=fp32x6 BF16X_MIN_SIZE=16
# (Calls the argument checks rejected, mode=-, are neither.)
small=$(awk -F, '/^BF16X_VERBOSE,[sd]gemm,/ && $8 != "mode=-" { m = $5; if ($6 < m) m = $6; if ($7 < m) m = $7;
                 if ((m < 16) != ($8 == "mode=native")) bad++ } END { print bad + 0 }' min_size.err)
[ "$small" -eq 0 ] || { echo "FAIL min_size: $small calls on the wrong side of BF16X_MIN_SIZE"; fail=1; }
want_some min_size 'mode=native'
want_some min_size 'mode=fp64x6'
exit $fail
