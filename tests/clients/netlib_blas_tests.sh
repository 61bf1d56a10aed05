#!/usr/bin/env bash
# The netlib Level-3 BLAS test programs of Debian's libblas-test against libbf16x_blas.so, with their stock input
# files (threshold 16.0, error exits on): xblat3s/xblat3d call the Fortran SGEMM, SSYMM, STRMM, STRSM, SSYRK, SSYR2K
# (D likewise), xscblat3/xdcblat3 the CBLAS ones in both layouts; xblat3c/xblat3z and xccblat3/xzcblat3 the same
# for the complex GEMM, HEMM, SYMM, TRMM, TRSM, HERK, SYRK, HER2K, SYR2K. Every one of them runs in bf16x (S/C
# fp32x6, D/Z fp64x21, or the MODE given: S and C take BF16X_SGEMM_MODE, D and Z BF16X_DGEMM_MODE). This test
# requires, from the program's summary:
#   - every routine passed the tests of error exits (the program's own XERBLA / cblas_xerbla saw the reference
#     routine name and INFO, in both layouts for CBLAS);
#   - no FATAL ERROR / FAILED / NOT DETECTED / unexpected XERBLA line anywhere: every argument preserved, C outside
#     its m x n part (or stored triangle) untouched, and every result within the program's sqrt(eps) gross-error
#     limit;
#   - every routine ran its computational tests (END OF TESTS);
#   - bf16x ran each routine: BF16X_VERBOSE lines of the mode for each (TRSM's calls at these sizes have no GEMM
#     update, only the substitution on one diagonal block, which the library runs and reports in the call's mode),
#     and no call went back to the host BLAS (no fallback / min_size line).
# Whether every routine also meets the 16.0 test ratio is the separate test netlib_threshold.sh, on the summary kept
# in WORKDIR.
# With MODE=auto (DGEMM/ZGEMM programs), auto runs with BF16X_AUTO_COST=off so that every call is decided by the
# error model alone, as it would be on a CPU where emulation is faster: it must then meet the stock 16.0 ratio.
# Usage: netlib_blas_tests.sh LIBBF16X_BLAS PROGRAM WORKDIR [MODE]
set -euo pipefail
shim=$1 prog=$2 work=$3 want=${4:-}
command -v dpkg > /dev/null || { echo "netlib_blas_tests.sh: needs Debian's libblas-test (dpkg)"; exit 1; }
exe=$(dpkg -L libblas-test 2> /dev/null | grep -E "/$prog\$" || true)
[ -n "$exe" ] || { echo "netlib_blas_tests.sh: $prog not found (scripts/deps installs libblas-test)"; exit 1; }
dir=$(dirname "$exe")
case $prog in
  xblat3s) input=sblat3.in p=s cblas= ;;
  xblat3d) input=dblat3.in p=d cblas= ;;
  xscblat3) input=sin3 p=s cblas=cblas_ ;;
  xdcblat3) input=din3 p=d cblas=cblas_ ;;
  xblat3c) input=cblat3.in p=c cblas= ;;
  xblat3z) input=zblat3.in p=z cblas= ;;
  xccblat3) input=cin3 p=c cblas=cblas_ ;;
  xzcblat3) input=zin3 p=z cblas=cblas_ ;;
  *) echo "netlib_blas_tests.sh: unknown program $prog"; exit 1 ;;
esac
# The routines the program tests (and the input file enables), as BF16X_VERBOSE names them.
routines=(gemm symm trmm trsm syrk syr2k)
[[ $p == [cz] ]] && routines=(gemm hemm symm trmm trsm herk syrk her2k syr2k)
# The name the summary gives routine $1: DSYMM (Fortran) or cblas_dsymm.
summary_name() { if [ -n "$cblas" ]; then echo "cblas_$p$1"; else echo "$p$1" | tr a-z A-Z; fi; }
symbol() { if [ -n "$cblas" ]; then echo "cblas_$p$1"; else echo "$p${1}_"; fi; }
# The complex routines take the mode of their precision: C that of S, Z that of D (docs/blas.md).
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

# Each routine must be an undefined dynamic symbol of the program (not linked in statically), or LD_PRELOAD cannot
# take it over.
for r in "${routines[@]}"; do
  nm -D "$exe" | grep -E " U $(symbol "$r")\$" > /dev/null ||
    { echo "netlib_blas_tests.sh: $exe does not import $(symbol "$r") dynamically"; exit 1; }
done
echo "$exe: imports $(for r in "${routines[@]}"; do symbol "$r"; done | xargs), linked against" \
  "$(ldd "$exe" | awk '/libblas/ {print $3}')"

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
grep -E 'FATAL|FAILED|NOT DETECTED|XERBLA WAS CALLED' summary.txt && bad "errors reported"
# Lines of shim calls that went back to the host BLAS although emulation was asked for.
grep -E ',(fallback|min_size)=' verbose.txt | head -3 | grep . && bad "calls forwarded to the host BLAS"
echo "BF16X_VERBOSE lines per routine (ok: through bf16x; emulated: mode=$mode, or decided by auto's error model):"
for r in "${routines[@]}"; do
  name=$(summary_name "$r")
  grep -qE "^ *$name +PASSED THE TESTS OF ERROR-EXITS" summary.txt || bad "$name error exits did not pass"
  grep -qE "^ *$name +(PASSED|COMPLETED) THE .*COMPUTATIONAL TESTS" summary.txt || bad "$name computational tests did not run"
  ok=$(grep -E "^BF16X_VERBOSE,$p$r," verbose.txt | grep -c 'status=ok' || true)
  if [ "$mode" = auto ]; then
    # Every call with a product is measured and decided by the error model (TRSM's substitution alone: mode=auto).
    emulated=$(grep -E "^BF16X_VERBOSE,$p$r," verbose.txt | grep -cE "auto_target=|mode=auto," || true)
  else
    emulated=$(grep -E "^BF16X_VERBOSE,$p$r," verbose.txt | grep -c "mode=$mode," || true)
  fi
  printf '  %-7s ok=%-6s emulated=%s\n' "$p$r" "$ok" "$emulated"
  [ "$ok" -ge 100 ] || bad "$p$r did not run through bf16x"
  [ "$emulated" -ge 100 ] || bad "the emulation did not run for $name"
done
# gfortran's runtime names the floating-point flags raised by the end of the run: the correctly rounded modes' error
# terms are subnormal at times (IEEE_DENORMAL), which is no error.
note='^Note: The following floating-point exceptions are signalling: IEEE_DENORMAL$'
[[ $mode == fp??cr ]] || note='^$'
grep -vE '^BF16X_VERBOSE,' verbose.txt | grep -vE "$note" | head -5 | grep . && bad "unexpected output on stderr"
exit $fail
