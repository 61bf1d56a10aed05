/* bf16x runtime control: process-wide defaults that can change while the process runs (included by bf16x.h).
 *
 * Thread safe; a setting applies to calls that start after the setter returns. Precedence, for every setting:
 *   the call's own argument (the mode argument, bf16x_options)  >  the runtime setting made here
 *   >  the environment variable (read once, at the first call)  >  the built-in default.
 * Setting DEFAULT / AUTO / 0 / a negative verbosity removes the runtime setting (the environment's applies again). */
#ifndef BF16X_BF16X_RUNTIME_H
#define BF16X_BF16X_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Default mode of calls passing BF16X_MODE_DEFAULT (and of the BLAS shim). BF16X_ERR_MODE for a mode of the other
 * precision; the getters return the effective mode (runtime, else BF16X_SGEMM_MODE / BF16X_DGEMM_MODE, else auto). */
BF16X_API int bf16x_set_sgemm_mode(int mode);
BF16X_API int bf16x_set_dgemm_mode(int mode);
BF16X_API int bf16x_get_sgemm_mode(void);
BF16X_API int bf16x_get_dgemm_mode(void);

/* Engine of calls passing BF16X_ENGINE_AUTO. BF16X_ERR_ENGINE if it cannot run on this CPU, BF16X_ERR_OPTIONS if
 * unknown. A BF16 engine (or reference, amx, amx-model) sets the slice modes' engine; an INT8-only engine
 * (BF16X_ENGINE_AVX2_INT8, BF16X_ENGINE_AVX512VNNI) the CRT modes'; AUTO clears both. bf16x_get_engine returns the
 * engine slice-mode calls use (same as bf16x_engine_selected), bf16x_get_crt_engine the INT8 engine of CRT-mode
 * calls (the runtime setting, else BF16X_CRT_ENGINE, else an INT8-only BF16X_ENGINE, else the best available). */
BF16X_API int bf16x_set_engine(int engine);
BF16X_API int bf16x_get_engine(void);
BF16X_API int bf16x_get_crt_engine(void);

/* Auto's accuracy target in e_scaled (> 0; 0 restores BF16X_AUTO_TARGET or the native GEMM's own bound). */
BF16X_API int bf16x_set_auto_target(double target);
BF16X_API double bf16x_get_auto_target(void); /* 0: the native GEMM's bound k u */

/* Verbose lines (docs/verbose.md): 1 on, 0 off, negative: back to BF16X_VERBOSE. */
BF16X_API void bf16x_set_verbose(int on);
BF16X_API int bf16x_get_verbose(void);

/* Threads of bf16x's own parallel regions, 1..BF16X_MAX_THREADS; 0 removes the setting: then BF16X_NUM_THREADS of
 * the environment (the same range), else OpenMP's default for the calling thread (OMP_NUM_THREADS). A negative
 * count or one above BF16X_MAX_THREADS is BF16X_ERR_OPTIONS. The getter returns the count calls use. The host
 * BLAS that runs native calls keeps its own setting (openblas_set_num_threads, OPENBLAS_NUM_THREADS). */
#define BF16X_MAX_THREADS 4096
BF16X_API int bf16x_set_num_threads(int threads);
BF16X_API int bf16x_get_num_threads(void);

/* "MAJOR.MINOR.PATCH" of the library loaded (compare with BF16X_VERSION_STRING of the headers compiled against). */
BF16X_API const char* bf16x_version(void);

/* A description of this process's configuration, one "key: value" per line: version, CPU, ISA levels, engines
 * available and the one AUTO selects, host BLAS and its kernel, threads, effective modes. Valid until the calling
 * thread calls it again. */
BF16X_API const char* bf16x_get_config(void);

#ifdef __cplusplus
}
#endif
#endif
