/* Shared-memory addresses for PTX operands, and a store through one. */
#ifndef ATTN_TUNE_PTX_SHARED_CUH
#define ATTN_TUNE_PTX_SHARED_CUH

namespace ptx {

/* the 32-bit shared-window address of a generic pointer into shared memory */
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/* a 32-bit store to the shared-window address addr */
__device__ __forceinline__ void st_shared_u32(unsigned addr, unsigned v) {
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

}  // namespace ptx

#endif
