/*
 * Template (copy_widths.h): the portable copy kernels of one element width, one per run layout
 * (dmlcpu_run_layout). Elements move through memcpy of a fixed width: no alignment assumed, no
 * aliasing UB; the compiler turns each into one load and one store.
 */

/* both packed: one memcpy of the whole run */
static inline void COPY_KERNEL(cc)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    (void)ds;
    (void)ss;
    memcpy(dst, src, n * sizeof(COPY_T));
}

#if COPY_BITS == 8 /* rows of bytes, whatever the element width */
/* Rows into one packed destination (dmlcpu_copy_rows_fn), one memcpy each. */
static inline void DMLCPU_KERNEL(dmlcpu_copy_rows)(char *dst, const char *src, ptrdiff_t ss,
                                                  size_t row, size_t rows, int cached) {
    (void)cached;
    for (size_t r = 0; r < rows; r++) memcpy(dst + r * row, src + (ptrdiff_t)r * ss, row);
}

/* The parts' blocks into one packed destination (dmlcpu_copy_blocks_fn), one memcpy each. */
static inline void DMLCPU_KERNEL(dmlcpu_copy_blocks)(char *dst, const dmlcpu_copy_part *parts,
                                                    size_t count, size_t first, size_t rows) {
    for (size_t r = first; r < first + rows; r++)
        for (size_t k = 0; k < count; k++) {
            memcpy(dst, parts[k].src + (ptrdiff_t)r * parts[k].stride, parts[k].bytes);
            dst += parts[k].bytes;
        }
}
#endif

/*
 * Strided elements four at a time, the four loads before the four stores. One element per
 * iteration, the loop's speed depended on where its code landed: the same six instructions
 * gathering float64 at stride 3 took 2.7 to 5.2 us in builds of benchmarks/strided_loops.c that
 * differed only in flags and alignment (9-9.6 in its first version), and the library's scalar
 * and avx512 copies of it took 4.6 and 7.1 us (NumPy 3.5) on AMD Zen 4; four at a time took
 * 2.6-3.2 us in every build tried (NOTES.md in git). Source and destination never overlap (a
 * copy's output is checked against its inputs), so the order of the loads and stores is free.
 */
static DMLCPU_ALWAYS_INLINE void COPY_KERNEL(strided)(char *dst, ptrdiff_t ds, const char *src,
                                                      ptrdiff_t ss, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4, dst += 4 * ds, src += 4 * ss) {
        COPY_T a, b, c, d;
        memcpy(&a, src, sizeof a);
        memcpy(&b, src + ss, sizeof b);
        memcpy(&c, src + 2 * ss, sizeof c);
        memcpy(&d, src + 3 * ss, sizeof d);
        memcpy(dst, &a, sizeof a);
        memcpy(dst + ds, &b, sizeof b);
        memcpy(dst + 2 * ds, &c, sizeof c);
        memcpy(dst + 3 * ds, &d, sizeof d);
    }
    for (; i < n; i++, dst += ds, src += ss) memcpy(dst, src, sizeof(COPY_T));
}

/* gather: packed destination, strided source */
static inline void COPY_KERNEL(gc)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    (void)ds;
    COPY_KERNEL(strided)(dst, (ptrdiff_t)sizeof(COPY_T), src, ss, n);
}

/* scatter: strided destination, packed source */
static inline void COPY_KERNEL(sc)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    (void)ss;
    COPY_KERNEL(strided)(dst, ds, src, (ptrdiff_t)sizeof(COPY_T), n);
}

/* both strided */
static inline void COPY_KERNEL(ss)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    COPY_KERNEL(strided)(dst, ds, src, ss, n);
}

/* broadcast: one value (stride-0 source) into every destination element */
static inline void COPY_KERNEL(bc)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    (void)ss;
#if COPY_BITS == 8
    if (ds == 1) {
        memset(dst, (unsigned char)*src, n);
        return;
    }
#endif
    COPY_T value;
    memcpy(&value, src, sizeof value);
    for (size_t i = 0; i < n; i++, dst += ds) memcpy(dst, &value, sizeof value);
}
