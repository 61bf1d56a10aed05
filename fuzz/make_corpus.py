#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_gemm into fuzz/corpus/: one named file per case, in the byte layout of
fuzz/fuzz_case.hpp. Rerun after changing that layout: python3 fuzz/make_corpus.py"""
import os
import struct

# Codes (see fuzz/fuzz_case.hpp).
COL, ROW, BAD_LAYOUT = 0, 1, 240
N, T, C, BAD_TRANS = 0, 1, 2, 243  # 243 -> 'N' (78), not a CBLAS value
ALPHA = {1: 0, 0: 1, -1: 2, 0.5: 3, 2: 4, -0.75: 5, 3: 6, "third": 7,
         "-0": 128, "nan": 129, "inf": 130, "-inf": 131, "denorm": 132, "max": 133, "1e-30": 134, "random": 135}
MODE = {"default": 0, "native": 1, "fp32x6": 2, "fp64x6": 3, "fp64x10": 4, "fp64x15": 5, "fp64x21": 6,
        "auto": 7, "fp64cr": 8, "fp32cr": 9, "fp64c15": 17, "fp32c8": 26,  # byte b: the (b % 29)th mode record
        "bad": 234}  # 234 -> 1000, no mode
ENGINE = {"auto": 0, "reference": 129, "avx512bf16": 130, "amx": 131, "amx-model": 132, "avx2": 133, "bad": 232}  # bad: -1
SPLIT = {"scaled": 0, "paper": 1, "bad": 3}
EX_STATS = 0x30  # _ex API with stats
PLAIN = 0x00
BK = {0: 0, 32: 160, 64: 161, 128: 163, 256: 167, "bad": 225}  # 225 -> 16
TARGET = {0: 0, 1e-3: 200, 1e-8: 201, "negative": 204, "nan": 205}
NULL = {"none": 0, "a": 225, "b": 226, "c": 228}
HUGE = {-1: 240, -7: 241, "min": 242, "int32max": 243, "2^31": 244, "2^32": 245, "2^40": 247, "2^61": 250,
        "2^62": 251, "max": 252}
LD_EXTREME = {0: 240, -1: 241, "2^31": 244, "2^32": 245, "2^40": 246, "2^62": 247, "max": 248}


def fill(dist=0, finite_rate=0, nonfinite=0):
    """dist: 0 uniform, 1 log-uniform 2^+-30, 2 whole range, 3 integers, 4 row/col scaled, 5 cancelling,
    6 sparse, 7 constant; finite_rate 0..3; nonfinite 0 none, 1 one entry, 2 one in 16."""
    return dist | finite_rate << 3 | {0: 0, 1: 6, 2: 7}[nonfinite] << 5


def case(prec="d", layout=COL, ta=N, tb=N, m=8, n=8, k=8, lda=0, ldb=0, ldc=0, alpha=1, beta=0, mode="fp64x21",
         engine="auto", split="scaled", fuse=False, stats=True, ex=True, bk=0, target=0, null="none",
         fa=fill(), fb=fill(), fc=fill(), seed=1, plants=()):
    def dim(v):
        if isinstance(v, str) or v < 0:
            return HUGE[v]
        assert v < 160 or v == 300
        return 239 if v == 300 else v

    flags = SPLIT[split] | (8 if fuse else 0) | (0x10 if stats else 0) | (0x20 if ex else 0)
    b = bytes([0 if prec == "d" else 1, layout, ta, tb, dim(m), dim(n), dim(k), lda, ldb, ldc,
               ALPHA[alpha], ALPHA[beta], MODE[mode], ENGINE[engine], flags, BK[bk], TARGET[target], NULL[null],
               fa, fb, fc])
    b += struct.pack(">Q", seed)
    for which, index, value in plants:  # value: 0..7 finite specials, 8 NaN, 9 Inf, 10 -Inf
        b += bytes([which + 3 * (index >> 16), (index >> 8) & 255, index & 255, value])
    return b


CASES = {
    # Every mode, both routines, layouts and transposes.
    "d_fp64x6_col_nn": case(mode="fp64x6", m=40, n=33, k=70),
    "d_fp64x10_row_tn": case(mode="fp64x10", layout=ROW, ta=T, m=17, n=31, k=65, alpha=-0.75, beta=0.5),
    "d_fp64x15_col_nc": case(mode="fp64x15", tb=C, m=33, n=9, k=129, lda=3, ldb=1, ldc=2, beta=2),
    "d_fp64x21_row_tt": case(mode="fp64x21", layout=ROW, ta=T, tb=T, m=5, n=64, k=33, fa=fill(1), fb=fill(1)),
    "d_native": case(mode="native", m=20, n=20, k=20, beta=-1),
    "d_fp64cr_row_tn": case(mode="fp64cr", layout=ROW, ta=T, m=19, n=23, k=70, alpha=-0.75, beta=0.5, fa=fill(1)),
    "s_fp32cr_col": case(prec="s", mode="fp32cr", m=33, n=17, k=64, beta=2),
    "d_fp64c15_col_nt": case(mode="fp64c15", tb=T, m=40, n=24, k=90, fa=fill(4), fb=fill(1)),
    "s_fp32c8_row": case(prec="s", mode="fp32c8", layout=ROW, m=21, n=30, k=50, alpha=2, beta=-1),
    "d_auto_plain": case(mode="auto", ex=False, stats=False, m=30, n=12, k=100),
    "d_default": case(mode="default", m=7, n=7, k=300),
    "s_fp32x6_col": case(prec="s", mode="fp32x6", m=64, n=48, k=150, alpha=2, beta=-1),
    "s_fp32x6_row_tc": case(prec="s", mode="fp32x6", layout=ROW, ta=T, tb=C, m=31, n=33, k=64, fa=fill(4)),
    "s_native_plain": case(prec="s", mode="native", ex=False, stats=False, m=16, n=3, k=40),
    "s_auto": case(prec="s", mode="auto", m=50, n=2, k=150),
    # Engines.
    "d_reference": case(engine="reference", mode="fp64x10", m=33, n=32, k=40),
    "d_amx_model": case(engine="amx-model", mode="fp64x6", m=32, n=40, k=64),
    "s_amx_model": case(prec="s", engine="amx-model", mode="fp32x6", m=20, n=20, k=64),
    "d_amx_hw": case(engine="amx", mode="fp64x21", m=8, n=8, k=8),
    "d_avx2": case(engine="avx2", mode="fp64x15", m=33, n=17, k=70),
    "s_avx2": case(prec="s", engine="avx2", mode="fp32x6", layout=ROW, ta=T, m=31, n=40, k=100, fa=fill(1)),
    "s_avx2_paper": case(prec="s", engine="avx2", mode="fp32x6", split="paper", m=36, n=32, k=20, fa=fill(2)),
    "d_engine_bad": case(engine="bad", mode="fp64x6"),
    # Options.
    "d_fuse_bk64": case(mode="fp64x15", fuse=True, bk=64, m=40, n=40, k=150),
    "s_bk32": case(prec="s", mode="fp32x6", bk=32, m=30, n=30, k=100),
    "d_paper": case(mode="fp64x10", split="paper", m=36, n=32, k=20),
    "s_paper": case(prec="s", mode="fp32x6", split="paper", m=36, n=32, k=20, fa=fill(1)),
    "d_split_bad": case(split="bad"),
    "d_bk_bad": case(bk="bad"),
    "d_target_nan": case(mode="auto", target="nan"),
    "d_target_1e-3": case(mode="auto", target=1e-3, m=40, n=40, k=40),
    # Invalid arguments, in CBLAS order.
    "bad_layout": case(layout=BAD_LAYOUT),
    "bad_transa": case(ta=BAD_TRANS),
    "bad_transb": case(prec="s", mode="fp32x6", tb=BAD_TRANS),
    "bad_m": case(m=-1),
    "bad_k": case(k=-7),
    "bad_lda": case(lda=192),
    "bad_ldb_row": case(layout=ROW, ldb=193),
    "bad_ldc": case(ldc=194, ta=T),
    "null_a": case(null="a"),
    "null_c": case(null="c"),
    "bad_mode_for_sgemm": case(prec="s", mode="fp64x10"),
    "bad_mode": case(mode="bad", ex=False, stats=False),
    # 64-bit sizes.
    "size_mn": case(m="2^40", n="2^40", k=1),
    "size_lda_k": case(m=2, n=2, k="2^62", lda=3),
    "size_bytes": case(m="2^61", n=1, k=1),
    "size_ld_max": case(m=3, n=3, k=3, lda=LD_EXTREME["max"]),
    "huge_m_zero_n": case(m="2^62", n=0, k=0),
    "huge_k_alpha0": case(m=4, n=4, k="2^40", alpha=0, beta=2),
    # Quick returns and special scalars.
    "k0_beta0_nan_c": case(k=0, beta=0, fc=fill(0, 0, 2)),
    "alpha0": case(alpha=0, beta=-1, fa=fill(0, 0, 2)),
    "alpha_nan": case(alpha="nan", mode="fp64x6", m=10, n=10, k=10),
    "alpha_inf": case(prec="s", alpha="inf", mode="fp32x6", m=10, n=10, k=10),
    "beta_inf": case(beta="inf", mode="fp64x10", m=9, n=9, k=9, fc=fill(6)),
    "beta_nan_native": case(beta="nan", mode="native", m=9, n=9, k=9),
    # Special contents.
    "d_nan_in_a": case(mode="fp64x21", m=20, n=20, k=20, fa=fill(0, 0, 1)),
    "s_inf_in_b": case(prec="s", mode="fp32x6", m=20, n=20, k=20, fb=fill(0, 0, 2)),
    "d_subnormal_max": case(mode="fp64x15", m=33, n=17, k=50, fa=fill(2, 2), fb=fill(2, 1)),
    "s_subnormal_max": case(prec="s", mode="fp32x6", m=33, n=17, k=50, fa=fill(2, 2), fb=fill(0, 3)),
    "d_cancel": case(mode="fp64x21", m=16, n=16, k=64, fa=fill(5), fb=fill(7)),
    "s_integers": case(prec="s", mode="fp32x6", m=24, n=24, k=24, fa=fill(3), fb=fill(3)),
    "d_nan_in_padding": case(mode="fp64x10", m=10, n=10, k=10, lda=2, ldc=3,
                             plants=[(0, 10, 8), (0, 23, 9), (2, 11, 8)]),
    "c_nan_beta_nonzero": case(mode="fp64x6", beta=0.5, m=12, n=12, k=12, plants=[(2, 5, 8), (2, 40, 10)]),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    for name, data in CASES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"{len(CASES)} seeds in {out}")


if __name__ == "__main__":
    main()
