"""Mode and engine names <-> the values of bf16x/bf16x.h (stable C API enumerators).

Kept in Python so that `bf16x.mode` works with the preloaded BLAS shim alone, which exports only the runtime
control (no bf16x_mode_from_name); tests/python checks the table against libbf16x's own bf16x_mode_from_name.
"""

DEFAULT, NATIVE, AUTO = 0, 1, 7
FP64C_BASE, FP32C_BASE = 100, 200
FP64C_RANGE, FP32C_RANGE = range(8, 21), range(5, 11)

_BOTH = {"native": NATIVE, "auto": AUTO}
_SGEMM = {"fp32x6": 2, "fp32cr": 9, "fp32x3": 10, **{f"fp32c{n}": FP32C_BASE + n for n in FP32C_RANGE}}
_DGEMM = {"fp64x6": 3, "fp64x10": 4, "fp64x15": 5, "fp64x21": 6, "fp64cr": 8,
          **{f"fp64c{n}": FP64C_BASE + n for n in FP64C_RANGE}}

ENGINES = {
    "auto": 0,
    "reference": 1,
    "avx512bf16": 2,
    "amx": 3,
    "amx-model": 4,
    "avx2": 5,
    "avx512vnni": 16,
    "avx2-int8": 17,
}

SGEMM_MODES = tuple(_BOTH) + tuple(_SGEMM)
DGEMM_MODES = tuple(_BOTH) + tuple(_DGEMM)


def precision_of(name):
    """'s', 'd' or 'both' for a mode name; ValueError if unknown."""
    if name in _BOTH:
        return "both"
    if name in _SGEMM:
        return "s"
    if name in _DGEMM:
        return "d"
    raise ValueError(f"unknown bf16x mode {name!r}; sgemm modes: {', '.join(SGEMM_MODES)}; "
                     f"dgemm modes: {', '.join(DGEMM_MODES)}")


def value(name):
    precision_of(name)
    return {**_BOTH, **_SGEMM, **_DGEMM}[name]


def name(value_):
    for table in (_BOTH, _SGEMM, _DGEMM):
        for k, v in table.items():
            if v == value_:
                return k
    return None


def for_routine(mode, routine):
    """The C value of `mode` (None, a name or a value) for routine 's' or 'd'; ValueError if it does not apply."""
    if mode is None:
        return DEFAULT
    if isinstance(mode, str):
        p = precision_of(mode)
        if p not in ("both", routine):
            which = "sgemm" if routine == "s" else "dgemm"
            valid = SGEMM_MODES if routine == "s" else DGEMM_MODES
            raise ValueError(f"mode {mode!r} is not a {which} mode (valid: {', '.join(valid)})")
        return value(mode)
    if isinstance(mode, int) and not isinstance(mode, bool):
        if mode == DEFAULT:
            return DEFAULT
        n = name(mode)
        if n is None:
            raise ValueError(f"unknown bf16x mode value {mode}")
        return for_routine(n, routine)
    raise ValueError(f"mode must be None, a mode name or a bf16x_mode value, not {type(mode).__name__}")


GUARDS = {"default": 0, "on": 1, "off": 2}


def guard_value(guard):
    """The bf16x_guard value of None ("default"), "on" or "off" (also True / False)."""
    if guard is None:
        return 0
    if isinstance(guard, bool):
        return GUARDS["on" if guard else "off"]
    if isinstance(guard, str) and guard in GUARDS:
        return GUARDS[guard]
    raise ValueError(f"guard must be None, True, False or one of {', '.join(GUARDS)}, not {guard!r}")


def engine_name(value_):
    """The name of a bf16x_engine value (the value as a string if this package does not know it)."""
    for k, v in ENGINES.items():
        if v == value_:
            return k
    return str(value_)


def engine_value(engine):
    if engine is None:
        return 0
    if isinstance(engine, str) and engine in ENGINES:
        return ENGINES[engine]
    raise ValueError(f"unknown bf16x engine {engine!r} (valid: {', '.join(ENGINES)})")
