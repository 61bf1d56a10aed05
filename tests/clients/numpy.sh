#!/usr/bin/env bash
# numpy's matmul through libbf16x_blas.so: numpy calls cblas_dgemm/cblas_sgemm/cblas_zgemm of the libblas.so.3 its core
# module links (Debian: OpenBLAS through the alternatives system), and LD_PRELOAD puts the shim in front of it.
# Usage: numpy.sh LIBBF16X_BLAS WORKDIR
set -euo pipefail
shim=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
mkdir -p "$work" && cd "$work"
"$py" -c 'import numpy' || { echo "numpy.sh: $py has no numpy (scripts/deps installs python3-numpy)"; exit 1; }

# Which BLAS numpy's matmul calls, and whether LD_PRELOAD can interpose it (an undefined dynamic symbol can be).
core=$("$py" -c 'import numpy.core._multiarray_umath as m; print(m.__file__)')
blas=$(ldd "$core" | awk '/libblas|libcblas|openblas|blis|mkl/ {print $3; exit}')
echo "numpy core module: $core"
echo "its BLAS: $blas -> $(readlink -f "$blas")"
nm -D "$core" | grep -E ' U cblas_(d|s|z)gemm$' ||
  { echo "numpy.sh: numpy does not import cblas_?gemm dynamically; LD_PRELOAD cannot interpose it"; exit 1; }

# Deterministic host runs: OpenBLAS's split of the work depends on its thread count.
export OPENBLAS_NUM_THREADS=1
run() {  # run NAME ENV...: compute under the given environment, stderr kept
  local name=$1
  shift
  env "$@" "$py" "$here/numpy_matmul.py" compute "$name.npz" 2> "$name.err" || { cat "$name.err"; exit 1; }
}
run base
run native LD_PRELOAD="$shim" BF16X_VERBOSE=1 BF16X_DGEMM_MODE=native BF16X_SGEMM_MODE=native
run emulated LD_PRELOAD="$shim" BF16X_VERBOSE=1 BF16X_DGEMM_MODE=fp64x6 BF16X_SGEMM_MODE=fp32x6
run x21 LD_PRELOAD="$shim" BF16X_VERBOSE=1 BF16X_DGEMM_MODE=fp64x21 BF16X_SGEMM_MODE=native

fail=0
expect() {  # expect FILE COUNT PATTERN: exactly COUNT verbose lines match
  local n
  n=$(grep -cE "$3" "$1" || true)
  if [ "$n" -eq "$2" ]; then echo "ok   $1: $n lines like $3"; else echo "FAIL $1: $n lines like $3, want $2"; fail=1; fi
}
expect base.err 0 '^BF16X_VERBOSE'
expect native.err 2 '^BF16X_VERBOSE,dgemm,.*,256,256,256,mode=native,engine=libblas'
expect native.err 1 '^BF16X_VERBOSE,sgemm,.*,256,256,256,mode=native,engine=libblas'
# numpy calls CBLAS row-major (a.T @ b as T,N); the line shows the call as numpy made it.
expect emulated.err 1 '^BF16X_VERBOSE,dgemm,N,N,256,256,256,mode=fp64x6,.*,layout=row,'
expect emulated.err 1 '^BF16X_VERBOSE,dgemm,T,N,256,256,256,mode=fp64x6,.*,layout=row,'
expect emulated.err 1 '^BF16X_VERBOSE,sgemm,N,N,256,256,256,mode=fp32x6,.*,layout=row,'
expect x21.err 2 '^BF16X_VERBOSE,dgemm,.*,256,256,256,mode=fp64x21,'
# complex128: ZGEMM on DGEMM's mode (Z^H W: numpy passes the conjugated copy of Z transposed)
expect native.err 2 '^BF16X_VERBOSE,zgemm,.*,256,256,256,mode=native,engine=libblas'
expect emulated.err 2 '^BF16X_VERBOSE,zgemm,.,.,256,256,256,mode=fp64x6,.*complex=4m'
expect x21.err 2 '^BF16X_VERBOSE,zgemm,.*,256,256,256,mode=fp64x21,'
echo "a verbose line from numpy: $(grep -m1 'mode=fp64x6' emulated.err)"
"$py" "$here/numpy_matmul.py" verify base.npz native.npz emulated.npz x21.npz || fail=1
exit $fail
