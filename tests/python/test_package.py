"""The package's view of the library: version, config, and the mode table against the library's own names."""
import os
import subprocess
import sys

import pytest

import bf16x
from bf16x import _lib, _modes


def test_version_and_config():
    assert bf16x.version() == bf16x.__version__
    cfg = bf16x.config()
    assert cfg["version"] == bf16x.version()
    for key in ("cpu", "engines available", "engine selected", "host blas", "threads", "dgemm mode"):
        assert key in cfg


def test_mode_table_matches_the_library():
    lib = _lib.library()
    for name in _modes.SGEMM_MODES + _modes.DGEMM_MODES:
        assert lib.bf16x_mode_from_name(name.encode()) == _modes.value(name), name
        assert lib.bf16x_mode_name(_modes.value(name)).decode() == name
    assert lib.bf16x_mode_from_name(b"fp64x7") == -1
    with pytest.raises(ValueError):
        _modes.value("fp64x7")


def test_set_num_threads_validates():
    before = bf16x.get_num_threads()
    for bad in (-1, bf16x.MAX_THREADS + 1, 10**6, 2**40, 1.5, True):
        with pytest.raises(ValueError):
            bf16x.set_num_threads(bad)
    assert bf16x.get_num_threads() == before
    # the library's own limit is the package's: BF16X_ERR_OPTIONS (15) past it
    lib = _lib.library()
    assert lib.bf16x_set_num_threads(bf16x.MAX_THREADS + 1) == 15 and lib.bf16x_set_num_threads(-1) == 15
    try:
        bf16x.set_num_threads(bf16x.MAX_THREADS)
        assert bf16x.get_num_threads() == bf16x.MAX_THREADS
    finally:
        bf16x.set_num_threads(0)
    assert bf16x.get_num_threads() == before


def _threads_in_fresh_process(value):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["BF16X_NUM_THREADS"] = value
    code = "import bf16x; print(bf16x.get_num_threads(), '|', bf16x.config()['threads'])"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    return r.stdout.strip(), r.stderr


def test_num_threads_environment_variable():
    assert _threads_in_fresh_process("3") == ("3 | 3 (BF16X_NUM_THREADS)", "")
    out, err = _threads_in_fresh_process("99999")
    assert "(BF16X_NUM_THREADS)" not in out
    assert err == "bf16x: BF16X_NUM_THREADS=99999 is not an integer in 0..4096; using OpenMP's default\n"
