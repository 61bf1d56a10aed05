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


# The routines by the precision of their modes (cgemm/zgemm take those of sgemm/dgemm).
_ROUTINE_PRECISION = {"sgemm": "s", "cgemm": "s", "dgemm": "d", "zgemm": "d"}


def get_mode(routine="dgemm"):
    """The effective default mode name of `routine` ("sgemm", "dgemm", "cgemm", "zgemm") in libbf16x (or in the
    preloaded shim where libbf16x is absent); ValueError for another routine name."""
    if routine not in _ROUTINE_PRECISION:
        raise ValueError(f"get_mode: unknown routine {routine!r} (valid: {', '.join(_ROUTINE_PRECISION)}; its modes: "
                         f"sgemm/cgemm {', '.join(_modes.SGEMM_MODES)}; dgemm/zgemm {', '.join(_modes.DGEMM_MODES)})")
    inst = _primary()
    value = inst.bf16x_get_dgemm_mode() if _ROUTINE_PRECISION[routine] == "d" else inst.bf16x_get_sgemm_mode()
    return _modes.name(value)


def set_engine(name):
    """Engine of calls that pass no engine, in every instance: a BF16 engine ("amx", "avx512bf16", "avx2",
    "reference", "amx-model") sets the slice modes' engine, an INT8-only one ("avx512vnni", "avx2-int8") the CRT
    modes'; "auto" or None removes the setting. ValueError for an unknown name, bf16x.Error for an engine this CPU
    cannot run (bf16x_set_engine)."""
    value = _modes.engine_value(name)
    for inst in _lib.instances():
        _lib.check(inst.bf16x_set_engine(value), "bf16x_set_engine")


def get_engine():
    """Name of the engine the slice modes (fp32x6, fp64x<d>) use in calls that pass none (bf16x_get_engine)."""
    return _modes.engine_name(_primary().bf16x_get_engine())


def get_crt_engine():
    """Name of the INT8 engine the CRT modes (fp64c<N>, fp32c<N>) use in calls that pass none
    (bf16x_get_crt_engine)."""
    return _modes.engine_name(_primary().bf16x_get_crt_engine())


def set_verbose(on):
    """Per-call verbose lines (docs/verbose.md) in every instance: True on, False off, None back to
    BF16X_VERBOSE."""
    if on is not None and not isinstance(on, bool):
        raise ValueError(f"set_verbose: True, False or None, not {on!r}")
    for inst in _lib.instances():
        inst.bf16x_set_verbose(-1 if on is None else int(on))


def get_verbose():
    """Whether per-call verbose lines are on (bf16x_get_verbose)."""
    return bool(_primary().bf16x_get_verbose())


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
    """Threads of bf16x's own parallel regions that calls use (bf16x_get_num_threads)."""
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
