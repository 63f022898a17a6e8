/*
 * Portable IEEE binary16 <-> binary32 conversion on bit patterns: no compiler _Float16, no F16C,
 * no dependence on the floating-point environment (rounding is done in integers).
 *
 * - FLOAT16 -> FLOAT32 is exact for every input: denormals become normal floats, infinities stay
 *   infinities, NaNs keep their sign and payload (a signaling NaN stays signaling).
 * - FLOAT32 -> FLOAT16 rounds to nearest, ties to even: values at or past 65520 become infinity,
 *   magnitudes at or below 2^-25 become a signed zero, the rest of the small range becomes
 *   denormal. NaNs keep their sign and the top 10 payload bits, with the quiet bit set (what
 *   IEEE conversion of a NaN produces, and what F16C's vcvtps2ph does).
 *
 * Everything here is static inline so each ISA translation unit gets its own copy
 * (docs/architecture.md).
 */
#ifndef DMLCPU_F16_H
#define DMLCPU_F16_H

#include <stdint.h>
#include <string.h>

static inline uint32_t dmlcpu_f32_bits(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static inline float dmlcpu_f32_from_bits(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static inline float dmlcpu_f16_to_f32(uint16_t half) {
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1fu;
    uint32_t mantissa = half & 0x3ffu;
    if (exponent == 0x1fu) /* infinity or NaN: the payload moves up unchanged */
        return dmlcpu_f32_from_bits(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0) /* normal: rebias 15 -> 127 */
        return dmlcpu_f32_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    if (mantissa == 0) return dmlcpu_f32_from_bits(sign);
    /* denormal: mantissa * 2^-24, with the leading bit shifted up to the implicit position */
    uint32_t biased = 113u;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        biased--;
    }
    return dmlcpu_f32_from_bits(sign | (biased << 23) | ((mantissa & 0x3ffu) << 13));
}

static inline uint16_t dmlcpu_f32_to_f16(float value) {
    uint32_t bits = dmlcpu_f32_bits(value);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) /* NaN: quiet, keeping the top of the payload */
        return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    if (magnitude >= 0x477ff000u) /* 65520 and up (the tie above 65504 goes to even: inf) */
        return (uint16_t)(sign | 0x7c00u);
    if (magnitude >= 0x38800000u) { /* 2^-14 and up: a normal half */
        /* Rebias 127 -> 15 and add just under half an ulp, plus one when the kept lsb is odd:
         * ties go to even and a carry out of the mantissa correctly bumps the exponent. */
        uint32_t rounded = magnitude - (112u << 23) + 0xfffu + ((magnitude >> 13) & 1u);
        return (uint16_t)(sign | (rounded >> 13));
    }
    uint32_t biased = magnitude >> 23;
    if (biased < 102u) /* below 2^-25: rounds to zero */
        return sign;
    /* denormal half: round(significand * 2^(biased - 126)) with ties to even */
    uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - biased; /* 14 .. 24 */
    uint32_t kept = significand >> shift;
    uint32_t rest = significand & ((1u << shift) - 1u);
    uint32_t half_ulp = 1u << (shift - 1u);
    if (rest > half_ulp || (rest == half_ulp && (kept & 1u))) kept++;
    return (uint16_t)(sign | kept);
}

#endif /* DMLCPU_F16_H */
