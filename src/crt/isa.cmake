# ISA-specific translation units of the CRT INT8 engines (included from src/CMakeLists.txt): each compiled with
# the flags of its instruction set and called only after its runtime check in cpu/features.cpp.
file(GLOB BF16X_CRT_VNNI_TUS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/engine/avx512vnni/*_isa.cpp)
file(GLOB BF16X_CRT_AVX2_TUS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/engine/avx2/*_isa.cpp)
file(GLOB BF16X_CRT_AMX_TUS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/engine/amx/*_isa.cpp)
set_source_files_properties(${BF16X_CRT_VNNI_TUS} PROPERTIES COMPILE_OPTIONS
                            "-mavx512f;-mavx512bw;-mavx512vl;-mavx512vnni")
set_source_files_properties(${BF16X_CRT_AVX2_TUS} PROPERTIES COMPILE_OPTIONS "-mavx2")
set_source_files_properties(${BF16X_CRT_AMX_TUS} PROPERTIES COMPILE_OPTIONS
                            "-mamx-tile;-mamx-int8;-mamx-bf16;-mavx512f;-mavx512bw;-mavx512vl;-mavx512bf16")
set(BF16X_CRT_ISA_TUS ${BF16X_CRT_VNNI_TUS} ${BF16X_CRT_AVX2_TUS} ${BF16X_CRT_AMX_TUS})
