"""bf16x: FP32 and FP64 matrix products from BF16 matrix-engine products (docs/python.md).

    import bf16x
    c = bf16x.dgemm(a, b, mode="fp64x15")        # C = A B in one of the library's modes
    c = bf16x.zgemm(a, b, mode="fp64x21")        # complex128 (cgemm: complex64)
    with bf16x.mode("fp64x6"):                     # the default mode of every bf16x in the process,
        c = a @ b                                  # numpy's too when libbf16x_blas.so is preloaded
"""
from ._gemm import cgemm, dgemm, matmul, sgemm, zgemm
from ._lib import Error
from ._modes import DGEMM_MODES, SGEMM_MODES
from ._runtime import MAX_THREADS, config, get_mode, get_num_threads, mode, set_num_threads, version
from . import _threadpool

__version__ = "0.1.0"
__all__ = ["dgemm", "sgemm", "zgemm", "cgemm", "matmul", "mode", "get_mode", "config", "version", "get_num_threads",
           "set_num_threads", "MAX_THREADS", "Error", "SGEMM_MODES", "DGEMM_MODES"]

_threadpool.register()
