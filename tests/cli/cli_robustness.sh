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
# Every row failing is a run failure: the library refuses a k-block that is not a multiple of 32 in every call.
# Failed modes print their status, in the table and in --json, and no errors of the C they never wrote.
expect 1 "accuracy with every row failing" "$cli" accuracy --n 16 --block-k 48 --modes fp64x6,fp64x21
[ "$(grep -c 'error: invalid option value' out.txt)" -eq 2 ] || { echo "FAIL: no status rows: $(cat out.txt)"; fail=1; }
expect 1 "accuracy --json with every row failing" "$cli" accuracy --n 16 --block-k 48 --modes fp64x6 --json
/usr/bin/python3 -c 'import json, sys; m = json.load(open("out.txt"))["modes"]["fp64x6"]
sys.exit(m != {"status": 15, "error": "invalid option value"})' || { echo "FAIL --json: $(cat out.txt)"; fail=1; }
exit $fail
