/*
 * JOIN and SPLIT in one pass (dmlcpu_copy_group): parts that share their outer dims, each copying
 * one contiguous block per outer index.
 *
 * Copied part by part, a JOIN along an inner axis writes short runs spread over the whole output
 * once per input: no run is long enough to stream, and every destination line is read before it
 * is written (read for ownership), a quarter of it at a time. Walking the outer indices once and
 * copying every part's block at each writes the output front to back. A large output then
 * streams the whole cache lines inside each block, while a line shared by two neighbouring
 * blocks gets ordinary stores from both: no line mixes the two kinds of store (streaming short
 * runs whose edge lines did was several times slower: benchmarks/NOTES.md).
 *
 * Anything else (a block that is not contiguous in both operands, tiny blocks, one part) is
 * copied part by part through dmlcpu_copy_pair, exactly as dmlcpu_copy would.
 */
#include <stdlib.h>
#include <string.h>
#include "dispatch.h"

#define LINE_BYTES 64
/*
 * Blocks of fewer elements than this on average copy part by part: a call per element costs more
 * than the strided kernels of the per-part path (a JOIN of one-element parts is one scatter per
 * input). JOIN 4x(N, inner) along axis 1, 4 MiB each, us one pass / part by part: float32 inner 1
 * 10542 / 2435, inner 2 7254 / 11142, inner 4 3674 / 5833, inner 16 1713 / 3418; int8 inner 1
 * 10277 / 2001, inner 2 6545 / 8149 (benchmarks/bench_group.py, one thread).
 */
#define GROUP_MIN_BLOCK_ELEMENTS 2
/*
 * ... and unless the blocks lie back to back in the destination (a JOIN), shorter than this:
 * each part then has its own destination, filled part by part with whole streamed lines by the
 * row-streaming kernel, while the pass here writes each block's two edge lines normally.
 * SPLIT (64,256,1024) along axis 2 into [100,300,624], ratio to memcpy, one pass / part by
 * part: int8 0.80-0.92 / 1.26-1.45, float16 1.10-1.66 / 1.23-1.30, float32 1.32-1.45 /
 * 1.03-1.12 (benchmarks/bench_group.py).
 */
#define GROUP_MIN_SCATTERED_BLOCK_BYTES 1024
/* In a streamed pass, shorter blocks are all edge lines: ordinary stores. */
#define STREAM_MIN_BLOCK_BYTES (2 * LINE_BYTES)
/*
 * Streaming: blocks of at least STREAM_LONG_BLOCK_BYTES on average stream from
 * DMLCPU_STREAM_MIN_BYTES written, like the per-run streaming of a copy; shorter blocks only from
 * STREAM_SHORT_MIN_BYTES. JOIN 4x(64,64,1024) along axis 2, one thread, ratio to memcpy, part by
 * part / one pass streamed (python -m dmlcpu bench, separate processes, medians): int8 (16 MiB
 * out, 1 KiB blocks) 0.74 / 0.70, float16 (32 MiB, 2 KiB) 1.47 / 1.40, float32 (64 MiB, 4 KiB)
 * 0.99 / 1.33, float64 (128 MiB, 8 KiB) 0.57 / 0.83; one pass with ordinary stores, against
 * streamed, in one process: int8 1.4-1.6 / 2.1-2.5 ms, float32 13.3 / 8-10 ms. Below that size the
 * output stays in this machine's last-level cache between calls and streaming only costs.
 */
#define STREAM_LONG_BLOCK_BYTES ((int64_t)16 << 10)
#define STREAM_SHORT_MIN_BYTES ((int64_t)64 << 20)
/* Parts held on the C stack; more are allocated (or, failing that, copied part by part). */
#define STACK_PARTS 8

typedef struct group_part {
    char *dst;               /* the block at outer index 0 (its lowest destination byte) */
    const char *src;
    int64_t dst_strides[DMLCPU_MAX_DIMS]; /* over the group's (merged) outer dims */
    int64_t src_strides[DMLCPU_MAX_DIMS];
    size_t bytes;            /* contiguous in both operands */
} group_part;

typedef struct group_plan {
    const group_part *parts;
    size_t count;
    int32_t outer;
    int64_t sizes[DMLCPU_MAX_DIMS];
    int64_t outer_count;
    dmlcpu_copy_run_fn stream; /* non-temporal contiguous kernel, or NULL: ordinary stores */
} group_plan;

static int width_ok(size_t elsize) {
    return elsize == 1 || elsize == 2 || elsize == 4 || elsize == 8;
}

static void copy_block(const group_plan *g, char *dst, const char *src, size_t n) {
    if (g->stream != NULL && n >= STREAM_MIN_BLOCK_BYTES) {
        /* whole aligned lines stream; the edge lines, shared with the neighbouring blocks, do
         * not. The kernel's own tail after its unrolled loop is a whole number of lines. */
        size_t head = (size_t)(-(uintptr_t)dst) & (LINE_BYTES - 1);
        size_t body = (n - head) & ~(size_t)(LINE_BYTES - 1);
        memcpy(dst, src, head);
        g->stream(dst + head, 1, src + head, 1, body);
        memcpy(dst + head + body, src + head + body, n - head - body);
        return;
    }
    memcpy(dst, src, n);
}

/* Outer flat indices [begin, end): every part's block at each, in part order. */
static void group_range(const group_plan *g, int64_t begin, int64_t end) {
    int64_t index[DMLCPU_MAX_DIMS] = {0};
    int64_t rest = begin;
    for (int32_t d = g->outer - 1; d >= 0; d--) {
        index[d] = rest % g->sizes[d];
        rest /= g->sizes[d];
    }
    for (int64_t i = begin; i < end; i++) {
        for (size_t k = 0; k < g->count; k++) {
            const group_part *p = &g->parts[k];
            int64_t dst_off = 0, src_off = 0; /* bounded by the checked views' extents */
            for (int32_t d = 0; d < g->outer; d++) {
                dst_off += index[d] * p->dst_strides[d];
                src_off += index[d] * p->src_strides[d];
            }
            copy_block(g, p->dst + dst_off, p->src + src_off, p->bytes);
        }
        for (int32_t d = g->outer - 1; d >= 0; d--) {
            if (++index[d] < g->sizes[d]) break;
            index[d] = 0;
        }
    }
}

/* Start of chunk i of n: an even share of [0, total) (no overflow). */
static int64_t share_start(int64_t total, int i, int n) {
    int64_t q = total / n, r = total % n;
    return i * q + (i < r ? i : r);
}

static void group_chunk(void *ctx, int chunk, int chunks) {
    const group_plan *g = ctx;
    group_range(g, share_start(g->outer_count, chunk, chunks),
                share_start(g->outer_count, chunk + 1, chunks));
    if (g->stream != NULL) dmlcpu_store_fence(); /* before this thread reports the chunk done */
}

/*
 * Fills part from pair i when its inner block (dims outer_ndim on) is one run contiguous in both
 * operands; returns 0 otherwise.
 */
static int part_of(group_part *part, const dmlcpu_view *dst, const dmlcpu_view *src,
                   int32_t outer_ndim, size_t elsize) {
    dmlcpu_pair inner;
    inner.ndim = dst->ndim - outer_ndim;
    for (int32_t d = 0; d < inner.ndim; d++) {
        inner.sizes[d] = dst->sizes[outer_ndim + d];
        inner.dst_strides[d] = dst->strides[outer_ndim + d];
        inner.src_strides[d] = src->strides[outer_ndim + d];
    }
    inner.dst = dst->data;
    inner.src = src->data;
    dmlcpu_pair_normalize(&inner); /* one dim left at least; a flipped run starts lower */
    if (inner.ndim != 1) return 0;
    if (inner.sizes[0] > 1 && (inner.dst_strides[0] != (int64_t)elsize ||
                               inner.src_strides[0] != (int64_t)elsize))
        return 0;
    part->dst = inner.dst;
    part->src = inner.src;
    part->bytes = (size_t)inner.sizes[0] * elsize;
    for (int32_t d = 0; d < outer_ndim; d++) {
        part->dst_strides[d] = dst->strides[d];
        part->src_strides[d] = src->strides[d];
    }
    return 1;
}

/* 1 if at every outer index each part's destination block starts where the previous one's ends. */
static int back_to_back(const group_part *parts, size_t count, int32_t outer_ndim) {
    for (size_t k = 1; k < count; k++) {
        if (parts[k - 1].dst + parts[k - 1].bytes != parts[k].dst) return 0;
        for (int32_t d = 0; d < outer_ndim; d++)
            if (parts[k].dst_strides[d] != parts[0].dst_strides[d]) return 0;
    }
    return 1;
}

/* Drops outer dims of size 1 and merges neighbours every part steps evenly across. */
static void merge_outer(group_plan *g, group_part *parts, size_t count) {
    int32_t n = 0;
    for (int32_t d = 0; d < g->outer; d++) {
        if (g->sizes[d] == 1) continue;
        int merges = n > 0;
        for (size_t k = 0; k < count && merges; k++)
            merges = parts[k].dst_strides[n - 1] == parts[k].dst_strides[d] * g->sizes[d] &&
                     parts[k].src_strides[n - 1] == parts[k].src_strides[d] * g->sizes[d];
        if (merges) {
            g->sizes[n - 1] *= g->sizes[d];
            for (size_t k = 0; k < count; k++) {
                parts[k].dst_strides[n - 1] = parts[k].dst_strides[d];
                parts[k].src_strides[n - 1] = parts[k].src_strides[d];
            }
        } else {
            g->sizes[n] = g->sizes[d];
            for (size_t k = 0; k < count; k++) {
                parts[k].dst_strides[n] = parts[k].dst_strides[d];
                parts[k].src_strides[n] = parts[k].src_strides[d];
            }
            n++;
        }
    }
    g->outer = n;
}

/* Part by part, as dmlcpu_copy would (the views are already checked). */
static void copy_parts(const dmlcpu_view *dsts, const dmlcpu_view *srcs, size_t count,
                       size_t elsize) {
    for (size_t k = 0; k < count; k++) {
        dmlcpu_pair pair;
        int empty;
        if (dmlcpu_pair_init(&pair, &dsts[k], &srcs[k], elsize, &empty) != DMLCPU_OK || empty)
            continue;
        dmlcpu_pair_normalize(&pair);
        dmlcpu_copy_pair(&pair, elsize);
    }
}

dmlcpu_status dmlcpu_copy_group(const dmlcpu_view *dsts, const dmlcpu_view *srcs, size_t count,
                                int32_t outer_ndim, size_t elsize) {
    if (!width_ok(elsize) || outer_ndim < 0 || outer_ndim > DMLCPU_MAX_DIMS)
        return DMLCPU_E_INVALID;
    if (count == 0) return DMLCPU_OK;
    if (dsts == NULL || srcs == NULL) return DMLCPU_E_INVALID;

    /* every pair checked, and the outer sizes shared, before anything is written */
    size_t nonempty = 0;
    for (size_t k = 0; k < count; k++) {
        dmlcpu_pair pair;
        int empty;
        dmlcpu_status status = dmlcpu_pair_init(&pair, &dsts[k], &srcs[k], elsize, &empty);
        if (status != DMLCPU_OK) return status;
        if (outer_ndim > dsts[k].ndim) return DMLCPU_E_INVALID;
        for (int32_t d = 0; d < outer_ndim; d++)
            if (dsts[k].sizes[d] != dsts[0].sizes[d]) return DMLCPU_E_INVALID;
        nonempty += !empty;
    }
    if (nonempty == 0) return DMLCPU_OK;

    group_plan g = {0};
    g.outer = outer_ndim;
    g.outer_count = 1;
    for (int32_t d = 0; d < outer_ndim; d++) {
        g.sizes[d] = dsts[0].sizes[d];
        g.outer_count *= g.sizes[d]; /* <= a checked view's element count */
    }
    group_part stack_parts[STACK_PARTS];
    group_part *parts = stack_parts;
    if (nonempty < 2 || g.outer_count < 2 ||
        (nonempty > STACK_PARTS && (parts = malloc(nonempty * sizeof *parts)) == NULL)) {
        copy_parts(dsts, srcs, count, elsize);
        return DMLCPU_OK;
    }
    /* one pass only if every block is contiguous and they are not tiny */
    int one_pass = 1;
    int64_t block_bytes = 0, total_bytes = 0; /* per outer index; everything written */
    size_t n = 0;
    for (size_t k = 0; k < count && one_pass; k++) {
        int64_t part_count;
        (void)dmlcpu_view_check(&dsts[k], elsize, &part_count); /* checked above */
        if (part_count == 0) continue;
        one_pass = part_of(&parts[n], &dsts[k], &srcs[k], outer_ndim, elsize);
        if (one_pass) block_bytes += (int64_t)parts[n++].bytes; /* <= the sum of checked views */
    }
    if (one_pass && block_bytes < GROUP_MIN_SCATTERED_BLOCK_BYTES * (int64_t)nonempty)
        one_pass = block_bytes >= GROUP_MIN_BLOCK_ELEMENTS * (int64_t)(elsize * nonempty) &&
                   back_to_back(parts, n, outer_ndim);
    if (!one_pass) {
        if (parts != stack_parts) free(parts);
        copy_parts(dsts, srcs, count, elsize);
        return DMLCPU_OK;
    }
    if (dmlcpu_mul_overflows(block_bytes, g.outer_count, &total_bytes)) total_bytes = INT64_MAX;

    merge_outer(&g, parts, n);
    g.parts = parts;
    g.count = n;
    const dmlcpu_dispatch *table = dmlcpu_dispatch_table();
    if (total_bytes >= DMLCPU_STREAM_MIN_BYTES &&
        (block_bytes >= STREAM_LONG_BLOCK_BYTES * (int64_t)n || total_bytes >= STREAM_SHORT_MIN_BYTES))
        g.stream = table->copy.stream;

    int threads = 1;
    if (total_bytes >= DMLCPU_PARALLEL_MIN_BYTES) {
        int64_t by_size = total_bytes / DMLCPU_PARALLEL_CHUNK_BYTES;
        threads = dmlcpu_get_num_threads();
        if (by_size < threads) threads = (int)by_size;
        if (g.outer_count < threads) threads = (int)g.outer_count;
    }
    if (threads > 1) {
        dmlcpu_parallel(group_chunk, &g, threads);
    } else {
        group_chunk(&g, 0, 1);
    }
    if (parts != stack_parts) free(parts);
    return DMLCPU_OK;
}
