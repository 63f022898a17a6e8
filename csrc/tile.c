/*
 * TILE: out[c] = in[c mod InputSizes].
 *
 * An output that stays cached (it is not streamed: cache.c) is written by doubling: the input
 * once into the first tile, then, innermost dim first, the written part copied after itself
 * until the dim is full. Every pass reads what the previous one just wrote, which is cheap while
 * it is cached, and the passes' runs are long.
 *
 * A larger output is written straight from a small block that stays cached: the input with its
 * innermost dims already tiled (as many as keep the block within TILE_BLOCK_MAX_BYTES; built by
 * doubling in a scratch buffer). The output is then one strided copy from that block, each
 * repeated dim a stride-0 dim of the source: the copy driver threads it and streams it, and no
 * pass reads back output streamed out to memory (doubling did: up to 3x slower from 32 MiB,
 * benchmarks/NOTES.md). Where that copy's runs would be short, doubling stays.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

/* The block's size limit (it should stay in L2 or close). Tests force a smaller one, for both
 * choices, to reach the block path with small arrays (dmlcpu_set_tile_block_limit). */
#define TILE_BLOCK_MAX_BYTES ((int64_t)2 << 20)
static _Atomic int64_t forced_limit = -1;
/* Copies from the block whose runs are shorter than this double in place instead. */
#define TILE_MIN_RUN_BYTES 1024

#define TILE_MAX_VIEW_DIMS (2 * DMLCPU_MAX_DIMS)

static dmlcpu_status tile_by_doubling(const dmlcpu_view *dst, const dmlcpu_view *src,
                                      size_t elsize) {
    dmlcpu_status status;
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

/*
 * The block's scratch buffer: one spare is kept between calls (a first touch of 2 MiB costs
 * ~500 page faults); a call finding it taken by another thread allocates its own.
 */
#define SCRATCH_HEADER 64 /* keeps the data 64-byte aligned past malloc's 16 */
static _Atomic(char *) spare_scratch;

static char *take_scratch(int64_t bytes) {
    char *buf = atomic_exchange(&spare_scratch, NULL);
    if (buf != NULL && *(int64_t *)buf >= bytes) return buf;
    free(buf);
    if (bytes < TILE_BLOCK_MAX_BYTES) bytes = TILE_BLOCK_MAX_BYTES;
    buf = malloc((size_t)(SCRATCH_HEADER + bytes));
    if (buf != NULL) *(int64_t *)buf = bytes;
    return buf;
}

static void give_back_scratch(char *buf) {
    char *expected = NULL;
    if (*(int64_t *)buf > TILE_BLOCK_MAX_BYTES ||
        !atomic_compare_exchange_strong(&spare_scratch, &expected, buf))
        free(buf);
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

/* Bytes of the input with its innermost k dims tiled, or -1 beyond limit. */
static int64_t block_bytes(const dmlcpu_view *dst, const dmlcpu_view *src, int64_t src_bytes,
                           int32_t k, int64_t limit) {
    int64_t bytes = src_bytes;
    for (int32_t d = dst->ndim - k; d < dst->ndim; d++)
        if (dmlcpu_mul_overflows(bytes, dst->sizes[d] / src->sizes[d], &bytes) || bytes > limit)
            return -1;
    return bytes;
}

void dmlcpu_set_tile_block_limit(int64_t bytes) {
    atomic_store(&forced_limit, bytes < 0 ? -1 : bytes);
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
    int64_t src_bytes = src_count * (int64_t)elsize; /* <= dst_count * elsize: no overflow */
    /* doubling in place while the output stays cached (it is not streamed: cache.c) */
    int64_t forced = atomic_load_explicit(&forced_limit, memory_order_relaxed);
    int64_t limit = forced >= 0 ? forced : TILE_BLOCK_MAX_BYTES;
    int64_t dst_bytes = dst_count * (int64_t)elsize; /* the view check bounds it */
    if (dst_bytes <= limit || (forced < 0 && !dmlcpu_streams(dst_bytes, 0)))
        return tile_by_doubling(dst, src, elsize);

    /* the block: the input with its innermost k dims tiled, k as large as the limit allows */
    int32_t n = dst->ndim, k = 0;
    while (k < n && block_bytes(dst, src, src_bytes, k + 1, limit) >= 0) k++;
    dmlcpu_view block = *src;
    int expands = 0;
    int64_t stride = (int64_t)elsize;
    for (int32_t d = n - 1; d >= 0; d--) {
        expands |= d >= n - k && dst->sizes[d] != src->sizes[d];
        block.sizes[d] = d >= n - k ? dst->sizes[d] : src->sizes[d];
        block.strides[d] = stride;
        stride *= block.sizes[d];
    }
    if (!expands) block = *src; /* the input serves as it is */
    /* the output as (repeats, block) pairs of dims: repeats read the block with stride 0 */
    wide_copy w = {0};
    for (int32_t d = 0; d < n; d++) {
        wide_push(&w, dst->sizes[d] / block.sizes[d], dst->strides[d] * block.sizes[d], 0);
        wide_push(&w, block.sizes[d], dst->strides[d], block.strides[d]);
    }
    /* short runs cost a kernel call per few dozen bytes: doubling's long passes do better (a
     * forced limit takes the block path whatever the runs, for the tests) */
    int32_t last = w.ndim - 1;
    if (last < 0 || (forced < 0 && (w.dst_strides[last] != (int64_t)elsize ||
                                    w.src_strides[last] != (int64_t)elsize ||
                                    w.sizes[last] * (int64_t)elsize < TILE_MIN_RUN_BYTES)))
        return tile_by_doubling(dst, src, elsize);
    char *scratch = NULL;
    if (expands) {
        scratch = take_scratch(stride);
        if (scratch == NULL) return tile_by_doubling(dst, src, elsize);
        block.data = scratch + SCRATCH_HEADER;
        /* the wide copy reads the block through the same offsets: only its base moves */
        if ((status = tile_by_doubling(&block, src, elsize)) != DMLCPU_OK) goto done;
    }
    status = wide_run(&w, 0, dst->data, block.data, elsize);
done:
    if (scratch != NULL) give_back_scratch(scratch);
    return status;
}
