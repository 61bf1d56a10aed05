// Runtime CPU capability checks. None of these executes an instruction of the feature it tests.
#pragma once

namespace bf16x::cpu {

// AVX2 and FMA in CPUID (leaf 1 ECX bits 12/28, leaf 7 EBX bit 5) and the YMM state enabled by the OS in XCR0
// (OSXSAVE, XCR0 bits 1 and 2).
bool has_avx2_fma();

// AVX512F + AVX512BW + AVX512-BF16 in CPUID and ZMM/opmask state enabled by the OS in XCR0.
bool has_avx512bf16();

// AVX512F + AVX512BW + AVX512-VNNI (CPUID.(7,0):ECX bit 11) and the ZMM/opmask state in XCR0.
bool has_avx512vnni();

// AVX2 (CPUID.(7,0):EBX bit 5) and the YMM state in XCR0.
bool has_avx2();

// amx_available() and AMX-INT8 (CPUID.(7,0):EDX bit 25).
bool has_amx_int8();

// AMX-TILE + AMX-BF16 in CPUID.(7,0):EDX bits 24/22, XTILECFG/XTILEDATA enabled in XCR0 bits 17/18, and the
// Linux permission arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) granted. Evaluated once, thread-safely.
bool amx_available();

// Why amx_available() is false (for verbose output): "cpuid", "xcr0", "arch_prctl" or "" when available.
const char* amx_unavailable_reason();

}  // namespace bf16x::cpu
