/*
 * Copy kernels for the innermost run, written once and compiled per ISA: the including unit
 * defines DMLCPU_ISA (a suffix such as scalar or avx2) and, for a vector ISA, includes its
 * simd/<isa>.h wrappers (which define DMLCPU_VEC_BYTES) before including this file. The unit
 * then lists the kernels it exports in its dmlcpu_copy_kernels table.
 * Kernels are type-agnostic: x8/x16/x32/x64 move 1/2/4/8-byte elements as opaque bits.
 * Every kernel here is static inline: a unit emits only those its table lists (and what they
 * call), and no kernel compiled with ISA flags is visible to the linker.
 */
#include <stdint.h>
#include <string.h>
#include "../dispatch.h"

#if defined(_MSC_VER) && !defined(__clang__)
#define DMLCPU_ALWAYS_INLINE __forceinline
#else
#define DMLCPU_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

#define DMLCPU_CAT_(a, b) a##__##b
#define DMLCPU_CAT(a, b) DMLCPU_CAT_(a, b)
#define DMLCPU_KERNEL(name) DMLCPU_CAT(name, DMLCPU_ISA)

/* memcpy of the whole run: the same for every width. */
static inline void DMLCPU_KERNEL(dmlcpu_x8_copy_cc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ds;
    (void)ss;
    memcpy(dst, src, n);
}

/* Elements are moved through memcpy of a fixed width: no alignment assumed, no aliasing UB. */
#define DMLCPU_DEFINE_COPY_RUNS(BITS, T)                                                        \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_cc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ds;                                                                               \
        (void)ss;                                                                               \
        memcpy(dst, src, n * sizeof(T));                                                        \
    }                                                                                           \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ds;                                                                               \
        for (size_t i = 0; i < n; i++, src += ss) memcpy(dst + i * sizeof(T), src, sizeof(T));  \
    }                                                                                           \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_sc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ss;                                                                               \
        for (size_t i = 0; i < n; i++, dst += ds) memcpy(dst, src + i * sizeof(T), sizeof(T));  \
    }                                                                                           \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_ss)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        for (size_t i = 0; i < n; i++, dst += ds, src += ss) memcpy(dst, src, sizeof(T));       \
    }                                                                                           \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ss;                                                                               \
        T value;                                                                                \
        memcpy(&value, src, sizeof(T));                                                         \
        for (size_t i = 0; i < n; i++, dst += ds) memcpy(dst, &value, sizeof(T));              \
    }

DMLCPU_DEFINE_COPY_RUNS(16, uint16_t)
DMLCPU_DEFINE_COPY_RUNS(32, uint32_t)
DMLCPU_DEFINE_COPY_RUNS(64, uint64_t)

static inline void DMLCPU_KERNEL(dmlcpu_x8_copy_gc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ds;
    for (size_t i = 0; i < n; i++, src += ss) dst[i] = *src;
}
static inline void DMLCPU_KERNEL(dmlcpu_x8_copy_sc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ss;
    for (size_t i = 0; i < n; i++, dst += ds) *dst = src[i];
}
static inline void DMLCPU_KERNEL(dmlcpu_x8_copy_ss)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    for (size_t i = 0; i < n; i++, dst += ds, src += ss) *dst = *src;
}
static inline void DMLCPU_KERNEL(dmlcpu_x8_copy_bc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ss;
    if (ds == 1) {
        memset(dst, (unsigned char)*src, n);
        return;
    }
    for (size_t i = 0; i < n; i++, dst += ds) *dst = *src;
}

/* The portable kernels of one width, in dmlcpu_run_layout order. */
#define DMLCPU_COPY_ROW(BITS)                                                                   \
    {DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_cc), DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc),          \
     DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_sc), DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_ss),          \
     DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc)}

#if defined(DMLCPU_VEC_BYTES)
#define DMLCPU_VEC_WORDS (DMLCPU_VEC_BYTES / 4)

/*
 * Contiguous bytes with non-temporal stores: the output bypasses the caches, so a copy much
 * larger than the last-level cache neither reads the destination lines first (no RFO) nor
 * evicts the source. The stores are weakly ordered: the driver fences once after the whole
 * copy (dmlcpu_store_fence), not after every run: a fence per short run cost more than it saved.
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_stream)(char *dst, ptrdiff_t ds, const char *src,
                                             ptrdiff_t ss, size_t n) {
    (void)ds;
    (void)ss;
    size_t head = (size_t)((DMLCPU_VEC_BYTES - (uintptr_t)dst % DMLCPU_VEC_BYTES) % DMLCPU_VEC_BYTES);
    if (head > n) head = n;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    for (; n >= 4 * DMLCPU_VEC_BYTES; n -= 4 * DMLCPU_VEC_BYTES) {
        dmlcpu_vec a = dmlcpu_vec_load(src), b = dmlcpu_vec_load(src + DMLCPU_VEC_BYTES);
        dmlcpu_vec c = dmlcpu_vec_load(src + 2 * DMLCPU_VEC_BYTES);
        dmlcpu_vec d = dmlcpu_vec_load(src + 3 * DMLCPU_VEC_BYTES);
        dmlcpu_vec_stream(dst, a);
        dmlcpu_vec_stream(dst + DMLCPU_VEC_BYTES, b);
        dmlcpu_vec_stream(dst + 2 * DMLCPU_VEC_BYTES, c);
        dmlcpu_vec_stream(dst + 3 * DMLCPU_VEC_BYTES, d);
        dst += 4 * DMLCPU_VEC_BYTES;
        src += 4 * DMLCPU_VEC_BYTES;
    }
    memcpy(dst, src, n);
}

/* Copies n bytes from row position (*r, *c) on, advancing it: the ragged ends of the rows copy. */
static inline void DMLCPU_KERNEL(copy_row_bytes)(char *dst, const char *src, ptrdiff_t ss,
                                                 size_t row, size_t *r, size_t *c, size_t n) {
    while (n > 0) {
        size_t take = row - *c < n ? row - *c : n;
        memcpy(dst, src + (ptrdiff_t)*r * ss + (ptrdiff_t)*c, take);
        dst += take;
        n -= take;
        *c += take;
        if (*c == row) {
            *c = 0;
            (*r)++;
        }
    }
}

/*
 * Rows (row >= 64 bytes) into one packed destination with non-temporal stores: the destination
 * is walked in aligned vectors whatever the row boundaries, a vector straddling two rows being
 * loaded in two parts. Streaming each short row on its own was several times slower: the
 * partial lines at its ends mixed normal and non-temporal stores in one line.
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_stream_rows)(char *dst, const char *src, ptrdiff_t ss,
                                                  size_t row, size_t rows) {
    size_t total = row * rows, r = 0, c = 0;
    size_t head = (size_t)((DMLCPU_VEC_BYTES - (uintptr_t)dst % DMLCPU_VEC_BYTES) % DMLCPU_VEC_BYTES);
    if (head > total) head = total;
    DMLCPU_KERNEL(copy_row_bytes)(dst, src, ss, row, &r, &c, head);
    size_t p = head;
    for (; p + DMLCPU_VEC_BYTES <= total; p += DMLCPU_VEC_BYTES) {
        const char *at = src + (ptrdiff_t)r * ss + (ptrdiff_t)c;
        dmlcpu_vec v;
        if (c + DMLCPU_VEC_BYTES <= row) {
            v = dmlcpu_vec_load(at);
        } else {
            size_t b = row - c; /* bytes left in row r; the rest starts row r + 1 */
            v = dmlcpu_vec_load_split(at, b, src + (ptrdiff_t)(r + 1) * ss - (ptrdiff_t)b);
        }
        dmlcpu_vec_stream(dst + p, v);
        c += DMLCPU_VEC_BYTES;
        if (c >= row) {
            c -= row;
            r++;
        }
    }
    DMLCPU_KERNEL(copy_row_bytes)(dst + p, src, ss, row, &r, &c, total - p);
}

/* Fill of a packed run with one value (stride-0 source); strided destinations stay portable. */
#define DMLCPU_DEFINE_FILL(BITS, T)                                                             \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc_vec)(char *dst, ptrdiff_t ds,            \
                                                            const char *src, ptrdiff_t ss,      \
                                                            size_t n) {                         \
        if (ds != (ptrdiff_t)sizeof(T)) {                                                       \
            DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc)(dst, ds, src, ss, n);                        \
            return;                                                                             \
        }                                                                                       \
        T value;                                                                                \
        memcpy(&value, src, sizeof(T));                                                         \
        dmlcpu_vec v = dmlcpu_vec_fill##BITS(value);                                            \
        size_t bytes = n * sizeof(T), i = 0;                                                    \
        for (; i + DMLCPU_VEC_BYTES <= bytes; i += DMLCPU_VEC_BYTES) dmlcpu_vec_store(dst + i, v); \
        for (; i < bytes; i += sizeof(T)) memcpy(dst + i, &value, sizeof(T));                   \
    }
DMLCPU_DEFINE_FILL(16, uint16_t)
DMLCPU_DEFINE_FILL(32, uint32_t)
DMLCPU_DEFINE_FILL(64, uint64_t)

#ifndef DMLCPU_GATHER_MAX_STRIDE_X32
#define DMLCPU_GATHER_MAX_STRIDE_X32 4
#endif
#ifndef DMLCPU_GATHER_MAX_STRIDE_X16
#define DMLCPU_GATHER_MAX_STRIDE_X16 4
#endif
#ifndef DMLCPU_GATHER_MAX_STRIDE_X64
#define DMLCPU_GATHER_MAX_STRIDE_X64 2
#endif
/* the largest of the three: sizes the mask tables */
#define DMLCPU_GATHER_MAX2_(a, b) ((a) > (b) ? (a) : (b))
#define DMLCPU_GATHER_MAX_STRIDE                                                                \
    DMLCPU_GATHER_MAX2_(DMLCPU_GATHER_MAX_STRIDE_X16,                                           \
                        DMLCPU_GATHER_MAX2_(DMLCPU_GATHER_MAX_STRIDE_X32, DMLCPU_GATHER_MAX_STRIDE_X64))

/*
 * Gather of elements k lanes wide (lanes of LB = 32 or 16 bits) at a small constant stride s
 * (in elements): each output vector comes from the s consecutive source vectors that span its
 * elements, one two-source permute per pair of them. Only whole spans that end at or before the
 * run's last element are done here (so nothing past the run is read: tested against guard
 * pages); returns how many elements were done, the caller does the rest.
 */
#define DMLCPU_DEFINE_GATHER_LANES(LB)                                                          \
    static DMLCPU_ALWAYS_INLINE size_t DMLCPU_KERNEL(gather_lanes##LB)(                         \
        char *dst, const char *src, size_t s, size_t k, size_t n) {                             \
        enum { LANES = DMLCPU_VEC_BYTES / (LB / 8) };                                           \
        const size_t per_vec = LANES / k;              /* elements per output vector */         \
        const size_t span = (size_t)DMLCPU_VEC_BYTES * s; /* source bytes per output vector */  \
        const size_t pairs = (s + 1) / 2;                                                       \
        size_t vectors = ((n - 1) * s + 1) / (per_vec * s);                                     \
        if (vectors == 0) return 0;                                                             \
        int##LB##_t idx[LANES];                                                                 \
        int##LB##_t mask_lanes[(DMLCPU_GATHER_MAX_STRIDE + 1) / 2][LANES];                       \
        for (size_t lane = 0; lane < LANES; lane++) {                                           \
            size_t at = (lane / k) * s * k + lane % k; /* source lane of this lane */           \
            idx[lane] = (int##LB##_t)(at % (2 * LANES));                                        \
            for (size_t p = 0; p < pairs; p++)                                                  \
                mask_lanes[p][lane] = at / (2 * LANES) == p ? -1 : 0;                           \
        }                                                                                       \
        dmlcpu_vec vidx = dmlcpu_vec_load(idx);                                                 \
        dmlcpu_vmask##LB masks[(DMLCPU_GATHER_MAX_STRIDE + 1) / 2];                             \
        for (size_t p = 0; p < pairs; p++) masks[p] = dmlcpu_vmask##LB##_from_lanes(mask_lanes[p]); \
        for (size_t j = 0; j < vectors; j++, src += span, dst += DMLCPU_VEC_BYTES) {            \
            dmlcpu_vec r = dmlcpu_vec_permute2_##LB(dmlcpu_vec_load(src), vidx,                 \
                                                    dmlcpu_vec_load(src + DMLCPU_VEC_BYTES));   \
            for (size_t p = 1; p < pairs; p++) {                                                \
                dmlcpu_vec a = dmlcpu_vec_load(src + 2 * p * DMLCPU_VEC_BYTES);                 \
                dmlcpu_vec b =                                                                  \
                    2 * p + 1 < s ? dmlcpu_vec_load(src + (2 * p + 1) * DMLCPU_VEC_BYTES) : a;  \
                r = dmlcpu_vec_select##LB(masks[p], dmlcpu_vec_permute2_##LB(a, vidx, b), r);   \
            }                                                                                   \
            dmlcpu_vec_store(dst, r);                                                           \
        }                                                                                       \
        return vectors * per_vec;                                                               \
    }                                                                                           \
    /* specialized for the commonest strides so the pair loop unrolls */                        \
    static inline size_t DMLCPU_KERNEL(gather_any##LB)(char *dst, const char *src, size_t s, size_t k, \
                                                size_t n) {                                     \
        switch (s) {                                                                            \
        case 2: return DMLCPU_KERNEL(gather_lanes##LB)(dst, src, 2, k, n);                      \
        case 3: return DMLCPU_KERNEL(gather_lanes##LB)(dst, src, 3, k, n);                      \
        case 4: return DMLCPU_KERNEL(gather_lanes##LB)(dst, src, 4, k, n);                      \
        }                                                                                       \
        return DMLCPU_KERNEL(gather_lanes##LB)(dst, src, s, k, n);                              \
    }
DMLCPU_DEFINE_GATHER_LANES(32)
#if defined(DMLCPU_VEC_HAS_LANES16)
DMLCPU_DEFINE_GATHER_LANES(16)
#endif

#define DMLCPU_DEFINE_GATHER(BITS, T, LB, K, MAX_STRIDE)                                                        \
    static inline void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc_vec)(char *dst, ptrdiff_t ds,            \
                                                            const char *src, ptrdiff_t ss,      \
                                                            size_t n) {                         \
        size_t done = 0;                                                                        \
        if (ss > 0 && ss % (ptrdiff_t)sizeof(T) == 0 && n > 0 &&                                \
            (size_t)ss / sizeof(T) <= (MAX_STRIDE))                                 \
            done = DMLCPU_KERNEL(gather_any##LB)(dst, src, (size_t)ss / sizeof(T), K, n);        \
        DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc)(dst + done * sizeof(T), ds,                     \
                                                src + (ptrdiff_t)done * ss, ss, n - done);      \
    }
DMLCPU_DEFINE_GATHER(32, uint32_t, 32, 1, DMLCPU_GATHER_MAX_STRIDE_X32)
DMLCPU_DEFINE_GATHER(64, uint64_t, 32, 2, DMLCPU_GATHER_MAX_STRIDE_X64)
#if defined(DMLCPU_VEC_HAS_LANES16)
DMLCPU_DEFINE_GATHER(16, uint16_t, 16, 1, DMLCPU_GATHER_MAX_STRIDE_X16)
#endif

#endif /* DMLCPU_VEC_BYTES */
