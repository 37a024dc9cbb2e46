/* Tensor memory accelerator (sm_90): bulk tensor copies global -> shared
 * described by a tensor map, completing as transaction bytes on an mbarrier.
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

/* fetches the tensor map into the copy engine's cache ahead of the first copy */
__device__ __forceinline__ void tma_prefetch_map(const tensor_map* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
}

}  // namespace ptx

#endif
