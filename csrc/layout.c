/* View checks and the copy normalization shared by every copy-class operator. */
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

dmlcpu_status dmlcpu_view_check(const dmlcpu_view *view, size_t elsize, int64_t *count) {
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
    if (view->ndim > 0 && view->data == NULL && n > 0) return DMLCPU_E_INVALID;
    *count = n;
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_pair_init(dmlcpu_pair *pair, const dmlcpu_view *dst, const dmlcpu_view *src,
                               size_t elsize, int *empty) {
    int64_t dst_count, src_count;
    dmlcpu_status status;
    if ((status = dmlcpu_view_check(dst, elsize, &dst_count)) != DMLCPU_OK) return status;
    if ((status = dmlcpu_view_check(src, elsize, &src_count)) != DMLCPU_OK) return status;
    if (dst->ndim != src->ndim) return DMLCPU_E_INVALID;
    pair->ndim = dst->ndim;
    for (int32_t i = 0; i < dst->ndim; i++) {
        if (dst->sizes[i] != src->sizes[i]) return DMLCPU_E_INVALID;
        pair->sizes[i] = dst->sizes[i];
        pair->dst_strides[i] = dst->strides[i];
        pair->src_strides[i] = src->strides[i];
    }
    pair->dst = dst->data;
    pair->src = src->data;
    *empty = dst_count == 0;
    return DMLCPU_OK;
}

void dmlcpu_pair_normalize(dmlcpu_pair *pair) {
    int32_t n = 0;
    /* Drop size-1 dims; flip negative destination strides so the walk runs forwards in dst. */
    for (int32_t i = 0; i < pair->ndim; i++) {
        int64_t size = pair->sizes[i], ds = pair->dst_strides[i], ss = pair->src_strides[i];
        if (size == 1) continue;
        if (ds < 0) {
            pair->dst += ds * (size - 1);
            pair->src += ss * (size - 1);
            ds = -ds;
            ss = -ss;
        }
        pair->sizes[n] = size;
        pair->dst_strides[n] = ds;
        pair->src_strides[n] = ss;
        n++;
    }
    /* Insertion sort, outermost (largest destination stride) first; ties by source stride. */
    for (int32_t i = 1; i < n; i++) {
        int64_t size = pair->sizes[i], ds = pair->dst_strides[i], ss = pair->src_strides[i];
        int64_t ass = ss < 0 ? -ss : ss;
        int32_t j = i;
        while (j > 0) {
            int64_t pds = pair->dst_strides[j - 1], pss = pair->src_strides[j - 1];
            int64_t apss = pss < 0 ? -pss : pss;
            if (pds > ds || (pds == ds && apss >= ass)) break;
            pair->sizes[j] = pair->sizes[j - 1];
            pair->dst_strides[j] = pds;
            pair->src_strides[j] = pss;
            j--;
        }
        pair->sizes[j] = size;
        pair->dst_strides[j] = ds;
        pair->src_strides[j] = ss;
    }
    /* Merge an outer dim into its inner neighbour when both operands step evenly across them. */
    int32_t m = 0;
    for (int32_t i = 1; i < n; i++) {
        if (pair->dst_strides[m] == pair->dst_strides[i] * pair->sizes[i] &&
            pair->src_strides[m] == pair->src_strides[i] * pair->sizes[i]) {
            pair->sizes[m] *= pair->sizes[i];
            pair->dst_strides[m] = pair->dst_strides[i];
            pair->src_strides[m] = pair->src_strides[i];
        } else {
            m++;
            pair->sizes[m] = pair->sizes[i];
            pair->dst_strides[m] = pair->dst_strides[i];
            pair->src_strides[m] = pair->src_strides[i];
        }
    }
    if (n == 0) {
        pair->sizes[0] = 1;
        pair->dst_strides[0] = 0;
        pair->src_strides[0] = 0;
    }
    pair->ndim = m + 1;
}

dmlcpu_run_layout dmlcpu_run_layout_of(ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elsize) {
    ptrdiff_t e = (ptrdiff_t)elsize;
    if (src_stride == 0) return DMLCPU_RUN_BROADCAST;
    if (dst_stride == e) return src_stride == e ? DMLCPU_RUN_CONTIGUOUS : DMLCPU_RUN_GATHER;
    return src_stride == e ? DMLCPU_RUN_SCATTER : DMLCPU_RUN_STRIDED;
}
