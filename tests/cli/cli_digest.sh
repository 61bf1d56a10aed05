#!/usr/bin/env bash
# `bf16x digest` (the tool that compares two builds bit for bit) must itself be stable: the same hashes at one
# thread and at 2-3 threads, the same for the avx2 engine as for the one the library picks (every slice-mode engine
# gives the reference engine's bits), one line per call and a total, and a usage error for an engine this CPU lacks.
# Usage: cli_digest.sh BF16X_CLI
set -uo pipefail
cli=$1
fail=0
# The columns without the thread count (field 11), the total left out.
calls() { awk '$1 != "all" {$11 = ""; print}'; }
one=$("$cli" digest --threads 1) || { echo "FAIL: digest --threads 1 exits $?"; exit 1; }
n=$(grep -c '^fp' <<< "$one")
tail -1 <<< "$one" | grep -q "^all $n calls: [0-9a-f]\{16\}$" || { echo "FAIL: no total line for $n calls"; fail=1; }
[ "$n" -ge 1000 ] || { echo "FAIL: only $n calls"; fail=1; }
more=$("$cli" digest --threads 2,3) || { echo "FAIL: digest --threads 2,3 exits $?"; exit 1; }
if cmp -s <(calls <<< "$one") <(calls <<< "$more"); then
  echo "ok   the same $n hashes at 1 thread and at 2-3 threads"
else
  echo "FAIL: hashes differ between 1 and 2-3 threads:"; diff <(calls <<< "$one") <(calls <<< "$more") | head; fail=1
fi
if "$cli" config | grep -qE '^engines available:.* avx2( |$)'; then
  avx2=$("$cli" digest --no-crt --engine avx2 --threads 2) || { echo "FAIL: digest --engine avx2 exits $?"; exit 1; }
  if cmp -s <(calls <<< "$one" | awk '$1 !~ /c[0-9]+$/') <(calls <<< "$avx2"); then
    echo "ok   the avx2 engine's slice-mode hashes are the default engine's"
  else
    echo "FAIL: the avx2 engine differs:"; diff <(calls <<< "$one" | awk '$1 !~ /c[0-9]+$/') <(calls <<< "$avx2") | head
    fail=1
  fi
else
  echo "skip the avx2 comparison: this CPU has no AVX2"
fi
"$cli" digest --engine amx > /dev/null 2>&1
rc=$?
if grep -q amx_bf16 /proc/cpuinfo 2>/dev/null; then
  echo "skip the unavailable-engine check: this CPU has AMX"
elif [ $rc -eq 2 ]; then
  echo "ok   an engine this CPU lacks is a usage error (exit 2)"
else
  echo "FAIL: --engine amx on a CPU without AMX exits $rc, not 2"; fail=1
fi
exit $fail
