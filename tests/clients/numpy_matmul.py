"""numpy matmul under libbf16x_blas.so (run by numpy.sh).

  numpy_matmul.py compute OUT.npz   products of fixed inputs (float64 A@B and A.T@B, float32 A@B, complex128
                                    Z@W and Z^H@W with Z = A + iB, W = B + iA), N = 256
  numpy_matmul.py verify BASE.npz NATIVE.npz EMULATED.npz X21.npz
      NATIVE (shim, native modes) must equal BASE (no shim) bit for bit: the shim forwards to numpy's own BLAS.
      EMULATED (fp64x6 / fp32x6) and X21 (fp64x21) against a long double reference (numpy's non-BLAS loop):
        fp64x6:  1e-10 < eF < 1e-7. The dropped products are about 2^-27 of the row/column scales per term with
                 random signs, eF about 1.5e-8 on uniform inputs; native is about 4e-16, so eF > 1e-10 shows the
                 emulation ran.
        fp64x21: eF < 1e-14 (native level; one missing product of the scheme would give at least 2^-45 = 3e-14).
        complex128 (ZGEMM, 4M on the same real modes): the same fp64x6 and fp64x21 limits; each part is a real
                 2k-term product of the parts, so eF keeps the real mode's level.
        fp32x6:  eF < 1e-6 and not bit-equal to native. Native FP32 is about 2e-7 here; fp32x6 keeps every product
                 above 2^-24 of the scales, while a missing one would give at least 2^-16 = 1.5e-5.
"""
import sys

import numpy as np

N = 256


def inputs():
    rng = np.random.default_rng(20240605)
    a = rng.uniform(-1.0, 1.0, (N, N))
    b = rng.uniform(-1.0, 1.0, (N, N))
    return a, b


def compute(out):
    a, b = inputs()
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    z, w = a + 1j * b, b + 1j * a
    np.savez(out, d_nn=a @ b, d_tn=a.T @ b, s_nn=a32 @ b32, z_nn=z @ w, z_hn=z.conj().T @ w)


def rel_frobenius(c, ref):
    wide = np.clongdouble if np.iscomplexobj(ref) else np.longdouble
    narrow = np.complex128 if np.iscomplexobj(ref) else np.float64
    return float(np.linalg.norm((c.astype(wide) - ref).astype(narrow)) / np.linalg.norm(ref.astype(narrow)))


def verify(base_f, native_f, emu_f, x21_f):
    base, native, emu, x21 = (np.load(f) for f in (base_f, native_f, emu_f, x21_f))
    a, b = inputs()
    al, bl = a.astype(np.longdouble), b.astype(np.longdouble)
    a32l, b32l = a.astype(np.float32).astype(np.longdouble), b.astype(np.float32).astype(np.longdouble)
    zl, wl = al + 1j * bl, bl + 1j * al  # complex long double: numpy's non-BLAS loop
    ref = {"d_nn": al @ bl, "d_tn": al.T @ bl, "s_nn": a32l @ b32l, "z_nn": zl @ wl, "z_hn": zl.conj().T @ wl}
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    for key in ("d_nn", "d_tn", "s_nn", "z_nn", "z_hn"):
        check(np.array_equal(base[key], native[key]), f"{key}: native under the shim == numpy without it, bitwise")
    for key in ("d_nn", "d_tn", "z_nn", "z_hn"):
        e_nat, e_emu, e_21 = (rel_frobenius(x[key], ref[key]) for x in (base, emu, x21))
        check(1e-10 < e_emu < 1e-7, f"{key}: fp64x6 eF = {e_emu:.3e} in (1e-10, 1e-7) (native {e_nat:.3e})")
        check(e_21 < 1e-14, f"{key}: fp64x21 eF = {e_21:.3e} < 1e-14")
    e_nat, e_emu = rel_frobenius(base["s_nn"], ref["s_nn"]), rel_frobenius(emu["s_nn"], ref["s_nn"])
    check(e_emu < 1e-6, f"s_nn: fp32x6 eF = {e_emu:.3e} < 1e-6 (native {e_nat:.3e})")
    check(not np.array_equal(emu["s_nn"], base["s_nn"]), "s_nn: fp32x6 result differs from native FP32")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1] == "compute":
        compute(sys.argv[2])
    else:
        sys.exit(verify(*sys.argv[2:6]))
