"""Two bf16x instances in one process, the preloaded shim (numpy's `@`) and libbf16x.so (bf16x.dgemm), write one
verbose header, one line per call and one summary block between them (src/report/verbose_hub.hpp)."""
import os
import subprocess
import sys


def test_one_verbose_header_line_per_call_and_one_summary():
    assert os.environ.get("LD_PRELOAD"), "run through tests/python/run_pytest.sh (the shim preloaded)"
    env = dict(os.environ, BF16X_VERBOSE="all")
    code = """if True:
        import numpy as np, bf16x
        a = np.ones((64, 64))
        with bf16x.mode("fp64x6"):
            assert np.all(a @ a == 64.0)                      # the shim
            assert np.all(bf16x.dgemm(a, a) == 64.0)          # libbf16x.so
    """
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    headers = [x for x in lines if x.startswith("BF16X_VERBOSE,header,")]
    calls = [x for x in lines if x.startswith("BF16X_VERBOSE,dgemm,")]
    totals = [x for x in lines if x.startswith("BF16X_SUMMARY,total,")]
    assert len(headers) == 1, r.stderr
    assert len(calls) == 2 and all(",mode=fp64x6," in x for x in calls), r.stderr
    assert totals == [totals[0]] and ",calls=2," in totals[0], r.stderr
    assert lines.index(headers[0]) == 0, r.stderr
