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
#endif

/* gather: packed destination, strided source */
static inline void COPY_KERNEL(gc)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    (void)ds;
    for (size_t i = 0; i < n; i++, src += ss) memcpy(dst + i * sizeof(COPY_T), src, sizeof(COPY_T));
}

/* scatter: strided destination, packed source */
static inline void COPY_KERNEL(sc)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    (void)ss;
    for (size_t i = 0; i < n; i++, dst += ds) memcpy(dst, src + i * sizeof(COPY_T), sizeof(COPY_T));
}

/* both strided */
static inline void COPY_KERNEL(ss)(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                   size_t n) {
    for (size_t i = 0; i < n; i++, dst += ds, src += ss) memcpy(dst, src, sizeof(COPY_T));
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
