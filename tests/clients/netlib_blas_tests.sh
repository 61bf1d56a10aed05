#!/usr/bin/env bash
# The netlib Level-3 BLAS test programs of Debian's libblas-test against libbf16x_blas.so, with their stock input
# files (threshold 16.0, error exits on): xblat3s/xblat3d call the Fortran SGEMM/DGEMM, xscblat3/xdcblat3 the
# CBLAS ones in both layouts; xblat3c/xblat3z and xccblat3/xzcblat3 the same for CGEMM/ZGEMM. Only GEMM runs in
# bf16x (SGEMM/CGEMM fp32x6, DGEMM/ZGEMM fp64x21, or the MODE given); the other Level-3 routines are the host's. This test requires, from the program's summary:
#   - GEMM passed the tests of error exits (the program's own XERBLA / cblas_xerbla saw the reference numbers);
#   - no FATAL ERROR / FAILED / NOT DETECTED / unexpected XERBLA line anywhere: every argument preserved, C outside
#     its m x n part untouched, and every result within the program's sqrt(eps) gross-error limit;
#   - every other routine passed all its tests;
#   - the emulation ran (BF16X_VERBOSE lines of the mode).
# Whether GEMM also meets the 16.0 test ratio is the separate test netlib_threshold.sh, on the summary kept in
# WORKDIR.
# With MODE=auto (DGEMM programs), auto runs with BF16X_AUTO_COST=off so that every call is decided by the error
# model alone, as it would be on a CPU where emulation is faster: it must then meet the stock 16.0 ratio.
# Usage: netlib_blas_tests.sh LIBBF16X_BLAS PROGRAM WORKDIR [MODE]
set -euo pipefail
shim=$1 prog=$2 work=$3 want=${4:-}
command -v dpkg > /dev/null || { echo "netlib_blas_tests.sh: needs Debian's libblas-test (dpkg)"; exit 1; }
exe=$(dpkg -L libblas-test 2> /dev/null | grep -E "/$prog\$" || true)
[ -n "$exe" ] || { echo "netlib_blas_tests.sh: $prog not found (scripts/deps installs libblas-test)"; exit 1; }
dir=$(dirname "$exe")
case $prog in
  xblat3s) input=sblat3.in p=s gemm=SGEMM sym=sgemm_ ;;
  xblat3d) input=dblat3.in p=d gemm=DGEMM sym=dgemm_ ;;
  xscblat3) input=sin3 p=s gemm=cblas_sgemm sym=cblas_sgemm ;;
  xdcblat3) input=din3 p=d gemm=cblas_dgemm sym=cblas_dgemm ;;
  xblat3c) input=cblat3.in p=c gemm=CGEMM sym=cgemm_ ;;
  xblat3z) input=zblat3.in p=z gemm=ZGEMM sym=zgemm_ ;;
  xccblat3) input=cin3 p=c gemm=cblas_cgemm sym=cblas_cgemm ;;
  xzcblat3) input=zin3 p=z gemm=cblas_zgemm sym=cblas_zgemm ;;
  *) echo "netlib_blas_tests.sh: unknown program $prog"; exit 1 ;;
esac
# CGEMM/ZGEMM take the mode of SGEMM/DGEMM (docs/blas.md).
case $p in
  s | c) mode=${want:-fp32x6} modes=(BF16X_SGEMM_MODE=$mode) ;;
  *) mode=${want:-fp64x21} modes=(BF16X_DGEMM_MODE=$mode) ;;
esac
[ "$mode" = auto ] && modes+=(BF16X_AUTO_COST=off)
# An explicit mode runs raw: the test's sizes (k <= 9) are below what the componentwise guard can prove for a
# fixed-point scheme, so guarded they would all run on the host GEMM. Auto runs guarded (its default).
[ "$mode" != auto ] && modes+=(BF16X_GUARD=off)
# The CBLAS test programs need netlib's CBLAS (they reference its RowMajorStrg); Debian ships that libblas.so.3
# next to them. The Fortran ones use whatever libblas.so.3 the system selects.
libpath=()
[[ $prog == x?cblat3 ]] && libpath=(LD_LIBRARY_PATH="$dir")

# The GEMM must be an undefined dynamic symbol of the program (not linked in statically), or LD_PRELOAD cannot
# take it over.
nm -D "$exe" | grep -E " U $sym\$" > /dev/null ||
  { echo "netlib_blas_tests.sh: $exe does not import $sym dynamically"; exit 1; }
echo "$exe: $(nm -D "$exe" | grep -E " U $sym\$" | xargs), linked against $(ldd "$exe" | awk '/libblas/ {print $3}')"

rm -rf "$work" && mkdir -p "$work" && cd "$work"
# One thread: the calls are tiny (n <= 9) and many.
status=0
env "${libpath[@]}" LD_PRELOAD="$shim" "${modes[@]}" BF16X_VERBOSE=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  "$exe" < "$dir/$input" > stdout.txt 2> verbose.txt || status=$?
# Fortran programs write the summary to the file their input names; the CBLAS ones to stdout.
summary=stdout.txt
[ -f ${p}blat3.out ] && summary=${p}blat3.out
cp "$summary" summary.txt
grep -E 'PASSED|COMPLETED|SUSPECT|FAIL|FATAL|ERROR|NOT DETECTED|XERBLA' summary.txt | sed 's/^/  | /'

fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ $status -eq 0 ] || bad "$prog exited with status $status"
grep -q 'END OF TESTS' summary.txt || bad "no END OF TESTS"
grep -qE "^ *$gemm +PASSED THE TESTS OF ERROR-EXITS" summary.txt || bad "$gemm error exits did not pass"
grep -E 'FATAL|FAILED|NOT DETECTED|XERBLA WAS CALLED' summary.txt && bad "errors reported"
for r in $(grep -oE '^ *[A-Za-z_0-9]+ +(PASSED|COMPLETED)' summary.txt | awk '{print $1}' | sort -u); do
  [ "$r" = "$gemm" ] && continue
  grep -qE "^ *$r +PASSED THE TESTS OF ERROR-EXITS" summary.txt || bad "$r error exits did not pass"
  grep -E "^ *$r +COMPLETED" summary.txt && bad "$r (a host routine) did not pass"
done
if [ "$mode" = auto ]; then
  # Every call with k > 0 and alpha != 0 is measured and decided by the error model.
  n=$(grep -c "auto_target=" verbose.txt || true)
  echo "BF16X_VERBOSE lines decided by auto's error model: $n (emulated: $(grep -c 'mode=fp[0-9]*[xc]' verbose.txt || true))"
  [ "$n" -ge 1000 ] || bad "auto's error model did not decide the $gemm calls"
else
  n=$(grep -c "mode=$mode," verbose.txt || true)
  echo "BF16X_VERBOSE lines with mode=$mode: $n"
  [ "$n" -ge 1000 ] || bad "the emulation did not run for $gemm"
fi
grep -vE '^BF16X_VERBOSE,' verbose.txt | head -5 | grep . && bad "unexpected output on stderr"
exit $fail
