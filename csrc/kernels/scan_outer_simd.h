/*
 * Template (scan_types.h): the SIMD outer kernel of one type and operation, for the ISA units
 * (scan_<isa>.c), written against the lane primitives of simd/<isa>_scan.h for that type.
 */

/*
 * Outer kernel with explicit vectors: the same sweep as the portable outer kernel, a row at a
 * time, W columns per vector in the element's own width (FLOAT16 widened to float through
 * F16C). With DMLCPU_SCAN_STREAM each row's vector stores are non-temporal from the first
 * address aligned to a vector's bytes (the columns before it, and the tail, are scalar steps):
 * a large output then goes to memory without first being read into the caches.
 * Needs, besides the lane-wise operation and (fill): SCAN_OV(load) / (store) / (stream) (W
 * elements of memory <-> accumulator lanes; (stream) wants an address aligned to W * ES),
 * (acc_load) / (acc_store) (W accumulators from / to SCAN_ACC[]), and dmlcpu_ov_fence.
 */
static inline void SCAN_KERNEL(outer_simd)(char *dst, ptrdiff_t dst_axis_stride,
                                         ptrdiff_t dst_across_stride, const char *src,
                                         ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride,
                                         size_t axis_len, size_t across, int flags,
                                         const dmlcpu_scan_carry *carry) {
    enum { W = SCAN_OV_W, VB = W * SCAN_ES };
    typedef SCAN_OV_VEC V;
    if (dst_across_stride != (ptrdiff_t)SCAN_ES || src_across_stride != (ptrdiff_t)SCAN_ES ||
        across < W) {
        SCAN_KERNEL(outer)(dst, dst_axis_stride, dst_across_stride, src, src_axis_stride,
                          src_across_stride, axis_len, across, flags, carry);
        return;
    }
    int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;
    int stream = (flags & DMLCPU_SCAN_STREAM) != 0;
    int fresh = dmlcpu_scan_fresh(carry);
    SCAN_ACC stack_acc[DMLCPU_SCAN_BLOCK];
    size_t block = DMLCPU_SCAN_BLOCK;
    SCAN_ACC *wide = dmlcpu_scan_wide_block(across, sizeof(SCAN_ACC), &block);
    SCAN_ACC *acc = wide != NULL ? wide : stack_acc;
    const V first = SCAN_OV(fill)(SCAN_FIRST);
    for (size_t j0 = 0; j0 < across; j0 += block) {
        size_t n = across - j0 < block ? across - j0 : block;
        char *out = dst + (ptrdiff_t)(j0 * SCAN_ES);
        const char *in = src + (ptrdiff_t)(j0 * SCAN_ES);
        for (size_t j = 0; j < n; j++) acc[j] = SCAN_CARRY_IN(carry, j0 + j, SCAN_IDENTITY);
        for (size_t k = 0; k < axis_len; k++) {
            char *o = out + (ptrdiff_t)k * dst_axis_stride;
            const char *s = in + (ptrdiff_t)k * src_axis_stride;
            size_t misaligned = (size_t)((uintptr_t)o % VB);
            int streams = stream && misaligned % SCAN_ES == 0;
            size_t j = 0, head = streams && misaligned ? (VB - misaligned) / SCAN_ES : 0;
            if (head > n) head = n;
            for (;; j++) {
                if (j == head) {
                    /* the vector columns, then (head == n) the scalar tail */
                    for (; j + W <= n; j += W) {
                        V x = SCAN_OV(load)(s + j * SCAN_ES);
                        V a = SCAN_OV(acc_load)(acc + j);
                        V next = SCAN_OV(SCAN_OP)(a, x);
                        SCAN_OV(acc_store)(acc + j, next);
                        V w = !exclusive ? next : k == 0 && fresh ? first : a;
                        if (streams) SCAN_OV(stream)(o + j * SCAN_ES, w);
                        else SCAN_OV(store)(o + j * SCAN_ES, w);
                    }
                    head = n;
                }
                if (j >= n) break;
                SCAN_ACC x = SCAN_LOAD(s + j * SCAN_ES);
                if (exclusive)
                    SCAN_STORE(o + j * SCAN_ES, k == 0 && fresh ? SCAN_FIRST : acc[j]);
                acc[j] = SCAN_COMBINE(acc[j], x);
                if (!exclusive) SCAN_STORE(o + j * SCAN_ES, acc[j]);
            }
        }
        for (size_t j = 0; j < n; j++) SCAN_CARRY_OUT(carry, j0 + j, acc[j]);
    }
    free(wide);
    if (stream) dmlcpu_ov_fence();
}
