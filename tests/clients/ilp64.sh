#!/usr/bin/env bash
# ILP64 clients: ilp64_gemm.f90 compiled with gfortran -fdefault-integer-8 (every INTEGER 64-bit).
#   1. linked with Debian's 64-bit BLAS (-lblas64: libblas64.so.3, OpenBLAS or netlib through the alternatives
#      system, whose ILP64 routines keep the plain names dgemm_/sgemm_/zgemm_/cgemm_), run without and with
#      libbf16x_blas64.so preloaded, in the native, fp64x6 and fp64x21 DGEMM modes (SGEMM fp32x6; ZGEMM and CGEMM
#      on the modes of DGEMM and SGEMM);
#   2. built with -cpp -Ddgemm=dgemm_64 ... so that it calls the suffixed ILP64 names dgemm_64_/sgemm_64_/
#      zgemm_64_/cgemm_64_ (and defines xerbla_64_), linked with libbf16x_blas.so itself, in the emulated modes
#      (Debian has no suffixed host BLAS for native calls to go to).
# Each run checks its results against the program's REAL(16) reference with the modes' bounds, and the
# BF16X_VERBOSE lines (docs/verbose.md) show which mode ran each call.
# Usage: ilp64.sh LIBBF16X_BLAS64 LIBBF16X_BLAS WORKDIR
set -euo pipefail
shim64=$(realpath "$1") shim=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
command -v gfortran > /dev/null || { echo "ilp64.sh: gfortran missing (scripts/deps installs it)"; exit 1; }
[ -e /usr/lib/x86_64-linux-gnu/libblas64.so ] || [ -n "$(find /usr/lib* -name 'libblas64.so' -print -quit)" ] ||
  { echo "ilp64.sh: libblas64.so missing (scripts/deps installs libblas64-dev)"; exit 1; }
gfortran -O2 -fdefault-integer-8 -rdynamic -o ilp64_gemm "$here/ilp64_gemm.f90" -lblas64
blas64=$(ldd ilp64_gemm | awk '/libblas64/ {print $3; exit}')
echo "ilp64_gemm links $blas64 -> $(readlink -f "$blas64")"
nm -D ilp64_gemm | grep -E ' U (d|s|z|c)gemm_$'

fail=0
expect() {  # expect FILE COUNT PATTERN: exactly COUNT verbose lines match
  local n
  n=$(grep -cE "$3" "$1" || true)
  if [ "$n" -eq "$2" ]; then echo "ok   $1: $n lines like $3"; else echo "FAIL $1: $n lines like $3, want $2"; fail=1; fi
}
run() {  # run NAME PROGRAM MODE ENV...: the program's own checks, stderr kept for the verbose lines
  local name=$1 prog=$2 mode=$3
  shift 3
  echo "== $name"
  env OPENBLAS_NUM_THREADS=1 BF16X_DGEMM_MODE="$mode" BF16X_SGEMM_MODE=fp32x6 "$@" "./$prog" "$mode" 2> "$name.err" ||
    { echo "FAIL $name: exit status $?"; cat "$name.err"; fail=1; }
}

run host ilp64_gemm native
expect host.err 0 '^BF16X_VERBOSE'
for mode in native fp64x6 fp64x21; do
  run "blas64.$mode" ilp64_gemm "$mode" LD_PRELOAD="$shim64" BF16X_VERBOSE=1
done
# Four DGEMM calls that compute (the 96x80x64 product, K = 1 with LDA = 2^32 + 1, N = 1 with LDC = 2^32 + 96)
# and one SGEMM; native ones are forwarded to the host libblas64; the three argument errors each make a rejected
# call's line (mode=-, docs/verbose.md).
expect blas64.native.err 1 '^BF16X_VERBOSE,dgemm,N,T,96,80,64,mode=native,engine=libblas64\.so'
expect blas64.native.err 1 '^BF16X_VERBOSE,dgemm,N,N,96,80,1,mode=native,.*lda=4294967297,'
expect blas64.native.err 1 '^BF16X_VERBOSE,dgemm,N,N,96,1,64,mode=native,.*ldc=4294967392,'
for mode in fp64x6 fp64x21; do
  expect "blas64.$mode.err" 1 "^BF16X_VERBOSE,dgemm,N,T,96,80,64,mode=$mode,engine=[a-z0-9-]+,.*status=ok"
  expect "blas64.$mode.err" 1 "^BF16X_VERBOSE,dgemm,N,N,96,80,1,mode=$mode,.*lda=4294967297,"
  expect "blas64.$mode.err" 1 "^BF16X_VERBOSE,dgemm,N,N,96,1,64,mode=$mode,.*ldc=4294967392,"
done
for mode in native fp64x6 fp64x21; do
  expect "blas64.$mode.err" 1 '^BF16X_VERBOSE,sgemm,N,N,96,80,64,mode=fp32x6,'
  expect "blas64.$mode.err" 4 '^BF16X_VERBOSE,(s|d)gemm,.*status=ok'
  expect "blas64.$mode.err" 3 '^BF16X_VERBOSE,(s|d)gemm,.*mode=-,engine=-,'
done
# One ZGEMM that computes (N,C) and one rejected (LDB, INFO 10), one CGEMM in fp32x6.
expect blas64.native.err 1 '^BF16X_VERBOSE,zgemm,N,C,96,80,64,mode=native,engine=libblas64\.so'
for mode in fp64x6 fp64x21; do
  expect "blas64.$mode.err" 1 "^BF16X_VERBOSE,zgemm,N,C,96,80,64,mode=$mode,engine=[a-z0-9-]+,.*status=ok"
done
for mode in native fp64x6 fp64x21; do
  expect "blas64.$mode.err" 1 '^BF16X_VERBOSE,cgemm,N,N,96,80,64,mode=fp32x6,.*status=ok'
  expect "blas64.$mode.err" 1 '^BF16X_VERBOSE,zgemm,N,N,96,80,64,mode=-,engine=-,.*ldb=63,'
done
echo "a verbose line from the ILP64 Fortran program: $(grep -m1 'dgemm,N,T.*mode=fp64x21' blas64.fp64x21.err)"

# The suffixed names, served by libbf16x_blas.so linked directly.
gfortran -O2 -cpp -Ddgemm=dgemm_64 -Dsgemm=sgemm_64 -Dzgemm=zgemm_64 -Dcgemm=cgemm_64 -Dxerbla=xerbla_64 \
  -fdefault-integer-8 -rdynamic \
  -o ilp64_suffixed "$here/ilp64_gemm.f90" "$shim" -Wl,-rpath,"$(dirname "$shim")"
nm -D ilp64_suffixed | grep -E ' U (d|s|z|c)gemm_64_$'
for mode in fp64x6 fp64x21; do
  run "suffixed.$mode" ilp64_suffixed "$mode" BF16X_VERBOSE=1
  expect "suffixed.$mode.err" 1 "^BF16X_VERBOSE,dgemm,N,T,96,80,64,mode=$mode,"
  expect "suffixed.$mode.err" 1 "^BF16X_VERBOSE,dgemm,N,N,96,80,1,mode=$mode,.*lda=4294967297,"
  expect "suffixed.$mode.err" 1 '^BF16X_VERBOSE,sgemm,N,N,96,80,64,mode=fp32x6,'
  expect "suffixed.$mode.err" 1 "^BF16X_VERBOSE,zgemm,N,C,96,80,64,mode=$mode,"
  expect "suffixed.$mode.err" 1 '^BF16X_VERBOSE,cgemm,N,N,96,80,64,mode=fp32x6,'
done
exit $fail
