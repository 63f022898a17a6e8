/*
 * NEON lane primitives for the scan templates (kernels/scan_line_simd.h, scan_outer_simd.h),
 * for the floating-point types only: FLOAT32 and FLOAT16 (widened to float) in 4 lanes of 32
 * bits, FLOAT64 in 2 lanes of 64 bits. Every lane runs one scan's own recurrence with the same
 * IEEE operation as the portable kernels (no fused multiply-add), so the bits are the same.
 * FLOAT16 converts with the FCVT instructions: exact to float, and back with the rounding mode
 * of FPCR, round to nearest even unless the process changed it (nothing in Python or dmlcpu
 * does); flush-to-zero and default-NaN are off by default, as f16.h assumes.
 * NEON has no non-temporal vector stores worth the name here: nothing streams (NT 0).
 */
#ifndef DMLCPU_SIMD_NEON_SCAN_H
#define DMLCPU_SIMD_NEON_SCAN_H
#include <arm_neon.h>
#include <stdint.h>

static inline float dmlcpu_neon_f16_to_f32(uint16_t h) {
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
}
static inline uint16_t dmlcpu_neon_f32_to_f16(float f) {
    return vget_lane_u16(vreinterpret_u16_f16(vcvt_f16_f32(vdupq_n_f32(f))), 0);
}

/* r[i] lane j <- r[j] lane i: pairs of lanes swapped (TRN), then the 64-bit halves. */
static inline void dmlcpu_neon_transpose4(float32x4_t r[4]) {
    float32x4x2_t a = vtrnq_f32(r[0], r[1]), b = vtrnq_f32(r[2], r[3]);
    r[0] = vcombine_f32(vget_low_f32(a.val[0]), vget_low_f32(b.val[0]));
    r[1] = vcombine_f32(vget_low_f32(a.val[1]), vget_low_f32(b.val[1]));
    r[2] = vcombine_f32(vget_high_f32(a.val[0]), vget_high_f32(b.val[0]));
    r[3] = vcombine_f32(vget_high_f32(a.val[1]), vget_high_f32(b.val[1]));
}
static inline void dmlcpu_neon_transpose2(float64x2_t r[2]) {
    float64x2_t lo = vzip1q_f64(r[0], r[1]), hi = vzip2q_f64(r[0], r[1]);
    r[0] = lo;
    r[1] = hi;
}

/* What every float type shares: the operations, lanes <-> accumulators, no streaming. */
#define DMLCPU_NEON_SV(TYPE, V, A, W, SFX)                                                      \
    typedef V dmlcpu_sv_##TYPE;                                                                \
    enum { DMLCPU_SV_W_##TYPE = W, DMLCPU_SV_NT_##TYPE = 0 };                                  \
    static inline V dmlcpu_sv_##TYPE##_cumsum(V a, V b) { return vaddq_##SFX(a, b); }          \
    static inline V dmlcpu_sv_##TYPE##_cumprod(V a, V b) { return vmulq_##SFX(a, b); }         \
    static inline V dmlcpu_sv_##TYPE##_fill(A a) { return vdupq_n_##SFX(a); }                  \
    static inline void dmlcpu_sv_##TYPE##_lanes(V v, A *out) { vst1q_##SFX(out, v); }         \
    static inline V dmlcpu_sv_##TYPE##_from_lanes(const A *p) { return vld1q_##SFX(p); }      \
    static inline void dmlcpu_sv_##TYPE##_transpose(V r[W]) { dmlcpu_neon_transpose##W(r); }

DMLCPU_NEON_SV(f32, float32x4_t, float, 4, f32)
static inline float32x4_t dmlcpu_sv_f32_load(const char *p) {
    return vld1q_f32((const float *)(const void *)p);
}
static inline void dmlcpu_sv_f32_store(char *p, float32x4_t v) { vst1q_f32((float *)(void *)p, v); }

DMLCPU_NEON_SV(f64, float64x2_t, double, 2, f64)
static inline float64x2_t dmlcpu_sv_f64_load(const char *p) {
    return vld1q_f64((const double *)(const void *)p);
}
static inline void dmlcpu_sv_f64_store(char *p, float64x2_t v) {
    vst1q_f64((double *)(void *)p, v);
}

DMLCPU_NEON_SV(f16, float32x4_t, float, 4, f32)
static inline float32x4_t dmlcpu_sv_f16_load(const char *p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)(const void *)p)));
}
static inline void dmlcpu_sv_f16_store(char *p, float32x4_t v) {
    vst1_u16((uint16_t *)(void *)p, vreinterpret_u16_f16(vcvt_f16_f32(v)));
}

#define DMLCPU_NEON_SV_STREAM(TYPE, V)                                                          \
    static inline void dmlcpu_sv_##TYPE##_stream(char *p, V v) { dmlcpu_sv_##TYPE##_store(p, v); }
DMLCPU_NEON_SV_STREAM(f32, float32x4_t)
DMLCPU_NEON_SV_STREAM(f64, float64x2_t)
DMLCPU_NEON_SV_STREAM(f16, float32x4_t)

/* Outer kernels: FLOAT16 only (the portable FLOAT32/FLOAT64 outer kernels vectorize already);
 * the same four lanes, columns side by side. */
typedef float32x4_t dmlcpu_ov_f16;
enum { DMLCPU_OV_W_f16 = 4 };
static inline float32x4_t dmlcpu_ov_f16_load(const char *p) { return dmlcpu_sv_f16_load(p); }
static inline void dmlcpu_ov_f16_store(char *p, float32x4_t v) { dmlcpu_sv_f16_store(p, v); }
static inline void dmlcpu_ov_f16_stream(char *p, float32x4_t v) { dmlcpu_sv_f16_store(p, v); }
static inline float32x4_t dmlcpu_ov_f16_acc_load(const float *p) { return vld1q_f32(p); }
static inline void dmlcpu_ov_f16_acc_store(float *p, float32x4_t v) { vst1q_f32(p, v); }
static inline float32x4_t dmlcpu_ov_f16_fill(float a) { return vdupq_n_f32(a); }
static inline float32x4_t dmlcpu_ov_f16_cumsum(float32x4_t a, float32x4_t b) {
    return vaddq_f32(a, b);
}
static inline float32x4_t dmlcpu_ov_f16_cumprod(float32x4_t a, float32x4_t b) {
    return vmulq_f32(a, b);
}
static inline void dmlcpu_ov_fence(void) {}

#endif
