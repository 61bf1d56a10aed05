"""Finding and loading libbf16x, and the bf16x instances already in the process.

Two kinds of instance can live in one process: libbf16x.so, which this package loads for bf16x.dgemm/sgemm, and
the BLAS shim libbf16x_blas.so when it is preloaded (LD_PRELOAD), which has the library linked in statically and
serves numpy's BLAS calls. Each has its own runtime settings; bf16x.mode and the thread-pool controller act on
every instance present.
"""
import ctypes
import ctypes.util
import os
import threading

_c_int, _c_int64, _c_double, _c_char_p, _c_void_p = (ctypes.c_int, ctypes.c_int64, ctypes.c_double, ctypes.c_char_p,
                                                       ctypes.c_void_p)


# The ABI this package is written for: libbf16x.so.1 (public structs with a leading size field).
SONAME = "libbf16x.so.1"


class Error(RuntimeError):
    """A status other than BF16X_OK from the library; .status is the bf16x_status value."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


# Twins of the public structs of bf16x/bf16x.h; tests/python/test_abi.py compares every field's offset and size
# with the C compiler's. `c_name` is the C type each one mirrors.
class Stats(ctypes.Structure):
    """bf16x_stats."""
    c_name = "bf16x_stats"
    _fields_ = [("size", ctypes.c_size_t), ("mode", _c_int), ("engine", _c_int), ("tile_loads", ctypes.c_uint64),
                ("tile_stores", ctypes.c_uint64), ("dot_products", ctypes.c_uint64), ("micro_tiles", ctypes.c_uint64),
                ("seconds_split", _c_double), ("seconds_compute", _c_double), ("workspace_bytes", ctypes.c_uint64),
                ("entries_repaired", ctypes.c_uint64), ("seconds_guard", _c_double), ("guard", _c_int),
                # version 3: the phases
                ("seconds_scan", _c_double), ("seconds_pack", _c_double), ("seconds_products", _c_double),
                ("seconds_write", _c_double), ("bytes_scan", ctypes.c_uint64), ("bytes_pack", ctypes.c_uint64),
                ("bytes_write", ctypes.c_uint64),
                # version 4: the products' sums outside the engine
                ("seconds_sums", _c_double)]


class Options(ctypes.Structure):
    """bf16x_options; `size` is set by bf16x_options_init_sized, so the library reads no more than this holds."""
    c_name = "bf16x_options"
    _fields_ = [("size", ctypes.c_size_t), ("mode", _c_int), ("engine", _c_int), ("split", _c_int),
                ("fuse_diagonals", _c_int), ("block_k", _c_int), ("auto_target", _c_double),
                ("stats", ctypes.POINTER(Stats)), ("complex_method", _c_int), ("guard", _c_int)]


class ComplexFloat(ctypes.Structure):
    """bf16x_complex_float."""
    c_name = "bf16x_complex_float"
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


class ComplexDouble(ctypes.Structure):
    """bf16x_complex_double."""
    c_name = "bf16x_complex_double"
    _fields_ = [("re", _c_double), ("im", _c_double)]


# Runtime control: exported by libbf16x.so and by the shim alike (bf16x/bf16x_runtime.h).
_RUNTIME = {
    "bf16x_set_sgemm_mode": (_c_int, [_c_int]),
    "bf16x_set_dgemm_mode": (_c_int, [_c_int]),
    "bf16x_get_sgemm_mode": (_c_int, []),
    "bf16x_get_dgemm_mode": (_c_int, []),
    "bf16x_set_num_threads": (_c_int, [_c_int]),
    "bf16x_get_num_threads": (_c_int, []),
    "bf16x_set_engine": (_c_int, [_c_int]),
    "bf16x_get_engine": (_c_int, []),
    "bf16x_set_verbose": (None, [_c_int]),
    "bf16x_get_verbose": (_c_int, []),
    "bf16x_version": (_c_char_p, []),
    "bf16x_get_config": (_c_char_p, []),
}
_P = _c_void_p
_I = _c_int64
_SHAPE = [_c_int, _c_int, _c_int, _I, _I, _I]  # layout, transa, transb, m, n, k
_OPT = ctypes.POINTER(Options)


def _gemm_args(scalar):
    return _SHAPE + [scalar, _P, _I, _P, _I, scalar, _P, _I, _OPT]


def _batch_args(scalar):
    return _SHAPE + [scalar, _P, _I, _I, _P, _I, _I, scalar, _P, _I, _I, _I, _OPT]


# Level 3 beyond GEMM (bf16x/level3.h), by routine letter: declared where the library has them (one of an earlier
# release lacks them: the package still loads, and a call names what is missing). tests/python/test_abi.py compares
# these argument lists with the header's prototypes.
_SCALARS = {"s": (ctypes.c_float, ctypes.c_float), "d": (_c_double, _c_double), "c": (ComplexFloat, ctypes.c_float),
            "z": (ComplexDouble, _c_double)}


def _level3_table():
    t = {}
    for p, (s, r) in _SCALARS.items():
        e = [_c_int, _c_int, _c_int]  # layout, uplo, trans (syrk ...) or layout, side, uplo (symm, hemm)
        t[f"bf16x_{p}syrk_ex"] = (_c_int, e + [_I, _I, s, _P, _I, s, _P, _I, _OPT])
        t[f"bf16x_{p}syr2k_ex"] = (_c_int, e + [_I, _I, s, _P, _I, _P, _I, s, _P, _I, _OPT])
        t[f"bf16x_{p}symm_ex"] = (_c_int, e + [_I, _I, s, _P, _I, _P, _I, s, _P, _I, _OPT])
        for name in ("trmm", "trsm"):  # layout, side, uplo, transa, diag
            t[f"bf16x_{p}{name}_ex"] = (_c_int, e + [_c_int, _c_int, _I, _I, s, _P, _I, _P, _I, _OPT])
        t[f"bf16x_{p}gemmt_ex"] = (_c_int, e + [_c_int, _I, _I, s, _P, _I, _P, _I, s, _P, _I, _OPT])
        if p in "cz":
            t[f"bf16x_{p}herk_ex"] = (_c_int, e + [_I, _I, r, _P, _I, r, _P, _I, _OPT])
            t[f"bf16x_{p}her2k_ex"] = (_c_int, e + [_I, _I, s, _P, _I, _P, _I, r, _P, _I, _OPT])
            t[f"bf16x_{p}hemm_ex"] = (_c_int, e + [_I, _I, s, _P, _I, _P, _I, s, _P, _I, _OPT])
    return t


LEVEL3 = _level3_table()


# Runtime control that a shim of an earlier release may lack: declared where present, so that such a shim still
# counts as an instance (bf16x.mode reaches it); calling one that is absent raises AttributeError.
_RUNTIME_LATER = {
    "bf16x_get_crt_engine": (_c_int, []),
}

# The GEMM entry points and helpers of libbf16x.so only.
_LIBRARY = {
    "bf16x_sgemm_ex": (_c_int, _gemm_args(ctypes.c_float)),
    "bf16x_dgemm_ex": (_c_int, _gemm_args(_c_double)),
    "bf16x_cgemm_ex": (_c_int, _gemm_args(ComplexFloat)),
    "bf16x_zgemm_ex": (_c_int, _gemm_args(ComplexDouble)),
    "bf16x_sgemm_batch_strided": (_c_int, _batch_args(ctypes.c_float)),
    "bf16x_dgemm_batch_strided": (_c_int, _batch_args(_c_double)),
    "bf16x_cgemm_batch_strided": (_c_int, _batch_args(ComplexFloat)),
    "bf16x_zgemm_batch_strided": (_c_int, _batch_args(ComplexDouble)),
    "bf16x_options_init_sized": (_c_int, [_OPT, ctypes.c_size_t]),
    "bf16x_stats_init_sized": (_c_int, [ctypes.POINTER(Stats), ctypes.c_size_t]),
    "bf16x_status_string": (_c_char_p, [_c_int]),
    "bf16x_mode_from_name": (_c_int, [_c_char_p]),
    "bf16x_mode_name": (_c_char_p, [_c_int]),
}


def _declare(dll, table, optional=False):
    for name, (restype, argtypes) in table.items():
        if optional and not hasattr(dll, name):
            continue
        f = getattr(dll, name)
        f.restype, f.argtypes = restype, argtypes


def _candidates():
    """Where libbf16x may be, in order: BF16X_LIBRARY, the lib dir of a `cmake --install` (written next to the
    package at install time), then the dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache)."""
    env = os.environ.get("BF16X_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _install  # generated by cmake --install only
        yield os.path.normpath(os.path.join(os.path.dirname(__file__), _install.LIBDIR_FROM_PACKAGE, SONAME))
    except ImportError:
        pass
    yield SONAME
    found = ctypes.util.find_library("bf16x")
    if found:
        yield found


_lock = threading.Lock()
_library = None
_library_error = None


def library():
    """libbf16x.so, loaded once (RTLD_LOCAL: its symbols stay out of the global namespace)."""
    global _library, _library_error
    with _lock:
        if _library is None and _library_error is None:
            tried = []
            for path in _candidates():
                try:
                    dll = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
                    _declare(dll, _RUNTIME)
                    _declare(dll, _RUNTIME_LATER, optional=True)
                    _declare(dll, _LIBRARY)
                    _declare(dll, LEVEL3, optional=True)
                    _library = dll
                    break
                except (OSError, AttributeError) as e:
                    tried.append(f"{path}: {e}")
            else:
                _library_error = ("libbf16x not found; set BF16X_LIBRARY to the path of libbf16x.so (tried: " +
                                  "; ".join(tried) + ")")
        if _library is None:
            raise OSError(_library_error)
        return _library


def library_or_none():
    try:
        return library()
    except OSError:
        return None


def global_instance():
    """The bf16x in the process's global namespace (the preloaded shim, or a libbf16x the program links), found
    the way the program's own BLAS calls are bound; None if there is none."""
    dll = ctypes.CDLL(None)
    try:
        _declare(dll, _RUNTIME)
    except AttributeError:
        return None
    _declare(dll, _RUNTIME_LATER, optional=True)
    return dll


def _address(dll, name):
    return ctypes.cast(getattr(dll, name), _c_void_p).value


def instances():
    """Every distinct bf16x instance present: the global one first, then libbf16x.so if it is another object."""
    out = []
    g = global_instance()
    if g is not None:
        out.append(g)
    lib = library_or_none()
    if lib is not None and (g is None or _address(g, "bf16x_set_dgemm_mode") != _address(lib,
                                                                                       "bf16x_set_dgemm_mode")):
        out.append(lib)
    if not out:
        raise OSError("no bf16x in this process: libbf16x.so not found (set BF16X_LIBRARY) and no "
                      "libbf16x_blas.so preloaded")
    return out


def options(lib, mode, engine, guard=0):
    """A bf16x_options with the library's defaults (sized to this package's struct), then mode, engine and guard."""
    opt = Options()
    check(lib.bf16x_options_init_sized(ctypes.byref(opt), ctypes.sizeof(opt)), "bf16x_options_init_sized")
    opt.mode, opt.engine, opt.guard = mode, engine, guard
    return opt


def entry(lib, name):
    """The entry point `name` of libbf16x (a level-3 routine); OSError where this library predates it."""
    if name not in LEVEL3 or not hasattr(lib, name):
        raise OSError(f"{name}: not in the libbf16x loaded ({getattr(lib, '_name', '?')}); a library of an earlier "
                      "release, without the level-3 routines (set BF16X_LIBRARY to a newer libbf16x.so)")
    return getattr(lib, name)


def check(status, what):
    if status != 0:
        lib = library_or_none()
        text = lib.bf16x_status_string(status).decode() if lib is not None else f"status {status}"
        raise Error(status, f"{what}: {text}")
