"""threadpoolctl sees bf16x (libbf16x.so and the preloaded shim) and limits it through bf16x_set_num_threads."""
import os
import subprocess
import sys

import numpy as np
import threadpoolctl

import bf16x


def bf16x_entries():
    return [i for i in threadpoolctl.threadpool_info() if i["internal_api"] == "bf16x"]


def test_threadpool_info_lists_both_instances(shim):
    entries = bf16x_entries()
    files = sorted(os.path.basename(i["filepath"]).split(".so")[0] for i in entries)
    assert files == ["libbf16x", "libbf16x_blas"]
    for i in entries:
        assert i["user_api"] == "blas" and i["prefix"] == "libbf16x"
        assert i["version"] == bf16x.version()
        assert i["num_threads"] >= 1


def test_threadpool_limits_blas_to_one_thread(shim):
    lib_before, shim_before = bf16x.get_num_threads(), shim.bf16x_get_num_threads()
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        assert bf16x.get_num_threads() == 1
        assert shim.bf16x_get_num_threads() == 1
        assert all(i["num_threads"] == 1 for i in bf16x_entries())
        a = np.ones((64, 64))
        assert np.all(bf16x.dgemm(a, a, mode="fp64x6") == 64.0)  # runs on one thread
    assert (bf16x.get_num_threads(), shim.bf16x_get_num_threads()) == (lib_before, shim_before)
    # Restoring the OpenMP default unsets the limit again (bf16x_get_config marks a runtime setting).
    assert "(bf16x_set_num_threads)" not in bf16x.config()["threads"]


def test_threadpool_limits_by_prefix(shim):
    before = bf16x.get_num_threads()
    with threadpoolctl.threadpool_limits({"libbf16x": 1}):
        assert bf16x.get_num_threads() == 1 and shim.bf16x_get_num_threads() == 1
    assert bf16x.get_num_threads() == before


def test_threadpool_limits_the_first_call_in_a_fresh_process():
    # The library is loaded at import, so threadpoolctl sees it before the first call: a limit set around the
    # process's first bf16x.dgemm applies to it. Without the shim (libbf16x.so alone) and with 3 OpenMP threads by
    # default, so that the limit is visible on any machine.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "BF16X_NUM_THREADS")}
    env.update(OMP_NUM_THREADS="3", BF16X_VERBOSE="1")
    code = """if True:
        import numpy as np, threadpoolctl, bf16x
        with threadpoolctl.threadpool_limits(1, user_api="blas"):
            a = np.ones((64, 64))
            assert np.all(bf16x.dgemm(a, a, mode="fp64x6") == 64.0)
            print("inside", bf16x.get_num_threads())
        print("after", bf16x.get_num_threads())
    """
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["inside", "1", "after", "3"], r.stdout
    calls = [line for line in r.stderr.splitlines() if line.startswith("BF16X_VERBOSE,dgemm,")]
    assert len(calls) == 1 and ",threads=1," in calls[0], r.stderr
