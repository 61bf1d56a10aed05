#!/usr/bin/env bash
# The CLI's exit-code convention (0 ok, 1 run failure, 2 usage error) and its handling of hostile arguments:
# every case below once crashed (SIGFPE, std::length_error), was accepted, or failed only after the run.
# Usage: cli_robustness.sh BF16X_CLI WORKDIR
set -uo pipefail
cli=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
# expect CODE DESCRIPTION COMMAND...: the command must exit with CODE (and never by a signal).
expect() {
  local want=$1 what=$2
  shift 2
  timeout 300 "$@" > out.txt 2> err.txt
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $what: exit $rc, want $want"
    tail -5 err.txt
    fail=1
  else
    echo "ok   $what (exit $rc)"
  fi
}
small=(--reps 1 --warmup 0 --modes fp64x6)
expect 2 "bench --sizes 0" "$cli" bench --sizes 0 "${small[@]}"
expect 2 "bench --sizes -5" "$cli" bench --sizes -5 "${small[@]}"
expect 2 "bench --threads 0" "$cli" bench --sizes 32 --threads 0 "${small[@]}"
expect 2 "bench --modes bogus" "$cli" bench --sizes 32 --threads 1 --reps 1 --warmup 0 --modes bogus
expect 2 "bench --csv in a missing directory" "$cli" bench --sizes 32 --threads 1 --csv /nonexistent/dir/x.csv "${small[@]}"
expect 2 "bench --json in a missing directory" "$cli" bench --sizes 32 --threads 1 --json /nonexistent/x.json "${small[@]}"
grep -q "not writable" err.txt || { echo "FAIL --json: no 'not writable' message before the run"; fail=1; }
grep -q "^\[bench" err.txt && { echo "FAIL --json: the run started before the output path was checked"; fail=1; }
expect 2 "accuracy --modes bogus" "$cli" accuracy --n 16 --modes bogus
expect 2 "accuracy --n 0" "$cli" accuracy --n 0
expect 2 "unknown subcommand" "$cli" frobnicate
grep -q "unknown subcommand 'frobnicate'" err.txt && grep -q "bench" err.txt ||
  { echo "FAIL unknown subcommand: not named, or the valid ones not listed: $(cat err.txt)"; fail=1; }
expect 0 "--help" "$cli" --help

# Engine names are checked against the library's before anything runs (an unknown or unavailable one once gave an
# empty row with err 0 and exit 0), for --engine and --crt-engine alike.
expect 2 "bench --crt-engine bogus" "$cli" bench --sizes 32 "${small[@]}" --modes fp64c8 --crt-engine bogus
grep -q "bogus is not an INT8 engine" err.txt || { echo "FAIL --crt-engine bogus: $(cat err.txt)"; fail=1; }
expect 2 "bench --engine bogus" "$cli" bench --sizes 32 "${small[@]}" --engine bogus
flags=$(grep -m1 '^flags' /proc/cpuinfo)
if ! grep -qw avx512_vnni <<< "$flags"; then
  expect 2 "bench --crt-engine avx512vnni (not on this CPU)" "$cli" bench --sizes 32 "${small[@]}" --modes fp64c8 \
    --crt-engine avx512vnni
  grep -q "avx512vnni is not available on this CPU" err.txt || { echo "FAIL: $(cat err.txt)"; fail=1; }
fi
if ! grep -qw avx512_bf16 <<< "$flags"; then
  expect 2 "bench --engine avx512bf16 (not on this CPU)" "$cli" bench --sizes 32 "${small[@]}" --engine avx512bf16
fi

# Input parameters that would make the table NaN are refused: phi must be finite, emax and phi within the range that
# keeps the inputs and their products finite in the precision that runs (FP32 with an FP32 mode: emax <= 63, phi
# <= 5; FP64 only: emax <= 511, phi <= 20).
expect 2 "accuracy --phi nan" "$cli" accuracy --n 16 --dist phi --phi nan
grep -q "not a finite number" err.txt || { echo "FAIL --phi nan: $(cat err.txt)"; fail=1; }
expect 2 "accuracy --emax 1000" "$cli" accuracy --n 16 --dist loguniform --emax 1000
expect 2 "accuracy --emax 64 with an FP32 mode" "$cli" accuracy --n 16 --dist loguniform --emax 64
expect 2 "accuracy --phi 6 with an FP32 mode" "$cli" accuracy --n 16 --dist phi --phi 6
expect 0 "accuracy --emax 511, FP64 modes only" "$cli" accuracy --n 16 --dist loguniform --emax 511 \
  --modes fp64x6,fp64x21
grep -qi nan out.txt && { echo "FAIL --emax 511: NaN in the table"; fail=1; }
expect 0 "accuracy --emax 63 with fp32x6" "$cli" accuracy --n 64 --dist loguniform --emax 63 --modes fp32x6,fp64x6
grep -qi nan out.txt && { echo "FAIL --emax 63: NaN in the table"; fail=1; }

# A mode whose call does not run as asked has no row of numbers: the reason instead, and exit 1 (BF16X_MIN_SIZE
# sends the call to native, whose C once gave an error of 0 in the fp64x6 row).
expect 1 "bench, a mode the library ran native" env BF16X_MIN_SIZE=100000 "$cli" bench --sizes 32 "${small[@]}"
grep -Eq '^ +32 +1 fp64x6 +dgemm +error: the call ran native, not fp64x6' out.txt ||
  { echo "FAIL: no error row for fp64x6: $(grep fp64x6 out.txt)"; fail=1; }

# A path with a quote and a space: gnuplot runs without a shell, in the figures directory.
plots="$work/it's a dir"
expect 0 "bench --plots with a quote in the path" "$cli" bench --sizes 32,64 --threads 1 --reps 1 --warmup 0 \
  --modes fp64x6,native --csv "$work/o'k.csv" --plots "$plots"
for f in fig7_speedup_fp64.png fig9_overhead.png; do
  [ -s "$plots/$f" ] || { echo "FAIL --plots: $plots/$f missing"; fail=1; }
done
[ -s "$work/o'k.csv" ] || { echo "FAIL --csv: not written"; fail=1; }
# Progress counts each measurement once: native (the host rows) is not a step of its own.
last=$(grep -o '\[bench [0-9]*/[0-9]*' err.txt | tail -1)
total=${last#*/}
done_=${last#\[bench }
done_=${done_%/*}
[ -n "$last" ] && [ "$done_" = "$total" ] || { echo "FAIL progress: last step '$last'"; fail=1; }

# An engine this CPU cannot run is a usage error for accuracy and demo too.
if grep -qw amx_bf16 /proc/cpuinfo; then
  echo "skip accuracy/demo with an unavailable engine: this CPU has AMX"
else
  expect 2 "accuracy --engine amx (not on this CPU)" "$cli" accuracy --n 16 --engine amx --modes fp64x6,fp64x21
  grep -q "engine amx is not available on this CPU" err.txt || { echo "FAIL: $(cat err.txt)"; fail=1; }
  expect 2 "demo --engine amx (not on this CPU)" "$cli" demo --sizes 16 --engine amx --reps 1
fi
# Every row failing is a run failure: BF16X_MIN_SIZE forwards every call to the host BLAS, so no mode ran as asked.
# Failed modes print the reason, in the table and in --json, and no errors of the C they never wrote (the host's).
expect 1 "accuracy with every row failing" env BF16X_MIN_SIZE=100000 "$cli" accuracy --n 16 --modes fp64x6,fp64x21
[ "$(grep -c 'error: the call ran native, not fp64x[0-9]* (BF16X_MIN_SIZE=100000)' out.txt)" -eq 2 ] ||
  { echo "FAIL: no status rows: $(cat out.txt)"; fail=1; }
expect 1 "accuracy --json with every row failing" env BF16X_MIN_SIZE=100000 "$cli" accuracy --n 16 --modes fp64x6 --json
/usr/bin/python3 -c 'import json, sys; m = json.load(open("out.txt"))["modes"]["fp64x6"]
sys.exit(set(m) != {"status", "error"} or not m["error"].startswith("the call ran native"))' ||
  { echo "FAIL --json: $(cat out.txt)"; fail=1; }
expect 0 "accuracy --json FILE" "$cli" accuracy --n 16 --modes fp64x6 --json acc.json
/usr/bin/python3 -c 'import json; json.load(open("acc.json"))["modes"]["fp64x6"]["eF_exact"]' && [ ! -s out.txt ] ||
  { echo "FAIL --json FILE: not written, or the table printed too"; fail=1; }

# Issue 39 (what a newcomer trips over). Each mode runs with the routine of its precision: fp32cr with sgemm and
# cgemm, fp64cr with dgemm and zgemm (it once ran fp32cr as DGEMM: "mode not valid for this routine").
expect 0 "accuracy --modes fp32cr runs as sgemm" "$cli" accuracy --n 32 --modes fp32cr
grep -q '^fp32cr  *[0-9]' out.txt && grep -q '^sgemm ' out.txt && ! grep -q '^dgemm ' out.txt ||
  { echo "FAIL fp32cr: $(cat out.txt)"; fail=1; }
# The speedup column: a number for the correctly rounded modes (on the FMA units, no engine id), "-" only where the
# host BLAS ran the call.
expect 0 "accuracy --modes native,fp64cr" "$cli" accuracy --n 32 --modes native,fp64cr
grep -qE '^fp64cr .* fma +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]+$' out.txt && grep -qE '^native .* -$' out.txt ||
  { echo "FAIL speedup column: $(cat out.txt)"; fail=1; }
expect 0 "accuracy --routine cgemm --modes fp32cr" "$cli" accuracy --n 16 --routine cgemm --modes fp32cr
grep -q '^fp32cr/4m  *[0-9]' out.txt || { echo "FAIL cgemm fp32cr: $(cat out.txt)"; fail=1; }
expect 0 "accuracy --routine zgemm --modes fp64cr" "$cli" accuracy --n 16 --routine zgemm --modes fp64cr
expect 2 "accuracy --routine zgemm --modes fp32cr" "$cli" accuracy --n 16 --routine zgemm --modes fp32cr
grep -q "fp32cr is not a zgemm mode" err.txt || { echo "FAIL: $(cat err.txt)"; fail=1; }
# Each engine option reaches the modes of its kind: an INT8 engine the CRT modes, a BF16 one the others.
if "$cli" config | grep -qE '^engines available:.* avx2( |$)'; then
  expect 0 "accuracy --engine avx2 with a CRT mode" "$cli" accuracy --n 16 --engine avx2 --modes fp64x6,fp64c15
  expect 0 "demo --engine avx2 --crt-engine avx2-int8" "$cli" demo --sizes 16 --reps 1 --engine avx2 \
    --crt-engine avx2-int8
fi

# demo runs every kind of mode (fp64c15, fp64cr too), and a row the host BLAS ran has no speedup ('-', not the host
# against itself).
expect 0 "demo" "$cli" demo --sizes 32 --reps 1
for m in fp32x6 fp64x21 fp64c15 fp64cr auto; do
  grep -q "^$m  *[0-9]" out.txt || { echo "FAIL demo: no $m row"; fail=1; }
done
awk '$9 == "native" && $NF != "-" {bad = 1} END {exit bad}' out.txt ||
  { echo "FAIL demo: a speedup for a row the host ran: $(grep ' native ' out.txt)"; fail=1; }

# Usage errors: one line on stderr, exit 2, nothing on stdout.
one_line() {
  [ "$(wc -l < err.txt)" -eq 1 ] && [ ! -s out.txt ] && grep -qF -- "$1" err.txt ||
    { echo "FAIL $2: not one line naming '$1':"; cat err.txt out.txt | head -5; fail=1; }
}
expect 2 "accuracy --block-k 33" "$cli" accuracy --n 16 --block-k 33
one_line "--block-k: 33 is not a k-block depth" "--block-k 33"
expect 2 "accuracy --block-k 48" "$cli" accuracy --n 16 --block-k 48 --modes fp64x6
expect 0 "accuracy --block-k 64" "$cli" accuracy --n 16 --block-k 64 --modes fp64x6
expect 2 "bf16x --bogus" "$cli" --bogus
one_line "unknown option '--bogus'" "--bogus"
expect 2 "accuracy --seed -1" "$cli" accuracy --n 16 --seed -1
one_line "--seed: -1 is not a seed" "--seed -1"
expect 2 "bench --load ''" "$cli" bench --load ''
one_line "--load: an empty value names no file" "--load ''"
expect 2 "bench --csv ''" "$cli" bench --sizes 32 "${small[@]}" --csv ''
one_line "--csv: an empty value" "--csv ''"

# bench accepts auto (the row names the mode it chose), and prints '-' where a column does not apply: a CRT or
# correctly rounded mode has no BF16 raw GEMM to compare with (xraw, overhead were 0.000).
expect 0 "bench --modes auto,fp64c8,fp64cr" "$cli" bench --sizes 32 --threads 1 --reps 1 --warmup 0 \
  --modes auto,fp64c8,fp64cr
grep -Eq '^ +32 +1 auto>[a-z0-9]+ +dgemm' out.txt || { echo "FAIL bench auto: $(grep auto out.txt)"; fail=1; }
awk '($3 == "fp64c8" || $3 == "fp64cr") && $4 == "dgemm" {n++; if ($10 != "-" || $11 != "-") bad = 1} END {exit bad || n != 2}' out.txt ||
  { echo "FAIL bench: xraw/overhead not '-' for fp64c8/fp64cr:"; grep -E 'fp64c8|fp64cr' out.txt | head -2; fail=1; }

# bench --routine of a level-3 routine: one row per mode with the routine's rate, the same mode's GEMM rate and
# their ratio, measured and in the AMX projection; the precision from the mode or the routine's letter, a mode of the other precision or an unknown
# routine refused before anything runs, and the outputs it does not write refused too.
l3=(--sizes 32 --threads 1 --reps 1 --warmup 0)
expect 0 "bench --routine syrk --modes fp64x21,fp32x6" "$cli" bench --routine syrk "${l3[@]}" --modes fp64x21,fp32x6
grep -Eq '^dsyrk +32 +1 +fp64x21 +- +[a-z0-9-]+( +[0-9.]+){5} +[0-9.]+$' out.txt &&
  grep -Eq '^ssyrk +32 +1 +fp32x6 ' out.txt || { echo "FAIL bench --routine syrk rows:"; cat out.txt; fail=1; }
expect 0 "bench --routine zherk --complex-method 3m --csv" "$cli" bench --routine zherk "${l3[@]}" --modes fp64c15 \
  --complex-method 3m --csv l3.csv
grep -Eq '^zherk +32 +1 +fp64c15 +3m ' out.txt && grep -q '^zherk,32,1,fp64c15,3m,' l3.csv ||
  { echo "FAIL bench --routine zherk: $(cat out.txt l3.csv)"; fail=1; }
expect 2 "bench --routine ssyrk --modes fp64x21" "$cli" bench --routine ssyrk "${l3[@]}" --modes fp64x21
expect 2 "bench --routine dherk" "$cli" bench --routine dherk "${l3[@]}"
expect 2 "bench --routine trsm --json" "$cli" bench --routine trsm "${l3[@]}" --json l3.json

# config says what else decides how a call runs: the CRT engine, the guard, BF16X_MIN_SIZE, auto's target, the
# complex method, each with the variable that set it.
expect 0 "config" env BF16X_MIN_SIZE=100 BF16X_GUARD=off BF16X_AUTO_TARGET=1e-10 BF16X_COMPLEX_METHOD=3m "$cli" config
for want in '^crt engine selected: [a-z]' '^guard: off (BF16X_GUARD)' '^min size: 100 (BF16X_MIN_SIZE' \
  '^auto target: 1e-10 (BF16X_AUTO_TARGET)' '^complex method: 3m (BF16X_COMPLEX_METHOD)'; do
  grep -q "$want" out.txt || { echo "FAIL config: no line '$want'"; fail=1; }
done
exit $fail
