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
expect 0 "--help" "$cli" --help

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

# Every row failing is a run failure: an engine this CPU cannot run makes every mode's call fail.
if grep -qw amx_bf16 /proc/cpuinfo; then
  echo "skip accuracy/demo with an unavailable engine: this CPU has AMX"
else
  expect 1 "accuracy with every row failing" "$cli" accuracy --n 16 --engine amx --modes fp64x6,fp64x21
  expect 1 "demo with every row failing" "$cli" demo --sizes 16 --engine amx --reps 1
fi
exit $fail
