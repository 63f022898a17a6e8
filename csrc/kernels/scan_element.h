/*
 * Template (scan_types.h): one type's element access, SCAN_LOAD / SCAN_STORE (memory <->
 * accumulator, through memcpy: no alignment assumed), and one operation, SCAN_COMBINE
 * (docs/semantics.md):
 * - integers compute in the unsigned type of their width, so signed and unsigned share kernels
 *   and wrap modulo 2^bits; `1u * a` lifts an 8- or 16-bit operand to unsigned int first
 *   (uint16 * uint16 would promote to int and could overflow);
 * - FLOAT32 and FLOAT64 accumulate in their own type (the build passes -ffp-contract=off: no
 *   fused multiply-add changes a rounding);
 * - FLOAT16 (the 2-byte float) is stored as binary16 bits and accumulates in float, each
 *   written value rounded to the nearest half.
 */
#define SCAN_HALF (SCAN_FLOAT && SCAN_ES == 2)

#if SCAN_IS_SUM /* the access, once per type */
static inline SCAN_ACC SCAN_LOAD(const char *p) {
#if SCAN_HALF
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return DMLCPU_SCAN_F16_TO_F32(v);
#else
    SCAN_ACC v;
    memcpy(&v, p, sizeof v);
    return v;
#endif
}

static inline void SCAN_STORE(char *p, SCAN_ACC a) {
#if SCAN_HALF
    uint16_t v = DMLCPU_SCAN_F32_TO_F16(a);
    memcpy(p, &v, sizeof v);
#else
    memcpy(p, &a, sizeof a);
#endif
}
#endif

static inline SCAN_ACC SCAN_COMBINE(SCAN_ACC a, SCAN_ACC b) {
#if SCAN_FLOAT
    return SCAN_IS_SUM ? a + b : a * b;
#else
    return (SCAN_ACC)(SCAN_IS_SUM ? 1u * a + b : 1u * a * b);
#endif
}

#undef SCAN_HALF
