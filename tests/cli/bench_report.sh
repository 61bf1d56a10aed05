#!/usr/bin/env bash
# `bf16x bench --json --plots` writes what readers expect (docs/bench_json.md): a schema 2 report whose header is
# typed (ISO 8601 UTC date, booleans, numbers), and figures with the break-even line y = 1, log axes exactly where
# the data span a decade, and a caption naming the CPU, engine, threads, bf16x version and host BLAS. --load reads
# schema 1 files, refuses unknown schemas, and strings from a loaded file cannot break out of the gnuplot script.
# Usage: bench_report.sh BF16X_CLI WORKDIR   (exit 77: skipped, no gnuplot)
set -uo pipefail
cli=$(realpath "$1") work=$2
command -v gnuplot > /dev/null || { echo "SKIP: no gnuplot (scripts/deps installs gnuplot-nox)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
py=/usr/bin/python3
fail=0

timeout 300 "$cli" bench --sizes 64,128 --threads 1 --reps 1 --warmup 0 --modes fp64x6,native --json run.json \
  --plots figs > run.txt 2> run.err || { echo "FAIL: bench exits $?"; tail -5 run.err; exit 1; }

# The JSON and the figures of the measured run.
$py - run.json figs << 'PY' || fail=1
import json, math, os, re, sys
j = json.load(open(sys.argv[1]))
figs = sys.argv[2]
bad = []
def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond: bad.append(what)
def is_int(v): return isinstance(v, int) and not isinstance(v, bool)
def is_num(v): return isinstance(v, (int, float)) and not isinstance(v, bool)
check(is_int(j.get("schema_version")) and j["schema_version"] == 2, "schema_version is the integer 2")
h = j["header"]
check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", h["date"]) is not None, f"date is ISO 8601 UTC: {h['date']}")
check(re.fullmatch(r"\d+\.\d+\.\d+", h["bf16x_version"]) is not None, f"bf16x_version: {h['bf16x_version']}")
check(all(isinstance(h[k], bool) for k in ("avx512_bf16", "avx2_fma", "amx")), "avx512_bf16, avx2_fma, amx are booleans")
check(all(is_int(h[k]) for k in ("cores", "reps", "warmup", "wait_idle_s")), "cores, reps, warmup, wait_idle_s are integers")
check(h["sizes"] == [64, 128] and h["threads"] == [1], "sizes and threads are arrays of numbers")
check(all(h[k] is None or (len(h[k]) == 3 and all(is_num(x) for x in h[k]))
          for k in ("load_average_start", "load_average_end")), "load averages are 3 numbers")
check(all(h[k] is None or isinstance(h[k], str) for k in ("cpu", "engine", "host_blas", "host_kernel", "onednn")),
      "names are strings or null")
rows = j["rows"]
check(all(is_int(r["n"]) and is_int(r["threads"]) and is_int(r["products"]) for r in rows), "row n, threads, products are integers")
num_keys = ("time_ms", "split_ms", "compute_ms", "gflops", "speedup_host", "speedup_onednn", "speedup_raw",
            "overhead", "overhead_packed", "peak_fraction", "rel_err")
check(all(r[k] is None or is_num(r[k]) for r in rows for k in num_keys), "row measurements are numbers or null")
check(all(is_num(r["time_ms"]) and r["time_ms"] > 0 for r in rows), "every row has a time in ms")
check({r["mode"] for r in rows} >= {"fp64x6", "native"}, "rows of fp64x6 and native")
# The phases (bf16x_stats version 3) and the AMX projection: numbers on the mode rows, inside the call's time.
phase_keys = ("scan_ms", "pack_ms", "products_ms", "write_ms", "sums_ms", "bytes_scan", "bytes_pack", "bytes_write",
              "dot_products", "bandwidth_gbs", "clock_ghz", "amx_projected_ms", "amx_native_model_ms")
mode_rows = [r for r in rows if r["mode"] == "fp64x6"]
check(all(is_num(r[k]) for r in mode_rows for k in phase_keys), "fp64x6 rows have phases, bytes and the projection")
check(all(r["products_ms"] > 0 and r["scan_ms"] + r["pack_ms"] + r["products_ms"] + r["write_ms"] <= r["time_ms"]
          for r in mode_rows), "the phases lie inside the call (one timed run: the same call)")
check(all(0 < r["sums_ms"] <= r["products_ms"] for r in mode_rows),
      "fp64x6's sums outside the engine (its FP64 widening) are part of its products")
check(all(r["bytes_scan"] == 2 * r["n"] ** 2 * 8 and r["bytes_write"] == r["n"] ** 2 * 8 for r in mode_rows),
      "scan reads A and B, the write writes C (beta 0)")
check(all(r[k] is None for r in rows if r["products"] == 0 for k in phase_keys),
      "baseline rows have no phases")
check(all(r["amx_measured"] is (h["engine"] == "amx") for r in mode_rows),
      "amx_measured: the time measured on the AMX hardware, or the model elsewhere")

for png in ("fig7_speedup_fp64.png", "time.png", "fig9_overhead.png", "fig10_breakdown.png", "amx_projection.png"):
    p = os.path.join(figs, png)
    check(os.path.isfile(p) and open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"{png} is a PNG")
check(not os.path.exists(os.path.join(figs, "fig6_speedup_fp32.png")), "no fp32 figure without an fp32 mode")

gp = open(os.path.join(figs, "figures.gp")).read()
cap = [l for l in gp.splitlines() if l.startswith("caption = ")]
check(len(cap) == 1, "one caption definition")
cap = cap[0] if cap else ""
for want in (f"CPU: {h['cpu']}", f"engine {h['engine']}", "threads 1", f"bf16x {h['bf16x_version']}"):
    check(want.replace("'", "''") in cap, f"caption has '{want}'")  # gnuplot doubles quotes
if h["host_blas"]:
    check(f"host BLAS {h['host_blas']}" in cap, "caption has the host BLAS")
if h["host_kernel"]:
    check(f"(kernel {h['host_kernel']})" in cap, "caption has the host BLAS kernel")
# One block per figure, from its `set output` on.
blocks = {b.split("'")[1]: b for b in gp.split("set output ")[1:]}
check(all(re.search(r"set title .*\.caption noenhanced", b) for b in blocks.values()), "every figure's title has the caption")
sp = blocks.get("fig7_speedup_fp64.png", "")
check(re.search(r"^\s*1 with lines .*title 'host BLAS = 1", sp, re.M) is not None, "speedup figure has the y = 1 line")
def log_expected(values):
    v = [x for x in values if x is not None and x > 0]
    return max(v) / min(v) >= 10
def axes_ok(name, ys):
    b = blocks.get(name, "")
    want_y = "set logscale y" if log_expected(ys) else "unset logscale y"
    check("unset logscale x" in b and want_y in b, f"{name}: linear x (64..128), '{want_y}' (y range of the data)")
axes_ok("fig7_speedup_fp64.png", [1.0] + [r["speedup_host"] for r in rows if r["mode"] == "fp64x6"])
axes_ok("time.png", [r["time_ms"] for r in rows if r["mode"] in ("fp64x6", "native", "raw")])
sys.exit(1 if bad else 0)
PY

# A report spanning decades, with hostile strings: sizes 64..2048 and speedups over 100x must give log x and y; a
# CPU name with backquotes and a mode with quotes must reach the script as text (no file is created by them).
$py - run.json synth.json << 'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
j["header"]["cpu"] = "Evil `touch PWNED1` CPU"
for r in j["rows"]:
    if r["n"] == 128:
        r["n"] = 2048
    if r["mode"] == "fp64x6":
        r["mode"] = "fp64x6'.system('touch PWNED2').'"
        if r["n"] == 2048: r["speedup_host"] = r["speedup_host"] / 1000
json.dump(j, open(sys.argv[2], "w"))
PY
if "$cli" bench --load synth.json --plots synth > synth.txt 2> synth.err; then
  gp=synth/figures.gp
  block=$(sed -n "/^set output 'fig7_speedup_fp64.png'/,/^plot/p" "$gp")
  if grep -q "^set logscale x 2" <<< "$block" && grep -q "^set logscale y" <<< "$block"; then
    echo "ok   sizes 64..2048 and speedups over 1000x: log x and log y"
  else
    echo "FAIL sizes 64..2048 and speedups over 1000x: no log axes"; fail=1
  fi
  if ls PWNED* synth/PWNED* > /dev/null 2>&1; then
    echo "FAIL a string of the loaded file ran a command in gnuplot"; fail=1
  else
    echo "ok   strings of a loaded file stay text in the gnuplot script"
  fi
else
  echo "FAIL bench --load synth.json --plots: exit $?"; tail -5 synth.err; fail=1
fi

# Schema 1 (no schema_version, a "machine" of strings, times in seconds) is still read; the output is schema 2.
cat > v1.json << 'EOF1'
{"machine": {"cpu": "Old CPU", "date": "2026-12-02 17:36", "engine": "avx512bf16", "host blas": "libopenblas.so.0"},
 "peaks": [{"threads": 1, "gflops": 80.0, "gflops_per_thread": 80.0, "latency_ns": 2.9}],
 "rows": [{"n": 256, "threads": 1, "mode": "fp64x6", "routine": "dgemm", "products": 6, "seconds": 0.0025,
           "gflops": 13.4, "speedup_host": 0.23, "speedup_onednn": null, "speedup_raw": 0.2, "overhead": 1.5,
           "overhead_packed": 1.6, "seconds_split": 0.0005, "seconds_compute": 0.002, "peak_fraction": null,
           "rel_err": 1e-15}]}
EOF1
if "$cli" bench --load v1.json --json v2.json --plots v1figs > v1.txt 2> v1.err; then
  $py - v2.json v1figs/figures.gp << 'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
ok = (j["schema_version"] == 2 and j["header"] is None and j["merged"][0]["schema_version"] == 1
      and j["merged"][0]["header"]["cpu"] == "Old CPU" and abs(j["rows"][0]["time_ms"] - 2.5) < 1e-9
      and abs(j["rows"][0]["split_ms"] - 0.5) < 1e-9)
ok = ok and "CPU: Old CPU" in open(sys.argv[2]).read()
print(("ok   " if ok else "FAIL ") + "schema 1 file loaded: rows in ms, its header kept under merged, caption from it")
sys.exit(0 if ok else 1)
PY
else
  echo "FAIL bench --load v1.json: exit $?"; tail -5 v1.err; fail=1
fi

# An unknown schema is refused with its number, as a usage error.
echo '{"schema_version": 99, "header": null, "merged": [], "peaks": [], "rows": []}' > v99.json
"$cli" bench --load v99.json > v99.txt 2> v99.err
rc=$?
if [ "$rc" -eq 2 ] && grep -q "schema_version 99 is not supported" v99.err; then
  echo "ok   schema_version 99 refused (exit 2, reason given)"
else
  echo "FAIL schema_version 99: exit $rc, stderr: $(cat v99.err)"; fail=1
fi
exit $fail
