/* cp.async (sm_80+): asynchronous 16-byte global -> shared copies, for every
 * CUDA kernel of attn-tune.  Every instruction carries a "memory" clobber: the
 * copies write shared memory behind the compiler's back, and a wait is only a
 * wait if ordinary loads of the landed data cannot be hoisted above it. */
#ifndef ATTN_TUNE_PTX_CP_ASYNC_CUH
#define ATTN_TUNE_PTX_CP_ASYNC_CUH

#include "cuda/ptx/shared.cuh"

namespace ptx {

/* 16 bytes from src to the shared address dst (L2 only: .cg) */
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

/* as cp_async16, reading only src_bytes (0 or 16) and zero-filling the rest:
 * src_bytes = 0 fills the destination with zeros without reading src */
__device__ __forceinline__ void cp_async16_zfill(unsigned dst, const void* src, unsigned src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* closes this thread's group of copies issued since the last commit */
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/* waits until at most N of this thread's committed groups are still in flight */
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* the mbarrier at bar gets one arrival once this thread's earlier copies have landed */
__device__ __forceinline__ void cp_async_mbarrier_arrive(unsigned long long* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

/* sm_90 bulk copy of `bytes` (a multiple of 16) into shared memory, completing
 * as transaction bytes on the mbarrier at bar */
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
}

}  // namespace ptx

#endif
