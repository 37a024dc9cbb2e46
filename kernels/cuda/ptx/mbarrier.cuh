/* mbarrier (sm_90): shared-memory barriers with phases and transaction counts.
 * Each one reads and writes shared memory, hence the "memory" clobbers. */
#ifndef ATTN_TUNE_PTX_MBARRIER_CUH
#define ATTN_TUNE_PTX_MBARRIER_CUH

#include "cuda/ptx/shared.cuh"

namespace ptx {

__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
/* arrival that also expects tx more bytes from bulk copies */
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* bar, unsigned tx) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(tx) : "memory");
}
/* waits until the phase of parity `parity` has completed */
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    }
}

/* after mbarrier.init by one thread: makes the initialised barriers visible to
 * the other threads' arrivals and to the copy engine (async proxy) */
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

}  // namespace ptx

#endif
