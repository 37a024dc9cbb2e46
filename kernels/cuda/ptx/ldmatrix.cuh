/* ldmatrix / movmatrix (sm_75+ / sm_90): 8x8 tiles of 16-bit elements between
 * shared memory and the register fragments of mma.sync.  ldmatrix reads shared
 * memory the compiler cannot see, hence its "memory" clobber. */
#ifndef ATTN_TUNE_PTX_LDMATRIX_CUH
#define ATTN_TUNE_PTX_LDMATRIX_CUH

namespace ptx {

/* four 8x8 tiles; lane l supplies the row address of tile l / 8, row l % 8 */
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* as ldsm_x4, each tile transposed */
__device__ __forceinline__ void ldsm_x4_t(unsigned addr, unsigned (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* transposes an 8x8 tile of 16-bit elements held one pair per lane */
__device__ __forceinline__ unsigned movmatrix_t(unsigned x) {
    unsigned y;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
    return y;
}

}  // namespace ptx

#endif
