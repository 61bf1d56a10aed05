# ILP64 (64-bit INTEGER) GEMM entry points. The suffixed names (sgemm_64_, cblas_dgemm64_, cblas_dgemm_64, ...)
# join libbf16x_blas.so. Debian's libblas64.so.3 / libopenblas64.so.0 use the LP64 names with 64-bit integers,
# which cannot share a library with the LP64 entry points: libbf16x_blas64.so defines those, for programs linked
# with -lblas64. Both are described in docs/blas.md.
target_sources(bf16x_blas PRIVATE ${CMAKE_CURRENT_LIST_DIR}/ilp64_suffixed.cpp)

add_library(bf16x_blas64 SHARED arg_check.cpp dispatch.cpp ilp64_plain.cpp next_blas.cpp reentry.cpp xerbla.cpp)
target_link_libraries(bf16x_blas64 PRIVATE bf16x_internal ${CMAKE_DL_LIBS})
target_compile_options(bf16x_blas64 PRIVATE -Wall -Wextra -O2)
set_target_properties(bf16x_blas64 PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                                              LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/exports64.map)
target_link_options(bf16x_blas64 PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/exports64.map
                    -Wl,--no-undefined)
set_target_properties(bf16x_blas64 PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                                              EXPORT_NAME blas64)
add_library(bf16x::blas64 ALIAS bf16x_blas64)
install(TARGETS bf16x_blas64 EXPORT bf16xTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
