/*
 * AVX2 lane primitives for the SIMD scan templates (kernels/scan_line_simd.h and
 * scan_outer_simd.h), per kernel type: dmlcpu_sv_<type>_* for line kernels (32- or 64-bit
 * lanes, narrow integers and FLOAT16 widened), dmlcpu_ov_<type>_* for outer kernels (lanes of
 * the element's own width). Include only from a translation unit compiled with avx2 flags,
 * after simd/avx2.h.
 */
#ifndef DMLCPU_SIMD_AVX2_SCAN_H
#define DMLCPU_SIMD_AVX2_SCAN_H
#include <stdint.h>

#include "scan_prefix.h"

/* ------------------------------------------------------------------ transposes */

/* 8x8 32-bit: pairs, then quads inside 128-bit halves, then the halves. */
static inline void dmlcpu_sv32_transpose(__m256i r[8]) {
    __m256i t[8], s[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    /* s[4g + c], half q: column 4q + c of rows 4g .. 4g + 3 */
    for (int g = 0; g < 2; g++) {
        s[4 * g + 0] = _mm256_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
        s[4 * g + 1] = _mm256_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
        s[4 * g + 2] = _mm256_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
        s[4 * g + 3] = _mm256_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
    }
    for (int c = 0; c < 4; c++) {
        r[c] = _mm256_permute2x128_si256(s[c], s[4 + c], 0x20);
        r[4 + c] = _mm256_permute2x128_si256(s[c], s[4 + c], 0x31);
    }
}

/* 4x4 64-bit: pairs inside halves, then the halves. */
static inline void dmlcpu_sv64_transpose(__m256i r[4]) {
    __m256i t[4];
    for (int i = 0; i < 2; i++) {
        t[2 * i] = _mm256_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
    }
    for (int c = 0; c < 2; c++) {
        r[c] = _mm256_permute2x128_si256(t[c], t[2 + c], 0x20);
        r[2 + c] = _mm256_permute2x128_si256(t[c], t[2 + c], 0x31);
    }
}

/* ------------------------------------------------------------------ per-type primitives */

#define DMLCPU_SV_COMMON(TYPE, W, LANE_BITS)                                                     \
    typedef __m256i dmlcpu_sv_##TYPE;                                                          \
    enum { DMLCPU_SV_W_##TYPE = W };                                                           \
    static inline void dmlcpu_sv_##TYPE##_transpose(__m256i r[W]) {                            \
        dmlcpu_sv##LANE_BITS##_transpose(r);                                                   \
    }

/* integers in 32-bit lanes */
#define DMLCPU_SV_INT32_OPS(TYPE)                                                               \
    static inline __m256i dmlcpu_sv_##TYPE##_cumsum(__m256i a, __m256i b) {                    \
        return _mm256_add_epi32(a, b);                                                         \
    }                                                                                          \
    static inline __m256i dmlcpu_sv_##TYPE##_cumprod(__m256i a, __m256i b) {                   \
        return _mm256_mullo_epi32(a, b);                                                       \
    }                                                                                          \
    static inline __m256i dmlcpu_sv_##TYPE##_fill(uint32_t a) { return _mm256_set1_epi32((int)a); }

/* The low byte (u8) or low two bytes (u16) of each 32-bit lane, packed into the low 8 or 16
 * bytes (AVX2 has no truncating moves; pack instructions would saturate). */
static inline __m128i dmlcpu_sv_narrow8(__m256i v) {
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i b = _mm256_shuffle_epi8(v, pick); /* dword 0 of each half */
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)));
}
static inline __m128i dmlcpu_sv_narrow16(__m256i v) {
    const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
                                          0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i b = _mm256_shuffle_epi8(v, pick); /* qword 0 of each half */
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(b, 0x08));
}

DMLCPU_SV_COMMON(u8, 8, 32)
DMLCPU_SV_INT32_OPS(u8)
static inline __m256i dmlcpu_sv_u8_load(const char *p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline void dmlcpu_sv_u8_store(char *p, __m256i v) {
    _mm_storel_epi64((__m128i *)p, dmlcpu_sv_narrow8(v));
}
static inline void dmlcpu_sv_u8_lanes(__m256i v, uint8_t *out) { dmlcpu_sv_u8_store((char *)out, v); }

DMLCPU_SV_COMMON(u16, 8, 32)
DMLCPU_SV_INT32_OPS(u16)
static inline __m256i dmlcpu_sv_u16_load(const char *p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline void dmlcpu_sv_u16_store(char *p, __m256i v) {
    _mm_storeu_si128((__m128i *)p, dmlcpu_sv_narrow16(v));
}
static inline void dmlcpu_sv_u16_lanes(__m256i v, uint16_t *out) { dmlcpu_sv_u16_store((char *)out, v); }

DMLCPU_SV_COMMON(u32, 8, 32)
DMLCPU_SV_INT32_OPS(u32)
static inline __m256i dmlcpu_sv_u32_load(const char *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void dmlcpu_sv_u32_store(char *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline void dmlcpu_sv_u32_lanes(__m256i v, uint32_t *out) { dmlcpu_sv_u32_store((char *)out, v); }
static inline void dmlcpu_pv_u32_stream_line(char *p, __m256i v) { _mm256_stream_si256((__m256i *)p, v); }
static inline __m256i dmlcpu_pv_u32_sub(__m256i a, __m256i b) { return _mm256_sub_epi32(a, b); }
/* inclusive sums towards higher (fwd) or lower (bwd) lanes: shifts by 1, 2, 4 lanes across the
 * halves (alignr against the other half, or zero) */
static inline __m256i dmlcpu_pv_u32_prefix_fwd(__m256i v) {
    __m256i t = _mm256_permute2x128_si256(v, v, 0x08); /* [0, v.lo] */
    v = _mm256_add_epi32(v, _mm256_alignr_epi8(v, t, 12));
    t = _mm256_permute2x128_si256(v, v, 0x08);
    v = _mm256_add_epi32(v, _mm256_alignr_epi8(v, t, 8));
    return _mm256_add_epi32(v, _mm256_permute2x128_si256(v, v, 0x08));
}
static inline __m256i dmlcpu_pv_u32_prefix_bwd(__m256i v) {
    __m256i t = _mm256_permute2x128_si256(v, v, 0x81); /* [v.hi, 0] */
    v = _mm256_add_epi32(v, _mm256_alignr_epi8(t, v, 4));
    t = _mm256_permute2x128_si256(v, v, 0x81);
    v = _mm256_add_epi32(v, _mm256_alignr_epi8(t, v, 8));
    return _mm256_add_epi32(v, _mm256_permute2x128_si256(v, v, 0x81));
}
static inline __m256i dmlcpu_pv_u32_bcast_hi(__m256i v) {
    return _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));
}
static inline __m256i dmlcpu_pv_u32_bcast_lo(__m256i v) {
    return _mm256_broadcastd_epi32(_mm256_castsi256_si128(v));
}

/* FLOAT32, and FLOAT16 as float lanes */
#define DMLCPU_SV_F32_OPS(TYPE)                                                                 \
    static inline __m256i dmlcpu_sv_##TYPE##_cumsum(__m256i a, __m256i b) {                    \
        return _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))); \
    }                                                                                          \
    static inline __m256i dmlcpu_sv_##TYPE##_cumprod(__m256i a, __m256i b) {                   \
        return _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))); \
    }                                                                                          \
    static inline __m256i dmlcpu_sv_##TYPE##_fill(float a) {                                   \
        return _mm256_castps_si256(_mm256_set1_ps(a));                                         \
    }                                                                                          \
    static inline void dmlcpu_sv_##TYPE##_lanes(__m256i v, float *out) {                       \
        _mm256_storeu_si256((__m256i *)out, v);                                                \
    }                                                                                          \
    static inline __m256i dmlcpu_sv_##TYPE##_acc_load(const float *p) {                        \
        return _mm256_loadu_si256((const __m256i *)p);                                         \
    }                                                                                          \
    static inline void dmlcpu_sv_##TYPE##_acc_store(float *p, __m256i v) {                     \
        _mm256_storeu_si256((__m256i *)p, v);                                                  \
    }

DMLCPU_SV_COMMON(f32, 8, 32)
DMLCPU_SV_F32_OPS(f32)
static inline __m256i dmlcpu_sv_f32_load(const char *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void dmlcpu_sv_f32_store(char *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }

DMLCPU_SV_COMMON(f16, 8, 32)
DMLCPU_SV_F32_OPS(f16)
static inline __m256i dmlcpu_sv_f16_load(const char *p) {
    return _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)));
}
static inline void dmlcpu_sv_f16_store(char *p, __m256i v) {
    _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(_mm256_castsi256_ps(v),
                                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* 64-bit lanes */
DMLCPU_SV_COMMON(u64, 4, 64)
static inline __m256i dmlcpu_sv_u64_load(const char *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void dmlcpu_sv_u64_store(char *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline void dmlcpu_sv_u64_lanes(__m256i v, uint64_t *out) { dmlcpu_sv_u64_store((char *)out, v); }
static inline __m256i dmlcpu_sv_u64_fill(uint64_t a) { return _mm256_set1_epi64x((long long)a); }
static inline __m256i dmlcpu_sv_u64_cumsum(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
static inline __m256i dmlcpu_sv_u64_cumprod(__m256i a, __m256i b) {
    /* low 64 bits of a * b: lo*lo + (lo*hi + hi*lo) << 32 */
    __m256i lo = _mm256_mul_epu32(a, b);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                     _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}
static inline void dmlcpu_pv_u64_stream_line(char *p, __m256i v) { _mm256_stream_si256((__m256i *)p, v); }
static inline __m256i dmlcpu_pv_u64_sub(__m256i a, __m256i b) { return _mm256_sub_epi64(a, b); }
static inline __m256i dmlcpu_pv_u64_prefix_fwd(__m256i v) {
    __m256i t = _mm256_permute2x128_si256(v, v, 0x08); /* [0, v.lo] */
    v = _mm256_add_epi64(v, _mm256_alignr_epi8(v, t, 8));
    return _mm256_add_epi64(v, _mm256_permute2x128_si256(v, v, 0x08));
}
static inline __m256i dmlcpu_pv_u64_prefix_bwd(__m256i v) {
    __m256i t = _mm256_permute2x128_si256(v, v, 0x81); /* [v.hi, 0] */
    v = _mm256_add_epi64(v, _mm256_alignr_epi8(t, v, 8));
    return _mm256_add_epi64(v, _mm256_permute2x128_si256(v, v, 0x81));
}
static inline __m256i dmlcpu_pv_u64_bcast_hi(__m256i v) { return _mm256_permute4x64_epi64(v, 0xFF); }
static inline __m256i dmlcpu_pv_u64_bcast_lo(__m256i v) { return _mm256_permute4x64_epi64(v, 0x00); }

DMLCPU_SV_COMMON(f64, 4, 64)
static inline __m256i dmlcpu_sv_f64_load(const char *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void dmlcpu_sv_f64_store(char *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline void dmlcpu_sv_f64_lanes(__m256i v, double *out) { _mm256_storeu_si256((__m256i *)out, v); }
static inline __m256i dmlcpu_sv_f64_fill(double a) { return _mm256_castpd_si256(_mm256_set1_pd(a)); }
static inline __m256i dmlcpu_sv_f64_cumsum(__m256i a, __m256i b) {
    return _mm256_castpd_si256(_mm256_add_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)));
}
static inline __m256i dmlcpu_sv_f64_cumprod(__m256i a, __m256i b) {
    return _mm256_castpd_si256(_mm256_mul_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)));
}

/* Line-kernel extras: whether non-temporal stores pay for TYPE (each block store of a line must
 * fill whole cache lines), the store itself, and lanes from W accumulators. */
#define DMLCPU_SV_EXTRA(TYPE, A, NT, STREAM, FROM_LANES)                                         \
    enum { DMLCPU_SV_NT_##TYPE = NT };                                                         \
    static inline void dmlcpu_sv_##TYPE##_stream(char *p, __m256i v) { STREAM; }                 \
    static inline __m256i dmlcpu_sv_##TYPE##_from_lanes(const A *p) { return FROM_LANES; }
/* 32-byte stores fill half a line: four lines in flight (64-bit) stream well, eight (32-bit)
 * took twice as long as cached stores (NOTES.md in git) */
DMLCPU_SV_EXTRA(u8, uint8_t, 0, dmlcpu_sv_u8_store(p, v), dmlcpu_sv_u8_load((const char *)p))
DMLCPU_SV_EXTRA(u16, uint16_t, 0, dmlcpu_sv_u16_store(p, v), dmlcpu_sv_u16_load((const char *)p))
DMLCPU_SV_EXTRA(u32, uint32_t, 0, _mm256_stream_si256((__m256i *)p, v), _mm256_loadu_si256((const __m256i *)p))
DMLCPU_SV_EXTRA(u64, uint64_t, 1, _mm256_stream_si256((__m256i *)p, v), _mm256_loadu_si256((const __m256i *)p))
DMLCPU_SV_EXTRA(f16, float, 0, dmlcpu_sv_f16_store(p, v), _mm256_loadu_si256((const __m256i *)p))
DMLCPU_SV_EXTRA(f32, float, 0, _mm256_stream_si256((__m256i *)p, v), _mm256_loadu_si256((const __m256i *)p))
DMLCPU_SV_EXTRA(f64, double, 1, _mm256_stream_si256((__m256i *)p, v), _mm256_loadu_si256((const __m256i *)p))

/* ------------------------------------------------------------------ outer (vertical) primitives:
 * elements in their own width, 32 bytes per vector (FLOAT16: 8 halves widened to float) */

/* low byte of each product of bytes: two 16-bit multiplies, even and odd bytes */
static inline __m256i dmlcpu_mul_epi8(__m256i a, __m256i b) {
    __m256i even = _mm256_mullo_epi16(a, b);
    __m256i odd = _mm256_mullo_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    return _mm256_or_si256(_mm256_and_si256(even, _mm256_set1_epi16(0xff)), _mm256_slli_epi16(odd, 8));
}
static inline void dmlcpu_ov_fence(void) { _mm_sfence(); }

#define DMLCPU_OV_INT(TYPE, A, W, ADD, MUL, FILL)                                                \
    typedef __m256i dmlcpu_ov_##TYPE;                                                          \
    enum { DMLCPU_OV_W_##TYPE = W };                                                           \
    static inline __m256i dmlcpu_ov_##TYPE##_load(const char *p) {                             \
        return _mm256_loadu_si256((const __m256i *)p);                                         \
    }                                                                                          \
    static inline void dmlcpu_ov_##TYPE##_store(char *p, __m256i v) {                          \
        _mm256_storeu_si256((__m256i *)p, v);                                                  \
    }                                                                                          \
    static inline void dmlcpu_ov_##TYPE##_stream(char *p, __m256i v) {                         \
        _mm256_stream_si256((__m256i *)p, v);                                                  \
    }                                                                                          \
    static inline __m256i dmlcpu_ov_##TYPE##_acc_load(const A *p) {                            \
        return _mm256_loadu_si256((const __m256i *)p);                                         \
    }                                                                                          \
    static inline void dmlcpu_ov_##TYPE##_acc_store(A *p, __m256i v) {                         \
        _mm256_storeu_si256((__m256i *)p, v);                                                  \
    }                                                                                          \
    static inline __m256i dmlcpu_ov_##TYPE##_fill(A a) { return FILL(a); }                     \
    static inline __m256i dmlcpu_ov_##TYPE##_cumsum(__m256i a, __m256i b) { return ADD(a, b); } \
    static inline __m256i dmlcpu_ov_##TYPE##_cumprod(__m256i a, __m256i b) { return MUL(a, b); }

#define DMLCPU_SET1_8(a) _mm256_set1_epi8((char)(a))
#define DMLCPU_SET1_16(a) _mm256_set1_epi16((short)(a))
#define DMLCPU_SET1_32(a) _mm256_set1_epi32((int)(a))
#define DMLCPU_SET1_64(a) _mm256_set1_epi64x((long long)(a))
DMLCPU_OV_INT(u8, uint8_t, 32, _mm256_add_epi8, dmlcpu_mul_epi8, DMLCPU_SET1_8)
DMLCPU_OV_INT(u16, uint16_t, 16, _mm256_add_epi16, _mm256_mullo_epi16, DMLCPU_SET1_16)
DMLCPU_OV_INT(u32, uint32_t, 8, _mm256_add_epi32, _mm256_mullo_epi32, DMLCPU_SET1_32)
DMLCPU_OV_INT(u64, uint64_t, 4, _mm256_add_epi64, dmlcpu_sv_u64_cumprod, DMLCPU_SET1_64)
DMLCPU_OV_INT(f32, float, 8, dmlcpu_sv_f32_cumsum, dmlcpu_sv_f32_cumprod, dmlcpu_sv_f32_fill)
DMLCPU_OV_INT(f64, double, 4, dmlcpu_sv_f64_cumsum, dmlcpu_sv_f64_cumprod, dmlcpu_sv_f64_fill)

typedef __m256i dmlcpu_ov_f16;
enum { DMLCPU_OV_W_f16 = 8 };
static inline __m256i dmlcpu_ov_f16_load(const char *p) { return dmlcpu_sv_f16_load(p); }
static inline void dmlcpu_ov_f16_store(char *p, __m256i v) { dmlcpu_sv_f16_store(p, v); }
static inline void dmlcpu_ov_f16_stream(char *p, __m256i v) {
    _mm_stream_si128((__m128i *)p, _mm256_cvtps_ph(_mm256_castsi256_ps(v),
                                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static inline __m256i dmlcpu_ov_f16_acc_load(const float *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void dmlcpu_ov_f16_acc_store(float *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline __m256i dmlcpu_ov_f16_fill(float a) { return dmlcpu_sv_f16_fill(a); }
static inline __m256i dmlcpu_ov_f16_cumsum(__m256i a, __m256i b) { return dmlcpu_sv_f16_cumsum(a, b); }
static inline __m256i dmlcpu_ov_f16_cumprod(__m256i a, __m256i b) { return dmlcpu_sv_f16_cumprod(a, b); }

/* ------------------------------------------------------------------ prefix (line_prefix)
 * primitives: lanes of the element's own width, dmlcpu_pv_<type>_*. 32/64-bit ones share the
 * line kernels' vectors; 8/16-bit ones sum within each 128-bit half by byte shifts, then add
 * the low half's total to the high half. */
DMLCPU_PV_FROM_SV(u32, uint32_t)
DMLCPU_PV_FROM_SV(u64, uint64_t)

/* byte shifts inside each 128-bit half by a count known once inlined (1, 2, 4 or 8) */
static inline __m256i dmlcpu_pv_slli(__m256i v, int bytes) {
    switch (bytes) {
    case 1: return _mm256_slli_si256(v, 1);
    case 2: return _mm256_slli_si256(v, 2);
    case 4: return _mm256_slli_si256(v, 4);
    default: return _mm256_slli_si256(v, 8);
    }
}
static inline __m256i dmlcpu_pv_srli(__m256i v, int bytes) {
    switch (bytes) {
    case 1: return _mm256_srli_si256(v, 1);
    case 2: return _mm256_srli_si256(v, 2);
    case 4: return _mm256_srli_si256(v, 4);
    default: return _mm256_srli_si256(v, 8);
    }
}
/* 8/16-bit prefix lanes are the outer kernels' lanes (load, store, stream, fill, sum forward to
 * dmlcpu_ov_<type>_*). SHUF_HI / SHUF_LO pick each half's last / first element for a byte
 * shuffle; BCAST_LO broadcasts the lowest element. */
#define DMLCPU_PV_NARROW(TYPE, A, BITS, SHUF_HI, SHUF_LO, BCAST_LO)                               \
    typedef dmlcpu_ov_##TYPE dmlcpu_pv_##TYPE;                                                 \
    enum { DMLCPU_PV_W_##TYPE = DMLCPU_OV_W_##TYPE };                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_load(const char *p) { return dmlcpu_ov_##TYPE##_load(p); } \
    static inline void dmlcpu_pv_##TYPE##_store(char *p, __m256i v) { dmlcpu_ov_##TYPE##_store(p, v); } \
    static inline void dmlcpu_pv_##TYPE##_stream_line(char *p, __m256i v) {                    \
        dmlcpu_ov_##TYPE##_stream(p, v);                                                       \
    }                                                                                          \
    static inline void dmlcpu_pv_##TYPE##_lanes(__m256i v, A *out) {                           \
        dmlcpu_ov_##TYPE##_acc_store(out, v);                                                  \
    }                                                                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_fill(A a) { return dmlcpu_ov_##TYPE##_fill(a); }  \
    static inline __m256i dmlcpu_pv_##TYPE##_cumsum(__m256i a, __m256i b) {                    \
        return dmlcpu_ov_##TYPE##_cumsum(a, b);                                                \
    }                                                                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_sub(__m256i a, __m256i b) {                       \
        return _mm256_sub_epi##BITS(a, b);                                                     \
    }                                                                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_prefix_fwd(__m256i v) {                           \
        for (int shift = BITS / 8; shift < 16; shift *= 2)                                     \
            v = _mm256_add_epi##BITS(v, dmlcpu_pv_slli(v, shift));                             \
        __m256i low_total = _mm256_shuffle_epi8(v, SHUF_HI);                                   \
        return _mm256_add_epi##BITS(v, _mm256_permute2x128_si256(low_total, low_total, 0x08)); \
    }                                                                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_prefix_bwd(__m256i v) {                           \
        for (int shift = BITS / 8; shift < 16; shift *= 2)                                     \
            v = _mm256_add_epi##BITS(v, dmlcpu_pv_srli(v, shift));                             \
        __m256i high_total = _mm256_shuffle_epi8(v, SHUF_LO);                                  \
        return _mm256_add_epi##BITS(v, _mm256_permute2x128_si256(high_total, high_total, 0x81)); \
    }                                                                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_bcast_hi(__m256i v) {                             \
        __m256i last = _mm256_shuffle_epi8(v, SHUF_HI);                                        \
        return _mm256_permute2x128_si256(last, last, 0x11);                                    \
    }                                                                                          \
    static inline __m256i dmlcpu_pv_##TYPE##_bcast_lo(__m256i v) {                             \
        return BCAST_LO(_mm256_castsi256_si128(v));                                            \
    }
DMLCPU_PV_NARROW(u8, uint8_t, 8, _mm256_set1_epi8(15), _mm256_set1_epi8(0), _mm256_broadcastb_epi8)
DMLCPU_PV_NARROW(u16, uint16_t, 16, _mm256_set1_epi16(0x0F0E), _mm256_set1_epi16(0x0100),
                 _mm256_broadcastw_epi16)
/* the types line_prefix can be built for in this ISA (kernels/scan_line_simd.h) */
#define DMLCPU_HAS_PV_u8 1
#define DMLCPU_HAS_PV_u16 1
#define DMLCPU_HAS_PV_u32 1
#define DMLCPU_HAS_PV_u64 1

#endif /* DMLCPU_SIMD_AVX2_SCAN_H */
