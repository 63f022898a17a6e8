/*
 * The strided N-d copy driver and TILE by doubling.
 *
 * After normalization the innermost dim is the run a kernel copies and the others are an
 * odometer. Three refinements on that loop, each for a case where it measured faster:
 * - a large copy is cut into contiguous chunks run by the thread pool (outer indices when there
 *   are enough of them, else pieces of the run);
 * - when the destination is packed but the source's inner stride is large and some outer dim
 *   walks the source more tightly, the two dims are copied in square blocks (a transpose), so
 *   each source cache line is used by several runs while it is still cached;
 * - a packed copy far larger than the caches uses the streaming (non-temporal) kernel.
 */
#include "dispatch.h"

/* The thread and streaming thresholds (PARALLEL_*, STREAM_MIN_BYTES) are in internal.h, shared
 * with group_nd.c. Streamed runs must be long enough: a run's partial first and last cache lines
 * are written normally, and short runs sharing lines with their neighbours made streaming several
 * times slower. */
#define PARALLEL_MIN_BYTES DMLCPU_PARALLEL_MIN_BYTES
#define PARALLEL_CHUNK_BYTES DMLCPU_PARALLEL_CHUNK_BYTES
#define STREAM_MIN_BYTES DMLCPU_STREAM_MIN_BYTES
#define STREAM_MIN_RUN_BYTES ((int64_t)16 << 10)
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
    return dmlcpu_dispatch_table()->copy.run[w][layout];
}

/*
 * One copy, planned: dims [0, outer) are walked by the odometer; each step copies a "panel":
 * one run (PANEL_RUN), or dims outer (rows) and outer + 1 (the run) together, in square blocks
 * (PANEL_BLOCKED) or streamed into a packed destination (PANEL_ROWS). Parallel work is either a
 * range of flat outer indices, or (split_panel) a range of the panel's rows / run elements for
 * every outer index.
 */
typedef enum panel_kind { PANEL_RUN = 0, PANEL_BLOCKED = 1, PANEL_ROWS = 2 } panel_kind;

typedef struct copy_plan {
    const dmlcpu_pair *p;
    dmlcpu_copy_run_fn kernel;
    size_t unit;          /* bytes per kernel element: elsize, or 1 for a packed run of bytes */
    int32_t outer;        /* dims walked by the odometer */
    panel_kind kind;
    int streams;          /* non-temporal stores: fence after the chunk */
    dmlcpu_copy_rows_fn rows_kernel;
    int64_t rows, run;    /* panel shape: rows = 1 for PANEL_RUN; run in kernel elements */
    ptrdiff_t row_ds, row_ss, ds, ss;
    int64_t outer_count;  /* product of sizes[0, outer) */
    int split_panel;
    int64_t panel_split;  /* rows (or, for PANEL_RUN, run elements) split across chunks */
    int64_t split_align;  /* chunk boundaries are multiples of this */
} copy_plan;

static void copy_panel(const copy_plan *c, char *dst, const char *src, int64_t lo, int64_t hi) {
    if (c->kind == PANEL_RUN) {
        c->kernel(dst + lo * c->ds, c->ds, src + lo * c->ss, c->ss, (size_t)(hi - lo));
        return;
    }
    if (c->kind == PANEL_ROWS) {
        c->rows_kernel(dst + lo * c->row_ds, src + lo * c->row_ss, c->row_ss, (size_t)c->run,
                       (size_t)(hi - lo));
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

/* Outer flat indices [begin, end), each panel limited to [lo, hi). */
static void copy_range(const copy_plan *c, int64_t begin, int64_t end, int64_t lo, int64_t hi) {
    const dmlcpu_pair *p = c->p;
    int64_t index[DMLCPU_MAX_DIMS] = {0};
    char *dst = p->dst;
    const char *src = p->src;
    int64_t rest = begin;
    for (int32_t d = c->outer - 1; d >= 0; d--) {
        index[d] = rest % p->sizes[d];
        rest /= p->sizes[d];
        dst += index[d] * p->dst_strides[d];
        src += index[d] * p->src_strides[d];
    }
    for (int64_t i = begin; i < end; i++) {
        copy_panel(c, dst, src, lo, hi);
        if (i + 1 == end) break; /* never step the pointers past the last panel */
        for (int32_t d = c->outer - 1; d >= 0; d--) {
            dst += p->dst_strides[d];
            src += p->src_strides[d];
            if (++index[d] < p->sizes[d]) break;
            dst -= p->dst_strides[d] * p->sizes[d];
            src -= p->src_strides[d] * p->sizes[d];
            index[d] = 0;
        }
    }
}

/* Start of chunk i of n: an even share of [0, total) on multiples of align (no overflow). */
static int64_t share_start(int64_t total, int64_t align, int i, int n) {
    int64_t units = total / align + (total % align != 0);
    int64_t q = units / n, r = units % n;
    int64_t start = i * q + (i < r ? i : r); /* in units of align */
    return start >= units ? total : start * align;
}

static void share(int64_t total, int64_t align, int i, int n, int64_t *lo, int64_t *hi) {
    *lo = share_start(total, align, i, n);
    *hi = share_start(total, align, i + 1, n);
}

static void copy_chunk(void *ctx, int chunk, int chunks) {
    const copy_plan *c = ctx;
    int64_t lo, hi;
    if (c->split_panel) {
        share(c->panel_split, c->split_align, chunk, chunks, &lo, &hi);
        if (lo < hi) copy_range(c, 0, c->outer_count, lo, hi);
    } else {
        share(c->outer_count, 1, chunk, chunks, &lo, &hi);
        copy_range(c, lo, hi, 0, c->kind == PANEL_RUN ? c->run : c->rows);
    }
    if (c->streams) dmlcpu_store_fence(); /* before this thread reports the chunk done */
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

void dmlcpu_copy_pair(const dmlcpu_pair *p, size_t elsize) {
    const dmlcpu_dispatch *table = dmlcpu_dispatch_table();
    int w = width_index(elsize);
    int32_t inner = p->ndim - 1;
    copy_plan c = {0};
    c.p = p;
    c.ds = (ptrdiff_t)p->dst_strides[inner];
    c.ss = (ptrdiff_t)p->src_strides[inner];
    c.run = p->sizes[inner];
    c.unit = elsize;
    c.rows = 1;
    dmlcpu_run_layout layout = dmlcpu_run_layout_of(c.ds, c.ss, elsize);
    c.kernel = table->copy.run[w][layout];

    /* saturates: only a caller that broke the no-self-overlap contract could reach it */
    int64_t total_bytes = (int64_t)elsize;
    for (int32_t d = 0; d < p->ndim; d++)
        if (dmlcpu_mul_overflows(total_bytes, p->sizes[d], &total_bytes)) total_bytes = INT64_MAX;

    if (layout == DMLCPU_RUN_CONTIGUOUS) {
        /* the contiguous kernel takes bytes, so one width serves all */
        c.kernel = table->copy.run[0][layout];
        c.unit = 1;
        c.run *= (int64_t)elsize;
        c.ds = c.ss = 1;
        if (total_bytes >= STREAM_MIN_BYTES && c.run >= STREAM_MIN_RUN_BYTES &&
            table->copy.stream != NULL) {
            c.kernel = table->copy.stream;
            c.streams = 1;
        } else if (total_bytes >= STREAM_MIN_BYTES && inner >= 1 && c.run >= 64 &&
                   p->dst_strides[inner - 1] == c.run && table->copy.stream_rows != NULL) {
            /* shorter runs, but packed one after the other in the destination */
            c.kind = PANEL_ROWS;
            c.streams = 1;
            c.rows_kernel = table->copy.stream_rows;
            c.rows = p->sizes[inner - 1];
            c.row_ds = (ptrdiff_t)p->dst_strides[inner - 1];
            c.row_ss = (ptrdiff_t)p->src_strides[inner - 1];
        }
    } else if (layout == DMLCPU_RUN_GATHER && inner >= 1 && abs64(c.ss) >= TRANSPOSE_MIN_STRIDE &&
               c.run >= TRANSPOSE_MIN_RUN && abs64(p->src_strides[inner - 1]) < abs64(c.ss) &&
               p->sizes[inner - 1] >= 2 * 8) {
        c.kind = PANEL_BLOCKED;
        c.rows = p->sizes[inner - 1];
        c.row_ds = (ptrdiff_t)p->dst_strides[inner - 1];
        c.row_ss = (ptrdiff_t)p->src_strides[inner - 1];
    }
    c.outer = inner - (c.kind == PANEL_RUN ? 0 : 1);
    c.outer_count = 1;
    for (int32_t d = 0; d < c.outer; d++) c.outer_count *= p->sizes[d]; /* <= the element count */

    int threads = 1;
    if (total_bytes >= PARALLEL_MIN_BYTES) {
        int64_t by_size = total_bytes / PARALLEL_CHUNK_BYTES;
        threads = dmlcpu_get_num_threads();
        if (by_size < threads) threads = (int)by_size;
    }
    if (threads > 1 && c.outer_count < threads) {
        /* too few outer steps to share: cut each panel instead */
        c.split_panel = 1;
        c.panel_split = c.kind == PANEL_RUN ? c.run : c.rows;
        c.split_align = c.kind != PANEL_RUN ? TRANSPOSE_BLOCK_ROWS : (c.unit == 1 ? 64 : 16);
        int64_t pieces = (c.panel_split + c.split_align - 1) / c.split_align;
        if (pieces < threads) threads = (int)pieces;
    }
    if (threads > 1) {
        dmlcpu_parallel(copy_chunk, &c, threads);
    } else {
        copy_chunk(&c, 0, 1);
    }
}

dmlcpu_status dmlcpu_copy(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize) {
    dmlcpu_pair pair;
    int empty;
    if (width_index(elsize) < 0) return DMLCPU_E_INVALID;
    dmlcpu_status status = dmlcpu_pair_init(&pair, dst, src, elsize, &empty);
    if (status != DMLCPU_OK || empty) return status;
    dmlcpu_pair_normalize(&pair);
    dmlcpu_copy_pair(&pair, elsize);
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
