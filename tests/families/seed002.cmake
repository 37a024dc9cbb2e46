# Seed 002 (multi-head, linear and sliding-window attention): CPU references
# (unit), and the OpenCL kernels on PoCL: the seed's worked examples end to end
# (golden) and sweeps of the small specs (opencl).
attn_tune_test(seed002_unit_tests LABELS unit SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/seed002_reference_test.cpp
)
attn_tune_test(seed002_opencl_tests LABELS opencl SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/seed002_golden_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/seed002_pocl_sweep_test.cpp
)
