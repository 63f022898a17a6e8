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
#include "policy.h"
#include "walk.h"

/* The columns an outer chunk takes are strips of the policy's scan_strip bytes of each row at
 * least (half that where whole strips are fewer than the threads; decisions.md "scan strips"):
 * threads on narrower strips pull each other's lines into their L2. */

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
 * The scans of one call: `positions` odometer positions of the outer dims (every normalized dim
 * but the axis and the innermost) times `across` scans at each (the innermost other dim, which
 * the kernel walks). Flat index f = position * across + column names one scan. Operands: dst,
 * src, then the carries given (carry_in, carry_out: one accumulator per scan, same dims).
 */
typedef struct scan_plan {
    dmlcpu_scan_fn kernel;
    int32_t ndim;
    int64_t sizes[DMLCPU_MAX_DIMS];
    dmlcpu_operand op[4];
    size_t count;
    int carry_in, carry_out; /* operand slots, or -1 */
    ptrdiff_t dst_axis, src_axis;
    size_t axis_len;
    int flags;
    int64_t positions, across;
    int64_t align; /* chunk boundaries fall on lead plus multiples of this many scans */
    int64_t lead;  /* outer: the columns before dst's first line boundary, or 0 */
} scan_plan;

/* Scans [begin, end) in flat order, one kernel call per position (or part of one). */
static void scan_range(const scan_plan *c, int64_t begin, int64_t end) {
    int32_t inner = c->ndim - 1;
    ptrdiff_t across[4];
    for (size_t k = 0; k < c->count; k++) across[k] = (ptrdiff_t)c->op[k].strides[inner];
    char *at[4];
    dmlcpu_walk w;
    dmlcpu_walk_start(&w, inner, c->sizes, c->count, c->op, at, begin / c->across);
    int64_t col = begin % c->across;
    dmlcpu_scan_carry carry = {NULL, NULL, 0, 0};
    const dmlcpu_scan_carry *carried = c->count > 2 ? &carry : NULL;
    for (int64_t f = begin; f < end; col = 0) {
        if (f > begin) dmlcpu_walk_step(&w);
        int64_t n = c->across - col < end - f ? c->across - col : end - f;
        if (c->carry_in >= 0) {
            carry.in = at[c->carry_in] + col * across[c->carry_in];
            carry.in_across = across[c->carry_in];
        }
        if (c->carry_out >= 0) {
            carry.out = at[c->carry_out] + col * across[c->carry_out];
            carry.out_across = across[c->carry_out];
        }
        c->kernel(at[DMLCPU_DST] + col * across[DMLCPU_DST], c->dst_axis, across[DMLCPU_DST],
                  at[DMLCPU_SRC] + col * across[DMLCPU_SRC], c->src_axis, across[DMLCPU_SRC],
                  c->axis_len, (size_t)n, c->flags, carried);
        f += n;
    }
}

/* Chunk i of n: an even share of the scans, boundaries on lead plus multiples of align (the
 * first chunk from 0). */
static void scan_chunk(void *ctx, int chunk, int chunks) {
    const scan_plan *c = ctx;
    int64_t lo, hi;
    dmlcpu_share(c->positions * c->across - c->lead, c->align, chunk, chunks, &lo, &hi);
    if (chunk > 0) lo += c->lead;
    hi += c->lead;
    if (lo < hi) scan_range(c, lo, hi);
}

/* A carry view: dst's dims with the axis cut to 1, elements of acc_size bytes. */
static dmlcpu_status check_carry(const dmlcpu_view *carry, const dmlcpu_pair *all, int32_t axis,
                                 size_t acc_size) {
    int64_t count;
    dmlcpu_status status = dmlcpu_view_check(carry, acc_size, &count);
    if (status != DMLCPU_OK) return status;
    if (carry->ndim != all->ndim) return DMLCPU_E_INVALID;
    for (int32_t i = 0; i < all->ndim; i++)
        if (carry->sizes[i] != (i == axis ? 1 : all->sizes[i])) return DMLCPU_E_INVALID;
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_scan(const dmlcpu_view *dst, const dmlcpu_view *src, dmlcpu_dtype dtype,
                          int32_t axis, dmlcpu_scan_op op, int32_t reverse, int32_t exclusive) {
    return dmlcpu_scan_carried(dst, src, dtype, axis, op, reverse, exclusive, NULL, NULL);
}

dmlcpu_status dmlcpu_scan_carried(const dmlcpu_view *dst, const dmlcpu_view *src,
                                  dmlcpu_dtype dtype, int32_t axis, dmlcpu_scan_op op,
                                  int32_t reverse, int32_t exclusive,
                                  const dmlcpu_view *carry_in, const dmlcpu_view *carry_out) {
    dmlcpu_scan_type type;
    if (!scan_type_of(dtype, &type)) return DMLCPU_E_INVALID;
    if (op != DMLCPU_SCAN_SUM && op != DMLCPU_SCAN_PROD) return DMLCPU_E_INVALID;
    size_t elsize = dmlcpu_dtype_size(dtype);
    size_t acc_size = type == DMLCPU_SCAN_F16 ? sizeof(float) : elsize;
    dmlcpu_pair all;
    int empty;
    dmlcpu_status status = dmlcpu_pair_init(&all, dst, src, elsize, &empty);
    if (status != DMLCPU_OK) return status;
    if (axis < 0 || axis >= all.ndim) return DMLCPU_E_INVALID;
    const dmlcpu_view *carries[2] = {carry_in, carry_out};
    for (int k = 0; k < 2; k++) {
        if (carries[k] == NULL) continue;
        if ((status = check_carry(carries[k], &all, axis, acc_size)) != DMLCPU_OK) return status;
    }
    if (empty) return DMLCPU_OK;

    /* The axis, walked forwards from the first element in walk order. */
    scan_plan c = {0};
    int64_t axis_len = all.sizes[axis];
    int64_t dst_axis = all.op[DMLCPU_DST].strides[axis];
    int64_t src_axis = all.op[DMLCPU_SRC].strides[axis];
    c.op[DMLCPU_DST].data = all.op[DMLCPU_DST].data;
    c.op[DMLCPU_SRC].data = all.op[DMLCPU_SRC].data;
    if (reverse) {
        c.op[DMLCPU_DST].data += dst_axis * (axis_len - 1);
        c.op[DMLCPU_SRC].data += src_axis * (axis_len - 1);
        dst_axis = -dst_axis;
        src_axis = -src_axis;
    }
    c.count = 2;
    c.carry_in = c.carry_out = -1;
    if (carry_in != NULL) c.op[c.carry_in = (int)c.count++].data = carry_in->data;
    if (carry_out != NULL) c.op[c.carry_out = (int)c.count++].data = carry_out->data;
    /* The other dims, normalized as a copy would be (leaves at least one, maybe of size 1). */
    for (int32_t i = 0; i < all.ndim; i++) {
        if (i == axis) continue;
        c.sizes[c.ndim] = all.sizes[i];
        for (int k = 0; k < 2; k++) c.op[k].strides[c.ndim] = all.op[k].strides[i];
        if (carry_in != NULL) c.op[c.carry_in].strides[c.ndim] = carry_in->strides[i];
        if (carry_out != NULL) c.op[c.carry_out].strides[c.ndim] = carry_out->strides[i];
        c.ndim++;
    }
    c.ndim = dmlcpu_normalize(c.ndim, c.sizes, c.op, c.count);

    /* Outer when the innermost other dim steps less than the axis in the destination (or the
     * axis has one element: then every scan is a single row, best done across). */
    int64_t inner_size = c.sizes[c.ndim - 1];
    int64_t inner_stride = c.op[DMLCPU_DST].strides[c.ndim - 1]; /* >= 0, normalized */
    int64_t axis_step = dst_axis < 0 ? -dst_axis : dst_axis;
    int outer = inner_size > 1 && (axis_len == 1 || inner_stride < axis_step);
    const dmlcpu_scan_kernels *kernels = &dmlcpu_dispatch_table()->scan[type][op];
    c.kernel = outer ? kernels->outer : kernels->line;
    c.dst_axis = (ptrdiff_t)dst_axis;
    c.src_axis = (ptrdiff_t)src_axis;
    c.axis_len = (size_t)axis_len;
    c.flags = exclusive ? DMLCPU_SCAN_EXCLUSIVE : 0;
    c.across = inner_size;
    c.positions = 1;
    for (int32_t d = 0; d + 1 < c.ndim; d++) c.positions *= c.sizes[d];
    int64_t scans = c.positions * c.across; /* every product here divides the element count */
    int64_t total_bytes = scans * axis_len * (int64_t)elsize;
    /* outer: strips of columns (above), lead so that every boundary falls where a line of dst
     * starts in its first row (in every row where the rows keep the alignment); else the two
     * threads on either side write that line in each row (NumPy's large arrays start 16 bytes
     * into a page). line: whole groups of 16 lines (8 below). */
    const dmlcpu_tuning *tuning = dmlcpu_tuning_now();
    int threads = dmlcpu_threads_for(total_bytes);
    c.align = outer ? dmlcpu_policy_scan_strip(tuning, scans * (int64_t)elsize, total_bytes,
                                               threads) / (int64_t)elsize
                    : 16;
    if (c.align < 1) c.align = 1;
    if (outer && c.positions == 1 && c.op[DMLCPU_DST].strides[c.ndim - 1] == (int64_t)elsize) {
        size_t to_line = dmlcpu_bytes_to_aligned(c.op[DMLCPU_DST].data, 64);
        if (to_line % elsize == 0 && (int64_t)(to_line / elsize) < scans)
            c.lead = (int64_t)(to_line / elsize);
    }
    /* Streamed or not, as the policy says (decisions.md "line scans": a line kernel stores a
     * block of each of 16-64 lines in turn, so ordinary stores read every line for ownership;
     * outer rows are stored in order, like a copy's runs). */
    int streams = dmlcpu_policy_scan_streams(tuning, outer, total_bytes, threads);
    if (streams) c.flags |= DMLCPU_SCAN_STREAM;
    /* Lines too few for a group of 16 per thread go in groups of 8 (the widest kernels take 8
     * float64 lines at once), so that every thread gets some. */
    if (!outer && (scans + c.align - 1) / c.align < threads) c.align = 8;
    int64_t groups = (scans + c.align - 1) / c.align; /* chunks split only between them */
    dmlcpu_parallel(scan_chunk, &c, dmlcpu_chunks_for(total_bytes, groups));
    return DMLCPU_OK;
}
