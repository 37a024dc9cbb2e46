# Seeds 000 (multi-head attention similarity) and 001 (multi-scale deformable
# attention): the CPU references on hand-computable cases and the problems'
# verification (unit), and sweeps of the OpenCL similarity kernels on PoCL (opencl).
attn_tune_test(similarity_deformable_unit_tests LABELS unit SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/similarity_reference_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/deformable_reference_test.cpp
)
attn_tune_test(similarity_opencl_tests LABELS opencl SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/similarity_pocl_sweep_test.cpp
)
