/* Shared-memory addresses for PTX operands. */
#ifndef ATTN_TUNE_PTX_SHARED_CUH
#define ATTN_TUNE_PTX_SHARED_CUH

namespace ptx {

/* the 32-bit shared-window address of a generic pointer into shared memory */
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

}  // namespace ptx

#endif
