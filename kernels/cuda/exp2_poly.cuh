/* 2^x on the FMA pipe instead of the special-function unit (MUFU), for the
 * softmax exponentials of the attention kernels: the FlashAttention-4 way of
 * taking part of the exponentials off MUFU, whose 16 results per clock and SM
 * match the tensor cores' pace at D = 64 (kernels/cuda/NOTES.md section 4).
 *
 * Cody-Waite split: 2^x = 2^floor(x) * 2^f with f = x - floor(x) in [0, 1];
 * 2^f by a minimax polynomial p(f) = 1 + c1 f + ... + cn f^n (relative
 * error, p(0) = 1 exactly), and 2^floor(x) added into p's exponent bits.
 * floor(x) comes from one add rounded down: x + 1.5 * 2^23 lands in
 * [2^23, 2^24), where the float spacing is 1, so it is floor(x) + 1.5 * 2^23
 * exactly, floor(x) in its low mantissa bits (no float-to-int conversion,
 * which would run on the same slow unit).
 *
 * Inputs: x < 128.  x <= -127 (-inf included) gives exactly 0 (x is clamped
 * to -127, and p(0) * 2^-127 has all bits 0 in this construction).  x in
 * (-127, -126) gives a non-negative subnormal below 2^-126 (absolute error
 * below 2^-127; ex2.approx.ftz gives 0 there).  Never NaN for a non-NaN x.
 *
 * Relative error for 2^x a normal float (the exponent part is exact, so it
 * is p's on [0, 1]; Remez, then measured in float arithmetic over [-126, 1)
 * by tests/unit/test_exp2_poly.cpp): degree 3 8.6e-5 (2^-13.5), degree 4
 * 3.0e-6 (2^-18.4); a probability's rounding to bf16 / fp16 is up to half an
 * ulp, 2^-8 = 3.9e-3 / 2^-11 = 4.9e-4: degree 3 is 45x below bf16's, degree
 * 4 160x below fp16's (degree 3 would be only 5.7x below fp16's).
 *
 * Compiled by NVRTC (device: __fadd_rd, bit casts) and by the host compiler
 * (the unit test: floor(x) + 1.5 * 2^23, which is what the rounded-down add
 * yields for every x it gets, and memcpy bit casts). */
#ifndef ATTN_TUNE_CUDA_EXP2_POLY_CUH
#define ATTN_TUNE_CUDA_EXP2_POLY_CUH

#ifdef __CUDA_ARCH__
#define EXP2_POLY_FN __device__ __forceinline__
#else
#include <cmath>
#include <cstring>
#define EXP2_POLY_FN inline
#endif

namespace exp2_poly {

#ifndef __CUDA_ARCH__
using std::fmaf;
using std::fmaxf;
#endif

/* 1.5 * 2^23: x + it, rounded down, is floor(x) + it exactly for -2^22 <= x < 2^22 */
constexpr float kFloorShift = 12582912.0f;
/* inputs below: exactly 0 */
constexpr float kMinInput = -127.0f;

/* p(f) = 1 + c1 f + ... + cn f^n, the minimax (relative error) polynomial of
 * 2^f on [0, 1] with c0 = 1, coefficients rounded to float; Horner on FFMA */
template <int DEG>
EXP2_POLY_FN float poly(float f);
template <>
EXP2_POLY_FN float poly<3>(float f) {
    return fmaf(fmaf(fmaf(0.0770670421f, f, 0.227644991f), f, 0.695116786f), f, 1.0f);
}
template <>
EXP2_POLY_FN float poly<4>(float f) {
    return fmaf(fmaf(fmaf(fmaf(0.0134266843f, f, 0.0522424743f), f, 0.241280205f), f, 0.693044845f), f, 1.0f);
}

EXP2_POLY_FN unsigned float_bits(float x) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    unsigned u;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}
EXP2_POLY_FN float bits_float(unsigned u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* floor(x) + kFloorShift */
EXP2_POLY_FN float floor_shifted(float x) {
#ifdef __CUDA_ARCH__
    return __fadd_rd(x, kFloorShift);
#else
    return std::floor(x) + kFloorShift;
#endif
}

/* 2^x with a degree-DEG polynomial: FMNMX, 3 FADD, DEG FFMA, SHL + IADD */
template <int DEG>
EXP2_POLY_FN float exp2(float x) {
    x = fmaxf(x, kMinInput);
    const float shifted = floor_shifted(x);
    const float f = x - (shifted - kFloorShift); /* exact, in [0, 1] */
    const float p = poly<DEG>(f);
    /* the low 9 bits of shifted's bits are floor(x) (two's complement): << 23 puts it on the exponent */
    return bits_float(float_bits(p) + (float_bits(shifted) << 23));
}

}  // namespace exp2_poly

#undef EXP2_POLY_FN
#endif
