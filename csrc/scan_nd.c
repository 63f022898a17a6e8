/*
 * The scan driver. The axis is kept apart (never merged); the other dims are normalized as a copy
 * would be. Walking backwards starts at the last index with negated axis strides.
 * - outer (some other dim steps less than the axis in dst): a vertical pass. One accumulator per
 *   column of the innermost run; for each row k, out[k][j] = acc[j] op in[k][j]. Rows are
 *   unit-stride loops SIMD can widen, yet each column rounds exactly as a sequential loop does.
 * - line (the axis is innermost): each line walked sequentially from acc = identity.
 * Both carry the total in an accumulator instead of re-reading out[k-1]: each element is read
 * before its address is written, so in place needs no temporary, and FLOAT16 can accumulate in
 * FLOAT32 (only the written values are rounded to half).
 */
#include "internal.h"

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
 * Runs the kernel once per position of the outer dims of `rest` (all but its innermost, which
 * the kernel walks as `across`), with an odometer.
 */
static void scan_blocks(dmlcpu_scan_fn kernel, const dmlcpu_pair *rest, ptrdiff_t dst_axis,
                        ptrdiff_t src_axis, size_t axis_len, int exclusive) {
    int32_t inner = rest->ndim - 1;
    ptrdiff_t dst_across = (ptrdiff_t)rest->dst_strides[inner];
    ptrdiff_t src_across = (ptrdiff_t)rest->src_strides[inner];
    size_t across = (size_t)rest->sizes[inner];
    int64_t index[DMLCPU_MAX_DIMS] = {0};
    char *dst = rest->dst;
    const char *src = rest->src;
    for (;;) {
        kernel(dst, dst_axis, dst_across, src, src_axis, src_across, axis_len, across, exclusive);
        int32_t d = inner - 1;
        for (; d >= 0; d--) {
            if (++index[d] < rest->sizes[d]) {
                dst += rest->dst_strides[d];
                src += rest->src_strides[d];
                break;
            }
            dst -= rest->dst_strides[d] * (rest->sizes[d] - 1);
            src -= rest->src_strides[d] * (rest->sizes[d] - 1);
            index[d] = 0;
        }
        if (d < 0) return;
    }
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
    int64_t dst_axis = all.dst_strides[axis], src_axis = all.src_strides[axis];
    dmlcpu_pair rest = {0};
    rest.dst = all.dst;
    rest.src = all.src;
    if (reverse) {
        rest.dst += dst_axis * (axis_len - 1);
        rest.src += src_axis * (axis_len - 1);
        dst_axis = -dst_axis;
        src_axis = -src_axis;
    }
    /* The other dims, normalized as a copy would be (leaves at least one, maybe of size 1). */
    for (int32_t i = 0; i < all.ndim; i++) {
        if (i == axis) continue;
        rest.sizes[rest.ndim] = all.sizes[i];
        rest.dst_strides[rest.ndim] = all.dst_strides[i];
        rest.src_strides[rest.ndim] = all.src_strides[i];
        rest.ndim++;
    }
    dmlcpu_pair_normalize(&rest);

    /* Outer when the innermost other dim steps less than the axis in the destination (or the
     * axis has one element: then every scan is a single row, best done across). */
    int64_t inner_size = rest.sizes[rest.ndim - 1];
    int64_t inner_stride = rest.dst_strides[rest.ndim - 1]; /* >= 0 after normalization */
    int64_t axis_step = dst_axis < 0 ? -dst_axis : dst_axis;
    int outer = inner_size > 1 && (axis_len == 1 || inner_stride < axis_step);
    const dmlcpu_scan_kernels *kernels = &dmlcpu_scan_kernels__scalar[type][op];
    scan_blocks(outer ? kernels->outer : kernels->line, &rest, (ptrdiff_t)dst_axis,
                (ptrdiff_t)src_axis, (size_t)axis_len, exclusive != 0);
    return DMLCPU_OK;
}
