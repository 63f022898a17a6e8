/*
 * The scan driver. The axis is kept apart (never merged); the other dims are normalized as a copy
 * would be. Walking backwards starts at the last index with negated axis strides.
 * - outer (some other dim steps less than the axis in dst): a vertical pass. One accumulator per
 *   column of the innermost run; for each row k, out[k][j] = acc[j] op in[k][j]. Rows are
 *   unit-stride loops SIMD can widen, yet each column rounds exactly as a sequential loop does.
 * - line (the axis is innermost): each line walked sequentially from acc = identity (the SIMD
 *   kernels run several lines at once, one per lane, each still in walk order).
 * Both carry the total in an accumulator instead of re-reading out[k-1]: each element is read
 * before its address is written, so in place needs no temporary, and FLOAT16 can accumulate in
 * FLOAT32 (only the written values are rounded to half).
 *
 * Kernels come from the dispatch table (the widest usable ISA that measured faster, per slot).
 * A large scan is cut into contiguous ranges of independent scans (columns for outer, lines for
 * line) run by the thread pool: each scan is computed whole by one kernel call, with the same
 * operations in the same order, so the bits never depend on the thread count.
 */
#include "dispatch.h"
#include "walk.h"

static int scan_type_of(dmlcpu_dtype dtype, dmlcpu_scan_type *type) {
    switch (dtype) {
    case DMLCPU_UINT8: case DMLCPU_INT8: *type = DMLCPU_SCAN_U8; return 1;
    case DMLCPU_UINT16: case DMLCPU_INT16: *type = DMLCPU_SCAN_U16; return 1;
    case DMLCPU_UINT32: case DMLCPU_INT32: *type = DMLCPU_SCAN_U32; return 1;
    case DMLCPU_UINT64: case DMLCPU_INT64: *type = DMLCPU_SCAN_U64; return 1;
    case DMLCPU_FLOAT16: *type = DMLCPU_SCAN_F16; return 1;
    case DMLCPU_FLOAT32: *type = DMLCPU_SCAN_F32; return 1;
    case DMLCPU_FLOAT64: *type = DMLCPU_SCAN_F64; return 1;
    }
    return 0;
}

/*
 * The scans of one call: `positions` odometer positions of the outer dims of `rest` (all but its
 * innermost) times `across` scans at each (rest's innermost dim, which the kernel walks). Flat
 * index f = position * across + column names one scan.
 */
typedef struct scan_plan {
    dmlcpu_scan_fn kernel;
    const dmlcpu_pair *rest;
    ptrdiff_t dst_axis, src_axis;
    size_t axis_len;
    int flags;
    int64_t positions, across;
    int64_t align; /* chunk boundaries fall on multiples of this many scans */
} scan_plan;

/* Scans [begin, end) in flat order, one kernel call per position (or part of one). */
static void scan_range(const scan_plan *c, int64_t begin, int64_t end) {
    const dmlcpu_pair *p = c->rest;
    int32_t inner = p->ndim - 1;
    ptrdiff_t dst_across = (ptrdiff_t)p->op[DMLCPU_DST].strides[inner];
    ptrdiff_t src_across = (ptrdiff_t)p->op[DMLCPU_SRC].strides[inner];
    char *at[2];
    dmlcpu_walk w = {inner, p->sizes, 2, p->op, at, {0}};
    dmlcpu_walk_seek(&w, begin / c->across);
    int64_t col = begin % c->across;
    for (int64_t f = begin; f < end; col = 0) {
        if (f > begin) dmlcpu_walk_step(&w);
        int64_t n = c->across - col < end - f ? c->across - col : end - f;
        c->kernel(at[DMLCPU_DST] + col * dst_across, c->dst_axis, dst_across,
                  at[DMLCPU_SRC] + col * src_across, c->src_axis, src_across, c->axis_len,
                  (size_t)n, c->flags);
        f += n;
    }
}

/* Chunk i of n: an even share of the scans, boundaries on multiples of align. */
static void scan_chunk(void *ctx, int chunk, int chunks) {
    const scan_plan *c = ctx;
    int64_t lo, hi;
    dmlcpu_share(c->positions * c->across, c->align, chunk, chunks, &lo, &hi);
    if (lo < hi) scan_range(c, lo, hi);
}

dmlcpu_status dmlcpu_scan(const dmlcpu_view *dst, const dmlcpu_view *src, dmlcpu_dtype dtype,
                          int32_t axis, dmlcpu_scan_op op, int32_t reverse, int32_t exclusive) {
    dmlcpu_scan_type type;
    if (!scan_type_of(dtype, &type)) return DMLCPU_E_INVALID;
    if (op != DMLCPU_SCAN_SUM && op != DMLCPU_SCAN_PROD) return DMLCPU_E_INVALID;
    size_t elsize = dmlcpu_dtype_size(dtype);
    dmlcpu_pair all;
    int empty;
    dmlcpu_status status = dmlcpu_pair_init(&all, dst, src, elsize, &empty);
    if (status != DMLCPU_OK) return status;
    if (axis < 0 || axis >= all.ndim) return DMLCPU_E_INVALID;
    if (empty) return DMLCPU_OK;

    /* The axis, walked forwards from the first element in walk order. */
    int64_t axis_len = all.sizes[axis];
    int64_t dst_axis = all.op[DMLCPU_DST].strides[axis], src_axis = all.op[DMLCPU_SRC].strides[axis];
    dmlcpu_pair rest = {0};
    rest.op[DMLCPU_DST].data = all.op[DMLCPU_DST].data;
    rest.op[DMLCPU_SRC].data = all.op[DMLCPU_SRC].data;
    if (reverse) {
        rest.op[DMLCPU_DST].data += dst_axis * (axis_len - 1);
        rest.op[DMLCPU_SRC].data += src_axis * (axis_len - 1);
        dst_axis = -dst_axis;
        src_axis = -src_axis;
    }
    /* The other dims, normalized as a copy would be (leaves at least one, maybe of size 1). */
    for (int32_t i = 0; i < all.ndim; i++) {
        if (i == axis) continue;
        rest.sizes[rest.ndim] = all.sizes[i];
        for (int k = 0; k < 2; k++) rest.op[k].strides[rest.ndim] = all.op[k].strides[i];
        rest.ndim++;
    }
    dmlcpu_pair_normalize(&rest);

    /* Outer when the innermost other dim steps less than the axis in the destination (or the
     * axis has one element: then every scan is a single row, best done across). */
    int64_t inner_size = rest.sizes[rest.ndim - 1];
    int64_t inner_stride = rest.op[DMLCPU_DST].strides[rest.ndim - 1]; /* >= 0, normalized */
    int64_t axis_step = dst_axis < 0 ? -dst_axis : dst_axis;
    int outer = inner_size > 1 && (axis_len == 1 || inner_stride < axis_step);
    const dmlcpu_scan_kernels *kernels = &dmlcpu_dispatch_table()->scan[type][op];
    scan_plan c = {0};
    c.kernel = outer ? kernels->outer : kernels->line;
    c.rest = &rest;
    c.dst_axis = (ptrdiff_t)dst_axis;
    c.src_axis = (ptrdiff_t)src_axis;
    c.axis_len = (size_t)axis_len;
    c.flags = exclusive ? DMLCPU_SCAN_EXCLUSIVE : 0;
    c.across = rest.sizes[rest.ndim - 1];
    c.positions = 1;
    for (int32_t d = 0; d + 1 < rest.ndim; d++) c.positions *= rest.sizes[d];
    /* outer: whole cache lines of columns per chunk; line: whole groups of 16 lines */
    c.align = outer ? (int64_t)(64 / elsize) : 16;

    int64_t scans = c.positions * c.across; /* every product here divides the element count */
    int64_t total_bytes = scans * axis_len * (int64_t)elsize;
    if (total_bytes >= DMLCPU_STREAM_MIN_BYTES) c.flags |= DMLCPU_SCAN_STREAM;
    dmlcpu_parallel(scan_chunk, &c, dmlcpu_threads_for(total_bytes, (scans + c.align - 1) / c.align));
    return DMLCPU_OK;
}
