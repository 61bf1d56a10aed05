"""The package's view of the library: version, config, and the mode table against the library's own names."""

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
    with pytest.raises(ValueError):
        bf16x.set_num_threads(-1)
