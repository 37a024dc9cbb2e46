// Every OpenCL call goes through ATTN_CL, which keeps the call's text, file,
// line and the error's name in the exception it throws.
#pragma once

#include <CL/cl.h>

#include <string>

namespace attn {

const char* cl_error_name(cl_int code);

// Throws BackendError("clFoo(...) failed: CL_INVALID_VALUE (-30) at file:line").
[[noreturn]] void throw_cl_error(cl_int code, const char* call, const char* file, int line);

}  // namespace attn

#define ATTN_CL(call)                                                                                      \
  do {                                                                                                     \
    const cl_int attn_cl_status_ = (call);                                                                 \
    if (attn_cl_status_ != CL_SUCCESS) ::attn::throw_cl_error(attn_cl_status_, #call, __FILE__, __LINE__); \
  } while (0)
