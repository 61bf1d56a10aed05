"""dgemm / sgemm / zgemm / cgemm / matmul on numpy arrays.

Every 2-D operand is passed as BLAS sees memory: an array with unit stride along its columns is row-major with
ld = its row stride, one with unit stride along its rows is column-major with ld = its column stride. The call
takes the layout of C (a C-order result is a BF16X_ROW_MAJOR call, a Fortran-order one BF16X_COL_MAJOR), and an
operand stored in the other layout is its transpose there (its transpose flag flips). The library computes both
layouts in the same order, so the result has the same bits whatever the orders of a, b and out. Only an operand
whose memory BLAS cannot describe (no unit stride, negative or zero strides, misaligned, or overlapping the output)
is copied. matmul makes one strided batched call (bf16x_?gemm_batch_strided) for a whole stack.
"""
import ctypes

import numpy as np

from . import _lib, _modes

_ROW_MAJOR, _COL_MAJOR, _NO_TRANS, _TRANS = 101, 102, 111, 112

# routine letter -> (numpy dtype, ctypes scalar, precision of its modes)
_ROUTINES = {
    "s": (np.dtype(np.float32), ctypes.c_float, "s"),
    "d": (np.dtype(np.float64), ctypes.c_double, "d"),
    "c": (np.dtype(np.complex64), _lib.ComplexFloat, "s"),
    "z": (np.dtype(np.complex128), _lib.ComplexDouble, "d"),
}


def _blas_view(x):
    """(array, ld, row_major) describing 2-D x's memory for BLAS, or None if BLAS cannot express it."""
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


def _operand(x, routine, name, ndim=2):
    x = np.asarray(x)
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must be a 2-D array, got {x.ndim}-D with shape {x.shape}")
    dtype = _ROUTINES[routine][0]
    if np.iscomplexobj(x) and routine in "sd":
        raise ValueError(f"{name} is complex; use bf16x.cgemm / bf16x.zgemm (or matmul) for complex products")
    if x.dtype != dtype:
        if not (np.issubdtype(x.dtype, np.number) or x.dtype == np.bool_):
            raise ValueError(f"{name} has dtype {x.dtype}, not a numeric type")
        x = x.astype(dtype)
    return x


def _scalar(routine, v):
    ctype = _ROUTINES[routine][1]
    if routine in "sd":
        if isinstance(v, complex) or np.iscomplexobj(v):
            raise ValueError("alpha and beta must be real for a real GEMM")
        return float(v)
    v = complex(v)
    return ctype(v.real, v.imag)


def _check_out(out, shape, dtype):
    if not isinstance(out, np.ndarray):
        raise ValueError("out must be a numpy array")
    if out.dtype != dtype:
        raise ValueError(f"out must have dtype {dtype.name}, has {out.dtype}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}, the product is {shape}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def _input_view(x, c):
    """(array, ld, row_major) of an input, copied (C order) where BLAS cannot describe it or it may share memory
    with C (which is written while the inputs are read)."""
    if not np.may_share_memory(x, c):
        v = _blas_view(x)
        if v is not None:
            return v
    x = np.array(x, order="C", copy=True)  # a copy even where x is C-contiguous: C may be x itself
    return x, max(1, x.shape[1]), True


def _trans(flag, stored_rows, c_rows):
    """The transpose argument of an operand: op is x or x^T, and x stored in the other layout than the call's is
    the transpose of what the call reads."""
    return _TRANS if bool(flag) != (stored_rows != c_rows) else _NO_TRANS


def _gemm(routine, a, b, mode, alpha, beta, out, trans_a, trans_b, engine, guard):
    dtype, _, precision = _ROUTINES[routine]
    a = _operand(a, routine, "a")
    b = _operand(b, routine, "b")
    opa = a.T if trans_a else a
    opb = b.T if trans_b else b
    m, k = opa.shape
    kb, n = opb.shape
    if k != kb:
        raise ValueError(f"inner dimensions differ: op(a) is {m}x{k}, op(b) is {kb}x{n}")
    opt_args = (_modes.for_routine(mode, precision), _modes.engine_value(engine), _modes.guard_value(guard))
    alpha, beta = _scalar(routine, alpha), _scalar(routine, beta)
    beta_zero = complex(beta.re, beta.im) == 0 if routine in "cz" else beta == 0.0

    if out is None:
        if not beta_zero:
            raise ValueError("beta != 0 needs out= (the C that beta scales)")
        out = np.empty((m, n), dtype=dtype)
    else:
        _check_out(out, (m, n), dtype)
    if m == 0 or n == 0:
        return out

    c_view = _blas_view(out)
    target = out if c_view is not None else np.array(out, order="F") if not beta_zero else np.empty((m, n), dtype, "F")
    c_arr, ldc, c_rows = c_view if c_view is not None else (target, max(1, m), False)
    a_arr, lda, a_rows = _input_view(a, c_arr)
    b_arr, ldb, b_rows = _input_view(b, c_arr)

    lib = _lib.library()
    opt = _lib.options(lib, *opt_args)
    fn = getattr(lib, f"bf16x_{routine}gemm_ex")
    status = fn(_ROW_MAJOR if c_rows else _COL_MAJOR, _trans(trans_a, a_rows, c_rows), _trans(trans_b, b_rows, c_rows),
                m, n, k, alpha, a_arr.ctypes.data, lda, b_arr.ctypes.data, ldb, beta, c_arr.ctypes.data, ldc,
                ctypes.byref(opt))
    _lib.check(status, f"bf16x_{routine}gemm")
    if c_view is None:
        out[...] = target
    return out


def dgemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, engine=None, guard=None):
    """C = alpha op(a) op(b) + beta C in FP64, op(x) = x or x.T; returns C (out, if given).

    mode: None (the process default: bf16x.mode / BF16X_DGEMM_MODE / auto), a dgemm mode name ("native", "auto",
    "fp64x6", "fp64x10", "fp64x15", "fp64x21", "fp64c8".."fp64c20", "fp64cr": every entry correctly rounded) or its
    bf16x_mode value. engine: None or an
    engine name ("avx512bf16", "avx2", "reference", ...). guard: None (the default: BF16X_GUARD, else the
    componentwise guard on for fp64x21, fp64c15..20 and auto), "on" / True or "off" / False (the raw mode; see
    docs/numerics.md, "Componentwise guard"). Arrays of any order and strides; other real dtypes are
    converted to float64. The bits of C do not depend on the orders of a, b and out. ValueError for shapes,
    dtypes and modes; bf16x.Error for a status of the library."""
    return _gemm("d", a, b, mode, alpha, beta, out, trans_a, trans_b, engine, guard)


def sgemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, engine=None, guard=None):
    """As dgemm in FP32: modes "native", "auto", "fp32x6", "fp32x3", "fp32c5".."fp32c10", "fp32cr"."""
    return _gemm("s", a, b, mode, alpha, beta, out, trans_a, trans_b, engine, guard)


def zgemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, engine=None, guard=None):
    """As dgemm for complex128 (alpha and beta complex): the dgemm modes, each real product of the parts in that
    mode (4M, or 3M under BF16X_COMPLEX_METHOD=3m). op(x) = x or x.T (no conjugation); real operands are
    converted."""
    return _gemm("z", a, b, mode, alpha, beta, out, trans_a, trans_b, engine, guard)


def cgemm(a, b, mode=None, alpha=1.0, beta=0.0, out=None, trans_a=False, trans_b=False, engine=None, guard=None):
    """As zgemm for complex64, with the sgemm modes."""
    return _gemm("c", a, b, mode, alpha, beta, out, trans_a, trans_b, engine, guard)


def _routine_of(a, b):
    """numpy.matmul's result type, as the routine that computes it: float32 @ float32 sgemm, complex64 with
    complex64 or float32 cgemm, other complex zgemm, anything else real dgemm."""
    single = {np.dtype(np.float32), np.dtype(np.complex64)}
    if np.iscomplexobj(a) or np.iscomplexobj(b):
        return "c" if a.dtype in single and b.dtype in single else "z"
    return "s" if a.dtype == np.float32 and b.dtype == np.float32 else "d"


def _batch_view(x, count):
    """x (a stack of matrices, shape batch + (r, c)) as (count, r, c) with one batch stride, without a copy where
    its strides allow it; else a C-order copy."""
    v = x.view()
    try:
        v.shape = (count,) + x.shape[-2:]
    except AttributeError:  # the batch dimensions do not merge into one stride
        v = np.ascontiguousarray(x).reshape((count,) + x.shape[-2:])
    return v


def _batch_stride(v):
    """The batch stride of v in elements (0 for a single matrix or a broadcast one), None if negative or not a
    multiple of the item size."""
    if v.shape[0] <= 1:
        return 0
    s = v.strides[0]
    return s // v.itemsize if s >= 0 and s % v.itemsize == 0 else None


def _extent(m, n, ld, rows):
    """Elements one m x n matrix spans at leading dimension ld (row-major: m rows of ld)."""
    return ld * (m - 1) + n if rows else ld * (n - 1) + m


def matmul(a, b, mode=None, engine=None, out=None, guard=None):
    """a @ b through bf16x: float32 @ float32 runs sgemm, complex64 (with complex64 or float32) cgemm, other
    complex zgemm, anything else real dgemm. 1-D operands are vectors as in numpy.matmul; operands with more than
    two dimensions are stacks of matrices (broadcast), computed in one batched library call. out: an array of the
    result's shape and dtype to write (returned)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    routine = _routine_of(a, b)
    dtype, _, precision = _ROUTINES[routine]
    a = _operand(a, routine, "a", None)
    b = _operand(b, routine, "b", None)
    a2 = a[np.newaxis, :] if a.ndim == 1 else a
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align")
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    m, k, n = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    final = batch + ((m,) if a.ndim > 1 else ()) + ((n,) if b.ndim > 1 else ())
    if out is None:
        out = np.empty(final, dtype=dtype)
    else:
        _check_out(out, final, dtype)
    # out as the stack of m x n results: the dimensions of vector operands put back as extents of 1 (a view)
    c = np.expand_dims(out, len(batch)) if a.ndim == 1 else out
    c = c[..., np.newaxis] if b.ndim == 1 else c
    count = int(np.prod(batch, dtype=np.int64))
    if count == 0 or m == 0 or n == 0:
        return out

    # C as (count, m, n) with one stride, each item described for BLAS and apart from the others; else aside.
    c3 = c.view()
    try:
        c3.shape = (count, m, n)
        c_view, c_stride = _blas_view(c3[0]), _batch_stride(c3)
    except AttributeError:
        c_view = c_stride = None
    if c_view is not None and c_stride is not None and count > 1 and c_stride < _extent(m, n, c_view[1], c_view[2]):
        c_view = None  # items interleaved in memory: the library refuses C items closer than one extent
    aside = c_view is None or c_stride is None
    if aside:
        c3 = np.empty((count, m, n), dtype)
        c_view, c_stride = _blas_view(c3[0]), _batch_stride(c3)
    _, ldc, c_rows = c_view

    def operand(x):
        v = _batch_view(np.broadcast_to(x, batch + x.shape[-2:]), count)
        item = _blas_view(v[0]) if not np.may_share_memory(v, c3) else None
        stride = _batch_stride(v)
        if item is None or stride is None:
            v = np.array(v, order="C", copy=True)  # a copy even where v is C-contiguous: it may be C itself
            item, stride = _blas_view(v[0]), _batch_stride(v)
        return v, item[1], item[2], stride

    a3, lda, a_rows, stride_a = operand(a2)
    b3, ldb, b_rows, stride_b = operand(b2)
    lib = _lib.library()
    opt = _lib.options(lib, _modes.for_routine(mode, precision), _modes.engine_value(engine),
                       _modes.guard_value(guard))
    fn = getattr(lib, f"bf16x_{routine}gemm_batch_strided")
    status = fn(_ROW_MAJOR if c_rows else _COL_MAJOR, _trans(False, a_rows, c_rows), _trans(False, b_rows, c_rows), m,
                n, k, _scalar(routine, 1.0), a3.ctypes.data, lda, stride_a, b3.ctypes.data, ldb, stride_b,
                _scalar(routine, 0.0), c3.ctypes.data, ldc, c_stride, count, ctypes.byref(opt))
    _lib.check(status, f"bf16x_{routine}gemm_batch_strided")
    if aside:
        c[...] = c3.reshape(c.shape)
    return out
