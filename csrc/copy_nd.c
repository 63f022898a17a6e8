/*
 * The strided N-d copy driver.
 *
 * After normalization the innermost dim is the run a kernel copies and the others are walked by
 * the odometer (walk.h). Refinements on that loop, each for a case where it measured faster:
 * - a large copy is cut into contiguous chunks run by the thread pool (outer indices when there
 *   are enough of them, else pieces of the run);
 * - when the destination is packed but the source's inner stride is large and some outer dim
 *   walks the source more tightly, the two dims are copied in square blocks (a transpose), so
 *   each source cache line is used by several runs while it is still cached;
 * - a packed copy far larger than the caches uses the streaming (non-temporal) kernel;
 * - runs packed one after the other in the destination (a TILE's repeats, a SLICE's rows) are
 *   copied by one rows kernel call per panel, not one walk step and call per run;
 * - long packed runs that do not stream, up to L2's size (or in a call that stays in L2, or
 *   where the caller asks: DMLCPU_STREAM_STRING), go through the rows kernel too, each as one
 *   row stored as into a destination not cached (on x86 a line in vectors, then the string
 *   copy, as glibc's memcpy copies it; LONG_RUN_CACHED below);
 * - a gather whose runs each read a long, dense stretch of source prefetches the next run's
 *   stretch while it copies this one.
 */
#include "dispatch.h"
#include "walk.h"

#include <string.h>

/* Streamed runs must be long enough: a run's partial first and last cache lines are written
 * normally, and short runs sharing lines with their neighbours made streaming several times
 * slower (benchmarks/NOTES.md). Shorter runs packed one after the other in the destination are
 * copied as rows (PANEL_ROWS); longer ones stay runs, which the threads can also cut in pieces
 * (a SLICE of 32 rows of 192 KiB as rows was one chunk, and took as long on two threads as on
 * one). */
#define STREAM_MIN_RUN_BYTES ((int64_t)16 << 10)
/*
 * The rows kernel stores aligned vectors across row boundaries into a cached destination and
 * unaligned ones row by row into one that is not; which it is, a call cannot tell, so rows of
 * ROWS_UNALIGNED_MIN_BYTES and more are taken to be cached where the call stays in L2
 * (dmlcpu_stays_in_l2, the rule for long packed runs too), shorter ones always. Before, every
 * row length was taken to be cached where each thread wrote less than the streaming threshold.
 * Timed in rounds ordered as a balanced Latin square (each library after every other equally
 * often), TILE (r,1,1024) x (1,64,1) at 8 MiB, float16 to float64 (rows of 2-8 KiB), took
 * 1.38-1.43x as long cold with aligned stores and 0.83-0.91x warm at one thread, 1.08-1.24x and
 * 0.75-0.85x at two; int8 (1 KiB rows) 0.98-1.06x cold and 0.77x warm (benchmarks/NOTES.md).
 * Aligned had won cold (1.06-1.07x) in A/B rounds turned A B C, B C A, C A B with no memcpy in
 * the rotation, and lost 4-8% with one.
 */
#define ROWS_UNALIGNED_MIN_BYTES 2048
/*
 * A long packed run that does not stream is not stored as into a cached destination (the rows
 * kernel's aligned walk). In a call that stays in L2: where the destination is cached, as when
 * calls come back to back, the walk and the string copy took the same time (0.99-1.00x), and
 * where it is not, as when other work ran between calls, the string copy, which writes whole
 * lines without reading them first, was 1.00-1.08x as fast (the window SLICE at 512 KiB, one
 * thread, every width, three processes). Beyond L2 (under the streaming threshold, or a rewrite
 * written cached), against unaligned vectors, from the last-level cache: 1.00-1.21x as fast at
 * 2 MiB on one thread (SPLIT and JOIN along axis 1, the window SLICE, TILE (1,c,32,32)'s
 * replicas; int8 and float64), 0.94-1.17x for TILE's replicas at 8 MiB on two threads; from
 * memory (96 MiB copied between calls) 0.88-1.20x the time, runs of 1.5 MiB 1.08-1.09x on one
 * thread (AMD Zen 4; benchmarks/NOTES.md). So, as glibc's memcpy on AMD, the string copy takes
 * runs up to L2's size (DMLCPU_L2_CALL_BYTES) and vectors the longer ones. JOIN's and SPLIT's
 * blocks in L2 go so where every block is 16 KiB or longer (group_nd.c, STRING_MIN_BLOCK_BYTES).
 */
#define LONG_RUN_CACHED 0
/*
 * Rows read from a source that stays cached are taken as cached too, wherever they are written: a
 * TILE's (it reads at most 1/CACHED_SOURCE_MIN_REPEATS of what it writes). The rows kernel then
 * walks them aligned, asking for each destination line ahead, whatever the row length. On an
 * Intel Xeon VM, TILE (r,1,1024) x (1,64,1) at 8 MiB (rows of 1-8 KiB), against the string copy
 * row by row: two threads 1.05-2.0x as fast cold and 1.10-1.44x warm, one thread 0.97-1.03x
 * (benchmarks/NOTES.md). Beyond L2 (streamed or not), rows of 2 KiB and more go by the string
 * copy instead, cached, if each thread's part fits its share of the last-level cache as reported
 * (cache.c, dmlcpu_writes_by_string_copy: never on that VM, whose reported share is its host's).
 * On AMD Zen 4, the same TILE at 8 MiB, float16-float64, the bench beside the peers, six
 * processes each way: two threads cold 0.88-1.20x the best peer by the walk, 1.16-1.31x by the
 * string copy, warm alike; one thread warm (its rewrites, written cached) 0.96-1.02x, 1.06-1.13x.
 */
#define CACHED_SOURCE_MIN_REPEATS 4
/*
 * Blocked transpose: when the destination is packed, the source's inner stride is at least
 * TRANSPOSE_MIN_STRIDE bytes and a destination row touches more source lines than the caches
 * keep comfortably (TRANSPOSE_MIN_RUN elements, one line each), copy blocks so each source line
 * is used by several rows while cached. Below that the plain row loop was as fast or faster
 * (1000x3000 float32: 2.0 ms plain vs 3.8 ms blocked; 4096x4096: 120 ms plain vs 54 ms
 * blocked with 32-byte x 32-row blocks, the best of the sizes tried: benchmarks/NOTES.md).
 */
#define TRANSPOSE_MIN_STRIDE 256
#define TRANSPOSE_MIN_RUN 2048
#define TRANSPOSE_BLOCK_BYTES 32
#define TRANSPOSE_BLOCK_ROWS 32
/*
 * A gather's runs whose source stretch is at least this long prefetch the next run's: where
 * the runs are apart in the source (SLICE [:, 1::2, 3:900:3]: every other 4 KiB row) the
 * hardware prefetchers retrain at each row. That SLICE took 0.65-0.92 of the time at 32-128 MiB,
 * one and two threads, int8 (897-byte stretches) and float32 (3.6 KiB) alike, and the same or
 * less at 8 MiB; two or four runs ahead measured the same as one (benchmarks/NOTES.md).
 */
#define PREFETCH_MIN_SPAN_BYTES 512
/* Only where at least four elements share each line of the stretch. Sparser ones cost more in
 * prefetches than the prefetchers lost (single thread, every other 8 KiB row, none / prefetch:
 * float64 at 24 and 48 bytes apart 0.86-0.95 at 8 and 32 MiB, float32 at 48 bytes 0.95, int8
 * mixed: 0.88-0.93 at 8 MiB, 1.09-1.18 at 32 MiB; benchmarks/NOTES.md). */
#define PREFETCH_MAX_STRIDE_BYTES 15
/* Of a longer stretch only its first bytes up to here: the prefetchers take it on from there,
 * and a prefetch per line of a 1.8-3.6 KiB stretch stalled the copy (full fill buffers) in L2.
 * That SLICE, float16 and float32, against the whole stretch: 512 KiB 1.04-1.18x as fast, 8 MiB
 * 0.97-1.13x, 32 MiB 1.00-1.05x; float64 0.97-1.04x (benchmarks/NOTES.md). */
#define PREFETCH_MAX_SPAN_BYTES 1024

/*
 * One copy, planned: dims [0, outer) are walked by the odometer; each step copies a "panel":
 * one run (PANEL_RUN), or dims outer (rows) and outer + 1 (the run) together, in square blocks
 * (PANEL_BLOCKED) or into a packed destination (PANEL_ROWS; where enough outer steps remain to
 * share, the dim outside the rows too, as groups of rows, a rows kernel call each). Parallel
 * work is either a range of flat outer indices, or (split_panel) a range of the panel's rows /
 * run elements for every outer index.
 */
typedef enum panel_kind { PANEL_RUN = 0, PANEL_BLOCKED = 1, PANEL_ROWS = 2 } panel_kind;

typedef struct copy_plan {
    const dmlcpu_pair *p;
    dmlcpu_copy_run_fn kernel;
    size_t unit;          /* bytes per kernel element: elsize, or 1 for a packed run of bytes */
    int32_t outer;        /* dims walked by the odometer */
    panel_kind kind;
    int streams;          /* non-temporal stores: fence after the chunk */
    dmlcpu_copy_rows_fn rows_kernel; /* PANEL_ROWS; for PANEL_RUN, set for a long run in L2 */
    int rows_cached;      /* PANEL_ROWS: the destination is taken to be in cache, or the source */
    int64_t rows, run;    /* panel shape: rows = 1 for PANEL_RUN; run in kernel elements */
    ptrdiff_t row_ds, row_ss, ds, ss;
    int64_t groups;       /* PANEL_ROWS: groups of rows in the panel (1: the rows alone) */
    ptrdiff_t group_ds, group_ss;
    int64_t outer_count;  /* product of sizes[0, outer) */
    int split_panel;
    int64_t panel_split;  /* rows (or, for PANEL_RUN, run elements) split across chunks */
    int64_t split_align;  /* chunk boundaries are multiples of this */
    int prefetch;         /* PANEL_RUN: prefetch the next run's source stretch */
} copy_plan;

static void copy_panel(const copy_plan *c, char *dst, const char *src, int64_t lo, int64_t hi) {
    if (c->kind == PANEL_RUN && c->rows_kernel != NULL) { /* a long packed run, one row */
        c->rows_kernel(dst + lo, src + lo, 0, (size_t)(hi - lo), 1, LONG_RUN_CACHED);
        return;
    }
    if (c->kind == PANEL_RUN) {
        c->kernel(dst + lo * c->ds, c->ds, src + lo * c->ss, c->ss, (size_t)(hi - lo));
        return;
    }
    if (c->kind == PANEL_ROWS) {
        for (int64_t g = 0; g < c->groups; g++, dst += c->group_ds, src += c->group_ss)
            c->rows_kernel(dst + lo * c->row_ds, src + lo * c->row_ss, c->row_ss, (size_t)c->run,
                           (size_t)(hi - lo), c->rows_cached);
        return;
    }
    /* rows [lo, hi) of the panel, in blocks; each block reads a narrow band of source lines */
    int64_t bcols = TRANSPOSE_BLOCK_BYTES / (int64_t)c->unit;
    if (bcols < 4) bcols = 4;
    for (int64_t r0 = lo; r0 < hi; r0 += TRANSPOSE_BLOCK_ROWS) {
        int64_t r1 = r0 + TRANSPOSE_BLOCK_ROWS < hi ? r0 + TRANSPOSE_BLOCK_ROWS : hi;
        for (int64_t c0 = 0; c0 < c->run; c0 += bcols) {
            size_t n = (size_t)(c0 + bcols < c->run ? bcols : c->run - c0);
            for (int64_t r = r0; r < r1; r++)
                c->kernel(dst + r * c->row_ds + c0 * c->ds, c->ds,
                          src + r * c->row_ss + c0 * c->ss, c->ss, n);
        }
    }
}

/* Outer flat indices [begin, end), each panel limited to [lo, hi). With c->prefetch a second
 * walk runs one step ahead and the next run's source stretch is prefetched before this run is
 * copied (it lies inside the source: the walk stops at the range's last index). */
static void copy_range(const copy_plan *c, int64_t begin, int64_t end, int64_t lo, int64_t hi) {
    char *at[2], *ahead[2];
    dmlcpu_walk w, next;
    dmlcpu_walk_start(&w, c->outer, c->p->sizes, 2, c->p->op, at, begin);
    dmlcpu_walk_start(&next, c->outer, c->p->sizes, 2, c->p->op, ahead, begin);
    for (int64_t i = begin; i < end; i++) {
        if (i > begin) dmlcpu_walk_step(&w);
        if (c->prefetch && i + 1 < end) {
            dmlcpu_walk_step(&next);
            const char *first = ahead[DMLCPU_SRC] + lo * c->ss;
            int64_t span = (hi - 1 - lo) * c->ss; /* to the last element read */
            if (span > PREFETCH_MAX_SPAN_BYTES) span = PREFETCH_MAX_SPAN_BYTES;
            for (int64_t offset = 0; offset < span; offset += 64) dmlcpu_prefetch(first + offset);
            dmlcpu_prefetch(first + span);
        }
        copy_panel(c, at[DMLCPU_DST], at[DMLCPU_SRC], lo, hi);
    }
}

static void copy_chunk(void *ctx, int chunk, int chunks) {
    const copy_plan *c = ctx;
    int64_t lo, hi;
    if (c->split_panel) {
        dmlcpu_share(c->panel_split, c->split_align, chunk, chunks, &lo, &hi);
        if (lo < hi) copy_range(c, 0, c->outer_count, lo, hi);
    } else {
        dmlcpu_share(c->outer_count, 1, chunk, chunks, &lo, &hi);
        copy_range(c, lo, hi, 0, c->kind == PANEL_RUN ? c->run : c->rows);
    }
    if (c->streams) dmlcpu_store_fence(); /* before this thread reports the chunk done */
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

void dmlcpu_copy_pair(const dmlcpu_pair *p, size_t elsize, int stream, int64_t call_bytes) {
    const dmlcpu_dispatch *table = dmlcpu_dispatch_table();
    const int64_t *dst_strides = p->op[DMLCPU_DST].strides;
    const int64_t *src_strides = p->op[DMLCPU_SRC].strides;
    int w = dmlcpu_width_index(elsize);
    int32_t inner = p->ndim - 1;
    copy_plan c; /* every field set here or below: zeroing it all took longer than a tiny copy */
    c.p = p;
    c.kind = PANEL_RUN;
    c.streams = c.split_panel = c.prefetch = c.rows_cached = 0;
    c.rows_kernel = NULL;
    c.row_ds = c.row_ss = c.group_ds = c.group_ss = 0;
    c.groups = 1;
    c.panel_split = c.split_align = 0;
    c.ds = (ptrdiff_t)dst_strides[inner];
    c.ss = (ptrdiff_t)src_strides[inner];
    c.run = p->sizes[inner];
    c.unit = elsize;
    c.rows = 1;
    dmlcpu_run_layout layout = dmlcpu_run_layout_of(c.ds, c.ss, elsize);
    c.kernel = table->copy.run[w][layout];

    /* saturates: only a caller that broke the no-self-overlap contract could reach it. A source
     * dim of stride 0 (TILE's repeats of a cached block) is read once, not once per step. */
    int64_t total_bytes = (int64_t)elsize, read_bytes = (int64_t)elsize;
    for (int32_t d = 0; d < p->ndim; d++) {
        if (dmlcpu_mul_overflows(total_bytes, p->sizes[d], &total_bytes)) total_bytes = INT64_MAX;
        if (src_strides[d] != 0 && dmlcpu_mul_overflows(read_bytes, p->sizes[d], &read_bytes))
            read_bytes = INT64_MAX;
    }
    int by_string_copy = stream == DMLCPU_STREAM_STRING; /* cached, long runs as below */
    if (by_string_copy) stream = 0;
    int streams = stream == DMLCPU_STREAM_AUTO ? dmlcpu_streams(total_bytes, read_bytes) : stream;
    uint64_t asked_at = 0; /* when this copy asked whether it rewrites the last output */
    if (stream == DMLCPU_STREAM_AUTO && streams)
        streams = dmlcpu_streams_unless_rewrite(p->op[DMLCPU_DST].data, total_bytes, read_bytes,
                                                &asked_at);

    if (layout == DMLCPU_RUN_CONTIGUOUS) {
        /* the contiguous kernel takes bytes, so one width serves all */
        c.kernel = table->copy.run[0][layout];
        c.unit = 1;
        c.run *= (int64_t)elsize;
        c.ds = c.ss = 1;
        /* the whole operator call's output, where this copy is one piece of it (asked whether
         * it stays in L2 only by the branches below that need it: not on a tiny call's path) */
        int64_t call = call_bytes > 0 ? call_bytes : total_bytes;
        if (streams && c.run >= STREAM_MIN_RUN_BYTES &&
            table->copy.stream != NULL) {
            c.kernel = table->copy.stream;
            c.streams = 1;
        } else if (c.run >= STREAM_MIN_RUN_BYTES &&
                   (by_string_copy || c.run < DMLCPU_L2_CALL_BYTES ||
                    dmlcpu_stays_in_l2(call))) {
            /* the run as one row (LONG_RUN_CACHED); any length where the caller asks */
            c.rows_kernel = table->copy.rows;
        } else if (inner >= 1 && dst_strides[inner - 1] == c.run &&
                   c.run < STREAM_MIN_RUN_BYTES) {
            /* shorter runs, but packed one after the other in the destination: one call for
             * them all, streamed in whole aligned lines where the output streams */
            c.kind = PANEL_ROWS;
            int cached_source = read_bytes <= total_bytes / CACHED_SOURCE_MIN_REPEATS;
            /* writing only, rows the string copy takes, streamed or beyond L2: by it where the
             * output fits the cache (cache.c, dmlcpu_writes_by_string_copy) */
            int by_string = cached_source && c.run >= ROWS_UNALIGNED_MIN_BYTES &&
                            (streams || !dmlcpu_stays_in_l2(call)) &&
                            dmlcpu_writes_by_string_copy(total_bytes);
            c.streams = streams && !by_string && c.run >= 64 && table->copy.stream_rows != NULL;
            c.rows_kernel = c.streams ? table->copy.stream_rows : table->copy.rows;
            c.rows_cached = !by_string && (c.run < ROWS_UNALIGNED_MIN_BYTES ||
                                           dmlcpu_stays_in_l2(call) || cached_source);
            c.rows = p->sizes[inner - 1];
            c.row_ds = (ptrdiff_t)dst_strides[inner - 1];
            c.row_ss = (ptrdiff_t)src_strides[inner - 1];
        }
    } else if (layout == DMLCPU_RUN_GATHER && inner >= 1 && abs64(c.ss) >= TRANSPOSE_MIN_STRIDE &&
               c.run >= TRANSPOSE_MIN_RUN && abs64(src_strides[inner - 1]) < abs64(c.ss) &&
               p->sizes[inner - 1] >= 2 * 8) {
        c.kind = PANEL_BLOCKED;
        c.rows = p->sizes[inner - 1];
        c.row_ds = (ptrdiff_t)dst_strides[inner - 1];
        c.row_ss = (ptrdiff_t)src_strides[inner - 1];
    }
    c.outer = inner - (c.kind == PANEL_RUN ? 0 : 1);
    c.outer_count = 1;
    c.prefetch = c.kind == PANEL_RUN && layout == DMLCPU_RUN_GATHER && c.ss > 0 &&
                 c.ss <= PREFETCH_MAX_STRIDE_BYTES &&
                 (c.run - 1) * (int64_t)c.ss >= PREFETCH_MIN_SPAN_BYTES; /* within the view */
    for (int32_t d = 0; d < c.outer; d++) c.outer_count *= p->sizes[d]; /* <= the element count */

    int chunks = dmlcpu_chunks_for(total_bytes, INT64_MAX);
    if (c.kind == PANEL_ROWS && c.outer >= 1 &&
        c.outer_count / p->sizes[c.outer - 1] >= (chunks > 1 ? 4 * (int64_t)chunks : 1)) {
        /* the dim outside the rows walked in the panel, where the threads can still share the
         * outer steps evenly: with a walk step per group of rows, a TILE (1,c,32,32) x (8,1,4,4)
         * float64 taken straight at 8 MiB (groups of four 256-byte rows) took 1.09-1.12x as long
         * warm on one thread (benchmarks/NOTES.md) */
        c.outer--;
        c.groups = p->sizes[c.outer];
        c.group_ds = (ptrdiff_t)dst_strides[c.outer];
        c.group_ss = (ptrdiff_t)src_strides[c.outer];
        c.outer_count /= c.groups;
    }
    if (chunks > 1 && c.outer_count < chunks) {
        /* too few outer steps to share: cut each panel instead */
        c.split_panel = 1;
        c.panel_split = c.kind == PANEL_RUN ? c.run : c.rows;
        c.split_align = c.kind != PANEL_RUN ? TRANSPOSE_BLOCK_ROWS : (c.unit == 1 ? 64 : 16);
        int64_t pieces = (c.panel_split + c.split_align - 1) / c.split_align;
        chunks = dmlcpu_chunks_for(total_bytes, pieces);
    }
    dmlcpu_parallel(copy_chunk, &c, chunks);
    if (asked_at != 0) dmlcpu_wrote_output(p->op[DMLCPU_DST].data, asked_at);
}

dmlcpu_status dmlcpu_copy_streamed(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize,
                                   int stream, int64_t call_bytes) {
    dmlcpu_pair pair;
    int empty;
    if (dmlcpu_width_index(elsize) < 0) return DMLCPU_E_INVALID;
    dmlcpu_status status = dmlcpu_pair_init(&pair, dst, src, elsize, &empty);
    if (status != DMLCPU_OK || empty) return status;
    dmlcpu_pair_normalize(&pair);
    dmlcpu_copy_pair(&pair, elsize, stream, call_bytes);
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_copy(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize) {
    return dmlcpu_copy_streamed(dst, src, elsize, DMLCPU_STREAM_AUTO, 0);
}

/* dmlcpu_copy_streamed's checks and normalization, on offsets; a run is then dmlcpu_copy_pair.
 * (A tiny copy spent half its time in them.) */
dmlcpu_status dmlcpu_copy_prepare(dmlcpu_prepared_copy *prepared, const dmlcpu_view *dst,
                                  const dmlcpu_view *src, size_t elsize) {
    dmlcpu_pair pair;
    int64_t shifts[2];
    int empty;
    if (prepared == NULL || dmlcpu_width_index(elsize) < 0) return DMLCPU_E_INVALID;
    dmlcpu_status status = dmlcpu_pair_init_unplaced(&pair, dst, src, elsize, &empty);
    if (status != DMLCPU_OK) return status;
    memset(prepared, 0, sizeof *prepared); /* every slot set: a run copies the arrays whole */
    prepared->elsize = elsize;
    prepared->ndim = empty ? 0 : dmlcpu_normalize_dims(pair.ndim, pair.sizes, pair.op, 2, shifts);
    for (int32_t d = 0; d < prepared->ndim; d++) {
        prepared->sizes[d] = pair.sizes[d];
        for (int k = 0; k < 2; k++) prepared->strides[k][d] = pair.op[k].strides[d];
    }
    for (int k = 0; k < 2 && !empty; k++) /* within int64: the view's bytes are (checked) */
        prepared->offsets[k] = (int64_t)(intptr_t)(k ? src : dst)->data + shifts[k];
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_copy_prepared(const dmlcpu_prepared_copy *prepared, char *dst_base,
                                   const char *src_base) {
    dmlcpu_pair pair;
    if (prepared == NULL || prepared->ndim < 0 || prepared->ndim > DMLCPU_MAX_DIMS ||
        dmlcpu_width_index(prepared->elsize) < 0)
        return DMLCPU_E_INVALID;
    if (prepared->ndim == 0) return DMLCPU_OK;
    if (dst_base == NULL || src_base == NULL) return DMLCPU_E_INVALID;
    /* whole arrays, a fixed size each: gcc made loops of ndim words into three `rep movsq`,
     * whose start-up cost a tiny SLICE call about 12% of its time (0.48-0.49 -> 0.41-0.44 us
     * without them) */
    pair.ndim = prepared->ndim;
    memcpy(pair.sizes, prepared->sizes, sizeof pair.sizes);
    for (int k = 0; k < 2; k++)
        memcpy(pair.op[k].strides, prepared->strides[k], sizeof pair.op[k].strides);
    pair.op[DMLCPU_DST].data = dst_base + prepared->offsets[DMLCPU_DST];
    pair.op[DMLCPU_SRC].data = (char *)src_base + prepared->offsets[DMLCPU_SRC];
    dmlcpu_copy_pair(&pair, prepared->elsize, DMLCPU_STREAM_AUTO, 0);
    return DMLCPU_OK;
}
