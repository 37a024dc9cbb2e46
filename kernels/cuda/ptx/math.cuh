/* Small arithmetic helpers shared by the CUDA kernels. */
#ifndef ATTN_TUNE_PTX_MATH_CUH
#define ATTN_TUNE_PTX_MATH_CUH

namespace ptx {

/* 2^x, approximate, flushing subnormals (softmax in the log2 domain) */
__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* acc + a . b, as four FMAs in x, y, z, w order */
__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
    acc = fmaf(a.z, b.z, acc);
    return fmaf(a.w, b.w, acc);
}

/* max / sum over LANES consecutive lanes (a power of two, aligned) of the warp lanes in mask */
template <int LANES>
__device__ __forceinline__ float lanes_max(float x, unsigned mask) {
#pragma unroll
    for (int off = 1; off < LANES; off <<= 1) x = fmaxf(x, __shfl_xor_sync(mask, x, off));
    return x;
}
template <int LANES>
__device__ __forceinline__ float lanes_sum(float x, unsigned mask) {
#pragma unroll
    for (int off = 1; off < LANES; off <<= 1) x += __shfl_xor_sync(mask, x, off);
    return x;
}

}  // namespace ptx

#endif
