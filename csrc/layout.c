/* View checks, the copy normalization and the dim merge shared by every driver. */
#include "internal.h"

const char *dmlcpu_status_string(dmlcpu_status status) {
    switch (status) {
    case DMLCPU_OK: return "ok";
    case DMLCPU_E_INVALID: return "invalid view or argument";
    case DMLCPU_E_NOMEM: return "out of memory";
    case DMLCPU_E_OVERFLOW: return "size or byte offset overflows 64 bits";
    }
    return "unknown status";
}

size_t dmlcpu_dtype_size(int dtype) {
    switch (dtype) {
    case DMLCPU_UINT8: case DMLCPU_INT8: return 1;
    case DMLCPU_FLOAT16: case DMLCPU_UINT16: case DMLCPU_INT16: return 2;
    case DMLCPU_FLOAT32: case DMLCPU_UINT32: case DMLCPU_INT32: return 4;
    case DMLCPU_FLOAT64: case DMLCPU_UINT64: case DMLCPU_INT64: return 8;
    }
    return 0;
}

/* dmlcpu_view_check but for the data pointer. */
static dmlcpu_status check_dims(const dmlcpu_view *view, size_t elsize, int64_t *count) {
    if (view == NULL || view->ndim < 0 || view->ndim > DMLCPU_MAX_DIMS) return DMLCPU_E_INVALID;
    int64_t n = 1, reach = (int64_t)elsize;
    for (int32_t i = 0; i < view->ndim; i++) {
        int64_t size = view->sizes[i], extent;
        if (size < 0) return DMLCPU_E_INVALID;
        if (dmlcpu_mul_overflows(n, size, &n)) return DMLCPU_E_OVERFLOW;
        if (size == 0) continue;
        /* |stride| * (size - 1) summed over dims bounds every byte offset. The check takes
         * |stride| * size: the drivers also form stride * size (to rewind an odometer, to test
         * whether two dims merge), and no real memory comes near the difference. */
        int64_t stride = view->strides[i];
        if (stride == INT64_MIN) return DMLCPU_E_OVERFLOW;
        if (dmlcpu_mul_overflows(stride < 0 ? -stride : stride, size, &extent) ||
            dmlcpu_add_overflows(reach, extent, &reach))
            return DMLCPU_E_OVERFLOW;
    }
    *count = n;
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_view_check(const dmlcpu_view *view, size_t elsize, int64_t *count) {
    dmlcpu_status status = check_dims(view, elsize, count);
    if (status == DMLCPU_OK && view->ndim > 0 && view->data == NULL && *count > 0)
        return DMLCPU_E_INVALID;
    return status;
}

dmlcpu_status dmlcpu_pair_init(dmlcpu_pair *pair, const dmlcpu_view *dst, const dmlcpu_view *src,
                               size_t elsize, int *empty) {
    dmlcpu_status status = dmlcpu_pair_init_unplaced(pair, dst, src, elsize, empty);
    if (status == DMLCPU_OK && !*empty && pair->ndim > 0 &&
        (dst->data == NULL || src->data == NULL))
        return DMLCPU_E_INVALID;
    return status;
}

dmlcpu_status dmlcpu_pair_init_unplaced(dmlcpu_pair *pair, const dmlcpu_view *dst,
                                        const dmlcpu_view *src, size_t elsize, int *empty) {
    int64_t dst_count, src_count;
    dmlcpu_status status;
    if ((status = check_dims(dst, elsize, &dst_count)) != DMLCPU_OK) return status;
    if ((status = check_dims(src, elsize, &src_count)) != DMLCPU_OK) return status;
    if (dst->ndim != src->ndim) return DMLCPU_E_INVALID;
    pair->ndim = dst->ndim;
    for (int32_t i = 0; i < dst->ndim; i++) {
        if (dst->sizes[i] != src->sizes[i]) return DMLCPU_E_INVALID;
        pair->sizes[i] = dst->sizes[i];
        pair->op[DMLCPU_DST].strides[i] = dst->strides[i];
        pair->op[DMLCPU_SRC].strides[i] = src->strides[i];
    }
    pair->op[DMLCPU_DST].data = dst->data;
    pair->op[DMLCPU_SRC].data = src->data;
    *empty = dst_count == 0;
    return DMLCPU_OK;
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

void dmlcpu_pair_normalize(dmlcpu_pair *pair) {
    pair->ndim = dmlcpu_normalize(pair->ndim, pair->sizes, pair->op, 2);
}

int32_t dmlcpu_normalize(int32_t ndim, int64_t *sizes, dmlcpu_operand *ops, size_t count) {
    int64_t shifts[DMLCPU_NORMALIZE_MAX_OPERANDS];
    ndim = dmlcpu_normalize_dims(ndim, sizes, ops, count, shifts);
    for (size_t k = 0; k < count; k++) ops[k].data += shifts[k];
    return ndim;
}

int32_t dmlcpu_normalize_dims(int32_t ndim, int64_t *sizes, dmlcpu_operand *ops, size_t count,
                              int64_t *shifts) {
    int32_t n = 0;
    for (size_t k = 0; k < count; k++) shifts[k] = 0;
    /* Drop size-1 dims; flip negative destination strides so the walk runs forwards in ops[0]. */
    for (int32_t i = 0; i < ndim; i++) {
        int64_t size = sizes[i];
        if (size == 1) continue;
        int flip = ops[0].strides[i] < 0;
        for (size_t k = 0; k < count; k++) {
            int64_t stride = ops[k].strides[i];
            if (flip) {
                shifts[k] += stride * (size - 1);
                stride = -stride;
            }
            ops[k].strides[n] = stride;
        }
        sizes[n] = size;
        n++;
    }
    /* Insertion sort, outermost (largest destination stride) first; ties by source stride. */
    for (int32_t i = 1; i < n; i++) {
        int32_t j = i;
        while (j > 0) {
            int64_t pds = ops[0].strides[j - 1], ds = ops[0].strides[j];
            if (pds > ds || (pds == ds && abs64(ops[1].strides[j - 1]) >= abs64(ops[1].strides[j])))
                break;
            int64_t size = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = size;
            for (size_t k = 0; k < count; k++) {
                int64_t stride = ops[k].strides[j];
                ops[k].strides[j] = ops[k].strides[j - 1];
                ops[k].strides[j - 1] = stride;
            }
            j--;
        }
    }
    n = dmlcpu_merge_dims(n, sizes, ops, count);
    if (n == 0) {
        n = 1;
        sizes[0] = 1;
        for (size_t k = 0; k < count; k++) ops[k].strides[0] = 0;
    }
    return n;
}

int32_t dmlcpu_merge_dims(int32_t ndim, int64_t *sizes, dmlcpu_operand *ops, size_t count) {
    int32_t n = 0; /* dims kept so far; n - 1 is the one a merge would grow */
    for (int32_t d = 0; d < ndim; d++) {
        if (sizes[d] == 1) continue;
        int merges = n > 0;
        for (size_t k = 0; k < count && merges; k++)
            merges = ops[k].strides[n - 1] == ops[k].strides[d] * sizes[d];
        int32_t to = merges ? n - 1 : n++;
        sizes[to] = merges ? sizes[to] * sizes[d] : sizes[d];
        for (size_t k = 0; k < count; k++) ops[k].strides[to] = ops[k].strides[d];
    }
    return n;
}

dmlcpu_run_layout dmlcpu_run_layout_of(ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elsize) {
    ptrdiff_t e = (ptrdiff_t)elsize;
    if (src_stride == 0) return DMLCPU_RUN_BROADCAST;
    if (dst_stride == e) return src_stride == e ? DMLCPU_RUN_CONTIGUOUS : DMLCPU_RUN_GATHER;
    return src_stride == e ? DMLCPU_RUN_SCATTER : DMLCPU_RUN_STRIDED;
}
