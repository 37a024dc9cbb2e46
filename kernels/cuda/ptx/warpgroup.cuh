/* Warp specialization (sm_90a): per-warpgroup register budgets and named
 * barriers between warpgroups. */
#ifndef ATTN_TUNE_PTX_WARPGROUP_CUH
#define ATTN_TUNE_PTX_WARPGROUP_CUH

namespace ptx {

/* setmaxnreg: the executing warpgroup gives registers back to the SM's pool
 * (dec) or takes them (inc) up to N per thread (24..256, a multiple of 8).
 * All 4 warps of the warpgroup execute the same one.  ptxas honours it only
 * with a register cap at entry (__launch_bounds__(threads, 1)); otherwise it
 * warns (C7508) and ignores it. */
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
    static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
    static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* named barrier `id` (1..15; 0 is __syncthreads) of `threads` threads (a
 * multiple of 32): sync waits for the count, arrive counts without waiting */
__device__ __forceinline__ void named_bar_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace ptx

#endif
