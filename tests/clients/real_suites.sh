#!/usr/bin/env bash
# Real clients' own test suites under the shim: scipy.linalg's test files (pytest) and Octave's tests of its
# BLAS-heavy functions, run natively through the shim and in the modes that claim DGEMM accuracy (fp64x21,
# fp64c15, auto on accuracy alone) or better (fp64cr: every entry correctly rounded), each with the shim's exit summary (BF16X_VERBOSE=summary). Passes when every
# mode passes exactly as many tests as native; prints the share of GEMM flops each mode kept emulated.
# Usage: real_suites.sh LIBBF16X_BLAS WORKDIR scipy|octave
set -euo pipefail
shim=$(readlink -f "$1") work=$2 suite=$3
mkdir -p "$work" && cd "$work"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=2

case $suite in
  scipy)
    py=/usr/bin/python3
    "$py" -c 'import scipy, pytest' || { echo "real_suites.sh: no scipy/pytest (scripts/deps installs them)"; exit 1; }
    dir=$("$py" -c 'import scipy.linalg, os; print(os.path.dirname(scipy.linalg.__file__))')/tests
    fblas=$(ls "$dir"/../_fblas*.so)
    nm -D "$fblas" | grep -q ' U dgemm_$' || { echo "scipy's _fblas does not import dgemm_: LD_PRELOAD cannot reach it"; exit 1; }
    # The files whose results go through GEMM (matrix functions, solvers of matrix equations, BLAS wrappers);
    # test_basic.py (solve, inv, lstsq: LAPACK with little GEMM) is left out to keep scripts/test in its budget.
    files=("$dir"/test_blas.py "$dir"/test_fblas.py "$dir"/test_matfuncs.py "$dir"/test_solvers.py
      "$dir"/test_decomp_polar.py "$dir"/test_procrustes.py "$dir"/test_special_matrices.py)
    # pytest's summary line, e.g. "412 passed, 3 skipped, 1 xfailed": the passed count.
    # run_suite NAME ENV...: the suite under that environment; prints the passed count.
    # Deselected: test_al_mohy_higham_2012_experiment_1 asserts that two runs of fractional_matrix_power give the
    # same bits, while scipy's algorithm picks its number of square roots from a 1-norm estimate with random sign
    # vectors (onenormest); upstream loosened that assertion after it failed in their own CI (scipy PR #19376). Here
    # it failed about once in 20 runs of the suite, in one mode or another, always 7 of 16 entries 7.3e-12 apart.
    deselect=(-k "not (TestFractionalMatrixPower and test_al_mohy_higham_2012_experiment_1)")
    run_suite() { local name=$1; shift
      env "$@" "$py" -m pytest -q -p no:cacheprovider "${deselect[@]}" "${files[@]}" > "$name.out" 2>&1 || true
      grep -Eo '[0-9]+ passed' "$name.out" | tail -1 | grep -Eo '[0-9]+' || echo 0; }
    ;;
  octave)
    command -v octave-cli > /dev/null || { echo "real_suites.sh: no octave-cli (scripts/deps installs octave)"; exit 1; }
    cat > suite.m << 'OCT'
names = {"chol", "det", "inv", "lu", "qr", "schur", "hess", "kron", "pinv", "sqrtm", "svd", "eig", "expm", "logm", ...
         "null", "orth", "trace", "mgorth", "rcond", "matrix_type", "cond", "linsolve", "normest1", "funm"};
base = fullfile (OCTAVE_HOME, "share", "octave", version, "etc", "tests", "libinterp", "corefcn");
total = 0;
for i = 1:numel (names)
  f = fullfile (base, [names{i} ".cc-tst"]);
  if (! exist (f, "file"))
    f = names{i};
    if (! exist (f))
      continue;
    endif
  endif
  [n, nmax] = test (f, "quiet", stdout);
  printf ("OCTAVE_TEST,%s,%d,%d\n", names{i}, n, nmax);
  total += n;
endfor
printf ("OCTAVE_PASSED,%d\n", total);
OCT
    run_suite() { local name=$1; shift
      env "$@" octave-cli --no-gui --norc -q suite.m > "$name.out" 2>&1 || true
      grep -Eo '^OCTAVE_PASSED,[0-9]+' "$name.out" | cut -d, -f2 || echo 0; }
    ;;
  *) echo "real_suites.sh: unknown suite $suite"; exit 1 ;;
esac

fail=0
declare -A passed
printf '%-10s %8s %10s %12s %12s  %s\n' mode passed calls emulated "d/z emulated" repaired
for mode in native fp64x21 fp64c15 fp64cr auto; do
  # The DGEMM modes leave SGEMM/CGEMM native; auto runs every routine.
  extra=(BF16X_SGEMM_MODE=native)
  [ "$mode" = auto ] && extra=(BF16X_AUTO_COST=off BF16X_SGEMM_MODE=auto)
  summary="$PWD/$mode.summary"
  rm -f "$summary"
  passed[$mode]=$(run_suite "$mode" LD_PRELOAD="$shim" BF16X_DGEMM_MODE=$mode BF16X_VERBOSE=summary \
    BF16X_VERBOSE_OUTPUT_FILE="$summary" "${extra[@]}")
  total=$(grep '^BF16X_SUMMARY,total' "$summary" 2> /dev/null || echo "")
  calls=$(sed -n 's/.*,calls=\([0-9]*\).*/\1/p' <<< "$total")
  share=$(sed -n 's/.*emulated_gflop_share=\([0-9.e+-]*\).*/\1/p' <<< "$total")
  repaired=$(sed -n 's/.*,repaired=\([0-9]*\).*/\1/p' <<< "$total")
  # The share of the DGEMM/ZGEMM flops alone (the rows of routine d and z; repaired entries count as not emulated).
  dz=$(awk -F, '/^BF16X_SUMMARY,routine=[dz]gemm/ {
      for (i = 2; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
      f += v["gflop"]; if (v["mode"] != "native") e += v["gflop"] - v["repaired_gflop"] } END { r = f > 0 ? e / f : 0; printf "%.4g", r }' "$summary")
  printf '%-10s %8s %10s %12s %12s  %s\n' "$mode" "${passed[$mode]}" "${calls:-0}" "${share:-0}" "$dz" "${repaired:-0}"
  [ "${calls:-0}" -gt 0 ] || { echo "FAIL $mode: no GEMM call reached the shim"; fail=1; }
done
for mode in fp64x21 fp64c15 fp64cr auto; do
  if [ "${passed[$mode]}" != "${passed[native]}" ]; then
    echo "FAIL $mode passes ${passed[$mode]} tests, native ${passed[native]} ($PWD/$mode.out)"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "ok: every mode passes ${passed[native]} tests, as native does"
exit $fail
