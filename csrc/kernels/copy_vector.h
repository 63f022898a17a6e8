/*
 * Template (copy_widths.h): the vector copy kernels of one element width for an ISA unit,
 * written against its simd/<isa>.h wrappers (DMLCPU_VEC_BYTES bytes per dmlcpu_vec), after the
 * portable ones they fall back to. Static inline: the unit emits those its table lists.
 */
#include "copy_portable.h"
#include "copy_vec4.h"

/* Largest source strides (in elements) worth a permute gather, for every unit (a unit may set
 * its own). Its set-up (the lane indices and masks) is paid per run: through the bench's SLICE,
 * runs of 128-300 elements, the AVX-512 gathers at strides 5-8 took 1.2-3x the portable loop's
 * time, though they were faster on runs of 512 (NOTES.md in git). */
#ifndef DMLCPU_GATHER_MAX_STRIDE_X16
#define DMLCPU_GATHER_MAX_STRIDE_X16 4
#endif
#ifndef DMLCPU_GATHER_MAX_STRIDE_X32
#define DMLCPU_GATHER_MAX_STRIDE_X32 4
#endif
#ifndef DMLCPU_GATHER_MAX_STRIDE_X64
#define DMLCPU_GATHER_MAX_STRIDE_X64 2
#endif
#ifndef DMLCPU_GATHER_MAX_STRIDE_X8 /* 8-bit lanes need a byte permute (AVX-512 VBMI) */
#define DMLCPU_GATHER_MAX_STRIDE_X8 4
#endif
/* the largest of the four, in pairs of source vectors: sizes the mask tables */
#define DMLCPU_GATHER_MAX2_(a, b) ((a) > (b) ? (a) : (b))
#define DMLCPU_GATHER_MAX_PAIRS                                                                   \
    ((DMLCPU_GATHER_MAX2_(DMLCPU_GATHER_MAX2_(DMLCPU_GATHER_MAX_STRIDE_X8,                        \
                                              DMLCPU_GATHER_MAX_STRIDE_X16),                      \
                          DMLCPU_GATHER_MAX2_(DMLCPU_GATHER_MAX_STRIDE_X32,                       \
                                              DMLCPU_GATHER_MAX_STRIDE_X64)) + 1) / 2)

#if COPY_BITS == 8 /* packed runs are bytes to the driver, whatever the element width */
/*
 * A packed run with ordinary stores, in place of the libc memcpy the portable kernel calls.
 * glibc's copies a run whose source and destination sit at nearly the same offset in their
 * 4 KiB pages backwards (to dodge 4K aliasing), and runs of 1 KiB each a page apart, as in a
 * JOIN or a TILE, then went at half speed here (NOTES.md in git). This one reads and writes
 * front to back in unaligned vectors, four loads before four stores, the last vector overlapping
 * the one before (source and destination are disjoint). With the stores aligned (the first vector
 * unaligned, the rest from the aligned boundary) 8 MiB JOIN, SPLIT and SLICE copies from the
 * last-level cache took 1.03-1.17x the time cold, 0.95-1.13x warm, on AMD Zen 4; at 512 KiB the
 * two were within noise. Runs from 16 KiB up to L2's size that do not stream have since gone to
 * the rows kernel's string copy instead (copy_nd.c, LONG_RUN_CACHED).
 */
static inline void COPY_KERNEL(cc_vec)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                       size_t n) {
    (void)ds;
    (void)ss;
    if (n < DMLCPU_VEC_BYTES) {
        memcpy(dst, src, n);
        return;
    }
    /* the source is read front to back: the prefetchers follow it (loading the last vector
     * first stalled a 1 KiB-run JOIN on it) */
    size_t i = 0;
    for (; i + 4 * DMLCPU_VEC_BYTES <= n; i += 4 * DMLCPU_VEC_BYTES)
        dmlcpu_copy_vec4(dst + i, src + i, 0);
    for (; i + DMLCPU_VEC_BYTES <= n; i += DMLCPU_VEC_BYTES)
        dmlcpu_vec_store(dst + i, dmlcpu_vec_load(src + i));
    if (i < n)
        dmlcpu_vec_store(dst + n - DMLCPU_VEC_BYTES, dmlcpu_vec_load(src + n - DMLCPU_VEC_BYTES));
}

#endif

#if COPY_BITS >= 16 /* the portable 8-bit fill is memset, which a vector fill did not beat */
/* Fill of a packed run with one value (stride-0 source); strided destinations stay portable. */
static inline void COPY_KERNEL(bc_vec)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                       size_t n) {
    if (ds != (ptrdiff_t)sizeof(COPY_T)) {
        COPY_KERNEL(bc)(dst, ds, src, ss, n);
        return;
    }
    COPY_T value;
    memcpy(&value, src, sizeof value);
    dmlcpu_vec v = DMLCPU_PASTE(dmlcpu_vec_fill, COPY_BITS)(value);
    size_t bytes = n * sizeof value, i = 0;
    for (; i + DMLCPU_VEC_BYTES <= bytes; i += DMLCPU_VEC_BYTES) dmlcpu_vec_store(dst + i, v);
    for (; i < bytes; i += sizeof value) memcpy(dst + i, &value, sizeof value);
}
#endif

/* The permute gather works in lanes of 32 bits (16 or 8 where the ISA permutes those): 32-bit
 * elements take one lane, 64-bit ones two, 16- and 8-bit ones one lane of their width
 * (COPY_LANES_<bits>). */
#define COPY_LANES_8 8
#define COPY_LANES_16 16
#define COPY_LANES_32 32
#define COPY_LANES_64 32
#if COPY_BITS == 32 || (COPY_BITS == 16 && defined(DMLCPU_VEC_HAS_LANES16)) ||             \
    (COPY_BITS == 8 && defined(DMLCPU_VEC_HAS_LANES8))
#define LANE_BITS COPY_BITS
#define LANE_T DMLCPU_PASTE(DMLCPU_PASTE(int, COPY_BITS), _t)
#define LANE_MASK DMLCPU_PASTE(dmlcpu_vmask, COPY_BITS)
/*
 * Gather of elements k lanes wide at a small constant stride s (in elements): each output
 * vector comes from the s consecutive source vectors that span its elements, one two-source
 * permute per pair of them. Only whole spans that end at or before the run's last element are
 * done here (so nothing past the run is read: tested against guard pages); returns how many
 * elements were done, the caller does the rest.
 */
static DMLCPU_ALWAYS_INLINE size_t DMLCPU_KERNEL(DMLCPU_PASTE(gather_lanes, LANE_BITS))(
    char *dst, const char *src, size_t s, size_t k, size_t n) {
    enum { LANES = DMLCPU_VEC_BYTES / (LANE_BITS / 8) };
    const size_t per_vec = LANES / k;                  /* elements per output vector */
    const size_t span = (size_t)DMLCPU_VEC_BYTES * s; /* source bytes per output vector */
    const size_t pairs = (s + 1) / 2;
    size_t vectors = ((n - 1) * s + 1) / (per_vec * s);
    if (vectors == 0) return 0;
    LANE_T idx[LANES];
    LANE_T mask_lanes[DMLCPU_GATHER_MAX_PAIRS][LANES];
    for (size_t lane = 0; lane < LANES; lane++) {
        size_t at = (lane / k) * s * k + lane % k; /* source lane of this lane */
        idx[lane] = (LANE_T)(at % (2 * LANES));
        for (size_t p = 0; p < pairs; p++) mask_lanes[p][lane] = at / (2 * LANES) == p ? -1 : 0;
    }
    dmlcpu_vec vidx = dmlcpu_vec_load(idx);
    LANE_MASK masks[DMLCPU_GATHER_MAX_PAIRS];
    for (size_t p = 0; p < pairs; p++)
        masks[p] = DMLCPU_GLUE(LANE_MASK, from_lanes)(mask_lanes[p]);
    for (size_t j = 0; j < vectors; j++, src += span, dst += DMLCPU_VEC_BYTES) {
        dmlcpu_vec r = DMLCPU_PASTE(dmlcpu_vec_permute2_, LANE_BITS)(
            dmlcpu_vec_load(src), vidx, dmlcpu_vec_load(src + DMLCPU_VEC_BYTES));
        for (size_t p = 1; p < pairs; p++) {
            dmlcpu_vec a = dmlcpu_vec_load(src + 2 * p * DMLCPU_VEC_BYTES);
            dmlcpu_vec b =
                2 * p + 1 < s ? dmlcpu_vec_load(src + (2 * p + 1) * DMLCPU_VEC_BYTES) : a;
            r = DMLCPU_PASTE(dmlcpu_vec_select, LANE_BITS)(
                masks[p], DMLCPU_PASTE(dmlcpu_vec_permute2_, LANE_BITS)(a, vidx, b), r);
        }
        dmlcpu_vec_store(dst, r);
    }
    return vectors * per_vec;
}

/* specialized for the commonest strides so the pair loop unrolls */
static inline size_t DMLCPU_KERNEL(DMLCPU_PASTE(gather_any, LANE_BITS))(char *dst,
                                                                       const char *src,
                                                                       size_t s, size_t k,
                                                                       size_t n) {
    switch (s) {
    case 2: return DMLCPU_KERNEL(DMLCPU_PASTE(gather_lanes, LANE_BITS))(dst, src, 2, k, n);
    case 3: return DMLCPU_KERNEL(DMLCPU_PASTE(gather_lanes, LANE_BITS))(dst, src, 3, k, n);
    case 4: return DMLCPU_KERNEL(DMLCPU_PASTE(gather_lanes, LANE_BITS))(dst, src, 4, k, n);
    }
    return DMLCPU_KERNEL(DMLCPU_PASTE(gather_lanes, LANE_BITS))(dst, src, s, k, n);
}
#undef LANE_BITS
#undef LANE_T
#undef LANE_MASK
#endif

#if COPY_BITS >= 32 || (COPY_BITS == 16 && defined(DMLCPU_VEC_HAS_LANES16)) ||             \
    (COPY_BITS == 8 && defined(DMLCPU_VEC_HAS_LANES8))
#define GATHER_LANE_BITS DMLCPU_PASTE(COPY_LANES_, COPY_BITS)
/* gather: the permute gather over the run's whole spans, the portable loop for the rest */
static inline void COPY_KERNEL(gc_vec)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                       size_t n) {
    const size_t es = sizeof(COPY_T);
    size_t done = 0;
    if (ss > 0 && ss % (ptrdiff_t)es == 0 && n > 0 &&
        (size_t)ss / es <= DMLCPU_PASTE(DMLCPU_GATHER_MAX_STRIDE_X, COPY_BITS))
        done = DMLCPU_KERNEL(DMLCPU_PASTE(gather_any, GATHER_LANE_BITS))(
            dst, src, (size_t)ss / es, COPY_BITS / GATHER_LANE_BITS, n);
    COPY_KERNEL(gc)(dst + done * es, ds, src + (ptrdiff_t)done * ss, ss, n - done);
}
#undef GATHER_LANE_BITS
#endif
