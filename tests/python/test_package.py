"""The package's view of the library: version, config, and the mode table against the library's own names."""
import ctypes
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


def test_get_mode_refuses_an_unknown_routine():
    assert bf16x.get_mode("dgemm") in bf16x.DGEMM_MODES and bf16x.get_mode("sgemm") in bf16x.SGEMM_MODES
    assert bf16x.get_mode("zgemm") == bf16x.get_mode("dgemm") and bf16x.get_mode("cgemm") == bf16x.get_mode("sgemm")
    with pytest.raises(ValueError, match="unknown routine 'bogus'.*sgemm.*dgemm.*fp64x21"):
        bf16x.get_mode("bogus")


def test_set_verbose_and_engine_act_on_every_instance(shim):
    lib = _lib.library()
    try:
        bf16x.set_verbose(True)
        assert bf16x.get_verbose() and lib.bf16x_get_verbose() == 1 and shim.bf16x_get_verbose() == 1
        bf16x.set_verbose(False)
        assert not bf16x.get_verbose() and shim.bf16x_get_verbose() == 0
    finally:
        bf16x.set_verbose(None)  # back to BF16X_VERBOSE (unset here)
    assert not bf16x.get_verbose()
    with pytest.raises(ValueError):
        bf16x.set_verbose(2)

    shim.bf16x_get_engine.restype = ctypes.c_int
    auto = bf16x.get_engine()
    assert auto in _modes.ENGINES and bf16x.get_crt_engine() in _modes.ENGINES
    try:
        bf16x.set_engine("reference")
        assert bf16x.get_engine() == "reference" and shim.bf16x_get_engine() == _modes.ENGINES["reference"]
    finally:
        bf16x.set_engine(None)
    assert bf16x.get_engine() == auto
    with pytest.raises(ValueError, match="unknown bf16x engine 'bogus'"):
        bf16x.set_engine("bogus")


def test_help_documents_the_functions():
    import pydoc

    text = pydoc.render_doc(bf16x, renderer=pydoc.plaintext)
    functions = [n for n in bf16x.__all__ if callable(getattr(bf16x, n)) and n != "Error"]
    for name in functions:
        assert getattr(bf16x, name).__doc__, f"bf16x.{name} has no docstring"
        assert f"    {name}(" in text, f"help(bf16x) does not document {name}"
    # The module's own text (first in help) names every public function, ahead of Error's inherited members.
    description = text[:text.index("CLASSES")]
    for name in bf16x.__all__:
        assert name in description, f"the module docstring does not mention {name}"
