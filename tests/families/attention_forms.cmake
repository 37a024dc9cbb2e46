# The attention operation's forms on PoCL (f32 dtype, f32 and per-head masks, mask_scaled ALiBi, soft-capping):
# a kernel written as llama.cpp's OpenCL flash attention is, swept with planted faults.
attn_tune_test(attention_forms_opencl_tests LABELS opencl SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/attention_forms_pocl_test.cpp
)
