"""bf16x: FP32 and FP64 matrix products from BF16 matrix-engine products (docs/python.md).

    import bf16x
    c = bf16x.dgemm(a, b, mode="fp64x15")        # C = A B in one of the library's modes
    c = bf16x.zgemm(a, b, mode="fp64x21")        # complex128 (cgemm: complex64)
    with bf16x.mode("fp64x6"):                     # the default mode of every bf16x in the process,
        c = a @ b                                  # numpy's too when libbf16x_blas.so is preloaded

Products (numpy arrays in, numpy arrays out):
    dgemm, sgemm, zgemm, cgemm    C = alpha op(A) op(B) + beta C in one of the modes (DGEMM_MODES, SGEMM_MODES)
    matmul                        a @ b, stacks in one batched call
    syrk, herk, syr2k, her2k, symm, hemm, trmm, trsm, gemmt
                                  the rest of level 3 in the same modes; the dtype picks s, d, c or z
Process-wide settings (every bf16x instance in the process: libbf16x.so and the preloaded BLAS shim):
    mode, get_mode                the default mode (a context manager), and the effective one
    set_engine, get_engine, get_crt_engine    the engine of calls that name none (BF16 and INT8 engines)
    set_num_threads, get_num_threads, MAX_THREADS    bf16x's threads (threadpoolctl limits them too)
    set_verbose, get_verbose      one line per call on stderr (docs/verbose.md)
    config, version               what the library sees in this process, and its version
Errors: ValueError for bad arguments, bf16x.Error (with .status) for a status of the library.

libbf16x.so is loaded at import (BF16X_LIBRARY, else the install's or the loader's search), so threadpoolctl sees it
before the first call; the package imports without it, for use with the preloaded shim alone.
"""
from ._gemm import cgemm, dgemm, matmul, sgemm, zgemm
from ._level3 import gemmt, hemm, her2k, herk, symm, syr2k, syrk, trmm, trsm
from ._lib import Error
from ._modes import DGEMM_MODES, SGEMM_MODES
from ._runtime import (MAX_THREADS, config, get_crt_engine, get_engine, get_mode, get_num_threads, get_verbose, mode,
                       set_engine, set_num_threads, set_verbose, version)
from . import _lib, _threadpool

__version__ = "0.1.0"
__all__ = ["dgemm", "sgemm", "zgemm", "cgemm", "matmul", "syrk", "herk", "syr2k", "her2k", "symm", "hemm", "trmm",
           "trsm", "gemmt", "mode", "get_mode", "set_engine", "get_engine",
           "get_crt_engine", "set_num_threads", "get_num_threads", "MAX_THREADS", "set_verbose", "get_verbose",
           "config", "version", "Error", "SGEMM_MODES", "DGEMM_MODES"]

_threadpool.register()
# Now rather than at the first call: threadpoolctl lists (and threadpool_limits limits) only the libraries loaded
# when it looks, so a limit set before the first bf16x.dgemm would miss it.
_lib.library_or_none()
