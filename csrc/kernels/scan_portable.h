/*
 * Template (scan_types.h): the portable outer and line kernels of one type and operation.
 * See dmlcpu_scan_fn in internal.h for the two layouts and the strides.
 *
 * In place: every element is read before the element at the same address is written, so dst may
 * be the identical view of src. Each scan combines its elements one after another in walk
 * order, so the bits are those of the plain sequential loop.
 */

#ifndef DMLCPU_SCAN_BLOCK
/*
 * Columns an outer kernel carries at once: DMLCPU_SCAN_BLOCK accumulators on the stack, or, for
 * rows wider than that, DMLCPU_SCAN_WIDE_BYTES of them from the heap where that is more columns
 * (the 1-, 2- and 4-byte accumulators; the stack block serves if the allocation fails). A block
 * as wide as a whole row keeps the row walks sequential (the prefetchers follow them) while the
 * accumulators stay in L1/L2: with 4096 columns an int8 scan along axis 0 of 16 KiB rows took
 * twice as long as of 4 KiB rows. A larger block on the stack slowed 8 MiB float32 scans on two
 * threads, whose chunks were narrower than 4096 columns anyway, by a third (NOTES.md in git).
 */
#define DMLCPU_SCAN_BLOCK 4096
#define DMLCPU_SCAN_WIDE_BYTES (32 << 10)

/* A wider accumulator block than the stack's for `across` columns, or NULL; *block is set to
 * its columns. The caller frees it. */
static inline void *dmlcpu_scan_wide_block(size_t across, size_t acc_bytes, size_t *block) {
    size_t wide = DMLCPU_SCAN_WIDE_BYTES / acc_bytes;
    if (across <= DMLCPU_SCAN_BLOCK || wide <= DMLCPU_SCAN_BLOCK) return NULL;
    void *p = malloc(wide * acc_bytes);
    if (p != NULL) *block = wide;
    return p;
}
#endif

/* One row of the outer kernel, inclusive: acc = acc op in; out = acc. The packed branch (both
 * strides the element size) is a unit-stride loop the compiler can widen. */
static inline void SCAN_OP_FN(row_inclusive)(char *out, ptrdiff_t ds, const char *in,
                                             ptrdiff_t ss, SCAN_ACC *acc, size_t n) {
    if (ds == SCAN_ES && ss == SCAN_ES) {
        for (size_t j = 0; j < n; j++) {
            acc[j] = SCAN_COMBINE(acc[j], SCAN_LOAD(in + j * SCAN_ES));
            SCAN_STORE(out + j * SCAN_ES, acc[j]);
        }
    } else {
        for (size_t j = 0; j < n; j++) {
            acc[j] = SCAN_COMBINE(acc[j], SCAN_LOAD(in + (ptrdiff_t)j * ss));
            SCAN_STORE(out + (ptrdiff_t)j * ds, acc[j]);
        }
    }
}

/* The same, exclusive: out = acc (SCAN_FIRST on the first row); acc = acc op in, the input
 * read before the output is written. */
static inline void SCAN_OP_FN(row_exclusive)(char *out, ptrdiff_t ds, const char *in,
                                             ptrdiff_t ss, SCAN_ACC *acc, size_t n, int first) {
    if (first) {
        for (size_t j = 0; j < n; j++) {
            SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)j * ss);
            SCAN_STORE(out + (ptrdiff_t)j * ds, SCAN_FIRST);
            acc[j] = SCAN_COMBINE(acc[j], x);
        }
    } else if (ds == SCAN_ES && ss == SCAN_ES) {
        for (size_t j = 0; j < n; j++) {
            SCAN_ACC x = SCAN_LOAD(in + j * SCAN_ES);
            SCAN_STORE(out + j * SCAN_ES, acc[j]);
            acc[j] = SCAN_COMBINE(acc[j], x);
        }
    } else {
        for (size_t j = 0; j < n; j++) {
            SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)j * ss);
            SCAN_STORE(out + (ptrdiff_t)j * ds, acc[j]);
            acc[j] = SCAN_COMBINE(acc[j], x);
        }
    }
}

/* The axis is not innermost: sweep the rows, one accumulator per column, in blocks. */
DMLCPU_FALLBACK_KERNEL void SCAN_KERNEL(outer)(
    char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,
    ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len, size_t across,
    int flags, const dmlcpu_scan_carry *carry) {
    int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;
    int fresh = dmlcpu_scan_fresh(carry);
    SCAN_ACC stack_acc[DMLCPU_SCAN_BLOCK];
    size_t block = DMLCPU_SCAN_BLOCK;
    SCAN_ACC *wide = dmlcpu_scan_wide_block(across, sizeof(SCAN_ACC), &block);
    SCAN_ACC *acc = wide != NULL ? wide : stack_acc;
    for (size_t j0 = 0; j0 < across; j0 += block) {
        size_t n = across - j0 < block ? across - j0 : block;
        char *out = dst + (ptrdiff_t)j0 * dst_across_stride;
        const char *in = src + (ptrdiff_t)j0 * src_across_stride;
        for (size_t j = 0; j < n; j++) acc[j] = SCAN_CARRY_IN(carry, j0 + j, SCAN_IDENTITY);
        for (size_t k = 0; k < axis_len; k++) {
            char *out_row = out + (ptrdiff_t)k * dst_axis_stride;
            const char *in_row = in + (ptrdiff_t)k * src_axis_stride;
            if (exclusive)
                SCAN_OP_FN(row_exclusive)(out_row, dst_across_stride, in_row, src_across_stride,
                                          acc, n, k == 0 && fresh);
            else
                SCAN_OP_FN(row_inclusive)(out_row, dst_across_stride, in_row, src_across_stride,
                                          acc, n);
        }
        for (size_t j = 0; j < n; j++) SCAN_CARRY_OUT(carry, j0 + j, acc[j]);
    }
    free(wide);
}

/* The axis is innermost: lines four at a time, four independent recurrences interleaved so a
 * float add's latency is not paid once per element; then the rest one by one. */
DMLCPU_FALLBACK_KERNEL void SCAN_KERNEL(line)(
    char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,
    ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len, size_t across,
    int flags, const dmlcpu_scan_carry *carry) {
    int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;
    int fresh = dmlcpu_scan_fresh(carry);
    size_t line = 0;
    for (; line + 4 <= across; line += 4) {
        char *o0 = dst + (ptrdiff_t)line * dst_across_stride, *o1 = o0 + dst_across_stride;
        char *o2 = o1 + dst_across_stride, *o3 = o2 + dst_across_stride;
        const char *i0 = src + (ptrdiff_t)line * src_across_stride;
        const char *i1 = i0 + src_across_stride, *i2 = i1 + src_across_stride;
        const char *i3 = i2 + src_across_stride;
        SCAN_ACC a0 = SCAN_CARRY_IN(carry, line, SCAN_IDENTITY);
        SCAN_ACC a1 = SCAN_CARRY_IN(carry, line + 1, SCAN_IDENTITY);
        SCAN_ACC a2 = SCAN_CARRY_IN(carry, line + 2, SCAN_IDENTITY);
        SCAN_ACC a3 = SCAN_CARRY_IN(carry, line + 3, SCAN_IDENTITY);
        for (size_t k = 0; k < axis_len; k++) {
            ptrdiff_t s = (ptrdiff_t)k * src_axis_stride, d = (ptrdiff_t)k * dst_axis_stride;
            SCAN_ACC x0 = SCAN_LOAD(i0 + s), x1 = SCAN_LOAD(i1 + s);
            SCAN_ACC x2 = SCAN_LOAD(i2 + s), x3 = SCAN_LOAD(i3 + s);
            if (exclusive) {
                SCAN_STORE(o0 + d, k == 0 && fresh ? SCAN_FIRST : a0);
                SCAN_STORE(o1 + d, k == 0 && fresh ? SCAN_FIRST : a1);
                SCAN_STORE(o2 + d, k == 0 && fresh ? SCAN_FIRST : a2);
                SCAN_STORE(o3 + d, k == 0 && fresh ? SCAN_FIRST : a3);
            }
            a0 = SCAN_COMBINE(a0, x0);
            a1 = SCAN_COMBINE(a1, x1);
            a2 = SCAN_COMBINE(a2, x2);
            a3 = SCAN_COMBINE(a3, x3);
            if (!exclusive) {
                SCAN_STORE(o0 + d, a0);
                SCAN_STORE(o1 + d, a1);
                SCAN_STORE(o2 + d, a2);
                SCAN_STORE(o3 + d, a3);
            }
        }
        SCAN_CARRY_OUT(carry, line, a0);
        SCAN_CARRY_OUT(carry, line + 1, a1);
        SCAN_CARRY_OUT(carry, line + 2, a2);
        SCAN_CARRY_OUT(carry, line + 3, a3);
    }
    for (; line < across; line++) {
        char *out = dst + (ptrdiff_t)line * dst_across_stride;
        const char *in = src + (ptrdiff_t)line * src_across_stride;
        SCAN_ACC acc = SCAN_CARRY_IN(carry, line, SCAN_IDENTITY);
        if (exclusive) {
            for (size_t k = 0; k < axis_len; k++) {
                SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)k * src_axis_stride);
                SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride,
                           k == 0 && fresh ? SCAN_FIRST : acc);
                acc = SCAN_COMBINE(acc, x);
            }
        } else {
            for (size_t k = 0; k < axis_len; k++) {
                acc = SCAN_COMBINE(acc, SCAN_LOAD(in + (ptrdiff_t)k * src_axis_stride));
                SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, acc);
            }
        }
        SCAN_CARRY_OUT(carry, line, acc);
    }
}
