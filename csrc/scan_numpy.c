/*
 * NumPy's scans for dmlcpu.numpy (dmlcpu_numpy_scan): integer sources widened to the result as
 * they are read (one pass, no temporary), float16 rounded at every step. The plan is
 * dmlcpu_scan's (scan_nd.c): the axis kept apart, the other dims normalized, an outer (vertical)
 * pass when some other dim steps less than the axis in dst, else one line at a time; the scans
 * are cut into contiguous ranges run by the thread pool, each scan whole in one kernel call, so
 * the bits never depend on the thread count.
 */
#include "scan_numpy_kernels.h"
#include "walk.h"

/* Outer chunks take strips of a page of each destination row (scan_nd.c says why). */
#define NP_OUTER_STRIP_BYTES 4096
#define NP_LINE_GROUP 16

static int np_source_of(dmlcpu_dtype dtype) {
    switch (dtype) {
    case DMLCPU_INT8: return DMLCPU_NP_I8;
    case DMLCPU_UINT8: return DMLCPU_NP_U8;
    case DMLCPU_INT16: return DMLCPU_NP_I16;
    case DMLCPU_UINT16: return DMLCPU_NP_U16;
    case DMLCPU_INT32: return DMLCPU_NP_I32;
    case DMLCPU_UINT32: return DMLCPU_NP_U32;
    case DMLCPU_FLOAT16: return DMLCPU_NP_F16;
    default: return -1;
    }
}

/* The result's width index (2, 4, 8 bytes: 0, 1, 2): integer results of any signedness for an
 * integer source, float16 for float16; -1 for any other type. */
static int np_width_of(dmlcpu_dtype result, int source) {
    int is_float16 = result == DMLCPU_FLOAT16;
    if (is_float16 != (source == DMLCPU_NP_F16)) return -1;
    if (result == DMLCPU_FLOAT32 || result == DMLCPU_FLOAT64) return -1;
    switch (dmlcpu_dtype_size(result)) {
    case 2: return 0;
    case 4: return 1;
    case 8: return 2;
    default: return -1;
    }
}

/* The kernels of the active ISA: the avx2 unit's for AVX2 and AVX-512 where it is built. */
static dmlcpu_np_scan_table *np_table(void) {
#if defined(DMLCPU_BUILD_AVX2)
    int isa = dmlcpu_active_isa();
    if (isa == DMLCPU_ISA_AVX2 || isa == DMLCPU_ISA_AVX512) return &dmlcpu_np_scan_kernels__avx2;
#endif
    return &dmlcpu_np_scan_kernels__scalar;
}

typedef struct np_plan {
    dmlcpu_np_scan_fn kernel;
    int32_t ndim;
    int64_t sizes[DMLCPU_MAX_DIMS];
    dmlcpu_operand op[2];
    ptrdiff_t dst_axis, src_axis;
    size_t axis_len;
    int64_t positions, across, align;
} np_plan;

/* Scans [begin, end) in flat order (position * across + column), one kernel call per position
 * or part of one. */
static void np_range(const np_plan *c, int64_t begin, int64_t end) {
    int32_t inner = c->ndim - 1;
    ptrdiff_t dx = (ptrdiff_t)c->op[DMLCPU_DST].strides[inner];
    ptrdiff_t sx = (ptrdiff_t)c->op[DMLCPU_SRC].strides[inner];
    char *at[2];
    dmlcpu_walk w;
    dmlcpu_walk_start(&w, inner, c->sizes, 2, c->op, at, begin / c->across);
    int64_t col = begin % c->across;
    for (int64_t f = begin; f < end; col = 0) {
        if (f > begin) dmlcpu_walk_step(&w);
        int64_t n = c->across - col < end - f ? c->across - col : end - f;
        c->kernel(at[DMLCPU_DST] + col * dx, c->dst_axis, dx, at[DMLCPU_SRC] + col * sx,
                  c->src_axis, sx, c->axis_len, (size_t)n);
        f += n;
    }
}

static void np_chunk(void *ctx, int chunk, int chunks) {
    const np_plan *c = ctx;
    int64_t lo, hi;
    dmlcpu_share(c->positions * c->across, c->align, chunk, chunks, &lo, &hi);
    if (lo < hi) np_range(c, lo, hi);
}

dmlcpu_status dmlcpu_numpy_scan(const dmlcpu_view *dst, dmlcpu_dtype dst_dtype,
                                const dmlcpu_view *src, dmlcpu_dtype src_dtype, int32_t axis,
                                dmlcpu_scan_op op) {
    int source = np_source_of(src_dtype);
    int width = source < 0 ? -1 : np_width_of(dst_dtype, source);
    if (width < 0 || (op != DMLCPU_SCAN_SUM && op != DMLCPU_SCAN_PROD)) return DMLCPU_E_INVALID;
    const dmlcpu_np_scan_kernels *kernels = &(*np_table())[source][width][op];
    if (kernels->outer == NULL) return DMLCPU_E_INVALID; /* a narrowing pair */
    size_t dsize = dmlcpu_dtype_size(dst_dtype), ssize = dmlcpu_dtype_size(src_dtype);
    int64_t count, src_count;
    dmlcpu_status status = dmlcpu_view_check(dst, dsize, &count);
    if (status == DMLCPU_OK) status = dmlcpu_view_check(src, ssize, &src_count);
    if (status != DMLCPU_OK) return status;
    if (dst->ndim != src->ndim || dst->ndim < 1 || axis < 0 || axis >= dst->ndim)
        return DMLCPU_E_INVALID;
    for (int32_t i = 0; i < dst->ndim; i++)
        if (dst->sizes[i] != src->sizes[i]) return DMLCPU_E_INVALID;
    if (count == 0) return DMLCPU_OK;

    np_plan c = {0};
    c.axis_len = (size_t)dst->sizes[axis];
    c.dst_axis = (ptrdiff_t)dst->strides[axis];
    c.src_axis = (ptrdiff_t)src->strides[axis];
    c.op[DMLCPU_DST].data = dst->data;
    c.op[DMLCPU_SRC].data = src->data;
    for (int32_t i = 0; i < dst->ndim; i++) {
        if (i == axis) continue;
        c.sizes[c.ndim] = dst->sizes[i];
        c.op[DMLCPU_DST].strides[c.ndim] = dst->strides[i];
        c.op[DMLCPU_SRC].strides[c.ndim] = src->strides[i];
        c.ndim++;
    }
    c.ndim = dmlcpu_normalize(c.ndim, c.sizes, c.op, 2); /* leaves at least one dim */

    int64_t inner_size = c.sizes[c.ndim - 1];
    int64_t inner_stride = c.op[DMLCPU_DST].strides[c.ndim - 1]; /* >= 0, normalized */
    int64_t axis_step = c.dst_axis < 0 ? -(int64_t)c.dst_axis : (int64_t)c.dst_axis;
    int outer = inner_size > 1 && (c.axis_len == 1 || inner_stride < axis_step);
    c.kernel = outer ? kernels->outer : kernels->line;
    c.across = inner_size;
    c.positions = 1;
    for (int32_t d = 0; d + 1 < c.ndim; d++) c.positions *= c.sizes[d];
    int64_t scans = c.positions * c.across;
    int64_t total_bytes = count * (int64_t)dsize;
    c.align = outer ? (int64_t)(NP_OUTER_STRIP_BYTES / dsize) : NP_LINE_GROUP;
    int64_t groups = (scans + c.align - 1) / c.align; /* chunks split only between them */
    dmlcpu_parallel(np_chunk, &c, dmlcpu_chunks_for(total_bytes, groups));
    return DMLCPU_OK;
}
