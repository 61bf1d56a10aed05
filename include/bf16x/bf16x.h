/* bf16x: FP32 and FP64 matrix products from BF16 matrix-engine products.
 *
 * C API. Every entry point checks its arguments first and returns a status; on any error C is left untouched.
 * Layout and transpose values equal the CBLAS enumerators, so CBLAS constants can be passed through. */
#ifndef BF16X_BF16X_H
#define BF16X_BF16X_H

#include <stddef.h>
#include <stdint.h>

#include "bf16x/version.h"

#if defined(BF16X_BUILDING)
#define BF16X_API __attribute__((visibility("default")))
#else
#define BF16X_API
#endif

/* In C++ the enums get a fixed underlying type, so that any int a C caller passes is a valid value to check. */
#ifdef __cplusplus
#define BF16X_ENUM enum : int
extern "C" {
#else
#define BF16X_ENUM enum
#endif

typedef BF16X_ENUM { BF16X_ROW_MAJOR = 101, BF16X_COL_MAJOR = 102 } bf16x_layout;
typedef BF16X_ENUM { BF16X_NO_TRANS = 111, BF16X_TRANS = 112, BF16X_CONJ_TRANS = 113 } bf16x_transpose;

/* Computation modes. DEFAULT resolves to the process default (BF16X_SGEMM_MODE / BF16X_DGEMM_MODE, else auto). */
typedef BF16X_ENUM {
  BF16X_MODE_DEFAULT = 0,
  BF16X_MODE_NATIVE = 1,  /* host BLAS */
  BF16X_MODE_FP32X6 = 2,  /* sgemm: 3 slices, 6 products, FP32 accumulation */
  BF16X_MODE_FP64X6 = 3,  /* dgemm: 6 slices, products i+j<3 */
  BF16X_MODE_FP64X10 = 4, /* products i+j<4 */
  BF16X_MODE_FP64X15 = 5, /* products i+j<5 */
  BF16X_MODE_FP64X21 = 6, /* products i+j<6 */
  BF16X_MODE_AUTO = 7,    /* fewest products meeting the accuracy target, native when faster */
  BF16X_MODE_FP64CR = 8,  /* dgemm: every entry RN(alpha op(A) op(B) + beta C), the exact value rounded once */
  BF16X_MODE_FP32CR = 9,  /* sgemm: the same, rounded once to FP32 */
  BF16X_MODE_FP32X3 = 10, /* sgemm: 2 slices, 3 products (i+j<2), FP32 accumulation: about 2^-15 (|A||B|)_ij */
  /* Ozaki scheme II (CRT) on INT8 products: fp64c<N> = BF16X_MODE_FP64C_BASE + N (dgemm, N = 8..20 moduli),
   * fp32c<N> = BF16X_MODE_FP32C_BASE + N (sgemm, N = 5..10). BF16X_MODE_FP64C(n) / BF16X_MODE_FP32C(n) build them. */
  BF16X_MODE_FP64C_BASE = 100,
  BF16X_MODE_FP32C_BASE = 200
} bf16x_mode;
#define BF16X_MODE_FP64C(n) ((bf16x_mode)(BF16X_MODE_FP64C_BASE + (n)))
#define BF16X_MODE_FP32C(n) ((bf16x_mode)(BF16X_MODE_FP32C_BASE + (n)))
#define BF16X_FP64C_MIN 8
#define BF16X_FP64C_MAX 20
#define BF16X_FP32C_MIN 5
#define BF16X_FP32C_MAX 10

typedef BF16X_ENUM {
  BF16X_ENGINE_AUTO = 0,      /* best available: amx -> avx512bf16 -> avx2 -> reference (BF16X_ENGINE overrides) */
  BF16X_ENGINE_REFERENCE = 1, /* scalar oracle */
  BF16X_ENGINE_AVX512BF16 = 2,
  BF16X_ENGINE_AMX = 3,       /* hardware tiles */
  BF16X_ENGINE_AMX_MODEL = 4, /* the AMX kernel on the software tile model */
  BF16X_ENGINE_AVX2 = 5,      /* AVX2 + FMA: the reference engine's bits on any x86-64 of the last decade */
  /* INT8 engines of the CRT modes (values from 16 up). For fp64c/fp32c modes REFERENCE, AMX and AMX_MODEL name
   * the INT8 scalar, AMX-INT8 (TDPBSSD) and AMX-INT8-on-the-tile-model engines; AUTO the best INT8 engine
   * (BF16X_CRT_ENGINE overrides). */
  BF16X_ENGINE_AVX512VNNI = 16, /* VPDPBUSD with the unsigned-offset correction */
  BF16X_ENGINE_AVX2_INT8 = 17   /* VPMADDWD on sign-extended bytes */
} bf16x_engine;

/* Complex products (bf16x_cgemm / bf16x_zgemm) from real ones. */
typedef BF16X_ENUM {
  BF16X_COMPLEX_DEFAULT = 0, /* BF16X_COMPLEX_METHOD (4m or 3m), else 4M */
  BF16X_COMPLEX_4M = 1,      /* Re = ArBr - AiBi, Im = ArBi + AiBr: the real mode's bound, per part */
  BF16X_COMPLEX_3M = 2       /* Karatsuba, 3 products: 25% less work, error relative to |Ar+Ai||Br+Bi| */
} bf16x_complex_method;

/* The componentwise guard (docs/numerics.md, "Componentwise guard"): every entry of alpha op(A) op(B) within
 * 4 k u |alpha| (|A||B|)_ij of the exact value, as native GEMM's gamma_k bound, proved per entry and repaired by a
 * dot product where the mode's own bound cannot prove it. */
typedef BF16X_ENUM {
  BF16X_GUARD_DEFAULT = 0, /* BF16X_GUARD (on|off), else on for fp64x21, fp64c15..20, fp32c8..10 and auto */
  BF16X_GUARD_ON = 1,      /* every fixed-point mode (fp64x6..21, fp64c, fp32c) */
  BF16X_GUARD_OFF = 2      /* the raw mode: its normwise bound only (the paper's behaviour, Table 4) */
} bf16x_guard;

/* What the guard did in a call (bf16x_stats.guard). */
typedef BF16X_ENUM {
  BF16X_GUARD_NONE = 0,      /* not guarded (off, native, fp32x6, a quick return) */
  BF16X_GUARD_ENVELOPE = 1,  /* every entry proved from one pass over A and B */
  BF16X_GUARD_ENTRIES = 2,   /* proved entry by entry (one INT8 digit product); entries_repaired recomputed */
  BF16X_GUARD_NATIVE = 3     /* too many entries unproved: the host GEMM ran the call */
} bf16x_guard_result;

typedef BF16X_ENUM {
  BF16X_SPLIT_SCALED = 0, /* power-of-two scale per row of A / column of B: any finite input */
  BF16X_SPLIT_PAPER = 1   /* unscaled slices, as in the paper: inputs must stay in the BF16 exponent range */
} bf16x_split;

typedef BF16X_ENUM {
  BF16X_OK = 0,
  BF16X_ERR_LAYOUT = 1,
  BF16X_ERR_TRANS_A = 2,
  BF16X_ERR_TRANS_B = 3,
  BF16X_ERR_M = 4,
  BF16X_ERR_N = 5,
  BF16X_ERR_K = 6,
  BF16X_ERR_LDA = 7,
  BF16X_ERR_LDB = 8,
  BF16X_ERR_LDC = 9,
  BF16X_ERR_NULL = 10,        /* a needed matrix pointer is NULL */
  BF16X_ERR_MODE = 11,        /* mode not valid for this routine (e.g. fp64x10 for sgemm) */
  BF16X_ERR_ENGINE = 12,      /* the requested engine is not available on this CPU */
  BF16X_ERR_SIZE = 13,        /* a size product overflows 64-bit indexing */
  BF16X_ERR_NOMEM = 14,       /* workspace allocation failed */
  BF16X_ERR_OPTIONS = 15,     /* an option field is out of range */
  BF16X_ERR_ENGINE_KIND = 16, /* the engine runs the other method's products: a BF16 engine (avx2, avx512bf16) for
                                 a CRT mode, or an INT8 engine (avx2-int8, avx512vnni) for a slice mode */
  BF16X_ERR_NO_HOST = 17,     /* the call needs the host BLAS (native mode, NaN/Inf inputs) and none was found:
                                 name one with BF16X_HOST_BLAS=libcblas.so.3 (any CBLAS library) */
  BF16X_ERR_UPLO = 18,        /* level 3: uplo is neither BF16X_UPPER nor BF16X_LOWER */
  BF16X_ERR_SIDE = 19,        /* level 3: side is neither BF16X_LEFT nor BF16X_RIGHT */
  BF16X_ERR_DIAG = 20         /* level 3: diag is neither BF16X_NON_UNIT nor BF16X_UNIT */
} bf16x_status;

/* Level 3 (bf16x/level3.h): the CBLAS values. */
typedef BF16X_ENUM { BF16X_UPPER = 121, BF16X_LOWER = 122 } bf16x_uplo;
typedef BF16X_ENUM { BF16X_NON_UNIT = 131, BF16X_UNIT = 132 } bf16x_diag;
typedef BF16X_ENUM { BF16X_LEFT = 141, BF16X_RIGHT = 142 } bf16x_side;

/* Versioned structs. bf16x_options and bf16x_stats start with `size`: the sizeof of the struct as the caller was
 * compiled, set by bf16x_options_init / bf16x_stats_init (in C++ also by `bf16x_options o{};`). The structs only
 * grow, at their end: no field is ever removed, moved or retyped, and a field added later has 0 as its default.
 * The library reads no byte of a caller's struct past its `size` and writes none:
 *   - an older caller (smaller size) gets the defaults for the fields its struct lacks, and its stats are written
 *     up to its size only;
 *   - a newer caller (larger size) has the fields this library does not know ignored in its options and left as its
 *     init set them in its stats.
 * A size below the first version's (BF16X_OPTIONS_SIZE_1 / BF16X_STATS_SIZE_1: the structs of libbf16x.so.1 as
 * first released) makes every call that takes the options return BF16X_ERR_OPTIONS, with C and the stats
 * untouched. */
#ifdef __cplusplus
#define BF16X_SIZEOF_SELF(type) = sizeof(type)
#else
#define BF16X_SIZEOF_SELF(type)
#endif

/* Counters filled by a call when bf16x_options.stats is set (zeroed by the call first, `size` kept). */
typedef struct bf16x_stats {
  size_t size BF16X_SIZEOF_SELF(bf16x_stats); /* sizeof the caller's struct (bf16x_stats_init) */
  int mode;               /* the mode that ran (after DEFAULT/AUTO resolution) */
  int engine;             /* the engine that ran (BF16X_ENGINE_*); -1: none, native or fp64cr/fp32cr (FMA units) */
  uint64_t tile_loads;    /* engine operand loads: AMX tile loads of A/B, or their equivalents */
  uint64_t tile_stores;   /* accumulator stores */
  uint64_t dot_products;  /* TDPBF16PS (16x16x32) equivalents; in the CRT modes TDPBSSD (16x16x64) equivalents */
  uint64_t micro_tiles;   /* micro-kernel calls (one 32x32 tile and one BK panel) */
  double seconds_split;   /* scan + split + pack, as the first thread of the team spent them */
  double seconds_compute; /* the rest of the call: engine, reconstruction, waits */
  uint64_t workspace_bytes; /* workspace the call reserved (0 for native), besides the (m + n) int scale vectors;
                               cgemm/zgemm: plus one block's real parts and FP64 P block (bounded) */
  /* Version 2. */
  uint64_t entries_repaired; /* entries of C the guard recomputed by dot products or on host lines (cgemm/zgemm:
                                over the real products) */
  double seconds_guard;      /* the guard's proof and repair (included in seconds_split + seconds_compute) */
  int guard;                 /* bf16x_guard_result */
  /* Version 3: the call's phases (docs/performance.md, "Phases"), in seconds as the first thread of the team spent
   * them; the rest of the call is waiting and bookkeeping. The bytes are the whole team's. */
  double seconds_scan;     /* exponents, NaN/Inf and the CRT's scaling bound (its digit products excepted) */
  double seconds_pack;     /* split (slices) or residues of A and B, and their packing */
  double seconds_products; /* the engine's products and their exact sums (FP64 widening, modular reductions) */
  double seconds_write;    /* reconstruction and the write of C */
  uint64_t bytes_scan;     /* bytes the scan reads (the CRT's bound: also its digit panels) */
  uint64_t bytes_pack;     /* bytes the split reads from A and B and writes as packed operands */
  uint64_t bytes_write;    /* bytes the write moves: C (read too where beta != 0), the CRT's int32 residue products */
  /* Version 4. */
  double seconds_sums; /* the part of seconds_products outside the engine: the exact sums of its results (fp32x6's
                          FP32 block sums, the FP64 widening of the fp64 modes' group sums, the CRT's modular
                          reductions between k-blocks), which a faster engine (AMX) leaves as they are */
  /* New fields go here, at the end. */
} bf16x_stats;
#define BF16X_STATS_SIZE_1 (offsetof(bf16x_stats, workspace_bytes) + sizeof(uint64_t))
#define BF16X_STATS_SIZE_2 (offsetof(bf16x_stats, guard) + sizeof(int))
#define BF16X_STATS_SIZE_3 (offsetof(bf16x_stats, bytes_write) + sizeof(uint64_t))
#define BF16X_STATS_SIZE_4 (offsetof(bf16x_stats, seconds_sums) + sizeof(double))

typedef struct bf16x_options {
  size_t size BF16X_SIZEOF_SELF(bf16x_options); /* sizeof the caller's struct (bf16x_options_init) */
  int mode;             /* bf16x_mode */
  int engine;           /* bf16x_engine */
  int split;            /* bf16x_split */
  int fuse_diagonals;   /* fp64: one FP32 accumulator per anti-diagonal where exact (0 = one per product) */
  int block_k;          /* 0 = default 256; multiple of 32, at most 256 */
  double auto_target;   /* auto mode: target e_scaled (0 = native-DGEMM level) */
  bf16x_stats* stats;   /* optional */
  int complex_method;   /* bf16x_complex_method (cgemm/zgemm only) */
  /* Version 2. */
  int guard;            /* bf16x_guard */
  /* New fields go here, at the end. */
} bf16x_options;
#define BF16X_OPTIONS_SIZE_1 (offsetof(bf16x_options, complex_method) + sizeof(int))
#define BF16X_OPTIONS_SIZE_2 (offsetof(bf16x_options, guard) + sizeof(int))

/* Complex numbers as interleaved (real, imaginary) pairs: the layout of C99 float/double _Complex and of
 * std::complex<float>/<double>, so arrays of those can be passed by pointer cast. */
typedef struct {
  float re, im;
} bf16x_complex_float;
typedef struct {
  double re, im;
} bf16x_complex_double;

/* The defaults (mode DEFAULT, engine AUTO, split SCALED, no stats, ...) in the first `size` bytes of *opt, `size`
 * in opt->size, zero past this library's own fields; the stats: all zero but `size`. BF16X_ERR_NULL for NULL,
 * BF16X_ERR_OPTIONS (nothing written) for a size below the first version's. Call them through the macros, which
 * pass the caller's sizeof. */
BF16X_API int bf16x_options_init_sized(bf16x_options* opt, size_t size);
BF16X_API int bf16x_stats_init_sized(bf16x_stats* stats, size_t size);
#define bf16x_options_init(opt) bf16x_options_init_sized((opt), sizeof(*(opt)))
#define bf16x_stats_init(stats) bf16x_stats_init_sized((stats), sizeof(*(stats)))

BF16X_API int bf16x_sgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc, bf16x_mode mode);
BF16X_API int bf16x_dgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                int64_t k, double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                double* c, int64_t ldc, bf16x_mode mode);

BF16X_API int bf16x_sgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                   int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_dgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                   int64_t k, double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                   double* c, int64_t ldc, const bf16x_options* opt);

/* Complex GEMM, BLAS semantics (CBLAS_CONJ_TRANS conjugates). The real mode of the same precision (fp32x6 /
 * fp32c<N> for cgemm, fp64x<N> / fp64c<N> for zgemm), native (the host cgemm/zgemm) or auto, as for sgemm/dgemm;
 * DEFAULT reads BF16X_SGEMM_MODE (cgemm) / BF16X_DGEMM_MODE (zgemm). Leading dimensions count complex elements. */
BF16X_API int bf16x_cgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                          int64_t k, bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda,
                          const bf16x_complex_float* b, int64_t ldb, bf16x_complex_float beta, bf16x_complex_float* c,
                          int64_t ldc, bf16x_mode mode);
BF16X_API int bf16x_zgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n,
                          int64_t k, bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                          const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta,
                          bf16x_complex_double* c, int64_t ldc, bf16x_mode mode);
BF16X_API int bf16x_cgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m,
                             int64_t n, int64_t k, bf16x_complex_float alpha, const bf16x_complex_float* a,
                             int64_t lda, const bf16x_complex_float* b, int64_t ldb, bf16x_complex_float beta,
                             bf16x_complex_float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m,
                             int64_t n, int64_t k, bf16x_complex_double alpha, const bf16x_complex_double* a,
                             int64_t lda, const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta,
                             bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);

/* Strided batched GEMM: batch_count products C_i = alpha op(A_i) op(B_i) + beta C_i of one shape, layout, alpha,
 * beta and options, with A_i = a + i * stride_a, B_i = b + i * stride_b, C_i = c + i * stride_c (strides in
 * elements, complex elements for cgemm/zgemm). A stride of A or B may be 0 (one operand for every item); the C
 * items may not overlap: stride_c is at least one item's extent (ldc * (n - 1) + m column-major, ldc * (m - 1) + n
 * row-major) unless batch_count is 1. Every argument is checked before any item runs, with the statuses of the
 * single call, and BF16X_ERR_LDA / BF16X_ERR_LDB / BF16X_ERR_LDC for a negative stride or C items that overlap,
 * BF16X_ERR_SIZE for a negative batch_count or a batch past 64-bit indexing: on such an error no C is written.
 * Each item gives the bits of the single call (bf16x_?gemm_ex) on it; small items run in parallel over the batch,
 * larger ones one after another, each on the threads of the single call. An error while items run (workspace
 * allocation, a missing host BLAS) stops the items not yet started and is returned; items already run keep their
 * results. Stats: the mode and engine of item 0; counters, seconds and workspace summed over the items. With
 * BF16X_VERBOSE, one line per item. */
BF16X_API int bf16x_sgemm_batch_strided(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m,
                                        int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                                        int64_t stride_a, const float* b, int64_t ldb, int64_t stride_b, float beta,
                                        float* c, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                        const bf16x_options* opt);
BF16X_API int bf16x_dgemm_batch_strided(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m,
                                        int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                                        int64_t stride_a, const double* b, int64_t ldb, int64_t stride_b, double beta,
                                        double* c, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                        const bf16x_options* opt);
BF16X_API int bf16x_cgemm_batch_strided(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m,
                                        int64_t n, int64_t k, bf16x_complex_float alpha, const bf16x_complex_float* a,
                                        int64_t lda, int64_t stride_a, const bf16x_complex_float* b, int64_t ldb,
                                        int64_t stride_b, bf16x_complex_float beta, bf16x_complex_float* c, int64_t ldc,
                                        int64_t stride_c, int64_t batch_count, const bf16x_options* opt);
BF16X_API int bf16x_zgemm_batch_strided(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m,
                                        int64_t n, int64_t k, bf16x_complex_double alpha, const bf16x_complex_double* a,
                                        int64_t lda, int64_t stride_a, const bf16x_complex_double* b, int64_t ldb,
                                        int64_t stride_b, bf16x_complex_double beta, bf16x_complex_double* c,
                                        int64_t ldc, int64_t stride_c, int64_t batch_count, const bf16x_options* opt);

/* Bytes of workspace an sgemm (is_double = 0) or dgemm (1) call of this shape and these options (NULL: defaults)
 * needs on the calling thread's team, besides two scale vectors of m and n ints: bounded by the block sizes, the
 * slice count and the OpenMP thread count, not by m, n, k (a 2048 x 2048 accumulator panel and two packed operand
 * panels at most: about 45 MiB for fp64x21; the CRT modes add the residues of an operand packed once where they
 * fit in max(64 MiB, the per-thread panels they replace)). Shapes as the call takes them (row-major: the column-major shape is
 * n x m). A mode that resolves to native needs 0; AUTO that decides on the data reports its largest mode. Returns
 * BF16X_OK or the error the call would return for these sizes or options. */
BF16X_API int bf16x_workspace_bytes(int is_double, bf16x_layout layout, int64_t m, int64_t n, int64_t k,
                                    const bf16x_options* opt, uint64_t* bytes);

BF16X_API const char* bf16x_status_string(int status);
BF16X_API const char* bf16x_mode_name(int mode);      /* "native", "fp32x6", "fp64x6", ... ; NULL if invalid */
BF16X_API int bf16x_mode_from_name(const char* name); /* -1 if unknown */
BF16X_API const char* bf16x_engine_name(int engine);  /* "reference", "avx512bf16", "amx", "amx-model", "avx2" */
BF16X_API int bf16x_engine_from_name(const char* name);
BF16X_API int bf16x_engine_available(int engine);     /* 1 if it can run here */
BF16X_API int bf16x_engine_selected(void);            /* what ENGINE_AUTO resolves to in this process */

#ifdef __cplusplus
}
#endif

#include "bf16x/bf16x_runtime.h"
#include "bf16x/level3.h"
#endif
