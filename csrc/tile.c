/*
 * TILE by doubling: the input is copied once into the first tile, then each repeated dim is
 * filled by copying the block already written onto the next stretch, doubling it each time, so
 * no element is read from the input more than once. Every copy goes through dmlcpu_copy.
 */
#include "internal.h"

dmlcpu_status dmlcpu_tile(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize) {
    int64_t dst_count, src_count;
    dmlcpu_status status;
    if (dmlcpu_width_index(elsize) < 0) return DMLCPU_E_INVALID;
    if ((status = dmlcpu_view_check(dst, elsize, &dst_count)) != DMLCPU_OK) return status;
    if ((status = dmlcpu_view_check(src, elsize, &src_count)) != DMLCPU_OK) return status;
    if (dst->ndim != src->ndim) return DMLCPU_E_INVALID;
    for (int32_t i = 0; i < dst->ndim; i++) {
        int64_t s = src->sizes[i], d = dst->sizes[i];
        if (d == 0) continue;
        if (s == 0 || d % s != 0) return DMLCPU_E_INVALID;
    }
    if (dst_count == 0) return DMLCPU_OK;

    /* 1. the input, once, into the first tile */
    dmlcpu_view block = *dst;
    for (int32_t i = 0; i < dst->ndim; i++) block.sizes[i] = src->sizes[i];
    if ((status = dmlcpu_copy(&block, src, elsize)) != DMLCPU_OK) return status;

    /* 2. innermost dim first, double what is written along it: dims inside d are complete, dims
     * outside d hold only their first tile, which later (outer) passes replicate. */
    for (int32_t d = dst->ndim - 1; d >= 0; d--) {
        int64_t filled = src->sizes[d], total = dst->sizes[d];
        while (filled < total) {
            int64_t n = filled < total - filled ? filled : total - filled;
            dmlcpu_view from = block, to = block;
            from.sizes[d] = n;
            to.sizes[d] = n;
            to.data = block.data + filled * block.strides[d];
            if ((status = dmlcpu_copy(&to, &from, elsize)) != DMLCPU_OK) return status;
            filled += n;
        }
        block.sizes[d] = total;
    }
    return DMLCPU_OK;
}
