/* The strided N-d copy driver and TILE by doubling. */
#include "internal.h"

extern const dmlcpu_copy_run_fn dmlcpu_copy_kernels__scalar[4][DMLCPU_RUN_LAYOUT_COUNT];

static int width_index(size_t elsize) {
    switch (elsize) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    }
    return -1;
}

dmlcpu_copy_run_fn dmlcpu_copy_kernel(size_t elsize, dmlcpu_run_layout layout) {
    int w = width_index(elsize);
    if (w < 0 || layout < 0 || layout >= DMLCPU_RUN_LAYOUT_COUNT) return NULL;
    return dmlcpu_copy_kernels__scalar[w][layout];
}

/* Walks the outer dims of a normalized pair with an odometer, one kernel call per inner run. */
static void copy_pair(const dmlcpu_pair *p, size_t elsize) {
    int32_t inner = p->ndim - 1;
    ptrdiff_t ds = (ptrdiff_t)p->dst_strides[inner], ss = (ptrdiff_t)p->src_strides[inner];
    size_t run = (size_t)p->sizes[inner];
    dmlcpu_run_layout layout = dmlcpu_run_layout_of(ds, ss, elsize);
    dmlcpu_copy_run_fn kernel = dmlcpu_copy_kernel(elsize, layout);
    if (layout == DMLCPU_RUN_CONTIGUOUS) {
        /* the contiguous kernel takes bytes, so one width serves all */
        kernel = dmlcpu_copy_kernel(1, layout);
        run *= elsize;
    }
    int64_t index[DMLCPU_MAX_DIMS] = {0};
    char *dst = p->dst;
    const char *src = p->src;
    for (;;) {
        kernel(dst, ds, src, ss, run);
        int32_t d = inner - 1;
        for (; d >= 0; d--) {
            dst += p->dst_strides[d];
            src += p->src_strides[d];
            if (++index[d] < p->sizes[d]) break;
            dst -= p->dst_strides[d] * p->sizes[d];
            src -= p->src_strides[d] * p->sizes[d];
            index[d] = 0;
        }
        if (d < 0) return;
    }
}

dmlcpu_status dmlcpu_copy(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize) {
    dmlcpu_pair pair;
    int empty;
    if (width_index(elsize) < 0) return DMLCPU_E_INVALID;
    dmlcpu_status status = dmlcpu_pair_init(&pair, dst, src, elsize, &empty);
    if (status != DMLCPU_OK || empty) return status;
    dmlcpu_pair_normalize(&pair);
    copy_pair(&pair, elsize);
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_tile(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize) {
    int64_t dst_count, src_count;
    dmlcpu_status status;
    if (width_index(elsize) < 0) return DMLCPU_E_INVALID;
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
