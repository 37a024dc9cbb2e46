# Multi-head, linear and sliding-window attention: CPU references (unit), and
# the OpenCL kernels on PoCL: the three worked examples end to end
# (golden) and sweeps of the small specs (opencl).
attn_tune_test(multihead_linear_unit_tests LABELS unit SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/multihead_linear_reference_test.cpp
)
attn_tune_test(multihead_linear_opencl_tests LABELS opencl SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/worked_examples_golden_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/multihead_linear_pocl_sweep_test.cpp
)
