"""Process-wide settings: bf16x.mode, threads, config, version."""
import contextlib

from . import _lib, _modes


def _set_modes(inst, sgemm_value, dgemm_value):
    if sgemm_value is not None:
        _lib.check(inst.bf16x_set_sgemm_mode(sgemm_value), "bf16x_set_sgemm_mode")
    if dgemm_value is not None:
        _lib.check(inst.bf16x_set_dgemm_mode(dgemm_value), "bf16x_set_dgemm_mode")


@contextlib.contextmanager
def mode(name=None, *, sgemm=None, dgemm=None):
    """Within the block, calls that take the default mode run `name` (sgemm or dgemm, by the mode's precision;
    "native" and "auto" set both), or the sgemm= / dgemm= modes given separately.

    Acts on every bf16x instance in the process: the BLAS shim libbf16x_blas.so when it is preloaded (so numpy's
    `@` follows the block; it is looked up in the global namespace, where numpy's BLAS calls are bound) and the
    libbf16x.so this package uses. The previous modes are restored on exit, also when the block raises. Setting
    "auto" removes the runtime setting, so a BF16X_DGEMM_MODE / BF16X_SGEMM_MODE of the environment applies."""
    if name is not None:
        if sgemm is not None or dgemm is not None:
            raise ValueError("bf16x.mode: give a mode name or sgemm=/dgemm=, not both")
        p = _modes.precision_of(name)
        sgemm = name if p in ("both", "s") else None
        dgemm = name if p in ("both", "d") else None
    if sgemm is None and dgemm is None:
        raise ValueError("bf16x.mode: no mode given")
    s_value = _modes.for_routine(sgemm, "s") if sgemm is not None else None
    d_value = _modes.for_routine(dgemm, "d") if dgemm is not None else None
    saved = []
    try:
        for inst in _lib.instances():
            saved.append((inst, inst.bf16x_get_sgemm_mode(), inst.bf16x_get_dgemm_mode()))
            _set_modes(inst, s_value, d_value)
        yield
    finally:
        # The getters return the effective mode; setting it back restores the behaviour (auto clears the setting).
        for inst, s_prev, d_prev in reversed(saved):
            _set_modes(inst, s_prev if s_value is not None else None, d_prev if d_value is not None else None)


def get_mode(routine="dgemm"):
    """The effective default mode name of libbf16x (or of the preloaded shim where libbf16x is absent)."""
    inst = _primary()
    value = inst.bf16x_get_dgemm_mode() if routine == "dgemm" else inst.bf16x_get_sgemm_mode()
    return _modes.name(value)


def _primary():
    lib = _lib.library_or_none()
    return lib if lib is not None else _lib.instances()[0]


# BF16X_MAX_THREADS of bf16x/bf16x_runtime.h: bf16x_set_num_threads refuses more.
MAX_THREADS = 4096


def set_num_threads(n):
    """Threads of bf16x's own parallel regions in every instance, 0..MAX_THREADS (0: BF16X_NUM_THREADS, else
    OpenMP's default)."""
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_THREADS:
        raise ValueError(f"number of threads must be an int in 0..{MAX_THREADS}, got {n!r}")
    for inst in _lib.instances():
        _lib.check(inst.bf16x_set_num_threads(n), "bf16x_set_num_threads")


def get_num_threads():
    return _primary().bf16x_get_num_threads()


def version():
    """Version string of libbf16x ("MAJOR.MINOR.PATCH")."""
    return _primary().bf16x_version().decode()


def config():
    """bf16x_get_config() as a dict (version, cpu, isa, engines, host blas, threads, modes)."""
    out = {}
    for line in _primary().bf16x_get_config().decode().splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out
