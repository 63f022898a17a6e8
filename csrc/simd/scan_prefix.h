/*
 * Prefix (line_prefix) primitives shared by the x86 scan headers: a 32- or 64-bit type's prefix
 * lanes are its line vectors, so its dmlcpu_pv_<type>_* forward to dmlcpu_sv_<type>_*. Each ISA
 * header defines the rest (prefix_fwd / prefix_bwd, bcast_hi / bcast_lo, sub, stream_line) and
 * DMLCPU_HAS_PV_<type> for the types it has them for (kernels/scan_line_simd.h).
 */
#ifndef DMLCPU_SIMD_SCAN_PREFIX_H
#define DMLCPU_SIMD_SCAN_PREFIX_H

#define DMLCPU_PV_FROM_SV(TYPE, A)                                                               \
    typedef dmlcpu_sv_##TYPE dmlcpu_pv_##TYPE;                                                 \
    enum { DMLCPU_PV_W_##TYPE = DMLCPU_SV_W_##TYPE };                                          \
    static inline dmlcpu_sv_##TYPE dmlcpu_pv_##TYPE##_load(const char *p) {                    \
        return dmlcpu_sv_##TYPE##_load(p);                                                     \
    }                                                                                          \
    static inline void dmlcpu_pv_##TYPE##_store(char *p, dmlcpu_sv_##TYPE v) {                 \
        dmlcpu_sv_##TYPE##_store(p, v);                                                        \
    }                                                                                          \
    static inline void dmlcpu_pv_##TYPE##_lanes(dmlcpu_sv_##TYPE v, A *out) {                  \
        dmlcpu_sv_##TYPE##_lanes(v, out);                                                      \
    }                                                                                          \
    static inline dmlcpu_sv_##TYPE dmlcpu_pv_##TYPE##_fill(A a) {                              \
        return dmlcpu_sv_##TYPE##_fill(a);                                                     \
    }                                                                                          \
    static inline dmlcpu_sv_##TYPE dmlcpu_pv_##TYPE##_cumsum(dmlcpu_sv_##TYPE a,               \
                                                             dmlcpu_sv_##TYPE b) {             \
        return dmlcpu_sv_##TYPE##_cumsum(a, b);                                                \
    }

#endif /* DMLCPU_SIMD_SCAN_PREFIX_H */
