#!/usr/bin/env bash
# psi4's DF-MP2 energy of water (cc-pVTZ) through bf16x-run, the quantum-chemistry client of docs/blas.md: natively
# (the plain program, and bf16x-run in native mode: the reference LAPACK and the shim in front of the host; the two
# give native's own spread), then in fp64x21, fp64c15, fp64cr and in auto on accuracy alone (BF16X_AUTO_COST=off).
# Checks: every SCF and MP2 total energy within the SCF's own convergence threshold of the plain native run's
# (e_convergence = d_convergence = 1e-10, set in the input: two runs whose products differ in their last bits may
# stop one iteration apart), or within native's spread where that is wider; every level-3 call through the shim (the
# summary has a line for each); and auto's emulated share at least 0.8 (the AO-to-MO transforms have entries down to
# 2^-50 of their rows' and columns' largest products: one fixed-point level proves few of them, the FP64 CRT modes'
# second level all; docs/numerics.md, "Second level").
# Usage: psi4_dfmp2.sh BF16X_RUN WORKDIR
set -euo pipefail
run=$1 work=$2
command -v psi4 > /dev/null || { echo "psi4_dfmp2.sh: no psi4 (scripts/deps installs it)"; exit 1; }
mkdir -p "$work" && cd "$work"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PSI_SCRATCH="$PWD"
cat > water.in <<'INPUT'
molecule h2o {
O
H 1 0.96
H 1 0.96 2 104.5
}
set basis cc-pVTZ
set scf_type df
set mp2_type df
set e_convergence 1e-10
set d_convergence 1e-10
energy('mp2')
print("BF16X_ENERGIES %.16e %.16e" % (variable('SCF TOTAL ENERGY'), variable('MP2 TOTAL ENERGY')))
INPUT

energies() {  # name, command...: runs psi4, prints "name scf mp2"
  local name=$1
  shift
  rm -f "$name.log"
  "$@" psi4 -n 1 water.in "$name.out" > "$name.stdout" 2>&1 || { echo "FAIL: $name: psi4 failed"; cat "$name.stdout"; exit 1; }
  local e
  e=$(grep '^BF16X_ENERGIES' "$name.stdout" | tail -1 | cut -d' ' -f2-3)
  [ -n "$e" ] || { echo "FAIL: $name: no energies"; cat "$name.stdout"; exit 1; }
  echo "$name $e"
}

{
  energies plain env
  energies native env BF16X_VERBOSE=summary BF16X_VERBOSE_OUTPUT_FILE="$PWD/native.log" "$run" --mode native
  for mode in fp64x21 fp64c15 fp64cr auto; do
    energies $mode env BF16X_AUTO_COST=off BF16X_VERBOSE=summary BF16X_VERBOSE_OUTPUT_FILE="$PWD/$mode.log" \
      "$run" --mode $mode
  done
} | tee energies.txt

fail=0
for mode in native fp64x21 fp64c15 fp64cr auto; do
  total=$(grep '^BF16X_SUMMARY,total' $mode.log || true)
  [ -n "$total" ] || { echo "FAIL: $mode: no summary (no level-3 call reached the shim)"; fail=1; continue; }
  echo "$mode: $total"
  grep -q '^BF16X_SUMMARY,routine=dgemm,' $mode.log || { echo "FAIL: $mode: no dgemm line"; fail=1; }
done
share=$(grep '^BF16X_SUMMARY,total' auto.log | sed -E 's/.*emulated_gflop_share=([0-9.e+-]+).*/\1/')
awk -v s="$share" 'BEGIN { exit !(s >= 0.8) }' ||
  { echo "FAIL: auto (BF16X_AUTO_COST=off) emulated $share of the flops, below 0.8"; fail=1; }
awk '
  $1 == "plain" { scf0 = $2; mp20 = $3 }
  function abs(x) { return x < 0 ? -x : x }
  $1 == "native" { spread = abs($2 - scf0) > abs($3 - mp20) ? abs($2 - scf0) : abs($3 - mp20) }
  { name[NR] = $1; scf[NR] = $2; mp2[NR] = $3 }
  END {
    tol = spread > 1e-10 ? spread : 1e-10
    bad = 0
    for (i = 1; i <= NR; i++) {
      ds = abs(scf[i] - scf0); dm = abs(mp2[i] - mp20)
      printf "%s: |dE(SCF)| %.2e, |dE(MP2)| %.2e (tolerance %.1e)\n", name[i], ds, dm, tol
      if (ds > tol || dm > tol) { print "FAIL: " name[i] " outside the tolerance"; bad = 1 }
    }
    exit bad
  }' energies.txt || fail=1
exit $fail
