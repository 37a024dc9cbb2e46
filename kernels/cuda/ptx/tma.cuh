/* Tensor memory accelerator (sm_90): bulk tensor copies global -> shared
 * described by a tensor map, completing as transaction bytes on an mbarrier,
 * and shared -> global, completing in bulk groups.
 *
 * The tensor map (CUtensorMap, 128 bytes) is encoded on the
 * host by cuTensorMapEncodeTiled (tuner/backend/cuda/tensor_map.*) and passed
 * by value as a `const __grid_constant__` kernel parameter; its generic
 * address is the operand.  NVRTC cannot include <cuda.h>, so the type is
 * declared here with CUtensorMap's size and alignment. */
#ifndef ATTN_TUNE_PTX_TMA_CUH
#define ATTN_TUNE_PTX_TMA_CUH

#include "cuda/ptx/shared.cuh"

namespace ptx {

struct alignas(128) tensor_map { /* as CUtensorMap in CUDA 13 (TMA itself needs 64) */
    unsigned long long opaque[16];
};

/* The box at coordinates (c0 innermost, c1, c2) into shared memory at the
 * shared address dst; rows outside the tensor arrive as zeros and still count
 * as transaction bytes on bar.  With a 128-byte swizzle, dst must be
 * 1024-byte aligned for the layout to be the one wgmma's descriptors read. */
__device__ __forceinline__ void tma_load_3d(unsigned dst, const tensor_map* map, int c0, int c1, int c2,
                                            unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
        : "memory");
}

/* The box at coordinates (c0 innermost, c1, c2) from shared memory at the shared
 * address src to global memory (rows outside the tensor are not written), in the
 * thread's current bulk group.  The shared-memory writes it reads must be made
 * visible to the copy engine first (fence.proxy.async.shared::cta). */
__device__ __forceinline__ void tma_store_3d(const tensor_map* map, unsigned src, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
/* closes the thread's current bulk group of stores */
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* waits until at most kPending of the thread's bulk groups still read their shared memory */
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
/* waits until at most kPending of the thread's bulk groups are still writing */
template <int kPending>
__device__ __forceinline__ void tma_store_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/* fetches the tensor map into the copy engine's cache ahead of the first copy */
__device__ __forceinline__ void tma_prefetch_map(const tensor_map* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
}

}  // namespace ptx

#endif
