"""dgemm / sgemm / matmul on numpy arrays.

Every 2-D operand is passed as BLAS sees memory: an array with unit stride along its columns is row-major with
ld = its row stride, one with unit stride along its rows is column-major with ld = its column stride, and a
row-major operand of a column-major call is the transpose of a column-major one (flip its transpose flag). The
call is made column-major; a row-major C is computed as C^T = op(B)^T op(A)^T. Only an operand whose memory BLAS
cannot describe (no unit stride, negative or zero strides, misaligned, or overlapping the output) is copied.
"""
import ctypes

import numpy as np

from . import _lib, _modes

_COL_MAJOR, _NO_TRANS, _TRANS = 102, 111, 112


def _blas_view(x):
    """(array, ld, row_major) describing x's memory for BLAS, or None if BLAS cannot express it."""
    r, c = x.shape
    e = x.itemsize
    if not x.flags.aligned:
        return None
    s0, s1 = x.strides
    # A dimension of extent 1 has no meaningful stride: any ld >= the other extent will do.
    if (s1 == e or c == 1) and (r == 1 or (s0 > 0 and s0 % e == 0 and s0 // e >= c)):
        return x, max(1, c, s0 // e if r > 1 else c), True
    if (s0 == e or r == 1) and (c == 1 or (s1 > 0 and s1 % e == 0 and s1 // e >= r)):
        return x, max(1, r, s1 // e if c > 1 else r), False
    return None


def _operand(x, dtype, name):
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {x.ndim}-D with shape {x.shape}")
    if np.iscomplexobj(x):
        raise ValueError(f"{name} is complex; bf16x computes real GEMMs only")
    if x.dtype != dtype:
        if not (np.issubdtype(x.dtype, np.number) or x.dtype == np.bool_):
            raise ValueError(f"{name} has dtype {x.dtype}, not a real numeric type")
        x = x.astype(dtype)
    return x


def _gemm(routine, a, b, mode, alpha, beta, out, trans_a, trans_b, engine):
    dtype = np.float64 if routine == "d" else np.float32
    a = _operand(a, dtype, "a")
    b = _operand(b, dtype, "b")
    opa = a.T if trans_a else a
    opb = b.T if trans_b else b
    m, k = opa.shape
    kb, n = opb.shape
    if k != kb:
        raise ValueError(f"inner dimensions differ: op(a) is {m}x{k}, op(b) is {kb}x{n}")
    mode_value = _modes.for_routine(mode, routine)
    engine_value = _modes.engine_value(engine)
    alpha, beta = float(alpha), float(beta)

    if out is None:
        if beta != 0.0:
            raise ValueError("beta != 0 needs out= (the C that beta scales)")
        out = np.empty((m, n), dtype=dtype)
    else:
        if not isinstance(out, np.ndarray):
            raise ValueError("out must be a numpy array")
        if out.dtype != dtype:
            raise ValueError(f"out must have dtype {np.dtype(dtype).name}, has {out.dtype}")
        if out.shape != (m, n):
            raise ValueError(f"out has shape {out.shape}, the product is {(m, n)}")
        if not out.flags.writeable:
            raise ValueError("out is read-only")
    if m == 0 or n == 0:
        return out

    c_view = _blas_view(out)
    target = out if c_view is not None else np.array(out, order="F") if beta != 0.0 else np.empty((m, n), dtype, "F")
    c_arr, ldc, c_row = c_view if c_view is not None else (target, max(1, m), False)

    # Inputs that BLAS cannot describe, or that share memory with C (C is written while they are read), are copied.
    def view(x):
        if not np.may_share_memory(x, c_arr):
            v = _blas_view(x)
            if v is not None:
                return v
        x = np.ascontiguousarray(x)
        return x, max(1, x.shape[1]), True

    a_arr, lda, a_row = view(a)
    b_arr, ldb, b_row = view(b)
    # Column-major call: a row-major stored operand is its transpose in column-major storage.
    ta = bool(trans_a) != a_row
    tb = bool(trans_b) != b_row
    if c_row:
        # C row-major = (C^T column-major) = op(B)^T op(A)^T: swap the operands and flip both transposes.
        m, n = n, m
        a_arr, lda, ta, b_arr, ldb, tb = b_arr, ldb, not tb, a_arr, lda, not ta

    lib = _lib.library()
    opt = _lib.Options()
    lib.bf16x_options_init(ctypes.byref(opt))
    opt.mode, opt.engine = mode_value, engine_value
    fn = lib.bf16x_dgemm_ex if routine == "d" else lib.bf16x_sgemm_ex
    status = fn(_COL_MAJOR, _TRANS if ta else _NO_TRANS, _TRANS if tb else _NO_TRANS, m, n, k, alpha,
                a_arr.ctypes.data, lda, b_arr.ctypes.data, ldb, beta, c_arr.ctypes.data, ldc, ctypes.byref(opt))
    _lib.check(status, f"bf16x_{routine}gemm")
    if c_view is None:
        out[...] = target
    return out


def dgemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, engine=None):
    """C = alpha op(a) op(b) + beta C in FP64, op(x) = x or x.T; returns C (out, if given).

    mode: None (the process default: bf16x.mode / BF16X_DGEMM_MODE / auto), a dgemm mode name ("native", "auto",
    "fp64x6", "fp64x10", "fp64x15", "fp64x21", "fp64c8".."fp64c20") or its bf16x_mode value. engine: None or an
    engine name ("avx512bf16", "avx2", "reference", ...). Arrays of any order and strides; other real dtypes are
    converted to float64. ValueError for shapes, dtypes and modes; bf16x.Error for a status of the library."""
    return _gemm("d", a, b, mode, alpha, beta, out, trans_a, trans_b, engine)


def sgemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, engine=None):
    """As dgemm in FP32: modes "native", "auto", "fp32x6", "fp32c5".."fp32c10"."""
    return _gemm("s", a, b, mode, alpha, beta, out, trans_a, trans_b, engine)


def matmul(a, b, mode=None, engine=None):
    """a @ b through bf16x: float32 @ float32 runs sgemm, anything else real dgemm. 1-D operands are vectors as in
    numpy.matmul; operands with more than two dimensions are stacks of matrices (broadcast)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    routine = "s" if a.dtype == np.float32 and b.dtype == np.float32 else "d"
    a2 = a[np.newaxis, :] if a.ndim == 1 else a
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align")
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    dtype = np.float32 if routine == "s" else np.float64
    out = np.empty(batch + (a2.shape[-2], b2.shape[-1]), dtype=dtype)
    a3 = np.broadcast_to(a2, batch + a2.shape[-2:])
    b3 = np.broadcast_to(b2, batch + b2.shape[-2:])
    for idx in np.ndindex(*batch):
        _gemm(routine, a3[idx], b3[idx], mode, 1.0, 0.0, out[idx], False, False, engine)
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out
