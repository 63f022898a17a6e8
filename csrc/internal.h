/*
 * Declarations shared by the core's translation units; never seen by Cython.
 */
#ifndef DMLCPU_INTERNAL_H
#define DMLCPU_INTERNAL_H

#include "dmlcpu/dmlcpu.h"

/*
 * Two operands walked together over common sizes, dims ordered outermost first. After
 * dmlcpu_pair_normalize the innermost dim is the run a kernel copies; the rest is an odometer.
 */
typedef struct dmlcpu_pair {
    int32_t ndim;
    int64_t sizes[DMLCPU_MAX_DIMS];
    int64_t dst_strides[DMLCPU_MAX_DIMS];
    int64_t src_strides[DMLCPU_MAX_DIMS];
    char *dst;
    const char *src;
} dmlcpu_pair;

/* a * b (a + b) into *out; returns 1, leaving *out alone, on overflow of int64. */
#if defined(__GNUC__) || defined(__clang__)
static inline int dmlcpu_mul_overflows(int64_t a, int64_t b, int64_t *out) {
    return __builtin_mul_overflow(a, b, out);
}
static inline int dmlcpu_add_overflows(int64_t a, int64_t b, int64_t *out) {
    return __builtin_add_overflow(a, b, out);
}
#else /* MSVC: the same checks by division, before the operation can overflow */
static inline int dmlcpu_mul_overflows(int64_t a, int64_t b, int64_t *out) {
    if (a != 0 && b != 0) {
        if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                  : (b > 0 ? a < INT64_MIN / b : b < INT64_MAX / a))
            return 1;
    }
    *out = a * b;
    return 0;
}
static inline int dmlcpu_add_overflows(int64_t a, int64_t b, int64_t *out) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;
    *out = a + b;
    return 0;
}
#endif

/*
 * Checks that a view is well formed: 0..8 dims, no negative size, and byte offsets of every
 * element representable in 64 bits. Sets *count to the number of elements.
 */
dmlcpu_status dmlcpu_view_check(const dmlcpu_view *view, size_t elsize, int64_t *count);

/*
 * Pairs dst and src (same ndim and sizes, both checked). Returns DMLCPU_OK with *empty set when
 * some size is 0.
 */
dmlcpu_status dmlcpu_pair_init(dmlcpu_pair *pair, const dmlcpu_view *dst, const dmlcpu_view *src,
                               size_t elsize, int *empty);

/*
 * Copy normalization (NumPy's PrepareTwoRawArrayIter): drop size-1 dims, flip negative
 * destination strides, sort by destination stride (outermost first), and merge neighbours that
 * are contiguous in both operands. Leaves at least one dim.
 */
void dmlcpu_pair_normalize(dmlcpu_pair *pair);

/* Copies a normalized pair (copy_nd.c): the whole driver behind dmlcpu_copy. */
void dmlcpu_copy_pair(const dmlcpu_pair *pair, size_t elsize);

/* Below this many bytes per call one thread does it all: waking the pool costs ~10-20 us ... */
#define DMLCPU_PARALLEL_MIN_BYTES ((int64_t)1 << 20)
/* ... and each thread gets at least this much. */
#define DMLCPU_PARALLEL_CHUNK_BYTES ((int64_t)256 << 10)
/* Copies writing at least this many bytes stream their stores (benchmarks/NOTES.md). */
#define DMLCPU_STREAM_MIN_BYTES ((int64_t)4 << 20)

/*
 * Copies the innermost run of n elements: dst and src advance by their own byte strides.
 * One function per element width and run layout, chosen once per call.
 */
typedef void (*dmlcpu_copy_run_fn)(char *dst, ptrdiff_t dst_stride, const char *src,
                                   ptrdiff_t src_stride, size_t n);

typedef enum dmlcpu_run_layout {
    DMLCPU_RUN_CONTIGUOUS = 0, /* both packed: one memcpy */
    DMLCPU_RUN_GATHER = 1,     /* dst packed, src strided */
    DMLCPU_RUN_SCATTER = 2,    /* dst strided, src packed */
    DMLCPU_RUN_STRIDED = 3,    /* both strided */
    DMLCPU_RUN_BROADCAST = 4,  /* src stride 0: one value filled into dst */
    DMLCPU_RUN_LAYOUT_COUNT = 5
} dmlcpu_run_layout;

dmlcpu_run_layout dmlcpu_run_layout_of(ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elsize);

/* The kernel for an element width (1, 2, 4, 8) and a layout; NULL for any other width. */
dmlcpu_copy_run_fn dmlcpu_copy_kernel(size_t elsize, dmlcpu_run_layout layout);

/*
 * Scan kernels. One signature serves both layouts: a block of `across` independent scans of
 * `axis_len` elements each. dst/src point at the first element in walk order; *_axis_stride steps
 * along the scan (negative when walking backwards), *_across_stride steps from one scan to the next.
 *   outer: the scans sit side by side in a row (the axis is not innermost); the kernel sweeps
 *          rows k = 0, 1, ... keeping one accumulator per column.
 *   line:  each scan is walked in its own walk order (the axis is innermost); a SIMD kernel
 *          may advance several scans together, one per lane.
 * flags: DMLCPU_SCAN_EXCLUSIVE writes the total before the current element is added;
 * DMLCPU_SCAN_STREAM asks for non-temporal stores where the kernel has them (outputs far larger
 * than the caches; the kernel fences them before returning). dst may be src (in place).
 */
#define DMLCPU_SCAN_EXCLUSIVE 1
#define DMLCPU_SCAN_STREAM 2
typedef void (*dmlcpu_scan_fn)(char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride,
                               const char *src, ptrdiff_t src_axis_stride,
                               ptrdiff_t src_across_stride, size_t axis_len, size_t across,
                               int flags);

/* Kernel element types: signed integers share the unsigned kernels (wrapping is the same bits). */
typedef enum dmlcpu_scan_type {
    DMLCPU_SCAN_U8 = 0,
    DMLCPU_SCAN_U16 = 1,
    DMLCPU_SCAN_U32 = 2,
    DMLCPU_SCAN_U64 = 3,
    DMLCPU_SCAN_F16 = 4,
    DMLCPU_SCAN_F32 = 5,
    DMLCPU_SCAN_F64 = 6,
    DMLCPU_SCAN_TYPE_COUNT = 7
} dmlcpu_scan_type;

#define DMLCPU_SCAN_OP_COUNT 2

typedef struct dmlcpu_scan_kernels {
    dmlcpu_scan_fn outer;
    dmlcpu_scan_fn line;
} dmlcpu_scan_kernels;

/* Per-ISA tables, indexed by [dmlcpu_scan_type][dmlcpu_scan_op]. */
extern const dmlcpu_scan_kernels dmlcpu_scan_kernels__scalar[DMLCPU_SCAN_TYPE_COUNT]
                                                            [DMLCPU_SCAN_OP_COUNT];

#endif /* DMLCPU_INTERNAL_H */
