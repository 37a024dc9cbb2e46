/* Thread-block clusters (sm_90): the block's rank in its cluster, the
 * cluster-wide barrier, arrivals on a peer block's mbarrier and bulk tensor
 * copies multicast to several blocks' shared memory. */
#ifndef ATTN_TUNE_PTX_CLUSTER_CUH
#define ATTN_TUNE_PTX_CLUSTER_CUH

#include "cuda/ptx/shared.cuh"
#include "cuda/ptx/tma.cuh"

namespace ptx {

/* this block's rank in its cluster (0 .. blocks per cluster - 1) */
__device__ __forceinline__ unsigned cluster_ctarank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* every thread of every block of the cluster: arrive, then wait for all the
 * others (release / acquire at cluster scope).  Whole warps execute it. */
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

/* an arrival on the mbarrier at the same shared-memory offset as bar in the
 * cluster's block `cta` (release at cluster scope) */
__device__ __forceinline__ void mbar_arrive_cluster(unsigned long long* bar, unsigned cta) {
    asm volatile(
        "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
        " mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_addr(bar)),
        "r"(cta)
        : "memory");
}

/* mbar_wait (mbarrier.cuh) with acquire at cluster scope: for barriers that
 * other blocks of the cluster arrive on */
__device__ __forceinline__ void mbar_wait_cluster(unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    while (!done) {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
            " selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(smem_addr(bar)), "r"(parity)
            : "memory");
    }
}

/* tma_load_3d (tma.cuh) into the same shared-memory offset dst of every block
 * whose rank bit is set in cta_mask, each completing its bytes on its own
 * mbarrier at bar's offset */
__device__ __forceinline__ void tma_load_3d_multicast(unsigned dst, const tensor_map* map, int c0, int c1, int c2,
                                                      unsigned long long* bar, unsigned short cta_mask) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar)), "h"(cta_mask)
        : "memory");
}

}  // namespace ptx

#endif
