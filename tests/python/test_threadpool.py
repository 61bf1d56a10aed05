"""threadpoolctl sees bf16x (libbf16x.so and the preloaded shim) and limits it through bf16x_set_num_threads."""
import os

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
