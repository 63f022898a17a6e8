/*
 * Template (scan_types.h): the SIMD line kernels of one type and operation, for the ISA units
 * (scan_<isa>.c), written against the lane primitives of simd/<isa>_scan.h for that type:
 *   SCAN_SV_VEC                   the vector type; SCAN_SV_W lanes, one element each
 *   SCAN_SV(load) / SCAN_SV(store) W consecutive elements <-> lanes (widened to the lane type)
 *   SCAN_SV(fill)(acc)            every lane set to one accumulator value
 *   SCAN_SV(cumsum / cumprod)     the lane-wise operation, exactly SCAN_COMBINE per lane
 *   SCAN_SV(lanes) / SCAN_SV(from_lanes)  the lanes as / from W accumulator values
 *   SCAN_SV(transpose)(V r[W])    r[i] lane j <- r[j] lane i
 *   SCAN_SV_NT, SCAN_SV(stream)   whether non-temporal stores pay for this type, and the store
 * No lane ever combines with another lane, so each result is computed by the same operations in
 * the same order as the portable kernels: bit-identical whatever W is.
 */

/* The block of W elements at k0 (walk order) of each of nl lines; identity lanes past them. */
static DMLCPU_ALWAYS_INLINE void SCAN_KERNEL(line_block_load)(SCAN_SV_VEC r[SCAN_SV_W],
                                                            const char *in0, ptrdiff_t across,
                                                            size_t nl, size_t k0, int forward) {
    ptrdiff_t off = dmlcpu_scan_block_offset(k0, SCAN_SV_W, SCAN_ES, forward);
    for (size_t j = 0; j < SCAN_SV_W; j++)
        r[j] = j < nl ? SCAN_SV(load)(in0 + (ptrdiff_t)j * across + off)
                      : SCAN_SV(fill)(SCAN_IDENTITY);
}

/* r[0..nl) stored at out + j * across, non-temporal if nt. */
static DMLCPU_ALWAYS_INLINE void SCAN_KERNEL(line_block_store)(char *out, ptrdiff_t across,
                                                             size_t nl, int nt,
                                                             const SCAN_SV_VEC r[SCAN_SV_W]) {
    if (nt)
        for (size_t j = 0; j < nl; j++) SCAN_SV(stream)(out + (ptrdiff_t)j * across, r[j]);
    else
        for (size_t j = 0; j < nl; j++) SCAN_SV(store)(out + (ptrdiff_t)j * across, r[j]);
}

/* Whether the next block's loads go before this block's stores: where the destination is one
 * block or less ahead of the source, in walk order, in their offsets within a page, those loads
 * would share their low 12 bits with the stores just issued (4 KiB aliasing) and wait for them.
 * Float32 (512,4096) products along axis 1 on AVX-512, one thread, ms, the destination 0, 64,
 * 128, 192 bytes ahead: 0.47, 1.19, 0.67, 0.49 stores first; 0.47, 0.56, 1.05, 0.50 with every
 * next block's loads first (the aliasing moves a block on), so only the first case does. */
static inline int SCAN_KERNEL(line_loads_first)(const char *dst, const char *src, int forward) {
    size_t ahead = forward ? dmlcpu_scan_page_ahead(dst, src) : dmlcpu_scan_page_ahead(src, dst);
    return ahead != 0 && ahead <= SCAN_SV_W * SCAN_ES;
}

/*
 * Line kernel: W lines at once. A block of W elements of each of W lines is loaded (one vector
 * per line), transposed so that vector i holds element i of every line, scanned vertically in
 * walk order (lane j runs line j's sequential recurrence), transposed back and stored. Lines
 * walked backwards (axis stride -ES) take the same blocks and scan the vectors from the last.
 * Missing lines of the last group are identity lanes nobody stores; the elements past the last
 * whole block continue from the lane totals with the scalar recurrence. Other strides, and
 * lines shorter than one block, use the scalar kernel.
 */
static inline void SCAN_KERNEL(line_simd)(char *dst, ptrdiff_t dst_axis_stride,
                                        ptrdiff_t dst_across_stride, const char *src,
                                        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride,
                                        size_t axis_len, size_t across, int flags,
                                        const dmlcpu_scan_carry *carry) {
    int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;
    enum { W = SCAN_SV_W };
    typedef SCAN_SV_VEC V;
    int forward = src_axis_stride == (ptrdiff_t)SCAN_ES && dst_axis_stride == (ptrdiff_t)SCAN_ES;
    int backward = src_axis_stride == -(ptrdiff_t)SCAN_ES && dst_axis_stride == -(ptrdiff_t)SCAN_ES;
    if (axis_len < W || !(forward || backward)) {
        SCAN_KERNEL(line)(dst, dst_axis_stride, dst_across_stride, src, src_axis_stride,
                          src_across_stride, axis_len, across, flags, carry);
        return;
    }
    const V identity = SCAN_SV(fill)(SCAN_IDENTITY);
    const V first = SCAN_SV(fill)(SCAN_FIRST);
    int fresh = dmlcpu_scan_fresh(carry);
    dmlcpu_scan_carry rest_carry;
    /* Non-temporal stores (large outputs, where the unit has them for the type) need every
     * line's blocks aligned to a block's bytes: the first `head` elements in walk order
     * are then scalar steps, so the blocks after them start on aligned addresses. */
    enum { SB = W * SCAN_ES };
    size_t head = 0;
    int nt = (flags & DMLCPU_SCAN_STREAM) && SCAN_SV_NT &&
             dst_across_stride % SB == 0 && (uintptr_t)dst % SCAN_ES == 0;
    if (nt) {
        head = dmlcpu_scan_stream_head(dst, forward, SCAN_ES, SB);
        if (head + W > axis_len) nt = 0, head = 0;
    }
    size_t full = head + (axis_len - head) / W * W;
    int loads_first = SCAN_KERNEL(line_loads_first)(dst, src, forward);
    for (size_t l0 = 0; l0 < across; l0 += W) {
        size_t nl = across - l0 < W ? across - l0 : W;
        if (nl == 1 || 4 * nl < W) { /* lanes mostly empty: scalar lines do better */
            SCAN_KERNEL(line)(
                dst + (ptrdiff_t)l0 * dst_across_stride, dst_axis_stride, dst_across_stride,
                src + (ptrdiff_t)l0 * src_across_stride, src_axis_stride, src_across_stride,
                axis_len, nl, flags, dmlcpu_scan_carry_from(carry, l0, &rest_carry));
            break;
        }
        char *out0 = dst + (ptrdiff_t)l0 * dst_across_stride;
        const char *in0 = src + (ptrdiff_t)l0 * src_across_stride;
        V acc = identity;
        if (head || !fresh) { /* scalar steps up to head, from each line's start */
            SCAN_ACC lanes[W];
            for (size_t j = 0; j < W; j++) lanes[j] = SCAN_IDENTITY;
            for (size_t j = 0; j < nl; j++) {
                char *out = out0 + (ptrdiff_t)j * dst_across_stride;
                const char *in = in0 + (ptrdiff_t)j * src_across_stride;
                SCAN_ACC a = SCAN_CARRY_IN(carry, l0 + j, SCAN_IDENTITY);
                for (size_t k = 0; k < head; k++) {
                    SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)k * src_axis_stride);
                    if (exclusive)
                        SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride,
                                   k == 0 && fresh ? (SCAN_ACC)(SCAN_FIRST) : a);
                    a = SCAN_COMBINE(a, x);
                    if (!exclusive)
                        SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
                }
                lanes[j] = a;
            }
            acc = SCAN_SV(from_lanes)(lanes);
        }
        V r[W];
        if (head < full) SCAN_KERNEL(line_block_load)(r, in0, src_across_stride, nl, head, forward);
        for (size_t k0 = head; k0 < full; k0 += W) {
            ptrdiff_t off = dmlcpu_scan_block_offset(k0, W, SCAN_ES, forward); /* in each line */
            SCAN_SV(transpose)(r);
            if (forward && !exclusive) {
                for (size_t i = 0; i < W; i++) r[i] = acc = SCAN_SV(SCAN_OP)(acc, r[i]);
            } else if (forward) {
                for (size_t i = 0; i < W; i++) {
                    V x = r[i];
                    r[i] = acc;
                    acc = SCAN_SV(SCAN_OP)(acc, x);
                }
                if (k0 == 0 && fresh) r[0] = first;
            } else if (!exclusive) {
                for (size_t i = W; i-- > 0;) r[i] = acc = SCAN_SV(SCAN_OP)(acc, r[i]);
            } else {
                for (size_t i = W; i-- > 0;) {
                    V x = r[i];
                    r[i] = acc;
                    acc = SCAN_SV(SCAN_OP)(acc, x);
                }
                if (k0 == 0 && fresh) r[W - 1] = first;
            }
            SCAN_SV(transpose)(r);
            char *out = out0 + off;
            if (k0 + W >= full) {
                SCAN_KERNEL(line_block_store)(out, dst_across_stride, nl, nt, r);
            } else if (loads_first) {
                V next[W];
                SCAN_KERNEL(line_block_load)(next, in0, src_across_stride, nl, k0 + W, forward);
                SCAN_KERNEL(line_block_store)(out, dst_across_stride, nl, nt, r);
                for (size_t j = 0; j < W; j++) r[j] = next[j];
            } else {
                SCAN_KERNEL(line_block_store)(out, dst_across_stride, nl, nt, r);
                SCAN_KERNEL(line_block_load)(r, in0, src_across_stride, nl, k0 + W, forward);
            }
        }
        if (full == axis_len && (carry == NULL || carry->out == NULL)) continue;
        SCAN_ACC lanes[W];
        SCAN_SV(lanes)(acc, lanes);
        for (size_t j = 0; j < nl; j++) {
            char *out = out0 + (ptrdiff_t)j * dst_across_stride;
            const char *in = in0 + (ptrdiff_t)j * src_across_stride;
            SCAN_ACC a = lanes[j];
            for (size_t k = full; k < axis_len; k++) {
                SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)k * src_axis_stride);
                if (exclusive) {
                    SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
                    a = SCAN_COMBINE(a, x);
                } else {
                    a = SCAN_COMBINE(a, x);
                    SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
                }
            }
            SCAN_CARRY_OUT(carry, l0 + j, a);
        }
    }
    if (nt) dmlcpu_ov_fence();
}

#if SCAN_IS_SUM && !SCAN_FLOAT && SCAN_HAS_PV
/*
 * Integer sums along a line, one line at a time: an in-register prefix sum per vector of the
 * element's own width (wrapping addition is associative, so any order gives the same bits), plus
 * the running total broadcast from the previous vector. Needs SCAN_PV(prefix_fwd) / (prefix_bwd)
 * (inclusive sums towards higher / lower addresses), (bcast_hi) / (bcast_lo) (the highest /
 * lowest lane everywhere), (sub), (stream_line) (a non-temporal store of W elements at an
 * address aligned to W * ES), (load), (store), (lanes), (fill), (cumsum). Exclusive = inclusive
 * minus the element. 32/64-bit lines, when there are enough to fill the lanes, go to the
 * transposing kernel; 8/16-bit ones never do: it widens them to 32-bit lanes, a block of 8 or 16
 * elements of each of 8 or 16 lines at a time, and with lines a multiple of 4 KiB apart every
 * block's stores meet in one L1 set, where a line read front to back streams (one thread,
 * int8 2048x4096: 3.5 ms transposed, 0.54 ms here; int16 3.2 / 1.1 ms; 65536x64 int8 0.70 /
 * 0.41 ms: NOTES.md in git).
 */
static inline void SCAN_KERNEL(line_prefix)(char *dst, ptrdiff_t dst_axis_stride,
                                          ptrdiff_t dst_across_stride, const char *src,
                                          ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride,
                                          size_t axis_len, size_t across, int flags,
                                          const dmlcpu_scan_carry *carry) {
    int exclusive = (flags & DMLCPU_SCAN_EXCLUSIVE) != 0;
    enum { W = SCAN_PV_W, SB = W * SCAN_ES };
    typedef SCAN_PV_VEC V;
    int forward = src_axis_stride == (ptrdiff_t)SCAN_ES && dst_axis_stride == (ptrdiff_t)SCAN_ES;
    int backward = src_axis_stride == -(ptrdiff_t)SCAN_ES && dst_axis_stride == -(ptrdiff_t)SCAN_ES;
    if ((SCAN_ES >= 4 && 2 * across >= W) || axis_len < W || !(forward || backward)) {
        SCAN_KERNEL(line_simd)(dst, dst_axis_stride, dst_across_stride, src, src_axis_stride,
                               src_across_stride, axis_len, across, flags, carry);
        return;
    }
    int stream = (flags & DMLCPU_SCAN_STREAM) != 0;
    for (size_t line = 0; line < across; line++) {
        char *out = dst + (ptrdiff_t)line * dst_across_stride;
        const char *in = src + (ptrdiff_t)line * src_across_stride;
        /* One line's stores are sequential, so they stream whatever the vector width: the
         * first `head` elements (walk order) are scalar steps up to an aligned block. */
        size_t head = 0;
        int nt = stream && (uintptr_t)out % SCAN_ES == 0;
        if (nt) {
            head = dmlcpu_scan_stream_head(out, forward, SCAN_ES, SB);
            if (head + W > axis_len) nt = 0, head = 0;
        }
        size_t full = head + (axis_len - head) / W * W;
        SCAN_ACC a = SCAN_CARRY_IN(carry, line, 0);
        for (size_t k = 0; k < head; k++) {
            SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)k * src_axis_stride);
            if (exclusive) SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
            a = SCAN_COMBINE(a, x);
            if (!exclusive) SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
        }
        V total = SCAN_PV(fill)(a);
        for (size_t k0 = head; k0 < full; k0 += W) {
            ptrdiff_t off = dmlcpu_scan_block_offset(k0, W, SCAN_ES, forward);
            V x = SCAN_PV(load)(in + off);
            V r;
            if (forward) {
                r = SCAN_PV(cumsum)(SCAN_PV(prefix_fwd)(x), total);
                total = SCAN_PV(bcast_hi)(r);
            } else {
                r = SCAN_PV(cumsum)(SCAN_PV(prefix_bwd)(x), total);
                total = SCAN_PV(bcast_lo)(r);
            }
            if (exclusive) r = SCAN_PV(sub)(r, x);
            if (nt) SCAN_PV(stream_line)(out + off, r);
            else SCAN_PV(store)(out + off, r);
        }
        SCAN_ACC lanes[W];
        SCAN_PV(lanes)(total, lanes);
        a = lanes[0];
        for (size_t k = full; k < axis_len; k++) {
            SCAN_ACC x = SCAN_LOAD(in + (ptrdiff_t)k * src_axis_stride);
            if (exclusive) SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
            a = SCAN_COMBINE(a, x);
            if (!exclusive) SCAN_STORE(out + (ptrdiff_t)k * dst_axis_stride, a);
        }
        SCAN_CARRY_OUT(carry, line, a);
    }
    if (stream) dmlcpu_ov_fence();
}
#endif
