/*
 * The strided N-d copy driver.
 *
 * After normalization the innermost dim is the run a kernel copies and the others are walked by
 * the odometer (walk.h). Refinements on that loop:
 * - a large copy is cut into contiguous chunks run by the thread pool (outer indices when there
 *   are enough of them, else pieces of the run); how many, the policy says (policy.c);
 * - when the destination is packed but the source's inner stride is large and some outer dim
 *   walks the source more tightly, the two dims are copied in square blocks (a transpose), so
 *   each source cache line is used by several runs while it is still cached;
 * - a packed copy is stored as the policy says (dmlcpu_policy_copy_store): long runs streamed or
 *   by the string copy (as glibc's memcpy copies them: a line in vectors, then rep movsb), runs
 *   packed one after the other in the destination (a TILE's repeats, a SLICE's rows) by one rows
 *   kernel call per panel, aligned, by the string copy or streamed;
 * - a gather whose runs each read a long, dense stretch of source prefetches the next run's
 *   stretch while it copies this one.
 */
#include "dispatch.h"
#include "policy.h"
#include "walk.h"

#include <string.h>

/* The rows kernel's `cached` for a long run stored as one row: not cached, so that it goes by
 * the string copy (decisions.md "long runs"). */
#define LONG_RUN_CACHED 0
/*
 * The walk's shapes (how the odometer steps, not how the output is stored; decisions.md "walk
 * shapes"). Blocked transpose: when the destination is packed, the source's inner stride is at
 * least TRANSPOSE_MIN_STRIDE bytes and a destination row touches more source lines than the
 * caches keep comfortably (TRANSPOSE_MIN_RUN elements, one line each), copy blocks of
 * TRANSPOSE_BLOCK_BYTES x TRANSPOSE_BLOCK_ROWS so each source line is used by several rows while
 * cached; below that the plain row loop is as fast.
 */
#define TRANSPOSE_MIN_STRIDE 256
#define TRANSPOSE_MIN_RUN 2048
#define TRANSPOSE_BLOCK_BYTES 32
#define TRANSPOSE_BLOCK_ROWS 32
/*
 * A gather whose runs each read a source stretch of at least PREFETCH_MIN_SPAN_BYTES, dense
 * enough that four elements or more share each line (PREFETCH_MAX_STRIDE_BYTES), prefetches
 * the next run's stretch, its first PREFETCH_MAX_SPAN_BYTES only: where the runs lie apart in
 * the source the hardware prefetchers retrain at each run, and take a stretch on by themselves
 * once it has started (a prefetch per line of a long stretch filled the fill buffers).
 */
#define PREFETCH_MIN_SPAN_BYTES 512
#define PREFETCH_MAX_STRIDE_BYTES 15
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
    const dmlcpu_tuning *tuning = dmlcpu_tuning_now();
    int threads = dmlcpu_threads_for(total_bytes);

    if (layout == DMLCPU_RUN_CONTIGUOUS) {
        /* the contiguous kernel takes bytes, so one width serves all */
        c.kernel = table->copy.run[0][layout];
        c.unit = 1;
        c.run *= (int64_t)elsize;
        c.ds = c.ss = 1;
        dmlcpu_copy_facts facts = {total_bytes, read_bytes, call_bytes, c.run,
                                   inner >= 1 && dst_strides[inner - 1] == c.run, threads,
                                   stream, table->copy.stream != NULL,
                                   table->copy.stream_rows != NULL};
        dmlcpu_store store = dmlcpu_policy_copy_store(tuning, &facts);
        switch (store) {
        case DMLCPU_STORE_STREAM:
            c.kernel = table->copy.stream;
            c.streams = 1;
            break;
        case DMLCPU_STORE_STRING: /* the run as one row (LONG_RUN_CACHED) */
            c.rows_kernel = table->copy.rows;
            break;
        case DMLCPU_STORE_ROWS_ALIGNED:
        case DMLCPU_STORE_ROWS_STRING:
        case DMLCPU_STORE_ROWS_STREAM: /* one rows kernel call for the runs of a panel */
            c.kind = PANEL_ROWS;
            c.streams = store == DMLCPU_STORE_ROWS_STREAM;
            c.rows_kernel = c.streams ? table->copy.stream_rows : table->copy.rows;
            c.rows_cached = store == DMLCPU_STORE_ROWS_ALIGNED;
            c.rows = p->sizes[inner - 1];
            c.row_ds = (ptrdiff_t)dst_strides[inner - 1];
            c.row_ss = (ptrdiff_t)src_strides[inner - 1];
            break;
        default:
            break;
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
         * outer steps evenly: a walk step per group of a few short rows costs more than the
         * rows (decisions.md "walk shapes") */
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

/* dmlcpu_copy_streamed's checks and normalization, on offsets; a run is then dmlcpu_copy_pair
 * (a tiny copy spends half its time in them). */
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
     * whose start-up cost a tiny call about a tenth of its time */
    pair.ndim = prepared->ndim;
    memcpy(pair.sizes, prepared->sizes, sizeof pair.sizes);
    for (int k = 0; k < 2; k++)
        memcpy(pair.op[k].strides, prepared->strides[k], sizeof pair.op[k].strides);
    pair.op[DMLCPU_DST].data = dst_base + prepared->offsets[DMLCPU_DST];
    pair.op[DMLCPU_SRC].data = (char *)src_base + prepared->offsets[DMLCPU_SRC];
    dmlcpu_copy_pair(&pair, prepared->elsize, DMLCPU_STREAM_AUTO, 0);
    return DMLCPU_OK;
}
