/*
 * Scan kernels, written once and compiled per ISA: the including unit defines DMLCPU_ISA (a
 * suffix such as scalar or avx2) before including this file. See dmlcpu_scan_fn in internal.h
 * for the two layouts (outer, line) and the meaning of the strides.
 *
 * Arithmetic (docs/semantics.md):
 * - integers compute in the unsigned type of their width, so signed and unsigned share kernels
 *   and wrap modulo 2^bits; 8- and 16-bit operands are widened to unsigned before multiplying
 *   (uint16 * uint16 would promote to int and could overflow);
 * - FLOAT32 and FLOAT64 accumulate in their own type, one element after another in walk order
 *   (the build passes -ffp-contract=off, so no fused multiply-add changes a rounding);
 * - FLOAT16 accumulates in float and rounds each written value to the nearest half (f16.h).
 * The float sum starts from -0.0, the exact IEEE identity, so a running total of one element is
 * that element (-0.0 included); exclusive scans write +0.0 (or 1) as their first value.
 *
 * In place: every element is read before the element at the same address is written, so dst may
 * be the identical view of src. Elements move through memcpy: no alignment is assumed.
 *
 * The portable kernels come first; below them, SIMD bodies (line: W lines transposed in
 * registers; integer prefix sums; outer: vertical vectors, streaming stores) that only the ISA
 * units expand, after defining the per-ISA primitives those bodies name.
 */
#include <string.h>
#include "../internal.h"
#include "../f16.h"

#ifndef DMLCPU_KERNEL
#define DMLCPU_CAT_(a, b) a##__##b
#define DMLCPU_CAT(a, b) DMLCPU_CAT_(a, b)
#define DMLCPU_KERNEL(name) DMLCPU_CAT(name, DMLCPU_ISA)
#endif

/* Columns an outer kernel carries at once, their accumulators on the stack (4 to 32 KiB): a
 * block as wide as a whole 4096-element row keeps the row walks sequential (the prefetchers
 * follow them) while the accumulators stay in L1/L2 (benchmarks/NOTES.md). */
#ifndef DMLCPU_SCAN_BLOCK
#define DMLCPU_SCAN_BLOCK 4096
#endif

/* Loads convert an element to the accumulator type; stores convert back. */
#define DMLCPU_DEFINE_SCAN_ACCESS(TYPE, T, A, TO_ACC, FROM_ACC)                                 \
    static inline A dmlcpu_##TYPE##_scan_load(const char *p) {                                 \
        T v;                                                                                    \
        memcpy(&v, p, sizeof v);                                                                \
        return TO_ACC(v);                                                                       \
    }                                                                                           \
    static inline void dmlcpu_##TYPE##_scan_store(char *p, A a) {                              \
        T v = FROM_ACC(a);                                                                      \
        memcpy(p, &v, sizeof v);                                                                \
    }

#define DMLCPU_SCAN_SAME(x) (x)
DMLCPU_DEFINE_SCAN_ACCESS(u8, uint8_t, uint8_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(u16, uint16_t, uint16_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(u32, uint32_t, uint32_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(u64, uint64_t, uint64_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
/* An ISA unit with F16C replaces the portable half conversions with the instructions (the tests
 * check the two agree on every half). */
#ifndef DMLCPU_SCAN_F16_TO_F32
#define DMLCPU_SCAN_F16_TO_F32 dmlcpu_f16_to_f32
#define DMLCPU_SCAN_F32_TO_F16 dmlcpu_f32_to_f16
#endif
DMLCPU_DEFINE_SCAN_ACCESS(f16, uint16_t, float, DMLCPU_SCAN_F16_TO_F32, DMLCPU_SCAN_F32_TO_F16)
DMLCPU_DEFINE_SCAN_ACCESS(f32, float, float, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(f64, double, double, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)

/* The operations on accumulators. `1u * a` lifts a narrow operand to unsigned int (no UB). */
static inline uint8_t dmlcpu_u8_cumsum(uint8_t a, uint8_t b) { return (uint8_t)(1u * a + b); }
static inline uint8_t dmlcpu_u8_cumprod(uint8_t a, uint8_t b) { return (uint8_t)(1u * a * b); }
static inline uint16_t dmlcpu_u16_cumsum(uint16_t a, uint16_t b) { return (uint16_t)(1u * a + b); }
static inline uint16_t dmlcpu_u16_cumprod(uint16_t a, uint16_t b) { return (uint16_t)(1u * a * b); }
static inline uint32_t dmlcpu_u32_cumsum(uint32_t a, uint32_t b) { return (uint32_t)(1u * a + b); }
static inline uint32_t dmlcpu_u32_cumprod(uint32_t a, uint32_t b) { return (uint32_t)(1u * a * b); }
static inline uint64_t dmlcpu_u64_cumsum(uint64_t a, uint64_t b) { return a + b; }
static inline uint64_t dmlcpu_u64_cumprod(uint64_t a, uint64_t b) { return a * b; }
static inline float dmlcpu_f16_cumsum(float a, float b) { return a + b; }
static inline float dmlcpu_f16_cumprod(float a, float b) { return a * b; }
static inline float dmlcpu_f32_cumsum(float a, float b) { return a + b; }
static inline float dmlcpu_f32_cumprod(float a, float b) { return a * b; }
static inline double dmlcpu_f64_cumsum(double a, double b) { return a + b; }
static inline double dmlcpu_f64_cumprod(double a, double b) { return a * b; }

/*
 * One scan kernel pair for (TYPE, OP). ES is the element size in bytes, A the accumulator type,
 * IDENTITY the accumulator's starting value and FIRST the value an exclusive scan writes first.
 *
 * The two row functions are the inner loops of the outer kernel, `out[j] = f(acc[j], in[j])`
 * over one row of n columns: a packed branch (both strides are the element size), which a SIMD
 * unit can replace, and a strided fallback.
 */
#define DMLCPU_DEFINE_SCAN(TYPE, OP, ES, A, IDENTITY, FIRST)                                    \
    DMLCPU_DEFINE_SCAN_(TYPE, OP, ES, A, IDENTITY, FIRST, dmlcpu_##TYPE##_scan_load,           \
                        dmlcpu_##TYPE##_scan_store, dmlcpu_##TYPE##_##OP)

#define DMLCPU_DEFINE_SCAN_(TYPE, OP, ES, A, IDENTITY, FIRST, LOAD, STORE, COMBINE)             \
    /* inclusive: acc = acc op in; out = acc */                                                 \
    static inline void dmlcpu_##TYPE##_##OP##_row_inclusive(char *out, ptrdiff_t ds,            \
                                                            const char *in, ptrdiff_t ss,       \
                                                            A *acc, size_t n) {                 \
        if (ds == ES && ss == ES) {                                                             \
            for (size_t j = 0; j < n; j++) {                                                    \
                acc[j] = COMBINE(acc[j], LOAD(in + j * ES));                                    \
                STORE(out + j * ES, acc[j]);                                                    \
            }                                                                                   \
        } else {                                                                                \
            for (size_t j = 0; j < n; j++) {                                                    \
                acc[j] = COMBINE(acc[j], LOAD(in + (ptrdiff_t)j * ss));                         \
                STORE(out + (ptrdiff_t)j * ds, acc[j]);                                         \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* exclusive: out = acc (or FIRST on the first row); acc = acc op in (read before write) */ \
    static inline void dmlcpu_##TYPE##_##OP##_row_exclusive(char *out, ptrdiff_t ds,            \
                                                            const char *in, ptrdiff_t ss,       \
                                                            A *acc, size_t n, int first) {      \
        if (first) {                                                                            \
            for (size_t j = 0; j < n; j++) {                                                    \
                A x = LOAD(in + (ptrdiff_t)j * ss);                                             \
                STORE(out + (ptrdiff_t)j * ds, FIRST);                                          \
                acc[j] = COMBINE(acc[j], x);                                                    \
            }                                                                                   \
        } else if (ds == ES && ss == ES) {                                                      \
            for (size_t j = 0; j < n; j++) {                                                    \
                A x = LOAD(in + j * ES);                                                        \
                STORE(out + j * ES, acc[j]);                                                    \
                acc[j] = COMBINE(acc[j], x);                                                    \
            }                                                                                   \
        } else {                                                                                \
            for (size_t j = 0; j < n; j++) {                                                    \
                A x = LOAD(in + (ptrdiff_t)j * ss);                                             \
                STORE(out + (ptrdiff_t)j * ds, acc[j]);                                         \
                acc[j] = COMBINE(acc[j], x);                                                    \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* The axis is not innermost: sweep the rows, one accumulator per column, in blocks. */     \
    static inline void DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_outer)(                                    \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,     \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,               \
        size_t across, int flags) {                                                                 \
        int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;                                       \
        enum { BLOCK = DMLCPU_SCAN_BLOCK };                                   \
        A acc[BLOCK];                                                                           \
        for (size_t j0 = 0; j0 < across; j0 += BLOCK) {                                         \
            size_t n = across - j0 < BLOCK ? across - j0 : BLOCK;                               \
            char *out = dst + (ptrdiff_t)j0 * dst_across_stride;                                \
            const char *in = src + (ptrdiff_t)j0 * src_across_stride;                           \
            for (size_t j = 0; j < n; j++) acc[j] = IDENTITY;                                   \
            for (size_t k = 0; k < axis_len; k++) {                                             \
                char *out_row = out + (ptrdiff_t)k * dst_axis_stride;                           \
                const char *in_row = in + (ptrdiff_t)k * src_axis_stride;                       \
                if (exclusive)                                                                  \
                    dmlcpu_##TYPE##_##OP##_row_exclusive(out_row, dst_across_stride, in_row,    \
                                                         src_across_stride, acc, n, k == 0);    \
                else                                                                            \
                    dmlcpu_##TYPE##_##OP##_row_inclusive(out_row, dst_across_stride, in_row,    \
                                                         src_across_stride, acc, n);            \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* The axis is innermost: lines four at a time, four independent recurrences interleaved   */   \
    /* so a float add's latency is not paid once per element; then the rest one by one.       */    \
    static inline void DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line)(                                         \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,         \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,                    \
        size_t across, int flags) {                                                                 \
        int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;                                       \
        size_t line = 0;                                                                            \
        for (; line + 4 <= across; line += 4) {                                                     \
            char *o0 = dst + (ptrdiff_t)line * dst_across_stride, *o1 = o0 + dst_across_stride;     \
            char *o2 = o1 + dst_across_stride, *o3 = o2 + dst_across_stride;                        \
            const char *i0 = src + (ptrdiff_t)line * src_across_stride;                             \
            const char *i1 = i0 + src_across_stride, *i2 = i1 + src_across_stride;                  \
            const char *i3 = i2 + src_across_stride;                                                \
            A a0 = IDENTITY, a1 = IDENTITY, a2 = IDENTITY, a3 = IDENTITY;                           \
            for (size_t k = 0; k < axis_len; k++) {                                                 \
                ptrdiff_t s = (ptrdiff_t)k * src_axis_stride, d = (ptrdiff_t)k * dst_axis_stride;   \
                A x0 = LOAD(i0 + s), x1 = LOAD(i1 + s), x2 = LOAD(i2 + s), x3 = LOAD(i3 + s);       \
                if (exclusive) {                                                                    \
                    STORE(o0 + d, k == 0 ? (A)(FIRST) : a0);                                        \
                    STORE(o1 + d, k == 0 ? (A)(FIRST) : a1);                                        \
                    STORE(o2 + d, k == 0 ? (A)(FIRST) : a2);                                        \
                    STORE(o3 + d, k == 0 ? (A)(FIRST) : a3);                                        \
                }                                                                                   \
                a0 = COMBINE(a0, x0);                                                               \
                a1 = COMBINE(a1, x1);                                                               \
                a2 = COMBINE(a2, x2);                                                               \
                a3 = COMBINE(a3, x3);                                                               \
                if (!exclusive) {                                                                   \
                    STORE(o0 + d, a0);                                                              \
                    STORE(o1 + d, a1);                                                              \
                    STORE(o2 + d, a2);                                                              \
                    STORE(o3 + d, a3);                                                              \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        for (; line < across; line++) {                                                             \
            char *out = dst + (ptrdiff_t)line * dst_across_stride;                                  \
            const char *in = src + (ptrdiff_t)line * src_across_stride;                             \
            A acc = IDENTITY;                                                                       \
            if (exclusive) {                                                                        \
                for (size_t k = 0; k < axis_len; k++) {                                             \
                    A x = LOAD(in + (ptrdiff_t)k * src_axis_stride);                                \
                    STORE(out + (ptrdiff_t)k * dst_axis_stride, k == 0 ? (A)(FIRST) : acc);         \
                    acc = COMBINE(acc, x);                                                          \
                }                                                                                   \
            } else {                                                                                \
                for (size_t k = 0; k < axis_len; k++) {                                             \
                    acc = COMBINE(acc, LOAD(in + (ptrdiff_t)k * src_axis_stride));                  \
                    STORE(out + (ptrdiff_t)k * dst_axis_stride, acc);                               \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }

DMLCPU_DEFINE_SCAN(u8, cumsum, 1, uint8_t, 0, 0)
DMLCPU_DEFINE_SCAN(u8, cumprod, 1, uint8_t, 1, 1)
DMLCPU_DEFINE_SCAN(u16, cumsum, 2, uint16_t, 0, 0)
DMLCPU_DEFINE_SCAN(u16, cumprod, 2, uint16_t, 1, 1)
DMLCPU_DEFINE_SCAN(u32, cumsum, 4, uint32_t, 0, 0)
DMLCPU_DEFINE_SCAN(u32, cumprod, 4, uint32_t, 1, 1)
DMLCPU_DEFINE_SCAN(u64, cumsum, 8, uint64_t, 0, 0)
DMLCPU_DEFINE_SCAN(u64, cumprod, 8, uint64_t, 1, 1)
DMLCPU_DEFINE_SCAN(f16, cumsum, 2, float, -0.0f, 0.0f)
DMLCPU_DEFINE_SCAN(f16, cumprod, 2, float, 1.0f, 1.0f)
DMLCPU_DEFINE_SCAN(f32, cumsum, 4, float, -0.0f, 0.0f)
DMLCPU_DEFINE_SCAN(f32, cumprod, 4, float, 1.0f, 1.0f)
DMLCPU_DEFINE_SCAN(f64, cumsum, 8, double, -0.0, 0.0)
DMLCPU_DEFINE_SCAN(f64, cumprod, 8, double, 1.0, 1.0)

/*
 * SIMD kernel bodies, defined here once and instantiated by the ISA units (scan_avx2.c,
 * scan_avx512.c) after the per-ISA primitives they use, for an element TYPE:
 *   dmlcpu_sv_TYPE              the vector type; DMLCPU_SV_W_TYPE lanes, one element each
 *   dmlcpu_sv_TYPE_load/store   W consecutive elements <-> lanes (widened to the lane type)
 *   dmlcpu_sv_TYPE_fill(A)      every lane set to one accumulator value
 *   dmlcpu_sv_TYPE_OP(a, b)     the lane-wise operation, exactly the scalar COMBINE per lane
 *   dmlcpu_sv_TYPE_lanes(v, A*) the lanes as accumulator values
 *   dmlcpu_sv_TYPE_transpose(V r[W])  r[i] lane j <- r[j] lane i
 * No lane ever combines with another lane, so each result is computed by the same operations
 * in the same order as the scalar kernels: bit-identical whatever W is.
 */

/*
 * Line kernel: W lines at once. A block of W elements of each of W lines is loaded (one vector
 * per line), transposed so that vector i holds element i of every line, scanned vertically in
 * walk order (lane j runs line j's sequential recurrence), transposed back and stored. Lines
 * walked backwards (axis stride -ES) take the same blocks and scan the vectors from the last.
 * Missing lines of the last group are identity lanes nobody stores; the elements past the last
 * whole block continue from the lane totals with the scalar recurrence. Other strides, and
 * lines shorter than one block, use the scalar kernel.
 */
#define DMLCPU_DEFINE_SCAN_LINE_SIMD(TYPE, OP, ES, A, IDENTITY, FIRST)                              \
    static inline void DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line_simd)(                                    \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,         \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,                    \
        size_t across, int flags) {                                                                 \
        int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;                                       \
        enum { W = DMLCPU_SV_W_##TYPE };                                                            \
        typedef dmlcpu_sv_##TYPE V;                                                                 \
        int forward = src_axis_stride == (ptrdiff_t)ES && dst_axis_stride == (ptrdiff_t)ES;         \
        int backward = src_axis_stride == -(ptrdiff_t)ES && dst_axis_stride == -(ptrdiff_t)ES;      \
        if (axis_len < W || !(forward || backward)) {                                               \
            DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line)(dst, dst_axis_stride, dst_across_stride,     \
                                                       src, src_axis_stride, src_across_stride,     \
                                                       axis_len, across, flags);                    \
            return;                                                                                 \
        }                                                                                           \
        const V identity = dmlcpu_sv_##TYPE##_fill(IDENTITY);                                       \
        const V first = dmlcpu_sv_##TYPE##_fill(FIRST);                                             \
        /* Non-temporal stores (large outputs, where the unit has them for TYPE) need every         \
         * line's blocks aligned to a block's bytes: the first `head` elements in walk order        \
         * are then scalar steps, so the blocks after them start on aligned addresses. */           \
        enum { SB = W * ES };                                                                       \
        size_t head = 0;                                                                            \
        int nt = (flags & DMLCPU_SCAN_STREAM) && DMLCPU_SV_NT_##TYPE &&                             \
                 dst_across_stride % SB == 0 && (uintptr_t)dst % ES == 0;                           \
        if (nt) {                                                                                   \
            head = (forward ? (SB - (uintptr_t)dst % SB) % SB : ((uintptr_t)dst + ES) % SB) / ES;   \
            if (head + W > axis_len) nt = 0, head = 0;                                              \
        }                                                                                           \
        size_t full = head + (axis_len - head) / W * W;                                             \
        for (size_t l0 = 0; l0 < across; l0 += W) {                                                 \
            size_t nl = across - l0 < W ? across - l0 : W;                                          \
            if (nl == 1 || 4 * nl < W) { /* lanes mostly empty: scalar lines do better */      \
                DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line)(                                         \
                    dst + (ptrdiff_t)l0 * dst_across_stride, dst_axis_stride, dst_across_stride,    \
                    src + (ptrdiff_t)l0 * src_across_stride, src_axis_stride, src_across_stride,    \
                    axis_len, nl, flags);                                                           \
                break;                                                                              \
            }                                                                                       \
            char *out0 = dst + (ptrdiff_t)l0 * dst_across_stride;                                   \
            const char *in0 = src + (ptrdiff_t)l0 * src_across_stride;                              \
            V acc = identity;                                                                       \
            if (head) {                                                                             \
                A lanes[W];                                                                         \
                for (size_t j = 0; j < W; j++) lanes[j] = IDENTITY;                                 \
                for (size_t j = 0; j < nl; j++) {                                                   \
                    char *out = out0 + (ptrdiff_t)j * dst_across_stride;                            \
                    const char *in = in0 + (ptrdiff_t)j * src_across_stride;                        \
                    A a = IDENTITY;                                                                 \
                    for (size_t k = 0; k < head; k++) {                                             \
                        A x = dmlcpu_##TYPE##_scan_load(in + (ptrdiff_t)k * src_axis_stride);       \
                        if (exclusive)                                                              \
                            dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride,        \
                                                       k == 0 ? (A)(FIRST) : a);                    \
                        a = dmlcpu_##TYPE##_##OP(a, x);                                             \
                        if (!exclusive)                                                             \
                            dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a);    \
                    }                                                                               \
                    lanes[j] = a;                                                                   \
                }                                                                                   \
                acc = dmlcpu_sv_##TYPE##_from_lanes(lanes);                                         \
            }                                                                                       \
            for (size_t k0 = head; k0 < full; k0 += W) {                                            \
                /* the block's lowest address in each line */                                       \
                ptrdiff_t off = forward ? (ptrdiff_t)(k0 * ES) : -(ptrdiff_t)((k0 + W - 1) * ES);   \
                V r[W];                                                                             \
                for (size_t j = 0; j < W; j++)                                                      \
                    r[j] = j < nl ? dmlcpu_sv_##TYPE##_load(in0 + (ptrdiff_t)j * src_across_stride + off) \
                                  : identity;                                                       \
                dmlcpu_sv_##TYPE##_transpose(r);                                                    \
                if (forward && !exclusive) {                                                        \
                    for (size_t i = 0; i < W; i++) r[i] = acc = dmlcpu_sv_##TYPE##_##OP(acc, r[i]); \
                } else if (forward) {                                                               \
                    for (size_t i = 0; i < W; i++) {                                                \
                        V x = r[i];                                                                 \
                        r[i] = acc;                                                                 \
                        acc = dmlcpu_sv_##TYPE##_##OP(acc, x);                                      \
                    }                                                                               \
                    if (k0 == 0) r[0] = first;                                                      \
                } else if (!exclusive) {                                                            \
                    for (size_t i = W; i-- > 0;) r[i] = acc = dmlcpu_sv_##TYPE##_##OP(acc, r[i]);   \
                } else {                                                                            \
                    for (size_t i = W; i-- > 0;) {                                                  \
                        V x = r[i];                                                                 \
                        r[i] = acc;                                                                 \
                        acc = dmlcpu_sv_##TYPE##_##OP(acc, x);                                      \
                    }                                                                               \
                    if (k0 == 0) r[W - 1] = first;                                                  \
                }                                                                                   \
                dmlcpu_sv_##TYPE##_transpose(r);                                                    \
                if (nt)                                                                             \
                    for (size_t j = 0; j < nl; j++)                                                 \
                        dmlcpu_sv_##TYPE##_stream(out0 + (ptrdiff_t)j * dst_across_stride + off, r[j]); \
                else                                                                                \
                    for (size_t j = 0; j < nl; j++)                                                 \
                        dmlcpu_sv_##TYPE##_store(out0 + (ptrdiff_t)j * dst_across_stride + off, r[j]); \
            }                                                                                       \
            if (full == axis_len) continue;                                                         \
            A lanes[W];                                                                             \
            dmlcpu_sv_##TYPE##_lanes(acc, lanes);                                                   \
            for (size_t j = 0; j < nl; j++) {                                                       \
                char *out = out0 + (ptrdiff_t)j * dst_across_stride;                                \
                const char *in = in0 + (ptrdiff_t)j * src_across_stride;                            \
                A a = lanes[j];                                                                     \
                for (size_t k = full; k < axis_len; k++) {                                          \
                    A x = dmlcpu_##TYPE##_scan_load(in + (ptrdiff_t)k * src_axis_stride);           \
                    if (exclusive) {                                                                \
                        dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a);        \
                        a = dmlcpu_##TYPE##_##OP(a, x);                                             \
                    } else {                                                                        \
                        a = dmlcpu_##TYPE##_##OP(a, x);                                             \
                        dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a);        \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        if (nt) dmlcpu_ov_fence();                                                                  \
    }

/*
 * Integer sums along a line, for lines too few to fill the lanes (a single long line): an
 * in-register prefix sum per vector (wrapping addition is associative, so any order gives the
 * same bits), plus the running total broadcast from the previous vector. Needs
 * dmlcpu_sv_TYPE_prefix_fwd / _prefix_bwd (inclusive sums towards higher / lower addresses),
 * _bcast_hi / _bcast_lo (the highest / lowest lane everywhere), _sub and _stream_line (a
 * non-temporal store of W elements at an address aligned to W * ES). Exclusive = inclusive minus
 * the element. Many lines go to the transposing kernel.
 */
#define DMLCPU_DEFINE_SCAN_LINE_PREFIX_SUM(TYPE, ES, A)                                             \
    static inline void DMLCPU_KERNEL(dmlcpu_##TYPE##_cumsum_line_prefix)(                                  \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,         \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,                    \
        size_t across, int flags) {                                                                 \
        int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;                                       \
        enum { W = DMLCPU_SV_W_##TYPE, SB = W * ES };                                               \
        typedef dmlcpu_sv_##TYPE V;                                                                 \
        int forward = src_axis_stride == (ptrdiff_t)ES && dst_axis_stride == (ptrdiff_t)ES;         \
        int backward = src_axis_stride == -(ptrdiff_t)ES && dst_axis_stride == -(ptrdiff_t)ES;      \
        if (2 * across >= W || axis_len < W || !(forward || backward)) {                            \
            DMLCPU_KERNEL(dmlcpu_##TYPE##_cumsum_line_simd)(                                        \
                dst, dst_axis_stride, dst_across_stride, src, src_axis_stride,                      \
                src_across_stride, axis_len, across, flags);                                        \
            return;                                                                                 \
        }                                                                                           \
        int stream = (flags & DMLCPU_SCAN_STREAM) != 0;                                             \
        for (size_t line = 0; line < across; line++) {                                              \
            char *out = dst + (ptrdiff_t)line * dst_across_stride;                                  \
            const char *in = src + (ptrdiff_t)line * src_across_stride;                             \
            /* One line's stores are sequential, so they stream whatever the vector width: the      \
             * first `head` elements (walk order) are scalar steps up to an aligned block. */       \
            size_t head = 0;                                                                        \
            int nt = stream && (uintptr_t)out % ES == 0;                                            \
            if (nt) {                                                                               \
                head = (forward ? (SB - (uintptr_t)out % SB) % SB : ((uintptr_t)out + ES) % SB) / ES; \
                if (head + W > axis_len) nt = 0, head = 0;                                          \
            }                                                                                       \
            size_t full = head + (axis_len - head) / W * W;                                         \
            A a = 0;                                                                                \
            for (size_t k = 0; k < head; k++) {                                                     \
                A x = dmlcpu_##TYPE##_scan_load(in + (ptrdiff_t)k * src_axis_stride);               \
                if (exclusive) dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a); \
                a = dmlcpu_##TYPE##_cumsum(a, x);                                                   \
                if (!exclusive) dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a); \
            }                                                                                       \
            V carry = dmlcpu_sv_##TYPE##_fill(a);                                                   \
            for (size_t k0 = head; k0 < full; k0 += W) {                                            \
                /* the block's lowest address */                                                    \
                ptrdiff_t off = forward ? (ptrdiff_t)(k0 * ES) : -(ptrdiff_t)((k0 + W - 1) * ES);   \
                V x = dmlcpu_sv_##TYPE##_load(in + off);                                            \
                V r;                                                                                \
                if (forward) {                                                                      \
                    r = dmlcpu_sv_##TYPE##_cumsum(dmlcpu_sv_##TYPE##_prefix_fwd(x), carry);         \
                    carry = dmlcpu_sv_##TYPE##_bcast_hi(r);                                         \
                } else {                                                                            \
                    r = dmlcpu_sv_##TYPE##_cumsum(dmlcpu_sv_##TYPE##_prefix_bwd(x), carry);         \
                    carry = dmlcpu_sv_##TYPE##_bcast_lo(r);                                         \
                }                                                                                   \
                if (exclusive) r = dmlcpu_sv_##TYPE##_sub(r, x);                                    \
                if (nt) dmlcpu_sv_##TYPE##_stream_line(out + off, r);                               \
                else dmlcpu_sv_##TYPE##_store(out + off, r);                                        \
            }                                                                                       \
            A lanes[W];                                                                             \
            dmlcpu_sv_##TYPE##_lanes(carry, lanes);                                                 \
            a = lanes[0];                                                                           \
            for (size_t k = full; k < axis_len; k++) {                                              \
                A x = dmlcpu_##TYPE##_scan_load(in + (ptrdiff_t)k * src_axis_stride);               \
                if (exclusive) dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a); \
                a = dmlcpu_##TYPE##_cumsum(a, x);                                                   \
                if (!exclusive) dmlcpu_##TYPE##_scan_store(out + (ptrdiff_t)k * dst_axis_stride, a); \
            }                                                                                       \
        }                                                                                           \
        if (stream) dmlcpu_ov_fence();                                                              \
    }

/*
 * Outer kernel with explicit vectors: the same sweep as the portable outer kernel, a row at a
 * time, W columns per vector in the element's own width (FLOAT16 widened to float through
 * F16C). With DMLCPU_SCAN_STREAM each row's vector stores are non-temporal from the first
 * address aligned to a vector's bytes (the columns before it, and the tail, are scalar steps):
 * a large output then goes to memory without first being read into the caches.
 * Needs, besides the lane-wise OP and fill: dmlcpu_ov_TYPE_load / _store / _stream (W elements
 * of memory <-> accumulator lanes; _stream wants an address aligned to W * ES), _acc_load /
 * _acc_store (W accumulators from / to A[]), and dmlcpu_ov_fence.
 */
#define DMLCPU_DEFINE_SCAN_OUTER_SIMD(TYPE, OP, ES, A, IDENTITY, FIRST)                             \
    static inline void DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_outer_simd)(                                   \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,         \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,                    \
        size_t across, int flags) {                                                                 \
        enum { W = DMLCPU_OV_W_##TYPE, VB = W * ES, BLOCK = DMLCPU_SCAN_BLOCK };  \
        typedef dmlcpu_ov_##TYPE V;                                                                 \
        if (dst_across_stride != (ptrdiff_t)ES || src_across_stride != (ptrdiff_t)ES || across < W) { \
            DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_outer)(dst, dst_axis_stride, dst_across_stride,    \
                                                        src, src_axis_stride, src_across_stride,    \
                                                        axis_len, across, flags);                   \
            return;                                                                                 \
        }                                                                                           \
        int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;                                       \
        int stream = (flags & DMLCPU_SCAN_STREAM) != 0;                                             \
        A acc[BLOCK];                                                                               \
        const V first = dmlcpu_ov_##TYPE##_fill(FIRST);                                             \
        for (size_t j0 = 0; j0 < across; j0 += BLOCK) {                                             \
            size_t n = across - j0 < BLOCK ? across - j0 : BLOCK;                                   \
            char *out = dst + (ptrdiff_t)(j0 * ES);                                                 \
            const char *in = src + (ptrdiff_t)(j0 * ES);                                            \
            for (size_t j = 0; j < n; j++) acc[j] = IDENTITY;                                       \
            for (size_t k = 0; k < axis_len; k++) {                                                 \
                char *o = out + (ptrdiff_t)k * dst_axis_stride;                                     \
                const char *s = in + (ptrdiff_t)k * src_axis_stride;                                \
                size_t misaligned = (size_t)((uintptr_t)o % VB);                                    \
                int streams = stream && misaligned % ES == 0;                                       \
                size_t j = 0, head = streams && misaligned ? (VB - misaligned) / ES : 0;            \
                if (head > n) head = n;                                                             \
                for (;; j++) {                                                                      \
                    if (j == head) {                                                                \
                        /* the vector columns, then (head == n) the scalar tail */                  \
                        for (; j + W <= n; j += W) {                                                \
                            V x = dmlcpu_ov_##TYPE##_load(s + j * ES);                              \
                            V a = dmlcpu_ov_##TYPE##_acc_load(acc + j);                             \
                            V next = dmlcpu_ov_##TYPE##_##OP(a, x);                                 \
                            dmlcpu_ov_##TYPE##_acc_store(acc + j, next);                            \
                            V w = !exclusive ? next : k == 0 ? first : a;                           \
                            if (streams) dmlcpu_ov_##TYPE##_stream(o + j * ES, w);                  \
                            else dmlcpu_ov_##TYPE##_store(o + j * ES, w);                           \
                        }                                                                           \
                        head = n;                                                                   \
                    }                                                                               \
                    if (j >= n) break;                                                              \
                    A x = dmlcpu_##TYPE##_scan_load(s + j * ES);                                    \
                    if (exclusive) dmlcpu_##TYPE##_scan_store(o + j * ES, k == 0 ? (A)(FIRST) : acc[j]); \
                    acc[j] = dmlcpu_##TYPE##_##OP(acc[j], x);                                       \
                    if (!exclusive) dmlcpu_##TYPE##_scan_store(o + j * ES, acc[j]);                 \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        if (stream) dmlcpu_ov_fence();                                                              \
    }

/* Every SIMD kernel of an ISA unit, expanded there after its primitives. */
#define DMLCPU_DEFINE_SCAN_SIMD_KERNELS                                                         \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u8, cumsum, 1, uint8_t, 0, 0)                                  \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u8, cumprod, 1, uint8_t, 1, 1)                                 \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u16, cumsum, 2, uint16_t, 0, 0)                                \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u16, cumprod, 2, uint16_t, 1, 1)                               \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u32, cumsum, 4, uint32_t, 0, 0)                                \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u32, cumprod, 4, uint32_t, 1, 1)                               \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u64, cumsum, 8, uint64_t, 0, 0)                                \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(u64, cumprod, 8, uint64_t, 1, 1)                               \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(f16, cumsum, 2, float, -0.0f, 0.0f)                            \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(f16, cumprod, 2, float, 1.0f, 1.0f)                            \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(f32, cumsum, 4, float, -0.0f, 0.0f)                            \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(f32, cumprod, 4, float, 1.0f, 1.0f)                            \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(f64, cumsum, 8, double, -0.0, 0.0)                             \
    DMLCPU_DEFINE_SCAN_LINE_SIMD(f64, cumprod, 8, double, 1.0, 1.0)                             \
    DMLCPU_DEFINE_SCAN_LINE_PREFIX_SUM(u32, 4, uint32_t)                                        \
    DMLCPU_DEFINE_SCAN_LINE_PREFIX_SUM(u64, 8, uint64_t)                                        \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u8, cumsum, 1, uint8_t, 0, 0)                                 \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u8, cumprod, 1, uint8_t, 1, 1)                                \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u16, cumsum, 2, uint16_t, 0, 0)                               \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u16, cumprod, 2, uint16_t, 1, 1)                              \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u32, cumsum, 4, uint32_t, 0, 0)                               \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u32, cumprod, 4, uint32_t, 1, 1)                              \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u64, cumsum, 8, uint64_t, 0, 0)                               \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(u64, cumprod, 8, uint64_t, 1, 1)                              \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(f16, cumsum, 2, float, -0.0f, 0.0f)                           \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(f16, cumprod, 2, float, 1.0f, 1.0f)                           \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(f32, cumsum, 4, float, -0.0f, 0.0f)                           \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(f32, cumprod, 4, float, 1.0f, 1.0f)                           \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(f64, cumsum, 8, double, -0.0, 0.0)                            \
    DMLCPU_DEFINE_SCAN_OUTER_SIMD(f64, cumprod, 8, double, 1.0, 1.0)

/* Rows of a full table, [dmlcpu_scan_type][dmlcpu_scan_op] (scan_scalar.c). */
#define DMLCPU_SCAN_ENTRY(TYPE, OP)                                                             \
    {DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_outer), DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line)}
#define DMLCPU_SCAN_ROW_OF(TYPE) {DMLCPU_SCAN_ENTRY(TYPE, cumsum), DMLCPU_SCAN_ENTRY(TYPE, cumprod)}
