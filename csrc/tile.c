/*
 * TILE: out[c] = in[c mod InputSizes], one of three ways, as the policy says (policy.c,
 * dmlcpu_policy_tile; docs/decisions.md "tile replicas", "tile slabs"):
 *
 * - Straight from the input, when its runs are long (the policy's tile_straight_run): one
 *   strided copy, each repeated dim a stride-0 dim of the source. The input stays cached; the
 *   copy driver threads and streams it like any copy.
 * - In blocks, otherwise. A block is the output's innermost dims, whole, over a slab of input
 *   indices of the dim outside them, small enough to stay in L1 or L2 (the policy's tile_block,
 *   or one output row where that is longer). It is built at its home position (inside the
 *   input's extent), then copied to each of its replicas along the outer dims, reading it from
 *   the cache at stride 0; a small output is one block. A block is built from the input once,
 *   then each repeated dim, innermost first, is filled by spreading (one copy reading the part
 *   already written at stride 0; for the innermost dim, the input itself, in the same copy) or,
 *   where that copy's runs would be short and many, by doubling (the written part copied after
 *   itself until the dim is full). Only the replicas stream.
 * - In slabs, on one thread where the output would stream but fits the cache: the first tile
 *   along the outermost repeated dim, built in blocks, then copied after itself along that dim
 *   by the string copy, cached.
 *
 * On several threads the blocks are shared out, each built and replicated by one thread. Where
 * there are too few, the output is cut into slices along its outermost repeated dim, one per
 * thread, each in blocks of its own: a block written by one core and read by another costs more
 * than writing it twice, and slicing alone would have each thread read back a slab too large
 * for its share of the cache.
 */
#include <stdatomic.h>
#include <string.h>

#include "dispatch.h"
#include "policy.h"

/* Spreading dim d copies the tile along d once per repeat, in runs of the tile's bytes along d;
 * doubling copies log2(repeats) times, in runs that double. Doubling where a dim repeats more
 * than TILE_SPREAD_MAX_REPEATS times in runs under TILE_SPREAD_MIN_RUN_BYTES, where a call per
 * short run costs more than the passes doubling adds (decisions.md "walk shapes"). */
#define TILE_SPREAD_MAX_REPEATS 8
#define TILE_SPREAD_MIN_RUN_BYTES 64
/* Tests force another limit (dmlcpu_set_tile_limit): blocks of at most it, those up to half of it
 * doubled in every dim, so small arrays reach every way. */
static _Atomic int64_t forced_limit = -1;
#define TILE_MAX_VIEW_DIMS (2 * DMLCPU_MAX_DIMS)

/* Fills dim d of part (the dims inside it full, those outside it at the input's sizes; its first
 * tile along d written) by doubling: the written part copied after itself until the dim is
 * full. */
static dmlcpu_status double_dim(const dmlcpu_view *part, int32_t d, int64_t tile, int64_t total,
                                size_t elsize, int64_t call_bytes) {
    for (int64_t filled = tile; filled < total;) {
        int64_t n = filled < total - filled ? filled : total - filled;
        dmlcpu_view from = *part, to = *part;
        from.sizes[d] = to.sizes[d] = n;
        to.data = part->data + filled * part->strides[d];
        dmlcpu_status status = dmlcpu_copy_streamed(&to, &from, elsize, DMLCPU_STREAM_AUTO,
                                                    call_bytes);
        if (status != DMLCPU_OK) return status;
        filled += n;
    }
    return DMLCPU_OK;
}

/* A copy of up to TILE_MAX_VIEW_DIMS dims (outermost first, already merged): the outer dims
 * beyond what a view holds are walked here. Only [0, ndim) is set; the arrays are a view's
 * worth longer so that wide_run copies a view's arrays whole from any first dim (the words past
 * ndim go along unread). Zeroing the struct and copying ndim words had become `rep stosq` and
 * `rep movsq`, whose start-up took about 10% of a tiny TILE call. */
typedef struct wide_copy {
    int32_t ndim;
    int64_t sizes[TILE_MAX_VIEW_DIMS + DMLCPU_MAX_DIMS],
        dst_strides[TILE_MAX_VIEW_DIMS + DMLCPU_MAX_DIMS],
        src_strides[TILE_MAX_VIEW_DIMS + DMLCPU_MAX_DIMS];
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
                              size_t elsize, int stream, int64_t call_bytes) {
    if (w->ndim - first <= DMLCPU_MAX_DIMS) {
        dmlcpu_view to, from;
        to.data = dst;
        from.data = (char *)src;
        to.ndim = from.ndim = w->ndim - first;
        memcpy(to.sizes, w->sizes + first, sizeof to.sizes);
        memcpy(from.sizes, w->sizes + first, sizeof from.sizes);
        memcpy(to.strides, w->dst_strides + first, sizeof to.strides);
        memcpy(from.strides, w->src_strides + first, sizeof from.strides);
        return dmlcpu_copy_streamed(&to, &from, elsize, stream, call_bytes);
    }
    for (int64_t i = 0; i < w->sizes[first]; i++) {
        dmlcpu_status status = wide_run(w, first + 1, dst + i * w->dst_strides[first],
                                        src + i * w->src_strides[first], elsize, stream,
                                        call_bytes);
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
                            size_t elsize, int stream, int64_t call_bytes) {
    int64_t tile = src->sizes[d];
    wide_copy w;
    w.ndim = 0;
    for (int32_t e = 0; e < dst->ndim; e++) {
        int64_t stride = dst->strides[e];
        if (e == d) {
            wide_push(&w, dst->sizes[d] / tile - 1, stride * tile, 0);
            wide_push(&w, tile, stride, stride);
        } else {
            wide_push(&w, e < d ? src->sizes[e] : dst->sizes[e], stride, stride);
        }
    }
    return wide_run(&w, 0, dst->data + tile * dst->strides[d], dst->data, elsize, stream,
                    call_bytes);
}

/* Whether dim d of a block is filled by doubling rather than spreading (above). */
static int doubles_dim(const dmlcpu_view *dst, const dmlcpu_view *src, int32_t d, size_t elsize,
                       int double_all) {
    int64_t tile = src->sizes[d], total = dst->sizes[d];
    int64_t run = tile * (int64_t)elsize; /* the tile along d, the dims inside it whole (the view
                                           * check bounds the product) */
    for (int32_t e = d + 1; e < dst->ndim; e++) run *= dst->sizes[e];
    return double_all ||
           (total / tile > TILE_SPREAD_MAX_REPEATS && run < TILE_SPREAD_MIN_RUN_BYTES);
}

/* The input into the first tiles of dst along its innermost dim, all of them, each read from the
 * input at stride 0: one pass, where the input copied into the first tile and then spread made
 * two, the first a walk step per input row. Here and below, every copy is a piece of a TILE
 * writing call_bytes in all (internal.h, dmlcpu_copy_pair). */
static dmlcpu_status copy_first_tiles_along_last(const dmlcpu_view *dst, const dmlcpu_view *src,
                                                 size_t elsize, int64_t call_bytes) {
    int32_t last = dst->ndim - 1;
    int64_t tile = src->sizes[last], stride = dst->strides[last];
    wide_copy w;
    w.ndim = 0;
    for (int32_t e = 0; e < last; e++)
        wide_push(&w, src->sizes[e], dst->strides[e], src->strides[e]);
    wide_push(&w, dst->sizes[last] / tile, stride * tile, 0);
    wide_push(&w, tile, stride, src->strides[last]);
    return wide_run(&w, 0, dst->data, src->data, elsize, DMLCPU_STREAM_AUTO, call_bytes);
}

/* A block (whole tiles): the input into its first tile, then each repeated dim, innermost first,
 * by spreading, or by doubling where the spread's runs would be short and many (above), or in
 * every dim where double_all (a block within a test's forced limit, tile_rules). The innermost
 * dim, where it spreads, is filled straight from the input with the first tile. */
static dmlcpu_status fill_block(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize,
                                int64_t call_bytes, int double_all) {
    int32_t last = dst->ndim - 1;
    dmlcpu_view part = *dst;
    for (int32_t d = 0; d < dst->ndim; d++) part.sizes[d] = src->sizes[d];
    int spread_last = last >= 0 && dst->sizes[last] != src->sizes[last] &&
                      !doubles_dim(dst, src, last, elsize, double_all);
    dmlcpu_status status;
    if (spread_last) {
        status = copy_first_tiles_along_last(dst, src, elsize, call_bytes);
        part.sizes[last] = dst->sizes[last];
    } else {
        status = dmlcpu_copy_streamed(&part, src, elsize, DMLCPU_STREAM_AUTO, call_bytes);
    }
    for (int32_t d = last - spread_last; d >= 0 && status == DMLCPU_OK; d--) {
        int64_t tile = src->sizes[d], total = dst->sizes[d];
        if (total == tile) continue;
        status = doubles_dim(dst, src, d, elsize, double_all)
                     ? double_dim(&part, d, tile, total, elsize, call_bytes)
                     : spread(dst, src, d, elsize, DMLCPU_STREAM_AUTO, call_bytes);
        part.sizes[d] = total;
    }
    return status;
}

/*
 * The blocked way. The output's dims split at k: dims [k, n) are whole in every block, dim k - 1
 * is cut into slabs of `slab` input indices, dims [0, k - 1) are taken one input index at a time.
 * A block is one slab at its home position (inside the input's extent on every outer dim): built
 * there from the matching part of the input, then copied to each of its replicas along the outer
 * dims while it is still cached.
 */
/* How a TILE in blocks runs: the largest block, the largest doubled in every dim (a test's forced
 * limit; else 0), the replicas' stores; the bytes of the whole output. */
typedef struct tile_rules {
    int64_t limit, doubling_max;
    int stream;
    int64_t call_bytes;
} tile_rules;

typedef struct tile_blocks {
    dmlcpu_view dst;
    const dmlcpu_view *src;
    size_t elsize;
    const tile_rules *rules;
    int32_t k;           /* 0 (the whole output one block) .. ndim */
    int64_t inner_bytes; /* of dims [k, n) */
    int64_t slab;        /* input indices of dim k - 1 per block */
    int64_t slabs;       /* blocks along dim k - 1 */
    int64_t blocks;      /* slabs times the input's extent over dims [0, k - 1) */
} tile_blocks;

/* Plans dst in blocks, at least `share` of them where the input allows (several per thread). */
static void plan_blocks(tile_blocks *t, const dmlcpu_view *dst, const dmlcpu_view *src,
                        size_t elsize, const tile_rules *rules, int64_t share) {
    int64_t limit = rules->limit;
    t->dst = *dst;
    t->src = src;
    t->elsize = elsize;
    t->rules = rules;
    /* k: the first dim whole in every block, as small as the limit allows (the view check bounds
     * every product here) */
    int64_t inner_bytes = (int64_t)elsize;
    int32_t k = dst->ndim;
    while (k > 0 && inner_bytes * dst->sizes[k - 1] <= limit) inner_bytes *= dst->sizes[--k];
    t->k = k;
    t->inner_bytes = inner_bytes;
    t->slab = t->slabs = t->blocks = 1;
    if (k == 0) return;
    int64_t outer_inputs = 1; /* the input's extent over dims [0, k - 1) */
    for (int32_t d = 0; d < k - 1; d++) outer_inputs *= src->sizes[d];
    int64_t span = src->sizes[k - 1], slab = limit / inner_bytes;
    if (slab < 1) slab = 1;
    if (slab > span) slab = span;
    /* halved down to a quarter of the limit: float64 (1,1,32,32) x (8,1,4,4) on two threads, cut
     * into eight 4 KiB blocks each copied 31 times, took 1.7-2.3x as long as two slices */
    while (slab > 1 && outer_inputs * ((span + slab - 1) / slab) < share &&
           inner_bytes * ((slab + 1) / 2) >= limit / 4)
        slab = (slab + 1) / 2;
    t->slab = slab;
    t->slabs = (span + slab - 1) / slab;
    t->blocks = outer_inputs * t->slabs;
}

static dmlcpu_status tile_block(const tile_blocks *t, int64_t b) {
    const dmlcpu_view *dst = &t->dst, *src = t->src;
    int32_t k = t->k, n = dst->ndim;
    if (k == 0) /* one block: the whole output */
        return fill_block(dst, src, t->elsize, t->rules->call_bytes,
                          t->inner_bytes <= t->rules->doubling_max);
    dmlcpu_view home = *dst, part = *src;
    /* b -> (i_0, ..., i_{k-2}, slab index), the last fastest */
    int64_t s = b % t->slabs, rest = b / t->slabs;
    int64_t lo = s * t->slab, hi = lo + t->slab < src->sizes[k - 1] ? lo + t->slab
                                                                      : src->sizes[k - 1];
    for (int32_t d = k - 1; d >= 0; d--) {
        int64_t i = lo;
        if (d < k - 1) {
            i = rest % src->sizes[d];
            rest /= src->sizes[d];
        }
        home.data += i * dst->strides[d];
        part.data += i * src->strides[d];
        home.sizes[d] = part.sizes[d] = d == k - 1 ? hi - lo : 1;
    }
    dmlcpu_status status = fill_block(&home, &part, t->elsize, t->rules->call_bytes,
                                      t->inner_bytes * (hi - lo) <= t->rules->doubling_max);
    /* the replicas: for each outer dim j, those whose first index off home is j's (dims before
     * j at home, j past it, dims after j anywhere), each one copy reading the block at stride 0 */
    for (int32_t j = 0; j < k && status == DMLCPU_OK; j++) {
        int64_t reps_j = dst->sizes[j] / src->sizes[j];
        if (reps_j < 2) continue;
        wide_copy w;
        w.ndim = 0;
        for (int32_t e = j; e < k; e++) {
            int64_t step = dst->strides[e] * src->sizes[e];
            wide_push(&w, dst->sizes[e] / src->sizes[e] - (e == j), step, 0);
        }
        for (int32_t e = k - 1; e < n; e++)
            wide_push(&w, home.sizes[e], dst->strides[e], dst->strides[e]);
        status = wide_run(&w, 0, home.data + src->sizes[j] * dst->strides[j], home.data,
                          t->elsize, t->rules->stream, t->rules->call_bytes);
    }
    return status;
}

/* Blocks [lo, hi) of a plan, in order. */
static dmlcpu_status tile_blocks_range(const tile_blocks *t, int64_t lo, int64_t hi) {
    dmlcpu_status status = DMLCPU_OK;
    for (int64_t b = lo; b < hi && status == DMLCPU_OK; b++) status = tile_block(t, b);
    return status;
}

/* The output in slabs: its first tile along dim `along` in blocks, cached, then copied after
 * itself along that dim by the string copy (dmlcpu_tile says where). */
static dmlcpu_status tile_in_slabs(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize,
                                   const tile_rules *rules, int32_t along) {
    dmlcpu_view first = *dst;
    first.sizes[along] = src->sizes[along];
    tile_blocks plan;
    plan_blocks(&plan, &first, src, elsize, rules, 1);
    dmlcpu_status status = tile_blocks_range(&plan, 0, plan.blocks);
    if (status != DMLCPU_OK) return status;
    return spread(dst, src, along, elsize, DMLCPU_STREAM_STRING, rules->call_bytes);
}

/* The threads' share: blocks of one plan, or slices of the output along its outermost repeated
 * dim, each slice planned and run in blocks of its own. */
typedef struct tile_job {
    const tile_blocks *plan; /* sharing blocks, or NULL: sharing slices */
    const dmlcpu_view *dst, *src;
    size_t elsize;
    const tile_rules *rules;
    int32_t along;           /* the dim cut into slices */
    int64_t units;           /* blocks or slices */
    _Atomic int failed;
} tile_job;

static void tile_job_chunk(void *ctx, int chunk, int chunks) {
    tile_job *job = ctx;
    int64_t lo, hi;
    dmlcpu_share(job->units, 1, chunk, chunks, &lo, &hi);
    dmlcpu_status status = DMLCPU_OK;
    if (job->plan != NULL) {
        status = tile_blocks_range(job->plan, lo, hi);
    } else if (lo < hi) {
        int64_t tile = job->src->sizes[job->along];
        dmlcpu_view slice = *job->dst;
        slice.data += lo * tile * slice.strides[job->along];
        slice.sizes[job->along] = (hi - lo) * tile;
        tile_blocks plan;
        plan_blocks(&plan, &slice, job->src, job->elsize, job->rules, 1);
        status = tile_blocks_range(&plan, 0, plan.blocks);
    }
    if (status != DMLCPU_OK) atomic_store(&job->failed, 1);
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

    /* straight from the input: the output as (repeats, input) pairs of dims */
    wide_copy w;
    w.ndim = 0;
    for (int32_t d = 0; d < n; d++) {
        wide_push(&w, dst->sizes[d] / src->sizes[d], dst->strides[d] * src->sizes[d], 0);
        wide_push(&w, src->sizes[d], dst->strides[d], src->strides[d]);
    }
    /* (a forced limit is also the shortest run taken straight, packed or not: for the tests;
     * the view checks bound the byte counts) */
    int64_t dst_bytes = dst_count * (int64_t)elsize;
    int threads = dmlcpu_threads_for(dst_bytes);
    int32_t last = w.ndim - 1;
    int64_t run_bytes = last >= 0 ? w.sizes[last] * (int64_t)elsize : 0;
    int64_t row_bytes = n > 0 ? dst->sizes[n - 1] * (int64_t)elsize : (int64_t)elsize;
    int packed_run = last >= 0 && w.dst_strides[last] == (int64_t)elsize &&
                     w.src_strides[last] == (int64_t)elsize;
    dmlcpu_tile_plan way = dmlcpu_policy_tile(dmlcpu_tuning_now(), dst_bytes, run_bytes,
                                              packed_run, row_bytes, threads,
                                              dmlcpu_dispatch_table()->copy.stream_rows != NULL);
    if (last >= 0 && (forced >= 0 ? run_bytes >= forced : way.straight))
        return wide_run(&w, 0, dst->data, src->data, elsize, DMLCPU_STREAM_AUTO, 0);

    /* in blocks; the replicas streamed or not, and on one thread in slabs (the first tile along
     * the outermost repeated dim copied after itself by the string copy), as the policy says
     * (decisions.md "tile replicas", "tile slabs") */
    tile_rules rules = {forced >= 0 ? forced : way.block_bytes, forced >= 0 ? forced / 2 : 0,
                        way.stream, dst_bytes};
    if (way.slabs) {
        int32_t along = 0; /* the outermost repeated dim */
        while (along < n - 1 && dst->sizes[along] == src->sizes[along]) along++;
        if (along < n && dst->sizes[along] != src->sizes[along]) {
            rules.stream = 0;
            return tile_in_slabs(dst, src, elsize, &rules, along);
        }
    }
    tile_blocks plan;
    plan_blocks(&plan, dst, src, elsize, &rules, threads >= 2 ? 4 * (int64_t)threads : 1);
    tile_job job = {&plan, dst, src, elsize, &rules, 0, plan.blocks, 0};
    if (threads >= 2 && plan.blocks < 2 * (int64_t)threads) {
        /* too few blocks to share: each thread builds its own in a slice of the output (a block
         * built by one core and copied by another costs more than building it twice) */
        job.plan = NULL;
        while (job.along < n - 1 && dst->sizes[job.along] == src->sizes[job.along]) job.along++;
        job.units = dst->sizes[job.along] / src->sizes[job.along];
    }
    if (threads < 2 || job.units < 2) {
        status = tile_blocks_range(&plan, 0, plan.blocks);
    } else {
        dmlcpu_parallel(tile_job_chunk, &job,
                        job.plan != NULL ? dmlcpu_chunks_for(dst_bytes, job.units)
                                         : (job.units < threads ? (int)job.units : threads));
        status = atomic_load(&job.failed) ? DMLCPU_E_INVALID : DMLCPU_OK;
    }
    return status;
}
