/*
 * TILE: out[c] = in[c mod InputSizes]. Three ways, by what measured fastest (benchmarks/NOTES.md):
 *
 * - Straight from the input, when its runs are long (TILE_MIN_RUN_BYTES): one strided copy,
 *   each repeated dim a stride-0 dim of the source. The input stays cached; the copy driver
 *   threads and streams it like any copy.
 * - By doubling, for a small output (it stays cached): the input once into the first tile,
 *   then, innermost dim first, the written part copied after itself until the dim is full.
 * - By spreading, for a larger one: the input once into the first tile, then, innermost dim
 *   first, each repeated dim filled by one copy from the part already written, its repeats
 *   reading that part with stride 0. The part read stays cached, while doubling's later passes
 *   read back output that had left the caches (a 128 MiB TILE took 1.3x as long).
 *
 * On several threads a large output is cut into slices along its outermost repeated dim, one
 * per thread, each spread from its own first tile: a first tile written by one core and read
 * by the other cost more here than writing it twice (8 MiB on two threads: 0.28 ms, 0.12 ms).
 */
#include <stdatomic.h>

#include "internal.h"

/* Outputs up to this size double (they stay in L2 or close), larger ones spread. Tests force
 * another limit to reach every way with small arrays (dmlcpu_set_tile_limit). */
#define TILE_DOUBLING_MAX_BYTES ((int64_t)2 << 20)
static _Atomic int64_t forced_limit = -1;
/* Input runs at least this long are copied straight into every tile. */
#define TILE_MIN_RUN_BYTES 1024

#define TILE_MAX_VIEW_DIMS (2 * DMLCPU_MAX_DIMS)

/* The input, once, into the first tile of dst (returned in *first). */
static dmlcpu_status copy_first_tile(const dmlcpu_view *dst, const dmlcpu_view *src,
                                     size_t elsize, dmlcpu_view *first) {
    *first = *dst;
    for (int32_t d = 0; d < dst->ndim; d++) first->sizes[d] = src->sizes[d];
    return dmlcpu_copy(first, src, elsize);
}

static dmlcpu_status tile_by_doubling(const dmlcpu_view *dst, const dmlcpu_view *src,
                                      size_t elsize) {
    /* 1. the input, once, into the first tile */
    dmlcpu_view part;
    dmlcpu_status status = copy_first_tile(dst, src, elsize, &part);
    if (status != DMLCPU_OK) return status;

    /* 2. innermost dim first, double what is written along it: dims inside d are complete, dims
     * outside d hold only their first tile, which later (outer) passes replicate. */
    for (int32_t d = dst->ndim - 1; d >= 0; d--) {
        int64_t filled = src->sizes[d], total = dst->sizes[d];
        while (filled < total) {
            int64_t n = filled < total - filled ? filled : total - filled;
            dmlcpu_view from = part, to = part;
            from.sizes[d] = n;
            to.sizes[d] = n;
            to.data = part.data + filled * part.strides[d];
            if ((status = dmlcpu_copy(&to, &from, elsize)) != DMLCPU_OK) return status;
            filled += n;
        }
        part.sizes[d] = total;
    }
    return DMLCPU_OK;
}

/* A copy of up to TILE_MAX_VIEW_DIMS dims (outermost first, already merged): the outer dims
 * beyond what a view holds are walked here. */
typedef struct wide_copy {
    int32_t ndim;
    int64_t sizes[TILE_MAX_VIEW_DIMS], dst_strides[TILE_MAX_VIEW_DIMS],
        src_strides[TILE_MAX_VIEW_DIMS];
} wide_copy;

static void wide_push(wide_copy *w, int64_t size, int64_t dst_stride, int64_t src_stride) {
    if (size == 1) return;
    int32_t last = w->ndim - 1;
    if (last >= 0 && w->dst_strides[last] == dst_stride * size &&
        w->src_strides[last] == src_stride * size) {
        /* contiguous with the dim outside it in both operands: one longer dim */
        w->sizes[last] *= size;
        w->dst_strides[last] = dst_stride;
        w->src_strides[last] = src_stride;
        return;
    }
    w->sizes[w->ndim] = size;
    w->dst_strides[w->ndim] = dst_stride;
    w->src_strides[w->ndim] = src_stride;
    w->ndim++;
}

static dmlcpu_status wide_run(const wide_copy *w, int32_t first, char *dst, const char *src,
                              size_t elsize) {
    if (w->ndim - first <= DMLCPU_MAX_DIMS) {
        dmlcpu_view to = {dst, w->ndim - first, {0}, {0}}, from = {(char *)src, to.ndim, {0}, {0}};
        for (int32_t i = first; i < w->ndim; i++) {
            to.sizes[i - first] = from.sizes[i - first] = w->sizes[i];
            to.strides[i - first] = w->dst_strides[i];
            from.strides[i - first] = w->src_strides[i];
        }
        return dmlcpu_copy(&to, &from, elsize);
    }
    for (int64_t i = 0; i < w->sizes[first]; i++) {
        dmlcpu_status status = wide_run(w, first + 1, dst + i * w->dst_strides[first],
                                        src + i * w->src_strides[first], elsize);
        if (status != DMLCPU_OK) return status;
    }
    return DMLCPU_OK;
}

void dmlcpu_set_tile_limit(int64_t bytes) {
    atomic_store(&forced_limit, bytes < 0 ? -1 : bytes);
}

/* Fills dim d of dst (the dims inside it full, those outside it at the input's sizes) from its
 * first tile, written already: one copy whose repeats read that tile with stride 0. */
static dmlcpu_status spread(const dmlcpu_view *dst, const dmlcpu_view *src, int32_t d,
                            size_t elsize) {
    int64_t tile = src->sizes[d];
    wide_copy w = {0};
    for (int32_t e = 0; e < dst->ndim; e++) {
        int64_t stride = dst->strides[e];
        if (e == d) {
            wide_push(&w, dst->sizes[d] / tile - 1, stride * tile, 0);
            wide_push(&w, tile, stride, stride);
        } else {
            wide_push(&w, e < d ? src->sizes[e] : dst->sizes[e], stride, stride);
        }
    }
    return wide_run(&w, 0, dst->data + tile * dst->strides[d], dst->data, elsize);
}

/* Part of the output (whole tiles) by spreading. */
static dmlcpu_status tile_by_spreading(const dmlcpu_view *dst, const dmlcpu_view *src,
                                       size_t elsize) {
    dmlcpu_view first;
    dmlcpu_status status = copy_first_tile(dst, src, elsize, &first);
    for (int32_t d = dst->ndim - 1; d >= 0 && status == DMLCPU_OK; d--)
        if (dst->sizes[d] != src->sizes[d]) status = spread(dst, src, d, elsize);
    return status;
}

typedef struct tile_slices {
    const dmlcpu_view *dst, *src;
    int32_t along; /* the dim cut into slices */
    size_t elsize;
    _Atomic int failed;
} tile_slices;

static void tile_slice_chunk(void *ctx, int chunk, int chunks) {
    tile_slices *t = ctx;
    int64_t tile = t->src->sizes[t->along], lo, hi;
    dmlcpu_share(t->dst->sizes[t->along] / tile, 1, chunk, chunks, &lo, &hi);
    dmlcpu_view slice = *t->dst;
    slice.data += lo * tile * slice.strides[t->along];
    slice.sizes[t->along] = (hi - lo) * tile;
    if (lo < hi && tile_by_spreading(&slice, t->src, t->elsize) != DMLCPU_OK)
        atomic_store(&t->failed, 1);
}

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
    int32_t n = dst->ndim;
    int64_t forced = atomic_load_explicit(&forced_limit, memory_order_relaxed);
    int64_t limit = forced >= 0 ? forced : TILE_DOUBLING_MAX_BYTES;

    /* straight from the input: the output as (repeats, input) pairs of dims */
    wide_copy w = {0};
    for (int32_t d = 0; d < n; d++) {
        wide_push(&w, dst->sizes[d] / src->sizes[d], dst->strides[d] * src->sizes[d], 0);
        wide_push(&w, src->sizes[d], dst->strides[d], src->strides[d]);
    }
    /* (a forced limit is also the shortest run taken straight, packed or not: for the tests) */
    int32_t last = w.ndim - 1;
    int64_t run_bytes = last >= 0 ? w.sizes[last] * (int64_t)elsize : 0;
    if (last >= 0 && (forced >= 0 ? run_bytes >= forced
                                   : w.dst_strides[last] == (int64_t)elsize &&
                                         w.src_strides[last] == (int64_t)elsize &&
                                         run_bytes >= TILE_MIN_RUN_BYTES))
        return wide_run(&w, 0, dst->data, src->data, elsize);

    int64_t dst_bytes = dst_count * (int64_t)elsize; /* the view check bounds it */
    if (dst_bytes <= limit) return tile_by_doubling(dst, src, elsize);
    /* slices along the outermost repeated dim, one per thread */
    int32_t along = 0;
    while (along < n - 1 && dst->sizes[along] == src->sizes[along]) along++;
    int64_t slices = dst->sizes[along] / src->sizes[along];
    int threads = dmlcpu_threads_for(dst_bytes);
    if (threads < 2 || slices < 2) return tile_by_spreading(dst, src, elsize);
    tile_slices t = {dst, src, along, elsize, 0};
    dmlcpu_parallel(tile_slice_chunk, &t, slices < threads ? (int)slices : threads);
    return atomic_load(&t.failed) ? DMLCPU_E_INVALID : DMLCPU_OK;
}
