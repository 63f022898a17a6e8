/*
 * The streaming copy kernels of an ISA unit, written once against the unit's simd/<isa>.h
 * wrappers (DMLCPU_VEC_BYTES, dmlcpu_vec_load / _stream / _load_split). Static inline: a unit
 * emits them only if its table lists them.
 */
#ifndef DMLCPU_COPY_STREAM_H
#define DMLCPU_COPY_STREAM_H

#include <stdint.h>
#include <string.h>

#include "../internal.h"
#include "kernel.h"

/*
 * Contiguous bytes with non-temporal stores: the output bypasses the caches, so a copy much
 * larger than the last-level cache neither reads the destination lines first (no RFO) nor
 * evicts the source. The stores are weakly ordered: the driver fences once after the whole
 * copy (dmlcpu_store_fence), not after every run: a fence per short run cost more than it saved.
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_stream)(char *dst, ptrdiff_t ds, const char *src,
                                                    ptrdiff_t ss, size_t n) {
    (void)ds;
    (void)ss;
    size_t head = dmlcpu_bytes_to_aligned(dst, DMLCPU_VEC_BYTES);
    if (head > n) head = n;
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    for (; n >= 4 * DMLCPU_VEC_BYTES; n -= 4 * DMLCPU_VEC_BYTES) {
        dmlcpu_vec a = dmlcpu_vec_load(src), b = dmlcpu_vec_load(src + DMLCPU_VEC_BYTES);
        dmlcpu_vec c = dmlcpu_vec_load(src + 2 * DMLCPU_VEC_BYTES);
        dmlcpu_vec d = dmlcpu_vec_load(src + 3 * DMLCPU_VEC_BYTES);
        dmlcpu_vec_stream(dst, a);
        dmlcpu_vec_stream(dst + DMLCPU_VEC_BYTES, b);
        dmlcpu_vec_stream(dst + 2 * DMLCPU_VEC_BYTES, c);
        dmlcpu_vec_stream(dst + 3 * DMLCPU_VEC_BYTES, d);
        dst += 4 * DMLCPU_VEC_BYTES;
        src += 4 * DMLCPU_VEC_BYTES;
    }
    memcpy(dst, src, n);
}

/* Copies n bytes from row position (*r, *c) on, advancing it: the ragged ends of the rows copy. */
static inline void DMLCPU_KERNEL(copy_row_bytes)(char *dst, const char *src, ptrdiff_t ss,
                                                 size_t row, size_t *r, size_t *c, size_t n) {
    while (n > 0) {
        size_t take = row - *c < n ? row - *c : n;
        memcpy(dst, src + (ptrdiff_t)*r * ss + (ptrdiff_t)*c, take);
        dst += take;
        n -= take;
        *c += take;
        if (*c == row) {
            *c = 0;
            (*r)++;
        }
    }
}

/*
 * Rows (row >= 64 bytes) into one packed destination with non-temporal stores: the destination
 * is walked in aligned vectors whatever the row boundaries, a vector straddling two rows being
 * loaded in two parts. Streaming each short row on its own was several times slower: the
 * partial lines at its ends mixed normal and non-temporal stores in one line.
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_stream_rows)(char *dst, const char *src,
                                                         ptrdiff_t ss, size_t row, size_t rows) {
    size_t total = row * rows, r = 0, c = 0;
    size_t head = dmlcpu_bytes_to_aligned(dst, DMLCPU_VEC_BYTES);
    if (head > total) head = total;
    DMLCPU_KERNEL(copy_row_bytes)(dst, src, ss, row, &r, &c, head);
    size_t p = head;
    for (; p + DMLCPU_VEC_BYTES <= total; p += DMLCPU_VEC_BYTES) {
        const char *at = src + (ptrdiff_t)r * ss + (ptrdiff_t)c;
        dmlcpu_vec v;
        if (c + DMLCPU_VEC_BYTES <= row) {
            v = dmlcpu_vec_load(at);
        } else {
            size_t b = row - c; /* bytes left in row r; the rest starts row r + 1 */
            v = dmlcpu_vec_load_split(at, b, src + (ptrdiff_t)(r + 1) * ss - (ptrdiff_t)b);
        }
        dmlcpu_vec_stream(dst + p, v);
        c += DMLCPU_VEC_BYTES;
        if (c >= row) {
            c -= row;
            r++;
        }
    }
    DMLCPU_KERNEL(copy_row_bytes)(dst + p, src, ss, row, &r, &c, total - p);
}

#endif /* DMLCPU_COPY_STREAM_H */
