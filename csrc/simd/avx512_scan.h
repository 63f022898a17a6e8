/*
 * AVX-512 lane primitives for the SIMD scan templates (kernels/scan_line_simd.h and
 * scan_outer_simd.h), per kernel type: dmlcpu_sv_<type>_* for line kernels (32- or 64-bit
 * lanes, narrow integers and FLOAT16 widened), dmlcpu_ov_<type>_* for outer kernels (lanes of
 * the element's own width). Include only from a translation unit compiled with avx512 flags,
 * after simd/avx512.h.
 */
#ifndef DMLCPU_SIMD_AVX512_SCAN_H
#define DMLCPU_SIMD_AVX512_SCAN_H
#include <stdint.h>

#include "scan_prefix.h"

/* ------------------------------------------------------------------ transposes */

/* 16x16 32-bit: pairs, then quads inside 128-bit chunks, then the 4x4 grid of chunks. */
static inline void dmlcpu_sv32_transpose(__m512i r[16]) {
    __m512i t[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    /* s[4g + c], chunk q: column 4q + c of rows 4g .. 4g + 3 */
    __m512i s[16];
    for (int g = 0; g < 4; g++) {
        s[4 * g + 0] = _mm512_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
        s[4 * g + 1] = _mm512_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
        s[4 * g + 2] = _mm512_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
        s[4 * g + 3] = _mm512_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
    }
    for (int c = 0; c < 4; c++) {
        __m512i u0 = _mm512_shuffle_i32x4(s[c], s[4 + c], 0x88);
        __m512i u1 = _mm512_shuffle_i32x4(s[c], s[4 + c], 0xDD);
        __m512i v0 = _mm512_shuffle_i32x4(s[8 + c], s[12 + c], 0x88);
        __m512i v1 = _mm512_shuffle_i32x4(s[8 + c], s[12 + c], 0xDD);
        r[c] = _mm512_shuffle_i32x4(u0, v0, 0x88);
        r[8 + c] = _mm512_shuffle_i32x4(u0, v0, 0xDD);
        r[4 + c] = _mm512_shuffle_i32x4(u1, v1, 0x88);
        r[12 + c] = _mm512_shuffle_i32x4(u1, v1, 0xDD);
    }
}

/* 8x8 64-bit: pairs inside 128-bit chunks, then the 4x4 grid of chunks. */
static inline void dmlcpu_sv64_transpose(__m512i r[8]) {
    __m512i t[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
    }
    for (int c = 0; c < 2; c++) {
        __m512i u0 = _mm512_shuffle_i64x2(t[c], t[2 + c], 0x88);
        __m512i u1 = _mm512_shuffle_i64x2(t[c], t[2 + c], 0xDD);
        __m512i v0 = _mm512_shuffle_i64x2(t[4 + c], t[6 + c], 0x88);
        __m512i v1 = _mm512_shuffle_i64x2(t[4 + c], t[6 + c], 0xDD);
        r[c] = _mm512_shuffle_i64x2(u0, v0, 0x88);
        r[4 + c] = _mm512_shuffle_i64x2(u0, v0, 0xDD);
        r[2 + c] = _mm512_shuffle_i64x2(u1, v1, 0x88);
        r[6 + c] = _mm512_shuffle_i64x2(u1, v1, 0xDD);
    }
}

/* ------------------------------------------------------------------ per-type primitives */

#define DMLCPU_SV_COMMON(TYPE, W, LANE_BITS)                                                     \
    typedef __m512i dmlcpu_sv_##TYPE;                                                          \
    enum { DMLCPU_SV_W_##TYPE = W };                                                           \
    static inline void dmlcpu_sv_##TYPE##_transpose(__m512i r[W]) {                            \
        dmlcpu_sv##LANE_BITS##_transpose(r);                                                   \
    }

/* integers in 32-bit lanes */
#define DMLCPU_SV_INT32_OPS(TYPE)                                                               \
    static inline __m512i dmlcpu_sv_##TYPE##_cumsum(__m512i a, __m512i b) {                    \
        return _mm512_add_epi32(a, b);                                                         \
    }                                                                                          \
    static inline __m512i dmlcpu_sv_##TYPE##_cumprod(__m512i a, __m512i b) {                   \
        return _mm512_mullo_epi32(a, b);                                                       \
    }                                                                                          \
    static inline __m512i dmlcpu_sv_##TYPE##_fill(uint32_t a) { return _mm512_set1_epi32((int)a); }

DMLCPU_SV_COMMON(u8, 16, 32)
DMLCPU_SV_INT32_OPS(u8)
static inline __m512i dmlcpu_sv_u8_load(const char *p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline void dmlcpu_sv_u8_store(char *p, __m512i v) {
    _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(v));
}
static inline void dmlcpu_sv_u8_lanes(__m512i v, uint8_t *out) { dmlcpu_sv_u8_store((char *)out, v); }

DMLCPU_SV_COMMON(u16, 16, 32)
DMLCPU_SV_INT32_OPS(u16)
static inline __m512i dmlcpu_sv_u16_load(const char *p) {
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
}
static inline void dmlcpu_sv_u16_store(char *p, __m512i v) {
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(v));
}
static inline void dmlcpu_sv_u16_lanes(__m512i v, uint16_t *out) { dmlcpu_sv_u16_store((char *)out, v); }

DMLCPU_SV_COMMON(u32, 16, 32)
DMLCPU_SV_INT32_OPS(u32)
static inline __m512i dmlcpu_sv_u32_load(const char *p) { return _mm512_loadu_si512(p); }
static inline void dmlcpu_sv_u32_store(char *p, __m512i v) { _mm512_storeu_si512(p, v); }
static inline void dmlcpu_sv_u32_lanes(__m512i v, uint32_t *out) { _mm512_storeu_si512(out, v); }
static inline void dmlcpu_pv_u32_stream_line(char *p, __m512i v) { _mm512_stream_si512((__m512i *)p, v); }
static inline __m512i dmlcpu_pv_u32_sub(__m512i a, __m512i b) { return _mm512_sub_epi32(a, b); }
/* inclusive sums towards higher (fwd) or lower (bwd) lanes: shifts by 1, 2, 4, 8 lanes */
static inline __m512i dmlcpu_pv_u32_prefix_fwd(__m512i v) {
    const __m512i z = _mm512_setzero_si512();
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 15));
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 14));
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 12));
    return _mm512_add_epi32(v, _mm512_alignr_epi32(v, z, 8));
}
static inline __m512i dmlcpu_pv_u32_prefix_bwd(__m512i v) {
    const __m512i z = _mm512_setzero_si512();
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(z, v, 1));
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(z, v, 2));
    v = _mm512_add_epi32(v, _mm512_alignr_epi32(z, v, 4));
    return _mm512_add_epi32(v, _mm512_alignr_epi32(z, v, 8));
}
static inline __m512i dmlcpu_pv_u32_bcast_hi(__m512i v) {
    return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v);
}
static inline __m512i dmlcpu_pv_u32_bcast_lo(__m512i v) {
    return _mm512_broadcastd_epi32(_mm512_castsi512_si128(v));
}

/* FLOAT32, and FLOAT16 as float lanes */
#define DMLCPU_SV_F32_OPS(TYPE)                                                                 \
    static inline __m512i dmlcpu_sv_##TYPE##_cumsum(__m512i a, __m512i b) {                    \
        return _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))); \
    }                                                                                          \
    static inline __m512i dmlcpu_sv_##TYPE##_cumprod(__m512i a, __m512i b) {                   \
        return _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))); \
    }                                                                                          \
    static inline __m512i dmlcpu_sv_##TYPE##_fill(float a) {                                   \
        return _mm512_castps_si512(_mm512_set1_ps(a));                                         \
    }                                                                                          \
    static inline void dmlcpu_sv_##TYPE##_lanes(__m512i v, float *out) { _mm512_storeu_si512(out, v); } \
    static inline __m512i dmlcpu_sv_##TYPE##_acc_load(const float *p) { return _mm512_loadu_si512(p); } \
    static inline void dmlcpu_sv_##TYPE##_acc_store(float *p, __m512i v) { _mm512_storeu_si512(p, v); }

DMLCPU_SV_COMMON(f32, 16, 32)
DMLCPU_SV_F32_OPS(f32)
static inline __m512i dmlcpu_sv_f32_load(const char *p) { return _mm512_loadu_si512(p); }
static inline void dmlcpu_sv_f32_store(char *p, __m512i v) { _mm512_storeu_si512(p, v); }

DMLCPU_SV_COMMON(f16, 16, 32)
DMLCPU_SV_F32_OPS(f16)
static inline __m512i dmlcpu_sv_f16_load(const char *p) {
    return _mm512_castps_si512(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)));
}
static inline void dmlcpu_sv_f16_store(char *p, __m512i v) {
    _mm256_storeu_si256((__m256i *)p,
                        _mm512_cvtps_ph(_mm512_castsi512_ps(v),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* 64-bit lanes */
DMLCPU_SV_COMMON(u64, 8, 64)
static inline __m512i dmlcpu_sv_u64_load(const char *p) { return _mm512_loadu_si512(p); }
static inline void dmlcpu_sv_u64_store(char *p, __m512i v) { _mm512_storeu_si512(p, v); }
static inline void dmlcpu_sv_u64_lanes(__m512i v, uint64_t *out) { _mm512_storeu_si512(out, v); }
static inline __m512i dmlcpu_sv_u64_fill(uint64_t a) { return _mm512_set1_epi64((long long)a); }
static inline __m512i dmlcpu_sv_u64_cumsum(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
static inline __m512i dmlcpu_sv_u64_cumprod(__m512i a, __m512i b) {
    /* low 64 bits of a * b: lo*lo + (lo*hi + hi*lo) << 32 */
    __m512i lo = _mm512_mul_epu32(a, b);
    __m512i cross = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b),
                                     _mm512_mul_epu32(a, _mm512_srli_epi64(b, 32)));
    return _mm512_add_epi64(lo, _mm512_slli_epi64(cross, 32));
}
static inline void dmlcpu_pv_u64_stream_line(char *p, __m512i v) { _mm512_stream_si512((__m512i *)p, v); }
static inline __m512i dmlcpu_pv_u64_sub(__m512i a, __m512i b) { return _mm512_sub_epi64(a, b); }
static inline __m512i dmlcpu_pv_u64_prefix_fwd(__m512i v) {
    const __m512i z = _mm512_setzero_si512();
    v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, z, 7));
    v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, z, 6));
    return _mm512_add_epi64(v, _mm512_alignr_epi64(v, z, 4));
}
static inline __m512i dmlcpu_pv_u64_prefix_bwd(__m512i v) {
    const __m512i z = _mm512_setzero_si512();
    v = _mm512_add_epi64(v, _mm512_alignr_epi64(z, v, 1));
    v = _mm512_add_epi64(v, _mm512_alignr_epi64(z, v, 2));
    return _mm512_add_epi64(v, _mm512_alignr_epi64(z, v, 4));
}
static inline __m512i dmlcpu_pv_u64_bcast_hi(__m512i v) {
    return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), v);
}
static inline __m512i dmlcpu_pv_u64_bcast_lo(__m512i v) {
    return _mm512_broadcastq_epi64(_mm512_castsi512_si128(v));
}

DMLCPU_SV_COMMON(f64, 8, 64)
static inline __m512i dmlcpu_sv_f64_load(const char *p) { return _mm512_loadu_si512(p); }
static inline void dmlcpu_sv_f64_store(char *p, __m512i v) { _mm512_storeu_si512(p, v); }
static inline void dmlcpu_sv_f64_lanes(__m512i v, double *out) { _mm512_storeu_si512(out, v); }
static inline __m512i dmlcpu_sv_f64_fill(double a) { return _mm512_castpd_si512(_mm512_set1_pd(a)); }
static inline __m512i dmlcpu_sv_f64_cumsum(__m512i a, __m512i b) {
    return _mm512_castpd_si512(_mm512_add_pd(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b)));
}
static inline __m512i dmlcpu_sv_f64_cumprod(__m512i a, __m512i b) {
    return _mm512_castpd_si512(_mm512_mul_pd(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b)));
}

/* Line-kernel extras: whether non-temporal stores pay for TYPE (each block store of a line must
 * fill whole cache lines), the store itself, and lanes from W accumulators. */
#define DMLCPU_SV_EXTRA(TYPE, A, NT, STREAM, FROM_LANES)                                         \
    enum { DMLCPU_SV_NT_##TYPE = NT };                                                         \
    static inline void dmlcpu_sv_##TYPE##_stream(char *p, __m512i v) { STREAM; }                 \
    static inline __m512i dmlcpu_sv_##TYPE##_from_lanes(const A *p) { return FROM_LANES; }
DMLCPU_SV_EXTRA(u8, uint8_t, 0, dmlcpu_sv_u8_store(p, v), dmlcpu_sv_u8_load((const char *)p))
DMLCPU_SV_EXTRA(u16, uint16_t, 0, dmlcpu_sv_u16_store(p, v), dmlcpu_sv_u16_load((const char *)p))
DMLCPU_SV_EXTRA(u32, uint32_t, 1, _mm512_stream_si512((__m512i *)p, v), _mm512_loadu_si512(p))
DMLCPU_SV_EXTRA(u64, uint64_t, 1, _mm512_stream_si512((__m512i *)p, v), _mm512_loadu_si512(p))
DMLCPU_SV_EXTRA(f16, float, 0, dmlcpu_sv_f16_store(p, v), _mm512_loadu_si512(p))
DMLCPU_SV_EXTRA(f32, float, 1, _mm512_stream_si512((__m512i *)p, v), _mm512_loadu_si512(p))
DMLCPU_SV_EXTRA(f64, double, 1, _mm512_stream_si512((__m512i *)p, v), _mm512_loadu_si512(p))

/* ------------------------------------------------------------------ outer (vertical) primitives:
 * elements in their own width, 64 bytes per vector (FLOAT16: 16 halves widened to float) */

/* low byte of each product of bytes: two 16-bit multiplies, even and odd bytes */
static inline __m512i dmlcpu_mul_epi8(__m512i a, __m512i b) {
    __m512i even = _mm512_mullo_epi16(a, b);
    __m512i odd = _mm512_mullo_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
    return _mm512_or_si512(_mm512_and_si512(even, _mm512_set1_epi16(0xff)), _mm512_slli_epi16(odd, 8));
}
static inline void dmlcpu_ov_fence(void) { _mm_sfence(); }

#define DMLCPU_OV_INT(TYPE, A, W, ADD, MUL, FILL)                                                \
    typedef __m512i dmlcpu_ov_##TYPE;                                                          \
    enum { DMLCPU_OV_W_##TYPE = W };                                                           \
    static inline __m512i dmlcpu_ov_##TYPE##_load(const char *p) { return _mm512_loadu_si512(p); } \
    static inline void dmlcpu_ov_##TYPE##_store(char *p, __m512i v) { _mm512_storeu_si512(p, v); } \
    static inline void dmlcpu_ov_##TYPE##_stream(char *p, __m512i v) {                         \
        _mm512_stream_si512((__m512i *)p, v);                                                  \
    }                                                                                          \
    static inline __m512i dmlcpu_ov_##TYPE##_acc_load(const A *p) { return _mm512_loadu_si512(p); } \
    static inline void dmlcpu_ov_##TYPE##_acc_store(A *p, __m512i v) { _mm512_storeu_si512(p, v); } \
    static inline __m512i dmlcpu_ov_##TYPE##_fill(A a) { return FILL(a); }                     \
    static inline __m512i dmlcpu_ov_##TYPE##_cumsum(__m512i a, __m512i b) { return ADD(a, b); } \
    static inline __m512i dmlcpu_ov_##TYPE##_cumprod(__m512i a, __m512i b) { return MUL(a, b); }

#define DMLCPU_SET1_8(a) _mm512_set1_epi8((char)(a))
#define DMLCPU_SET1_16(a) _mm512_set1_epi16((short)(a))
#define DMLCPU_SET1_32(a) _mm512_set1_epi32((int)(a))
#define DMLCPU_SET1_64(a) _mm512_set1_epi64((long long)(a))
DMLCPU_OV_INT(u8, uint8_t, 64, _mm512_add_epi8, dmlcpu_mul_epi8, DMLCPU_SET1_8)
DMLCPU_OV_INT(u16, uint16_t, 32, _mm512_add_epi16, _mm512_mullo_epi16, DMLCPU_SET1_16)
DMLCPU_OV_INT(u32, uint32_t, 16, _mm512_add_epi32, _mm512_mullo_epi32, DMLCPU_SET1_32)
DMLCPU_OV_INT(u64, uint64_t, 8, _mm512_add_epi64, dmlcpu_sv_u64_cumprod, DMLCPU_SET1_64)
DMLCPU_OV_INT(f32, float, 16, dmlcpu_sv_f32_cumsum, dmlcpu_sv_f32_cumprod, dmlcpu_sv_f32_fill)
DMLCPU_OV_INT(f64, double, 8, dmlcpu_sv_f64_cumsum, dmlcpu_sv_f64_cumprod, dmlcpu_sv_f64_fill)

typedef __m512i dmlcpu_ov_f16;
enum { DMLCPU_OV_W_f16 = 16 };
static inline __m512i dmlcpu_ov_f16_load(const char *p) { return dmlcpu_sv_f16_load(p); }
static inline void dmlcpu_ov_f16_store(char *p, __m512i v) { dmlcpu_sv_f16_store(p, v); }
static inline void dmlcpu_ov_f16_stream(char *p, __m512i v) {
    _mm256_stream_si256((__m256i *)p, _mm512_cvtps_ph(_mm512_castsi512_ps(v),
                                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static inline __m512i dmlcpu_ov_f16_acc_load(const float *p) { return _mm512_loadu_si512(p); }
static inline void dmlcpu_ov_f16_acc_store(float *p, __m512i v) { _mm512_storeu_si512(p, v); }
static inline __m512i dmlcpu_ov_f16_fill(float a) { return dmlcpu_sv_f16_fill(a); }
static inline __m512i dmlcpu_ov_f16_cumsum(__m512i a, __m512i b) { return dmlcpu_sv_f16_cumsum(a, b); }
static inline __m512i dmlcpu_ov_f16_cumprod(__m512i a, __m512i b) { return dmlcpu_sv_f16_cumprod(a, b); }

/* Prefix (line_prefix) primitives, lanes of the element's own width: the 32/64-bit line
 * vectors (the 8/16-bit line slots of this ISA stay with avx2: scan_avx512.c). */
DMLCPU_PV_FROM_SV(u32, uint32_t)
DMLCPU_PV_FROM_SV(u64, uint64_t)
#define DMLCPU_HAS_PV_u32 1
#define DMLCPU_HAS_PV_u64 1

#endif /* DMLCPU_SIMD_AVX512_SCAN_H */
