/*
 * dmlcpu_copy, dmlcpu_copy_group and dmlcpu_tile against plain loops: every element width, every
 * run layout (packed, gather, scatter, both strided, broadcast), negative strides, long runs
 * that stream and get shared among threads, blocked transposes, JOIN/SPLIT groups.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const size_t WIDTHS[] = {1, 2, 4, 8};

static void reference_copy(const dmlcpu_view *dst, const dmlcpu_view *src, size_t e) {
    int64_t idx[DMLCPU_MAX_DIMS] = {0};
    if (test_count(dst) == 0) return;
    do memcpy(test_element(dst, idx, e), test_element(src, idx, e), e);
    while (test_next_index(idx, dst->sizes, dst->ndim));
}

/* One copy of sizes between views with the given element strides, checked byte for byte. */
static void copy_case(int32_t ndim, const int64_t *sizes, const int64_t *dst_strides,
                      const int64_t *src_strides, size_t e, const char *what) {
    test_buffer src, dst, expected;
    test_buffer_make(&src, ndim, sizes, src_strides, e, 0);
    test_buffer_make(&dst, ndim, sizes, dst_strides, e, 0xA5);
    test_buffer_clone(&expected, &dst);
    reference_copy(&expected.view, &src.view, e);
    CHECK(dmlcpu_copy(&dst.view, &src.view, e) == DMLCPU_OK, what);
    CHECK(test_buffer_equal(&dst, &expected), what);
    /* prepared on offsets from each allocation, then run on a fresh destination */
    test_buffer fresh;
    test_buffer_make(&fresh, ndim, sizes, dst_strides, e, 0xA5);
    dmlcpu_view dst_at = fresh.view, src_at = src.view;
    dst_at.data = (char *)(intptr_t)(fresh.view.data - (char *)fresh.base);
    src_at.data = (char *)(intptr_t)(src.view.data - (char *)src.base);
    dmlcpu_prepared_copy prepared;
    CHECK(dmlcpu_copy_prepare(&prepared, &dst_at, &src_at, e) == DMLCPU_OK, what);
    CHECK(dmlcpu_copy_prepared(&prepared, (char *)fresh.base, (char *)src.base) == DMLCPU_OK,
          what);
    CHECK(test_buffer_equal(&fresh, &expected), what);
    test_buffer_free(&fresh);
    test_buffer_free(&src);
    test_buffer_free(&dst);
    test_buffer_free(&expected);
}

static void runs_of_every_layout(size_t e) {
    /* {dst stride, src stride} in elements: packed, gathers, scatters, both strided, broadcast */
    static const int64_t layouts[][2] = {{1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, -1}, {1, -2},
                                         {2, 1}, {-3, 1}, {3, 2}, {2, -3}, {1, 0}, {-2, 0}};
    static const int64_t lengths[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                      100, 127, 128, 129, 255, 256, 257, 1031};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++) {
            copy_case(1, &lengths[n], &layouts[l][0], &layouts[l][1], e, "1-d run");
            /* the same runs under an outer dim, rows apart by more than a run */
            int64_t sizes[2] = {3, lengths[n]};
            int64_t ds[2] = {layouts[l][0] * (lengths[n] + 5), layouts[l][0]};
            int64_t step = layouts[l][1] ? layouts[l][1] : 1;
            int64_t ss[2] = {-(lengths[n] + 9) * step, layouts[l][1]};
            copy_case(2, sizes, ds, ss, e, "2-d runs");
            if (layouts[l][0] == 1 && layouts[l][1] == 1) {
                /* rows packed in the destination (the rows kernel), from source rows walked
                 * backwards and from one row repeated (a TILE's) */
                int64_t packed[2] = {lengths[n], 1}, back[2] = {-(lengths[n] + 9), 1};
                int64_t same[2] = {0, 1};
                copy_case(2, sizes, packed, back, e, "rows into a packed destination");
                copy_case(2, sizes, packed, same, e, "one row repeated, packed");
            }
        }
}

static void large_copies(size_t e) {
    /* 6 MiB packed, split among threads with misaligned ends: streamed (the threshold forced
     * to 0, whatever the cache), then as the detected rule says */
    int64_t n = ((int64_t)6 << 20) / (int64_t)e + 3, one = 1;
    dmlcpu_set_stream_threshold(0);
    copy_case(1, &n, &one, &one, e, "6 MiB packed, streamed");
    dmlcpu_set_stream_threshold(-1);
    copy_case(1, &n, &one, &one, e, "6 MiB packed");
    /* a blocked transpose, and one too thin to block */
    int64_t t_sizes[2] = {64, 4096}, t_dst[2] = {4096, 1}, t_src[2] = {1, 64};
    copy_case(2, t_sizes, t_dst, t_src, e, "64x4096 transpose");
    int64_t u_sizes[2] = {517, 2051}, u_dst[2] = {2051, 1}, u_src[2] = {1, 517};
    if (e == 4) copy_case(2, u_sizes, u_dst, u_src, e, "517x2051 transpose");
    /* 5 MiB of 100-byte rows into a packed destination: the row-streaming kernel (forced) */
    int64_t rows = ((int64_t)5 << 20) / 100, r_sizes[2] = {rows, 100 / (int64_t)e};
    int64_t r_dst[2] = {100 / (int64_t)e, 1}, r_src[2] = {128 / (int64_t)e, 1};
    dmlcpu_set_stream_threshold(0);
    copy_case(2, r_sizes, r_dst, r_src, e, "5 MiB of 100-byte rows");
    /* the same with ordinary stores (the rows kernel, its rows shared among threads), and one
     * row repeated (a TILE's: beyond L2, its destination lines prefetched) */
    dmlcpu_set_stream_threshold((int64_t)1 << 62);
    copy_case(2, r_sizes, r_dst, r_src, e, "5 MiB of 100-byte rows, cached");
    int64_t r_same[2] = {0, 1};
    copy_case(2, r_sizes, r_dst, r_same, e, "5 MiB of one 100-byte row");
    /* rows of 2 KiB and more beyond L2: row by row (on x86 the string copy); one row repeated:
     * prefetched as above (on one thread; on three each thread's share stays in L2) */
    int64_t l_row = 4100 / (int64_t)e, l_sizes[2] = {((int64_t)3 << 20) / 4100 + 1, l_row};
    int64_t l_dst[2] = {l_row, 1}, l_src[2] = {l_row + 3, 1};
    copy_case(2, l_sizes, l_dst, l_src, e, "3 MiB of 4100-byte rows");
    copy_case(2, l_sizes, l_dst, r_same, e, "3 MiB of one 4100-byte row");
    dmlcpu_set_stream_threshold(-1);
    /* 3-d, mixed signs, a gather too large for one thread */
    int64_t m_sizes[3] = {5, 300, 700}, m_dst[3] = {300 * 700, 700, 1};
    int64_t m_src[3] = {-(300 * 1500), 1500, 2};
    copy_case(3, m_sizes, m_dst, m_src, e, "3-d mixed strides");
    int64_t b_sizes[3] = {4, 1000, 600}, b_dst[3] = {600000, 600, 1}, b_src[3] = {1, 0, 0};
    copy_case(3, b_sizes, b_dst, b_src, e, "large broadcast fill");
}

void test_copies(void) {
    for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++) {
        runs_of_every_layout(WIDTHS[w]);
        if (WIDTHS[w] > 1) { /* elements off their natural alignment: no kernel may assume it */
            test_misalign = 1;
            runs_of_every_layout(WIDTHS[w]);
            test_misalign = 0;
        }
        large_copies(WIDTHS[w]);
    }
}

/* JOIN of parts along axis 1 of a (rows, sum of widths) output, then SPLIT back. */
static void group_case(int64_t rows, const int64_t *widths, int count, size_t e) {
    enum { MAXP = 10 };
    int64_t total = 0;
    for (int k = 0; k < count; k++) total += widths[k];
    int64_t out_sizes[2] = {rows, total}, out_strides[2] = {total, 1};
    test_buffer parts[MAXP], joined, expected, split[MAXP], split_expected[MAXP];
    dmlcpu_view dsts[MAXP], srcs[MAXP];
    test_buffer_make(&joined, 2, out_sizes, out_strides, e, 0x5A);
    test_buffer_clone(&expected, &joined);
    int64_t at = 0;
    for (int k = 0; k < count; k++) {
        int64_t sizes[2] = {rows, widths[k]}, strides[2] = {widths[k], 1};
        test_buffer_make(&parts[k], 2, sizes, strides, e, 0);
        srcs[k] = parts[k].view;
        dsts[k] = joined.view;
        dsts[k].data += at * (int64_t)e;
        dsts[k].sizes[1] = widths[k];
        dmlcpu_view into = dsts[k];
        into.data = expected.view.data + at * (int64_t)e;
        reference_copy(&into, &srcs[k], e);
        at += widths[k];
    }
    CHECK(dmlcpu_copy_group(dsts, srcs, (size_t)count, 1, e) == DMLCPU_OK, "JOIN group");
    CHECK(test_buffer_equal(&joined, &expected), "JOIN group");
    /* SPLIT: the joined output's blocks back into fresh parts */
    for (int k = 0; k < count; k++) {
        int64_t sizes[2] = {rows, widths[k]}, strides[2] = {widths[k], 1};
        test_buffer_make(&split[k], 2, sizes, strides, e, 0x3C);
        srcs[k] = dsts[k];
        dsts[k] = split[k].view;
        test_buffer_clone(&split_expected[k], &split[k]);
        reference_copy(&split_expected[k].view, &srcs[k], e);
    }
    CHECK(dmlcpu_copy_group(dsts, srcs, (size_t)count, 1, e) == DMLCPU_OK, "SPLIT group");
    for (int k = 0; k < count; k++) {
        CHECK(test_buffer_equal(&split[k], &split_expected[k]), "SPLIT group");
        test_buffer_free(&parts[k]);
        test_buffer_free(&split[k]);
        test_buffer_free(&split_expected[k]);
    }
    test_buffer_free(&joined);
    test_buffer_free(&expected);
}

static void reference_tile(const dmlcpu_view *dst, const dmlcpu_view *src, size_t e) {
    int64_t idx[DMLCPU_MAX_DIMS] = {0}, from[DMLCPU_MAX_DIMS];
    do {
        for (int32_t d = 0; d < dst->ndim; d++) from[d] = idx[d] % src->sizes[d];
        memcpy(test_element(dst, idx, e), test_element(src, from, e), e);
    } while (test_next_index(idx, dst->sizes, dst->ndim));
}

/* backwards: the input walked backwards, to be unlike the output (forwards, long runs are
 * copied straight from it) */
static void tile_case(int32_t ndim, const int64_t *in_sizes, const int64_t *repeats, size_t e,
                      int backwards) {
    int64_t out_sizes[DMLCPU_MAX_DIMS], in_strides[DMLCPU_MAX_DIMS], out_strides[DMLCPU_MAX_DIMS];
    int64_t in_step = 1, out_step = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        out_sizes[d] = in_sizes[d] * repeats[d];
        in_strides[d] = backwards ? -in_step : in_step;
        out_strides[d] = out_step;
        in_step *= in_sizes[d];
        out_step *= out_sizes[d];
    }
    test_buffer src, dst, expected;
    test_buffer_make(&src, ndim, in_sizes, in_strides, e, 0);
    test_buffer_make(&dst, ndim, out_sizes, out_strides, e, 0x77);
    test_buffer_clone(&expected, &dst);
    reference_tile(&expected.view, &src.view, e);
    CHECK(dmlcpu_tile(&dst.view, &src.view, e) == DMLCPU_OK, "tile");
    CHECK(test_buffer_equal(&dst, &expected), "tile");
    test_buffer_free(&src);
    test_buffer_free(&dst);
    test_buffer_free(&expected);
}

void test_groups_and_tiles(void) {
    static const int64_t small[] = {5, 1, 17}, wide[] = {33, 100, 17, 64}, long_[] = {1500, 2101};
    /* more parts than a thread's line carries, some shorter than a line: 288 elements each on
     * average, so they stream even at one byte */
    static const int64_t mixed[] = {600, 1, 517, 64, 255, 2, 900, 129, 77, 333};
    /* blocks of 256 bytes and more (any width) in a call that stays in L2: a JOIN's in one
     * aligned walk across the blocks (the blocks kernel), on threads where it is 600 KB; of
     * 1 KiB and more, with the destination prefetch. The SPLIT back: part by part in panels of
     * rows (the rows kernel). */
    static const int64_t joined[] = {300, 257, 1100}, joined_long[] = {1030, 1500};
    for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++) {
        size_t e = WIDTHS[w];
        group_case(7, small, 3, e);
        group_case(20000, wide, 4, e); /* the one pass, ordinary stores, on threads */
        group_case(600000 / (1657 * (int64_t)e), joined, 3, e);
        group_case(5, joined, 3, e);
        group_case(40, joined_long, 2, e);
        /* streamed (the threshold forced to 0, whatever the cache): blocks of a line and more
         * fill the JOIN's output in one walk of whole lines (the streamed blocks kernel), on
         * threads; the SPLIT back goes block by block */
        dmlcpu_set_stream_threshold(0);
        group_case(300, long_, 2, e);
        group_case(600000 / (1657 * (int64_t)e), joined, 3, e);
        group_case(1000, mixed, 10, e); /* lines carried from block to block, on threads */
        dmlcpu_set_stream_threshold(-1);
        int64_t a[3] = {3, 5, 7}, ra[3] = {2, 3, 4};
        tile_case(3, a, ra, e, 1);
        /* several MiB in blocks of at most 64 KiB, shared among the threads; then the limit
         * forced to 64 KiB (blocks up to 32 KiB doubled in every dim), streamed */
        int64_t b[4] = {1, 33, 17, 31}, rb[4] = {2, 2, 5, 7};
        tile_case(4, b, rb, e, 1);
        dmlcpu_set_tile_limit(64 << 10);
        dmlcpu_set_stream_threshold(0);
        tile_case(4, b, rb, e, 1);
        dmlcpu_set_tile_limit(-1);
        dmlcpu_set_stream_threshold(-1);
        int64_t c[1] = {1}, rc[1] = {1000};
        tile_case(1, c, rc, e, 1);
        int64_t f[3] = {3, 1, 700}, rf[3] = {2, 90, 1}; /* runs of 700 elements: straight */
        tile_case(3, f, rf, e, 0);
    }
}

void test_invalid_arguments(void) {
    int64_t n = 4, one = 1;
    test_buffer a, b;
    test_buffer_make(&a, 1, &n, &one, 4, 0);
    test_buffer_make(&b, 1, &n, &one, 4, 0);
    dmlcpu_view bad = a.view;
    CHECK(dmlcpu_copy(&a.view, &b.view, 3) == DMLCPU_E_INVALID, "element size 3 refused");
    bad.ndim = DMLCPU_MAX_DIMS + 1;
    CHECK(dmlcpu_copy(&bad, &b.view, 4) == DMLCPU_E_INVALID, "9 dims refused");
    bad = a.view;
    bad.sizes[0] = -1;
    CHECK(dmlcpu_copy(&bad, &b.view, 4) == DMLCPU_E_INVALID, "negative size refused");
    bad = a.view;
    bad.sizes[0] = 5;
    CHECK(dmlcpu_copy(&bad, &b.view, 4) == DMLCPU_E_INVALID, "size mismatch refused");
    bad = a.view;
    bad.sizes[0] = 3;
    bad.strides[0] = INT64_MAX / 2 + 1; /* 2 steps of 2^62 bytes: past int64 */
    dmlcpu_view b3 = b.view;
    b3.sizes[0] = 3;
    CHECK(dmlcpu_copy(&bad, &b3, 4) == DMLCPU_E_OVERFLOW, "byte offset overflow refused");
    dmlcpu_prepared_copy prepared;
    CHECK(dmlcpu_copy_prepare(&prepared, &bad, &b3, 4) == DMLCPU_E_OVERFLOW,
          "prepared byte offset overflow refused");
    CHECK(dmlcpu_copy_prepare(&prepared, &a.view, &b.view, 3) == DMLCPU_E_INVALID,
          "prepared element size 3 refused");
    bad = a.view;
    bad.sizes[0] = 5;
    CHECK(dmlcpu_copy_prepare(&prepared, &bad, &b.view, 4) == DMLCPU_E_INVALID,
          "prepared size mismatch refused");
    bad.data = NULL; /* offsets 0: allowed where views are prepared, refused by dmlcpu_copy */
    bad.sizes[0] = 4;
    CHECK(dmlcpu_copy_prepare(&prepared, &bad, &bad, 4) == DMLCPU_OK, "prepared at offset 0");
    CHECK(dmlcpu_copy(&bad, &b.view, 4) == DMLCPU_E_INVALID, "NULL data refused");
    CHECK(dmlcpu_copy_prepared(&prepared, NULL, (char *)b.view.data) == DMLCPU_E_INVALID,
          "prepared run at NULL refused");
    CHECK(dmlcpu_scan(&a.view, &b.view, (dmlcpu_dtype)12, 0, DMLCPU_SCAN_SUM, 0, 0)
              == DMLCPU_E_INVALID, "unknown dtype refused");
    CHECK(dmlcpu_scan(&a.view, &b.view, DMLCPU_FLOAT32, 1, DMLCPU_SCAN_SUM, 0, 0)
              == DMLCPU_E_INVALID, "axis out of range refused");
    CHECK(dmlcpu_scan(&a.view, &b.view, DMLCPU_FLOAT32, 0, (dmlcpu_scan_op)2, 0, 0)
              == DMLCPU_E_INVALID, "unknown scan op refused");
    CHECK(dmlcpu_tile(&a.view, &b.view, 4) == DMLCPU_OK, "tile by 1 is a copy");
    bad = a.view;
    bad.sizes[0] = 3;
    CHECK(dmlcpu_tile(&bad, &b.view, 4) == DMLCPU_E_INVALID, "tile by a non-multiple refused");
    CHECK(dmlcpu_set_num_threads(0) == DMLCPU_E_INVALID, "0 threads refused");
    CHECK(dmlcpu_set_num_threads(DMLCPU_MAX_THREADS + 1) == DMLCPU_E_INVALID, "257 refused");
    CHECK(dmlcpu_force_isa(DMLCPU_ISA_COUNT) == DMLCPU_E_INVALID, "unknown ISA refused");
    CHECK(dmlcpu_dtype_size(DMLCPU_FLOAT16) == 2 && dmlcpu_dtype_size(DMLCPU_INT64) == 8 &&
              dmlcpu_dtype_size(0) == 0, "dtype sizes");
    test_buffer_free(&a);
    test_buffer_free(&b);
}
