/*
 * JOIN and SPLIT in one pass (dmlcpu_copy_group): parts that share their outer dims, each copying
 * one contiguous block per outer index.
 *
 * Copied part by part, a JOIN along an inner axis writes short runs spread over the whole output
 * once per input: no run is long enough to stream, and every destination line is read before it is
 * written (read for ownership), a quarter of it at a time. Walking the outer indices once and
 * copying every part's block at each writes the output front to back (in L2, a JOIN's in one
 * aligned walk across the blocks, the blocks kernel, and a SPLIT's part by part in panels of a few
 * outer indices, PART_PANEL_ROWS; blocks of 16 KiB and more each by the string copy,
 * the policy's long_run). A large output then streams whole cache lines only: a JOIN's
 * whose blocks are each a line or longer by the same aligned walk (the streamed blocks kernel, the
 * partial lines at the ends of a thread's share stored ordinarily), anything else block by block,
 * a line where two blocks meet gathered from both and streamed once the second completes it
 * (line_carry); only the lines at the ends of a thread's share, or where blocks do not follow each
 * other, get ordinary stores. No line mixes the two kinds of store (streaming short runs whose
 * edge lines did was several times slower, and storing the meeting lines ordinarily made them be
 * read first). Which way a call takes, the policy says (policy.c; docs/decisions.md).
 *
 * Anything else (a block that is not contiguous in both operands, tiny blocks, one part) is
 * copied part by part through dmlcpu_copy_pair, exactly as dmlcpu_copy would.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "policy.h"
#include "walk.h"

#define LINE_BYTES 64
/*
 * The walk's shapes (decisions.md "walk shapes"). Blocks of fewer than GROUP_MIN_BLOCK_ELEMENTS
 * elements on average copy part by part: a call per element costs more than the strided kernels
 * of the per-part path (a JOIN of one-element parts is one scatter per input); from there the
 * one pass is faster whether or not the blocks lie back to back in the destination.
 */
#define GROUP_MIN_BLOCK_ELEMENTS 2
/* Blocks at least this long on average are "long" to the policy's streaming question
 * (dmlcpu_policy_group_streams, decisions.md "group streaming"). */
#define STREAM_LONG_BLOCK_BYTES ((int64_t)256)
/* In a call that stays in L2 (dmlcpu_policy_in_l2), blocks this long or longer are stored in
 * aligned vectors, the rows kernel's ends copied inline (shorter ones gain nothing). Where the
 * blocks, all this long or longer and some shorter than the policy's long_run, fill the
 * destination front to back (a JOIN's: fills_packed_rows), the blocks kernel walks them all in
 * one aligned walk instead. */
#define ALIGNED_MIN_BLOCK_BYTES 256
/* In a call that stays in L2, parts whose destinations are each packed (a SPLIT's), with blocks of
 * a line or more, are copied PART_PANEL_ROWS outer indices at a time, part by part, each part's
 * panel one call of the rows kernel: one aligned walk across the rows of the part's destination
 * instead of one per block, each with its own unaligned ends. The panel's source is read from
 * memory once, by the later parts from cache. */
#define PART_PANEL_ROWS 16
/* In a call that stays in L2, where every block is a long run (the policy's long_run) or longer,
 * the rows kernel copies each as copy_nd.c copies a long packed run there: a line in vectors,
 * then the string copy, as glibc's memcpy does (x86), rather than in its aligned walk
 * (decisions.md "long runs"). */
/*
 * Streamed, a JOIN's blocks (a line or longer each) go by the blocks kernel with non-temporal
 * stores, one call a thread, where block by block (line_carry) takes a call, a carry lookup and a
 * gathered line for every block. A SPLIT's parts streamed part by part in panels would read each
 * panel's source in strided passes, which loses where the source comes from memory: SPLITs
 * stream block by block.
 */
/* Parts held on the C stack; more are allocated (or, failing that, copied part by part). */
#define STACK_PARTS 8

/*
 * The one-pass plan. Each part k is two operands over the group's (merged) outer dims,
 * ops[2k] its destination block and ops[2k + 1] its source block at outer index 0 (the block's
 * lowest destination byte), and bytes[k], the block's length, contiguous in both.
 */
typedef struct group_plan {
    dmlcpu_operand *ops;
    size_t *bytes;
    size_t count;
    int32_t outer;
    int64_t sizes[DMLCPU_MAX_DIMS];
    int64_t outer_count;
    dmlcpu_copy_run_fn packed; /* the contiguous kernel (ordinary stores) */
    dmlcpu_copy_run_fn stream; /* non-temporal contiguous kernel, or NULL: ordinary stores */
    dmlcpu_copy_rows_fn aligned; /* the rows kernel, for long blocks of a call in L2, or NULL */
    dmlcpu_copy_blocks_fn blocks; /* the (streamed) blocks kernel, where it writes every block */
    dmlcpu_copy_part *parts;      /* for it: each part's source block at outer index 0 */
    int part_panels;              /* part by part in panels of rows (PART_PANEL_ROWS) */
    int rows_cached; /* the aligned rows kernel's `cached`: 0 for long blocks (the string copy) */
} group_plan;

/*
 * A destination line being filled across blocks in a streamed pass: the tail of a block that ends
 * inside a line, gathered here until the block continuing it in the destination (the next part's
 * block of a JOIN, the same part's next block of a SPLIT) completes the line, which then streams
 * whole. Without it, each line where two blocks meet was stored in two halves, read from memory
 * first (read for ownership): for float16's 512-byte blocks one line in eight.
 */
typedef struct line_carry {
    unsigned char bytes[LINE_BYTES];
    char *line; /* the line's address (line-aligned), NULL when empty */
    size_t filled; /* bytes of it gathered, from its start */
} line_carry;

/* Carries a thread keeps: part k's tail goes into slot k % CARRY_SLOTS (a slot still holding
 * another part's line is first written out as it is, with ordinary stores). */
#define CARRY_SLOTS STACK_PARTS

/* Writes a carried line's bytes out with ordinary stores: no block on this thread continues it
 * (the lines at the ends of a thread's share are written so by both threads). */
static void carry_flush(line_carry *c) {
    if (c->line != NULL) memcpy(c->line, c->bytes, c->filled);
    c->line = NULL;
}

/* Part k's block in a streamed pass: first the line a carry holds at dst completed, then whole
 * lines streamed, then the tail carried (the head of a block nothing carries for, and a block
 * inside one line, take ordinary stores). */
static void stream_block(const group_plan *g, line_carry *carry, size_t k, char *dst,
                         const char *src, size_t n) {
    for (size_t j = 0; j < CARRY_SLOTS; j++) {
        line_carry *c = &carry[j];
        if (c->line == NULL || c->line + c->filled != dst) continue;
        size_t take = LINE_BYTES - c->filled < n ? LINE_BYTES - c->filled : n;
        memcpy(c->bytes + c->filled, src, take);
        c->filled += take;
        dst += take;
        src += take;
        n -= take;
        if (c->filled == LINE_BYTES) {
            g->stream(c->line, 1, (const char *)c->bytes, 1, LINE_BYTES);
            c->line = NULL;
        }
        break;
    }
    if (n == 0) return;
    size_t head = dmlcpu_bytes_to_aligned(dst, LINE_BYTES);
    if (head >= n) {
        memcpy(dst, src, n);
        return;
    }
    size_t body = (n - head) & ~(size_t)(LINE_BYTES - 1), tail = n - head - body;
    memcpy(dst, src, head);
    if (body > 0) g->stream(dst + head, 1, src + head, 1, body);
    if (tail > 0) {
        line_carry *own = &carry[k % CARRY_SLOTS];
        carry_flush(own);
        own->line = dst + head + body;
        own->filled = tail;
        memcpy(own->bytes, src + head + body, tail);
    }
}

/* Part k's block at (dst, src): streamed with the thread's carries, or with ordinary stores. */
static void copy_block(const group_plan *g, line_carry *carry, size_t k, char *dst,
                       const char *src, size_t n) {
    if (g->stream != NULL) {
        stream_block(g, carry, k, dst, src, n);
        return;
    }
    if (g->aligned != NULL && (int64_t)n >= ALIGNED_MIN_BLOCK_BYTES) {
        g->aligned(dst, src, 0, n, 1, g->rows_cached); /* one row */
        return;
    }
    g->packed(dst, 1, src, 1, n);
}

/* Outer flat indices [begin, end): every part's block at each, in part order. One outer dim
 * (most groups, after merging) is counted rather than walked: the walk cost a JOIN of short
 * blocks a sixth of its time. */
static void group_range(const group_plan *g, line_carry *carry, int64_t begin, int64_t end) {
    if (g->blocks != NULL) { /* the destination rows [begin, end), packed */
        g->blocks(g->ops[0].data + begin * g->ops[0].strides[0], g->parts, g->count,
                  (size_t)begin, (size_t)(end - begin));
        return;
    }
    if (g->part_panels) {
        for (int64_t i = begin; i < end; i += PART_PANEL_ROWS) {
            size_t rows = (size_t)(end - i < PART_PANEL_ROWS ? end - i : PART_PANEL_ROWS);
            for (size_t k = 0; k < g->count; k++) {
                const dmlcpu_operand *dst = &g->ops[2 * k], *src = &g->ops[2 * k + 1];
                g->aligned(dst->data + i * dst->strides[0], src->data + i * src->strides[0],
                           (ptrdiff_t)src->strides[0], g->bytes[k], rows, g->rows_cached);
            }
        }
        return;
    }
    if (g->outer == 1) {
        for (int64_t i = begin; i < end; i++)
            for (size_t k = 0; k < g->count; k++) {
                const dmlcpu_operand *dst = &g->ops[2 * k], *src = &g->ops[2 * k + 1];
                copy_block(g, carry, k, dst->data + i * dst->strides[0],
                           src->data + i * src->strides[0], g->bytes[k]);
            }
        return;
    }
    dmlcpu_walk w;
    dmlcpu_walk_start(&w, g->outer, g->sizes, 0, NULL, NULL, begin);
    for (int64_t i = begin; i < end; i++) {
        if (i > begin) dmlcpu_walk_step(&w);
        for (size_t k = 0; k < g->count; k++) {
            const dmlcpu_operand *dst = &g->ops[2 * k], *src = &g->ops[2 * k + 1];
            /* offsets bounded by the checked views' extents */
            copy_block(g, carry, k, dst->data + dmlcpu_walk_offset(&w, dst->strides),
                       src->data + dmlcpu_walk_offset(&w, src->strides), g->bytes[k]);
        }
    }
}

static void group_chunk(void *ctx, int chunk, int chunks) {
    const group_plan *g = ctx;
    int64_t lo, hi;
    dmlcpu_share(g->outer_count, 1, chunk, chunks, &lo, &hi);
    line_carry carry[CARRY_SLOTS];
    for (size_t j = 0; j < CARRY_SLOTS; j++) carry[j].line = NULL;
    group_range(g, carry, lo, hi);
    for (size_t j = 0; j < CARRY_SLOTS; j++) carry_flush(&carry[j]);
    if (g->stream != NULL) dmlcpu_store_fence(); /* before this thread reports the chunk done */
}

/*
 * Fills part k of g from a pair of views when its inner block (dims outer_ndim on) is one run
 * contiguous in both operands; returns 0 otherwise.
 */
static int part_of(group_plan *g, size_t k, const dmlcpu_view *dst, const dmlcpu_view *src,
                   int32_t outer_ndim, size_t elsize) {
    dmlcpu_pair inner;
    inner.ndim = dst->ndim - outer_ndim;
    for (int32_t d = 0; d < inner.ndim; d++) {
        inner.sizes[d] = dst->sizes[outer_ndim + d];
        inner.op[DMLCPU_DST].strides[d] = dst->strides[outer_ndim + d];
        inner.op[DMLCPU_SRC].strides[d] = src->strides[outer_ndim + d];
    }
    inner.op[DMLCPU_DST].data = dst->data;
    inner.op[DMLCPU_SRC].data = src->data;
    dmlcpu_pair_normalize(&inner); /* one dim left at least; a flipped run starts lower */
    if (inner.ndim != 1) return 0;
    if (inner.sizes[0] > 1 && (inner.op[DMLCPU_DST].strides[0] != (int64_t)elsize ||
                               inner.op[DMLCPU_SRC].strides[0] != (int64_t)elsize))
        return 0;
    dmlcpu_operand *part = &g->ops[2 * k];
    part[0].data = inner.op[DMLCPU_DST].data;
    part[1].data = inner.op[DMLCPU_SRC].data;
    g->bytes[k] = (size_t)inner.sizes[0] * elsize;
    for (int32_t d = 0; d < outer_ndim; d++) {
        part[0].strides[d] = dst->strides[d];
        part[1].strides[d] = src->strides[d];
    }
    return 1;
}

/* Part by part, as dmlcpu_copy would (the views are already checked), each knowing the bytes
 * of the whole call (saturating: views the caller has not kept apart may add up). */
static void copy_parts(const dmlcpu_view *dsts, const dmlcpu_view *srcs, size_t count,
                       size_t elsize) {
    int64_t call_bytes = 0;
    for (size_t k = 0; k < count; k++) {
        int64_t part_count;
        (void)dmlcpu_view_check(&dsts[k], elsize, &part_count); /* passed before */
        if (dmlcpu_add_overflows(call_bytes, part_count * (int64_t)elsize, &call_bytes))
            call_bytes = INT64_MAX;
    }
    for (size_t k = 0; k < count; k++) {
        dmlcpu_pair pair;
        int empty;
        if (dmlcpu_pair_init(&pair, &dsts[k], &srcs[k], elsize, &empty) != DMLCPU_OK || empty)
            continue;
        dmlcpu_pair_normalize(&pair);
        dmlcpu_copy_pair(&pair, elsize, DMLCPU_STREAM_AUTO, call_bytes);
    }
}

/* Whether the parts' blocks, in part order, fill the destination front to back, one outer index
 * after another, each min_block bytes or longer (a JOIN's). */
static int fills_packed_rows(const group_plan *g, int64_t block_bytes, int64_t min_block) {
    if (g->outer != 1) return 0;
    const char *at = g->ops[0].data;
    for (size_t k = 0; k < g->count; k++) {
        if (g->ops[2 * k].data != at || g->ops[2 * k].strides[0] != block_bytes ||
            (int64_t)g->bytes[k] < min_block)
            return 0;
        at += g->bytes[k];
    }
    return 1;
}

/* Has the blocks kernel write every block: each part's source block at outer index 0. */
static void walk_blocks(group_plan *g, dmlcpu_copy_blocks_fn blocks) {
    g->blocks = blocks;
    for (size_t k = 0; k < g->count; k++) {
        g->parts[k].src = g->ops[2 * k + 1].data;
        g->parts[k].stride = (ptrdiff_t)g->ops[2 * k + 1].strides[0];
        g->parts[k].bytes = g->bytes[k];
    }
}

/* Whether each part's blocks fill its destination front to back, one outer index after another,
 * each a line or longer (a SPLIT's). */
static int packs_each_part(const group_plan *g) {
    if (g->outer != 1) return 0;
    for (size_t k = 0; k < g->count; k++)
        if (g->ops[2 * k].strides[0] != (int64_t)g->bytes[k] || g->bytes[k] < LINE_BYTES) return 0;
    return 1;
}

/* Plans and runs the one pass over checked parts; returns 0, having written nothing, when the
 * parts are better copied one by one. */
static int one_pass(group_plan *g, const dmlcpu_view *dsts, const dmlcpu_view *srcs,
                    size_t count, size_t nonempty, int32_t outer_ndim, size_t elsize) {
    int64_t block_bytes = 0, total_bytes; /* per outer index; everything written */
    size_t n = 0, shortest = (size_t)-1;
    for (size_t k = 0; k < count; k++) {
        int64_t part_count;
        (void)dmlcpu_view_check(&dsts[k], elsize, &part_count); /* checked by the caller */
        if (part_count == 0) continue;
        if (!part_of(g, n, &dsts[k], &srcs[k], outer_ndim, elsize)) return 0;
        if (g->bytes[n] < shortest) shortest = g->bytes[n];
        block_bytes += (int64_t)g->bytes[n++]; /* <= the sum of checked views */
    }
    if (block_bytes < GROUP_MIN_BLOCK_ELEMENTS * (int64_t)(elsize * nonempty)) return 0;
    if (dmlcpu_mul_overflows(block_bytes, g->outer_count, &total_bytes)) total_bytes = INT64_MAX;
    g->count = n;
    g->outer = dmlcpu_merge_dims(outer_ndim, g->sizes, g->ops, 2 * n);
    int long_blocks = block_bytes >= STREAM_LONG_BLOCK_BYTES * (int64_t)n;
    const dmlcpu_dispatch *table = dmlcpu_dispatch_table();
    g->packed = table->copy.run[0][DMLCPU_RUN_CONTIGUOUS];
    const dmlcpu_tuning *tuning = dmlcpu_tuning_now();
    int threads = dmlcpu_threads_for(total_bytes);
    if (dmlcpu_policy_group_streams(tuning, total_bytes, long_blocks, threads))
        g->stream = table->copy.stream;
    else if (dmlcpu_policy_in_l2(tuning, total_bytes, threads))
        g->aligned = table->copy.rows;
    g->rows_cached = (int64_t)shortest < tuning->value[DMLCPU_TUNE_STREAM_MIN_RUN];
    if (g->stream != NULL && table->copy.stream_blocks != NULL &&
        fills_packed_rows(g, block_bytes, LINE_BYTES)) {
        walk_blocks(g, table->copy.stream_blocks);
    } else if (g->aligned != NULL && g->rows_cached &&
               fills_packed_rows(g, block_bytes, ALIGNED_MIN_BLOCK_BYTES)) {
        walk_blocks(g, table->copy.blocks);
    } else if (g->aligned != NULL) {
        g->part_panels = packs_each_part(g);
    }
    dmlcpu_parallel(group_chunk, g, dmlcpu_chunks_for(total_bytes, g->outer_count));
    return 1;
}

dmlcpu_status dmlcpu_copy_group(const dmlcpu_view *dsts, const dmlcpu_view *srcs, size_t count,
                                int32_t outer_ndim, size_t elsize) {
    if (dmlcpu_width_index(elsize) < 0 || outer_ndim < 0 || outer_ndim > DMLCPU_MAX_DIMS)
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

    /* field by field: `= {0}` zeroed the sizes too, a `rep stosq` that cost more than a tiny
     * JOIN's copies */
    group_plan g;
    g.count = 0;
    g.outer = 0;
    g.packed = g.stream = NULL;
    g.aligned = NULL;
    g.blocks = NULL;
    g.part_panels = 0;
    g.rows_cached = 1;
    g.outer_count = 1;
    for (int32_t d = 0; d < outer_ndim; d++) {
        g.sizes[d] = dsts[0].sizes[d];
        g.outer_count *= g.sizes[d]; /* <= a checked view's element count */
    }
    dmlcpu_operand stack_ops[2 * STACK_PARTS];
    size_t stack_bytes[STACK_PARTS];
    dmlcpu_copy_part stack_parts[STACK_PARTS];
    g.ops = stack_ops;
    g.bytes = stack_bytes;
    g.parts = stack_parts;
    void *heap = NULL;
    int planned = nonempty >= 2 && g.outer_count >= 2;
    if (planned && nonempty > STACK_PARTS) {
        heap = malloc(nonempty * (2 * sizeof *g.ops + sizeof *g.parts + sizeof *g.bytes));
        planned = heap != NULL;
        if (planned) {
            g.ops = heap;
            g.parts = (dmlcpu_copy_part *)(g.ops + 2 * nonempty);
            g.bytes = (size_t *)(g.parts + nonempty);
        }
    }
    if (!planned || !one_pass(&g, dsts, srcs, count, nonempty, outer_ndim, elsize))
        copy_parts(dsts, srcs, count, elsize);
    free(heap);
    return DMLCPU_OK;
}
