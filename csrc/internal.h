/*
 * Declarations shared by the core's translation units; never seen by Cython.
 */
#ifndef DMLCPU_INTERNAL_H
#define DMLCPU_INTERNAL_H

#include "dmlcpu/dmlcpu.h"

/* One operand of a walk: the address of its element (0, ..., 0) and its byte strides. */
typedef struct dmlcpu_operand {
    char *data;
    int64_t strides[DMLCPU_MAX_DIMS];
} dmlcpu_operand;

/*
 * A destination and a source walked together over common sizes, dims ordered outermost first.
 * After dmlcpu_pair_normalize the innermost dim is the run a kernel copies; the rest is walked
 * by an odometer (walk.h). The source is only read.
 */
enum { DMLCPU_DST = 0, DMLCPU_SRC = 1 };
typedef struct dmlcpu_pair {
    int32_t ndim;
    int64_t sizes[DMLCPU_MAX_DIMS];
    dmlcpu_operand op[2]; /* [DMLCPU_DST], [DMLCPU_SRC] */
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
/* The same where the views' data are not addresses (dmlcpu_copy_prepare's byte offsets): their
 * sizes and strides are checked, their data only copied. */
dmlcpu_status dmlcpu_pair_init_unplaced(dmlcpu_pair *pair, const dmlcpu_view *dst,
                                        const dmlcpu_view *src, size_t elsize, int *empty);

/*
 * Copy normalization (NumPy's PrepareTwoRawArrayIter): drop size-1 dims, flip negative
 * destination strides, sort by destination stride (outermost first), and merge neighbours that
 * are contiguous in both operands. Leaves at least one dim.
 */
void dmlcpu_pair_normalize(dmlcpu_pair *pair);

/* The same over `count` operands (2 to DMLCPU_NORMALIZE_MAX_OPERANDS: a carried scan's four),
 * ops[0] the destination and ops[1] the source: every operand follows the destination's flips
 * and order. Returns the dims left (at least 1). */
#define DMLCPU_NORMALIZE_MAX_OPERANDS 4
int32_t dmlcpu_normalize(int32_t ndim, int64_t *sizes, dmlcpu_operand *ops, size_t count);
/* dmlcpu_normalize leaving the data alone: shifts[k] is what the flips move operand k's data by
 * (for data that are offsets, not addresses). */
int32_t dmlcpu_normalize_dims(int32_t ndim, int64_t *sizes, dmlcpu_operand *ops, size_t count,
                              int64_t *shifts);

/*
 * Drops dims of size 1 and merges each dim into its outer neighbour when every one of the count
 * operands steps evenly across the two (outer stride = inner stride * inner size). Keeps the
 * order of the dims; returns how many are left (0 when every size was 1).
 */
int32_t dmlcpu_merge_dims(int32_t ndim, int64_t *sizes, dmlcpu_operand *ops, size_t count);

/*
 * Copies a normalized pair (copy_nd.c): the whole driver behind dmlcpu_copy. `stream` is 0 or 1
 * where the caller knows better than this one copy's size whether the output stays cached (a
 * TILE writes a large output in many small copies), else DMLCPU_STREAM_AUTO (the policy says:
 * policy.h).
 * Streaming also needs a kernel that streams and runs long enough for it. `call_bytes` is what
 * the whole operator call writes when this copy is one piece of it (a JOIN's part, a TILE's
 * block), else 0: whether the output stays in L2 (dmlcpu_policy_in_l2) is the call's, not the
 * piece's, to say.
 */
#define DMLCPU_STREAM_AUTO (-1)
/* `stream` for a copy written cached, its long packed runs by the string copy wherever they are
 * (a TILE's slabs, tile.c) */
#define DMLCPU_STREAM_STRING 2
void dmlcpu_copy_pair(const dmlcpu_pair *pair, size_t elsize, int stream, int64_t call_bytes);
/* dmlcpu_copy with the same choices. */
dmlcpu_status dmlcpu_copy_streamed(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize,
                                   int stream, int64_t call_bytes);

/* A monotonic clock in nanoseconds (the pool file's; 0 where there is none). */
uint64_t dmlcpu_now_ns(void);

/* The machine model and the policy (machine.c, policy.c): detected and derived by dmlcpu_init. */
void dmlcpu_policy_init(void);
int64_t dmlcpu_parse_bytes(const char *s);

/*
 * The parallel-for every driver uses (threads.c; the two questions policy.c's). A call cuts its
 * work into independent chunks whose results do not depend on which thread runs them, nor on how
 * many chunks there are.
 *   dmlcpu_threads_for: how many threads a call writing `bytes` bytes uses
 *     (dmlcpu_policy_threads over the pool's thread count, at most call_threads);
 *   dmlcpu_chunks_for: how many chunks such a call in `units` independent pieces should have
 *     (dmlcpu_policy_chunks);
 *   dmlcpu_share: chunk i of n as [*lo, *hi) of [0, total), boundaries on multiples of align
 *     (the last chunk takes the ragged end), an even share without overflow;
 *   dmlcpu_parallel: runs task(ctx, i, n) for every i in [0, n), on the caller and the idle
 *     workers it takes (none: the caller alone); every chunk is done on return.
 */
typedef void (*dmlcpu_task_fn)(void *ctx, int chunk, int chunks);
int dmlcpu_threads_for(int64_t bytes);
int dmlcpu_chunks_for(int64_t bytes, int64_t units);
void dmlcpu_share(int64_t total, int64_t align, int chunk, int chunks, int64_t *lo, int64_t *hi);
void dmlcpu_parallel(dmlcpu_task_fn task, void *ctx, int chunks);

/* The two halves of dmlcpu_init (init.c, their only caller): the kernel table, the threads. */
void dmlcpu_dispatch_init(void);
void dmlcpu_threads_init(void);
/* The CPU budget dmlcpu_threads_init detected, for the machine model (no dmlcpu_init: it runs
 * inside initialization). */
const dmlcpu_cpu_budget *dmlcpu_cpus_detected(void);
/* The first line of a file (at most size - 1 bytes, newline dropped), or 0 if unreadable
 * (cpus.c; machine.c's sysfs reads too). */
int dmlcpu_read_first_line(const char *path, char *line, size_t size);

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

/* Bytes from p up to the next address that is a multiple of align (0 if p is one). */
static inline size_t dmlcpu_bytes_to_aligned(const void *p, size_t align) {
    return (size_t)((align - (uintptr_t)p % align) % align);
}

/* Index of a copy element width (1, 2, 4 or 8 bytes: 0 .. 3), -1 for any other. */
static inline int dmlcpu_width_index(size_t elsize) {
    switch (elsize) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    }
    return -1;
}

dmlcpu_run_layout dmlcpu_run_layout_of(ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elsize);


/*
 * Scan kernels. One signature serves both layouts: a block of `across` independent scans of
 * `axis_len` elements each. dst/src point at the first element in walk order; *_axis_stride steps
 * along the scan (negative when walking backwards), *_across_stride steps from one scan to the
 * next.
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

/*
 * A scan cut into pieces along its axis carries its running total from one piece to the next,
 * one accumulator (float for FLOAT16, else the element type) per scan: `in` holds where each
 * scan starts (NULL: the identity; an exclusive scan then writes it first, where it would write
 * the identity), `out` receives each scan's total after its last element (NULL: not wanted).
 * *_across step from one scan's accumulator to the next, in bytes. Kernels take NULL for a
 * whole scan.
 */
typedef struct dmlcpu_scan_carry {
    const char *in;
    char *out;
    ptrdiff_t in_across, out_across;
} dmlcpu_scan_carry;

typedef void (*dmlcpu_scan_fn)(char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride,
                               const char *src, ptrdiff_t src_axis_stride,
                               ptrdiff_t src_across_stride, size_t axis_len, size_t across,
                               int flags, const dmlcpu_scan_carry *carry);

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
