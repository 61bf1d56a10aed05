# The one ISA mechanism of bf16x: code for an instruction set beyond x86-64 lives in translation units named
# <name>_<isa>_isa.cpp, compiled with the flags below and called only after the runtime check in
# src/cpu/features.cpp that covers every one of those flags (cpu::vector_level() for avx2 / avx512, the engine's
# `available` for the rest). Every other file is built for baseline x86-64, so no instruction the CPU lacks runs
# before a check. Variants that must give the same bits as their generic version get no FMA contraction:
# -ffp-contract=off, which src/CMakeLists.txt sets on every file of the library (the kernels write their FMAs
# explicitly).
#
# bf16x_isa_sources(<out-var> <dir>): the *_isa.cpp files under <dir>, with their flags set; an unknown suffix is
# an error.
set(BF16X_ISA_FLAGS_avx2 -mavx2 -mfma)
set(BF16X_ISA_FLAGS_avx512 -mavx2 -mfma -mavx512f -mavx512bw -mavx512vl -mavx512dq)
set(BF16X_ISA_FLAGS_avx512bf16 ${BF16X_ISA_FLAGS_avx512} -mavx512bf16)
set(BF16X_ISA_FLAGS_avx512vnni ${BF16X_ISA_FLAGS_avx512} -mavx512vnni)
# The AMX files get the tile instructions only: their gate (cpu::amx_available, has_amx_int8) checks AMX alone, and
# the trap-and-emulate tests (tests/amx_trap) run their machine code on CPUs without AVX-512.
set(BF16X_ISA_FLAGS_amx_bf16 -mamx-tile -mamx-bf16)
set(BF16X_ISA_FLAGS_amx_int8 -mamx-tile -mamx-int8 -mamx-bf16)
set(BF16X_ISAS avx2 avx512 avx512bf16 avx512vnni amx_bf16 amx_int8)
# GCC 12 reports its own _mm512_undefined_* placeholders as uninitialised where AVX-512 intrinsics inline (GCC PR
# 105593; the values are never read). The avx512 loops (and the CRT loops' avx512vnni build) use the forms that hit
# it, so GCC's two warnings are off there.
set(BF16X_ISA_WARNINGS_avx512 $<$<CXX_COMPILER_ID:GNU>:-Wno-uninitialized>
    $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
set(BF16X_ISA_WARNINGS_avx512vnni ${BF16X_ISA_WARNINGS_avx512})

function(bf16x_isa_sources out dir)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${dir}/*_isa.cpp)
  foreach(f ${files})
    set(isa "")
    foreach(i ${BF16X_ISAS})
      if(f MATCHES "_${i}_isa\\.cpp$")
        set(isa ${i})
      endif()
    endforeach()
    if(NOT isa)
      message(FATAL_ERROR "${f}: an ISA file must end in _<isa>_isa.cpp, <isa> one of ${BF16X_ISAS}")
    endif()
    set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS
                                                "${BF16X_ISA_FLAGS_${isa}};${BF16X_ISA_WARNINGS_${isa}}")
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()
