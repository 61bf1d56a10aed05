#!/usr/bin/env bash
# Sizes the CLI accepts but this machine cannot hold are refused before anything is allocated: exit 1 with the
# need and what is available, quickly (no GEMM starts), and the sizes that fit still run with their rows printed.
# These runs once ended in an uncaught std::bad_alloc (exit 134, stdout lost) under ulimit -v, or in the OOM killer.
# Usage: cli_memory.sh BF16X_CLI WORKDIR
set -uo pipefail
cli=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
ok() { echo "ok   $1"; }
bad() {
  echo "FAIL $1"
  sed 's/^/       /' err.txt | grep -v '^\s*\[bench' | tail -5
  fail=1
}
# limited KIB WANT WHAT COMMAND...: under ulimit -v KIB (a subshell), the command exits WANT within 60 s.
limited() {
  local kib=$1 want=$2 what=$3
  shift 3
  (
    ulimit -v "$kib"
    timeout 60 "$@" > out.txt 2> err.txt
  )
  local rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$what (exit $rc)"; else bad "$what: exit $rc, want $want"; fi
}
fits_msg() { grep -q "does not fit: needs .* of memory, .* available" err.txt; }

# 32768^2 operands need tens of GiB: refused under a 3.8 GiB address-space limit, with the reason on stderr.
limited 4000000 1 "bench --sizes 32768 under ulimit -v 4000000" \
  "$cli" bench --sizes 32768 --threads 1 --reps 1 --modes fp64x6
fits_msg && ok "bench says why (need and what is available)" || bad "bench: no 'does not fit' reason"
limited 4000000 1 "accuracy --n 32768 under ulimit -v 4000000" "$cli" accuracy --n 32768
fits_msg && ok "accuracy says why" || bad "accuracy: no 'does not fit' reason"
limited 4000000 1 "demo --sizes 32768 under ulimit -v 4000000" "$cli" demo --sizes 32768
grep -q "^n=32768 skipped: needs" out.txt && grep -q "^bf16x demo" out.txt &&
  ok "demo prints the machine summary and the skipped size" || bad "demo: no summary or no 'skipped' line on stdout"

# Sizes that fit run and are written; the one that does not is a 'skipped' line in the table, and the exit is 1.
limited 4000000 1 "bench --sizes 32,32768,48 under ulimit -v 4000000" \
  "$cli" bench --sizes 32,32768,48 --threads 1 --reps 1 --warmup 0 --modes fp64x6 --json run.json
grep -Eq '^ +32 +1 fp64x6 ' out.txt && grep -Eq '^ +48 +1 fp64x6 ' out.txt &&
  grep -Eq '^32768 +- skipped: needs' out.txt && ok "rows of n=32 and 48 printed, n=32768 skipped with its reason" ||
  bad "bench table: $(grep -E '^ *(32|48|32768) ' out.txt | tr '\n' '|')"
/usr/bin/python3 -c 'import json, sys; j = json.load(open("run.json")); sys.exit(sorted({r["n"] for r in j["rows"]}) != [32, 48])' &&
  ok "--json has the rows of the sizes that ran" || bad "--json: not the rows of n=32 and 48"

# Beyond physical memory, without an address-space limit that binds: refused from MemAvailable. The ulimit only
# guards this machine against a CLI that would allocate anyway (1 GiB above MemAvailable: MemAvailable binds).
avail_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
if [ -z "$avail_kib" ] || [ "$avail_kib" -gt $((200 * 1024 * 1024)) ]; then
  echo "skip bench --sizes 65536 without a limit: MemAvailable ${avail_kib:-unknown} kB could hold it"
else
  limited $((avail_kib + 1024 * 1024)) 1 "bench --sizes 65536 (MemAvailable $((avail_kib / 1024 / 1024)) GiB)" \
    "$cli" bench --sizes 65536 --threads 1 --reps 1 --modes fp64x6
  grep -q "does not fit: .*(MemAvailable)" err.txt && ok "bench names MemAvailable as the limit" ||
    bad "bench --sizes 65536: no reason naming MemAvailable"
fi
exit $fail
