/*
 * Template (scan_types.h): the SIMD outer kernel of one type and operation, for the ISA units
 * (scan_<isa>.c), written against the lane primitives of simd/<isa>_scan.h for that type.
 */

/*
 * Outer kernel with explicit vectors: the same sweep as the portable outer kernel, W columns per
 * vector in the element's own width (FLOAT16 widened to float through F16C), SCAN_OUTER_ROWS rows
 * at a time. Each vector of columns carries its accumulators in a register down those rows, so
 * SCAN_ACC[] is read and written once per group of rows instead of once per row: the float32
 * (2048,4096) scan along axis 0 took 2.7 ms a row at a time, 2.1 four rows at a time (a memcpy
 * of its 32 MiB 2.5), and eight rows at a time were slower again (NOTES.md in git). Every
 * column still combines its rows in order, so the bits are those of the plain sequential loop;
 * each row's elements are read before they are written, so dst may be the identical view of src.
 * Each row's vectors are stored from the first address aligned to a vector's bytes (the columns
 * before it, and the tail, are scalar steps): stores straddling two lines, as into NumPy's large
 * arrays 16 bytes into a page, made an outer float32 scan in L2 take up to 1.8x as long
 * (NOTES.md in git). With DMLCPU_SCAN_STREAM those stores
 * are non-temporal: a large output then goes to memory without first being read into the
 * caches. Streaming rows sweep together only where they share that alignment.
 * Needs, besides the lane-wise operation and (fill): SCAN_OV(load) / (store) / (stream) (W
 * elements of memory <-> accumulator lanes; (stream) wants an address aligned to W * ES),
 * (acc_load) / (acc_store) (W accumulators from / to SCAN_ACC[]), and dmlcpu_ov_fence.
 */
#ifndef SCAN_OUTER_ROWS
#define SCAN_OUTER_ROWS 4
#define SCAN_OUTER_ALIAS_BYTES 512 /* see outer_rows */
#endif

/* Columns [j, end) of `rows` rows, one element at a time, row by row. */
static inline void SCAN_KERNEL(outer_scalar)(char *o, ptrdiff_t das, const char *s, ptrdiff_t sas,
                                            SCAN_ACC *acc, size_t j, size_t end, size_t rows,
                                            int exclusive, int first_row) {
    for (size_t r = 0; r < rows; r++, o += das, s += sas) {
        for (size_t c = j; c < end; c++) {
            SCAN_ACC x = SCAN_LOAD(s + c * SCAN_ES);
            if (exclusive) SCAN_STORE(o + c * SCAN_ES, first_row && r == 0 ? SCAN_FIRST : acc[c]);
            acc[c] = SCAN_COMBINE(acc[c], x);
            if (!exclusive) SCAN_STORE(o + c * SCAN_ES, acc[c]);
        }
    }
}

/* One vector of columns at j down `rows` rows: every row's load before any store. */
static DMLCPU_ALWAYS_INLINE void SCAN_KERNEL(outer_vector)(
    char *o, ptrdiff_t das, const char *s, ptrdiff_t sas, SCAN_ACC *acc, size_t j, size_t rows,
    int exclusive, int first_row, int streams) {
    typedef SCAN_OV_VEC V;
    V x[SCAN_OUTER_ROWS];
    for (size_t r = 0; r < rows; r++) x[r] = SCAN_OV(load)(s + (ptrdiff_t)r * sas + j * SCAN_ES);
    V a = SCAN_OV(acc_load)(acc + j);
    for (size_t r = 0; r < rows; r++) {
        V next = SCAN_OV(SCAN_OP)(a, x[r]);
        V w = !exclusive ? next : first_row && r == 0 ? SCAN_OV(fill)(SCAN_FIRST) : a;
        char *at = o + (ptrdiff_t)r * das + j * SCAN_ES;
        if (streams) SCAN_OV(stream)(at, w);
        else SCAN_OV(store)(at, w);
        a = next;
    }
    SCAN_OV(acc_store)(acc + j, a);
}

/* `rows` rows (a constant where it is inlined): columns [0, head) and the tail one element at
 * a time, the vectors between down all the rows. The vectors go from the last back to the first
 * where the destination's offset within a page is a little (under SCAN_OUTER_ALIAS_BYTES) ahead
 * of the source's: forwards, the next vectors' loads would then match the low 12 bits of the
 * stores just issued (4 KiB aliasing) and wait for them. Float32 (R,4096) along axis 0, one thread,
 * forwards / backwards: 32 rows, destination 64 bytes ahead 29 / 14 us, 128-256 bytes ahead
 * 18-21 / 14, elsewhere 15 / 14; 8192 rows 64 bytes ahead 9.5 / 7.6 ms, elsewhere 6.6-6.8 /
 * 7.6-7.7 (backwards costs where nothing aliases). */
static DMLCPU_ALWAYS_INLINE void SCAN_KERNEL(outer_rows)(
    char *o, ptrdiff_t das, const char *s, ptrdiff_t sas, SCAN_ACC *acc, size_t n, size_t head,
    size_t rows, int exclusive, int first_row, int streams) {
    enum { W = SCAN_OV_W };
    SCAN_KERNEL(outer_scalar)(o, das, s, sas, acc, 0, head, rows, exclusive, first_row);
    size_t vectors = (n - head) / W, tail = head + vectors * W;
    size_t ahead = dmlcpu_scan_page_ahead(o, s);
    if (ahead != 0 && ahead < SCAN_OUTER_ALIAS_BYTES) {
        for (size_t v = vectors; v-- > 0;)
            SCAN_KERNEL(outer_vector)(o, das, s, sas, acc, head + v * W, rows, exclusive,
                                      first_row, streams);
    } else {
        for (size_t v = 0; v < vectors; v++)
            SCAN_KERNEL(outer_vector)(o, das, s, sas, acc, head + v * W, rows, exclusive,
                                      first_row, streams);
    }
    SCAN_KERNEL(outer_scalar)(o, das, s, sas, acc, tail, n, rows, exclusive, first_row);
}

/* Columns [j, end) of one chained row (chained_row), one element at a time. */
static inline void SCAN_KERNEL(chained_scalar)(char *o, const char *prev, const char *s,
                                               SCAN_ACC *acc, size_t j, size_t end, int first,
                                               int last) {
    for (size_t c = j; c < end; c++) {
        SCAN_ACC a = first ? acc[c] : SCAN_LOAD(prev + c * SCAN_ES);
        SCAN_ACC r = SCAN_COMBINE(a, SCAN_LOAD(s + c * SCAN_ES));
        SCAN_STORE(o + c * SCAN_ES, r);
        if (last) acc[c] = r;
    }
}

/*
 * One row of a chained scan (outer_simd): each element combines row k - 1's output (prev; the
 * accumulators, for the first row) with row k's input; the last row leaves its results in the
 * accumulators. Columns [0, head) and the tail one element at a time, the vectors between
 * forwards, or backwards where the destination is a little ahead of the source within a page
 * (outer_rows).
 */
static DMLCPU_ALWAYS_INLINE void SCAN_KERNEL(chained_row)(char *o, const char *prev,
                                                          const char *s, SCAN_ACC *acc, size_t n,
                                                          size_t head, int first, int last) {
    typedef SCAN_OV_VEC V;
    enum { W = SCAN_OV_W };
    size_t vectors = (n - head) / W, tail = head + vectors * W;
    SCAN_KERNEL(chained_scalar)(o, prev, s, acc, 0, head, first, last);
    size_t ahead = dmlcpu_scan_page_ahead(o, s);
    int backwards = ahead != 0 && ahead < SCAN_OUTER_ALIAS_BYTES;
    for (size_t v = 0; v < vectors; v++) {
        size_t j = head + (backwards ? vectors - 1 - v : v) * W;
        V a = first ? SCAN_OV(acc_load)(acc + j) : SCAN_OV(load)(prev + j * SCAN_ES);
        V r = SCAN_OV(SCAN_OP)(a, SCAN_OV(load)(s + j * SCAN_ES));
        SCAN_OV(store)(o + j * SCAN_ES, r);
        if (last) SCAN_OV(acc_store)(acc + j, r);
    }
    SCAN_KERNEL(chained_scalar)(o, prev, s, acc, tail, n, first, last);
}

static inline void SCAN_KERNEL(outer_simd)(char *dst, ptrdiff_t dst_axis_stride,
                                         ptrdiff_t dst_across_stride, const char *src,
                                         ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride,
                                         size_t axis_len, size_t across, int flags,
                                         const dmlcpu_scan_carry *carry) {
    enum { W = SCAN_OV_W, VB = W * SCAN_ES };
    if (dst_across_stride != (ptrdiff_t)SCAN_ES || src_across_stride != (ptrdiff_t)SCAN_ES ||
        across < W) {
        SCAN_KERNEL(outer)(dst, dst_axis_stride, dst_across_stride, src, src_axis_stride,
                          src_across_stride, axis_len, across, flags, carry);
        return;
    }
    int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;
    int stream = (flags & DMLCPU_SCAN_STREAM) != 0;
    int fresh = dmlcpu_scan_fresh(carry);
    /* An inclusive scan whose accumulator is the element itself (every type but FLOAT16),
     * stored ordinarily, chains its rows: row k's output is row k - 1's (just stored, still in
     * L1) combined with row k's input, the same operations in the same order as the
     * accumulators, so the same bits. Float32 (32,4096) along axis 0 in L2, one thread: 17.7 us
     * against 27.9 warm and 46.9 against 55.0 cold (ONNX Runtime, which scans so, 18.9 / 50.8);
     * (128-512,4096) float32 and float64, unstreamed, 1.03-1.07x as fast (NOTES.md in git).
     * Exclusive rows would need row k - 1's input, overwritten where dst is src. */
    int chained = !exclusive && !stream && sizeof(SCAN_ACC) == SCAN_ES;
    /* with streaming stores the rows share their alignment only if the axis step keeps it */
    int rows_together = !stream || dst_axis_stride % VB == 0;
    SCAN_ACC stack_acc[DMLCPU_SCAN_BLOCK];
    size_t block = DMLCPU_SCAN_BLOCK;
    SCAN_ACC *wide = dmlcpu_scan_wide_block(across, sizeof(SCAN_ACC), &block);
    SCAN_ACC *acc = wide != NULL ? wide : stack_acc;
    for (size_t j0 = 0; j0 < across; j0 += block) {
        size_t n = across - j0 < block ? across - j0 : block;
        char *out = dst + (ptrdiff_t)(j0 * SCAN_ES);
        const char *in = src + (ptrdiff_t)(j0 * SCAN_ES);
        for (size_t j = 0; j < n; j++) acc[j] = SCAN_CARRY_IN(carry, j0 + j, SCAN_IDENTITY);
        for (size_t k = 0; k < axis_len;) {
            char *o = out + (ptrdiff_t)k * dst_axis_stride;
            const char *s = in + (ptrdiff_t)k * src_axis_stride;
            size_t misaligned = (size_t)((uintptr_t)o % VB);
            int aligns = misaligned % SCAN_ES == 0; /* whole elements reach the boundary */
            int streams = stream && aligns;
            size_t head = aligns && misaligned ? (VB - misaligned) / SCAN_ES : 0;
            if (head > n) head = n;
            int first_row = k == 0 && fresh;
            if (chained) {
                const char *prev = k > 0 ? o - dst_axis_stride : NULL;
                SCAN_KERNEL(chained_row)(o, prev, s, acc, n, head, k == 0, k + 1 == axis_len);
                k += 1;
            } else if (rows_together && axis_len - k >= SCAN_OUTER_ROWS) {
                SCAN_KERNEL(outer_rows)(o, dst_axis_stride, s, src_axis_stride, acc, n, head,
                                        SCAN_OUTER_ROWS, exclusive, first_row, streams);
                k += SCAN_OUTER_ROWS;
            } else {
                SCAN_KERNEL(outer_rows)(o, dst_axis_stride, s, src_axis_stride, acc, n, head, 1,
                                        exclusive, first_row, streams);
                k += 1;
            }
        }
        for (size_t j = 0; j < n; j++) SCAN_CARRY_OUT(carry, j0 + j, acc[j]);
    }
    free(wide);
    if (stream) dmlcpu_ov_fence();
}
