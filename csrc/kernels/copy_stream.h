/*
 * The streaming copy kernels and the rows kernels of an x86 ISA unit, written once against the
 * unit's simd/<isa>.h wrappers (DMLCPU_VEC_BYTES, dmlcpu_vec_load / _store / _stream /
 * _load_split). Static inline: a unit emits them only if its table lists them.
 */
#ifndef DMLCPU_COPY_STREAM_H
#define DMLCPU_COPY_STREAM_H

#include <stdint.h>
#include <string.h>

#include "../dispatch.h"
#include "copy_vec4.h"
#include "kernel.h"

#if defined(_MSC_VER)
#include <intrin.h>
#endif

/* n bytes by the CPU's string copy (rep movsb), as glibc's memcpy copies a few KiB and more */
static inline void dmlcpu_string_copy(char *dst, const char *src, size_t n) {
#if defined(_MSC_VER)
    __movsb((unsigned char *)dst, (const unsigned char *)src, n);
#else
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
#endif
}

/*
 * Contiguous bytes with non-temporal stores: the output bypasses the caches, so a copy much
 * larger than the last-level cache neither reads the destination lines first (no RFO) nor
 * evicts the source. The stores are weakly ordered: the driver fences once after the whole
 * copy (dmlcpu_store_fence), not after every run: a fence per short run cost more than it saved.
 * The whole vectors after the unrolled loop stream too: stored ordinarily, they left a run's last
 * lines to be read first (JOIN float16 along axis 2, 512-byte blocks of which up to 192 bytes
 * fell there, 8 MiB on an Intel Xeon: 1.22-1.28x as fast streamed, one thread). A line-aligned
 * run of one line (the group pass's carried lines) is one vector store or two.
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
        dmlcpu_copy_vec4(dst, src, 1);
        dst += 4 * DMLCPU_VEC_BYTES;
        src += 4 * DMLCPU_VEC_BYTES;
    }
    for (; n >= DMLCPU_VEC_BYTES; n -= DMLCPU_VEC_BYTES) {
        dmlcpu_vec_stream(dst, dmlcpu_vec_load(src));
        dst += DMLCPU_VEC_BYTES;
        src += DMLCPU_VEC_BYTES;
    }
    memcpy(dst, src, n);
}

/* n bytes (w <= n <= 2w) as two moves of w bytes, overlapping where n < 2w; w is a constant
 * where this is inlined, so each move is one load or store */
static DMLCPU_ALWAYS_INLINE void dmlcpu_copy_two(char *dst, const char *src, size_t n, size_t w) {
    char first[32], last[32];
    memcpy(first, src, w);
    memcpy(last, src + n - w, w);
    memcpy(dst, first, w);
    memcpy(dst + n - w, last, w);
}

/*
 * n < 64 bytes inside one line of the destination (the ends of an aligned walk), without a call:
 * two moves of the largest power of two not above n, overlapping where n is not one, as glibc's
 * memcpy copies short lengths, so no store crosses into the next line. Against a memcpy call for
 * each end, JOIN float16 along axis 2 at 512 KiB (512-byte blocks) ran 1.20x as fast warm and
 * SPLIT into [100, 300, 624] 1.05-1.08x; cold 0.95-1.01x (NOTES.md in git).
 */
static DMLCPU_ALWAYS_INLINE void dmlcpu_copy_short(char *dst, const char *src, size_t n) {
    if (n >= 32) dmlcpu_copy_two(dst, src, n, 32);
    else if (n >= 16) dmlcpu_copy_two(dst, src, n, 16);
    else if (n >= 8) dmlcpu_copy_two(dst, src, n, 8);
    else if (n >= 4) dmlcpu_copy_two(dst, src, n, 4);
    else if (n >= 2) dmlcpu_copy_two(dst, src, n, 2);
    else if (n == 1) *dst = *src;
}

/*
 * The aligned walk with ordinary stores asks for each destination line this far ahead, where the
 * call writes at least DMLCPU_ROWS_PREFETCH_MIN_BYTES: a store that misses L1 waits for its line,
 * from L2 too (the hardware prefetchers serve loads). Against no prefetch, one thread, 512 KiB,
 * warm: the window SLICE 1.00-1.05x as fast, JOIN and SPLIT along axis 1 1.00-1.08x, JOIN along
 * axis 2 float32 / float64 (1 / 2 KiB blocks) 1.14x / 1.16x, SPLIT into [100, 300, 624]
 * 1.01-1.09x, TILE 0.99-1.05x; cold 0.96-1.11x. Two threads at 512 KiB 0.93-1.17x, at 8 MiB within
 * the A/B's own order effect (0.95-1.05x) but TILE (r,1,1024) 1.05-1.49x. float16's 512-byte JOIN
 * blocks took 0.83x warm: hence the floor. 1, 2 and 4 KiB ahead measured alike
 * (NOTES.md in git).
 */
#define DMLCPU_ROWS_PREFETCH_BYTES 2048
#define DMLCPU_ROWS_PREFETCH_MIN_BYTES 1024

/* Prefetches the destination's lines from offset *next on, up to DMLCPU_ROWS_PREFETCH_BYTES past
 * offset at (not past total), advancing *next. */
static DMLCPU_ALWAYS_INLINE void dmlcpu_prefetch_ahead(const char *dst, size_t *next, size_t at,
                                                       size_t total) {
    size_t upto = total - at > DMLCPU_ROWS_PREFETCH_BYTES ? at + DMLCPU_ROWS_PREFETCH_BYTES : total;
    for (; *next < upto; *next += 64) dmlcpu_prefetch(dst + *next);
}

/* Where block (r, k) of a blocks walk starts: part k's block at row r. */
static DMLCPU_ALWAYS_INLINE const char *dmlcpu_block_at(const dmlcpu_copy_part *parts, size_t k,
                                                        size_t r) {
    return parts[k].src + (ptrdiff_t)r * parts[k].stride;
}

/*
 * Blocks (each one vector or longer) into one packed destination, rows [first, first + rows) of
 * them, each row the parts' blocks in order (a JOIN's output; the rows kernel's rows are one
 * part's blocks), walked in aligned vectors whatever the block boundaries: the vectors inside a
 * block in an unrolled loop, one straddling two blocks loaded in two parts. Non-temporal (stream)
 * or ordinary stores, and (prefetch) each destination line asked for DMLCPU_ROWS_PREFETCH_BYTES
 * ahead or not, chosen by the caller at compile time.
 */
static DMLCPU_ALWAYS_INLINE void DMLCPU_KERNEL(copy_blocks_aligned)(
    char *dst, const dmlcpu_copy_part *parts, size_t count, size_t first, size_t rows, int stream,
    int prefetch) {
    size_t width = 0;
    for (size_t k = 0; k < count; k++) width += parts[k].bytes;
    size_t total = width * rows, r = first, k = 0, c = 0, ahead = 0;
    if (total == 0) return;
    /* streamed, whole lines only: the ends' partial lines take ordinary stores */
    size_t align = stream ? 64 : DMLCPU_VEC_BYTES;
    size_t head = dmlcpu_bytes_to_aligned(dst, align);
    if (head > total) head = total;
    size_t end = stream ? head + ((total - head) & ~(size_t)63) : total;
    dmlcpu_copy_short(dst, dmlcpu_block_at(parts, 0, r), head); /* head < align <= a block */
    c = head;
    size_t p = head;
    while (p + DMLCPU_VEC_BYTES <= end) {
        size_t bytes = parts[k].bytes;
        const char *s = dmlcpu_block_at(parts, k, r) + c;
        char *d = dst + p;
        size_t inside = bytes - c < end - p ? bytes - c : end - p, i = 0;
        if (prefetch) dmlcpu_prefetch_ahead(dst, &ahead, p, total);
        for (; i + 4 * DMLCPU_VEC_BYTES <= inside; i += 4 * DMLCPU_VEC_BYTES) {
            if (prefetch) dmlcpu_prefetch_ahead(dst, &ahead, p + i, total);
            dmlcpu_copy_vec4(d + i, s + i, stream);
        }
        for (; i + DMLCPU_VEC_BYTES <= inside; i += DMLCPU_VEC_BYTES) {
            if (stream) dmlcpu_vec_stream(d + i, dmlcpu_vec_load(s + i));
            else dmlcpu_vec_store(d + i, dmlcpu_vec_load(s + i));
        }
        p += i;
        c += i;
        size_t next_k = k + 1 == count ? 0 : k + 1, next_r = next_k == 0 ? r + 1 : r;
        if (c == bytes) { /* the block ended on a vector boundary */
            c = 0;
            k = next_k;
            r = next_r;
            continue;
        }
        if (p + DMLCPU_VEC_BYTES > end) break; /* the ragged end of the last block */
        size_t b = bytes - c; /* bytes left in this block, under a vector; the rest is the next's */
        dmlcpu_vec v = dmlcpu_vec_load_split(s + i, b, dmlcpu_block_at(parts, next_k, next_r) - b);
        if (stream) dmlcpu_vec_stream(d + i, v);
        else dmlcpu_vec_store(d + i, v);
        p += DMLCPU_VEC_BYTES;
        c = DMLCPU_VEC_BYTES - b;
        k = next_k;
        r = next_r;
    }
    /* under align left, so inside the last block: every block is that long or longer */
    if (p < total) dmlcpu_copy_short(dst + p, dmlcpu_block_at(parts, k, r) + c, total - p);
}

/* Rows (row >= one vector) into one packed destination: the blocks walk over one part. */
static DMLCPU_ALWAYS_INLINE void DMLCPU_KERNEL(copy_rows_aligned)(char *dst, const char *src,
                                                                  ptrdiff_t ss, size_t row,
                                                                  size_t rows, int stream,
                                                                  int prefetch) {
    dmlcpu_copy_part one = {src, ss, row};
    DMLCPU_KERNEL(copy_blocks_aligned)(dst, &one, 1, 0, rows, stream, prefetch);
}

/*
 * Rows (row >= 64 bytes) with non-temporal stores. Streaming each short row on its own was
 * several times slower: the partial lines at its ends mixed normal and non-temporal stores in one
 * line.
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_stream_rows)(char *dst, const char *src,
                                                         ptrdiff_t ss, size_t row, size_t rows,
                                                         int cached) {
    (void)cached;
    DMLCPU_KERNEL(copy_rows_aligned)(dst, src, ss, row, rows, 1, 0);
}

/*
 * Rows with ordinary stores, in one call (TILE (8,1,1024) x (1,64,1) int8 took 11.4-11.8 us with a
 * walk step and a call per row). Into a destination in cache, aligned vectors: 7.3-7.5 us against
 * 8.3 us for the packed-run kernel per row, which stores the lines where rows meet twice. Into one
 * that is not (the driver's rule, copy_nd.c: rows of 2 KiB and more, a call beyond L2; a long
 * packed run of a call in L2, as one row), row by row as glibc's memcpy copies them: the first
 * line's worth in vectors, the rest by the string copy from the line boundary on. There, TILE
 * (r,1,1024) x (1,64,1) at 8 MiB, the aligned walk took 1.38-1.43x the time of unaligned vectors
 * row by row cold (one thread), and those (stores straddling two lines in NumPy's large arrays, 16
 * bytes into a page) 1.03-1.06x the time of the string copy cold and warm, 1.11-1.18x warm on two
 * threads (NOTES.md in git). Its source cached instead (copy_nd.c), the aligned walk
 * prefetching the destination took 0.50-0.95x their time cold and 0.69-0.91x warm on two threads
 * (one thread 0.97-1.03x).
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_rows_vec)(char *dst, const char *src, ptrdiff_t ss,
                                                      size_t row, size_t rows, int cached) {
    if (row < DMLCPU_VEC_BYTES) {
        for (size_t r = 0; r < rows; r++) memcpy(dst + r * row, src + (ptrdiff_t)r * ss, row);
        return;
    }
    if (ss == 0 && row <= 2 * DMLCPU_VEC_BYTES) {
        /* one short row repeated (a TILE block's innermost dim spread): loaded once, stored row
         * by row from registers. The aligned walk below assembles each vector from the ends of
         * two rows: TILE (1,64,32,32) x (1,1,4,4) int8 (32-byte rows) took 106 us there, 56 us
         * here (AMD Zen 4, one thread). */
        dmlcpu_vec head = dmlcpu_vec_load(src);
        dmlcpu_vec tail = dmlcpu_vec_load(src + row - DMLCPU_VEC_BYTES);
        for (size_t r = 0; r < rows; r++, dst += row) {
            dmlcpu_vec_store(dst, head);
            dmlcpu_vec_store(dst + row - DMLCPU_VEC_BYTES, tail);
        }
        return;
    }
    if (cached || row < 64) {
        if (row * rows >= DMLCPU_ROWS_PREFETCH_MIN_BYTES)
            DMLCPU_KERNEL(copy_rows_aligned)(dst, src, ss, row, rows, 0, 1);
        else
            DMLCPU_KERNEL(copy_rows_aligned)(dst, src, ss, row, rows, 0, 0);
        return;
    }
    for (size_t r = 0; r < rows; r++, dst += row, src += ss) {
        for (size_t i = 0; i < 64; i += DMLCPU_VEC_BYTES)
            dmlcpu_vec_store(dst + i, dmlcpu_vec_load(src + i));
        size_t head = 64 - (size_t)((uintptr_t)dst & 63); /* 1-64 bytes, stored already */
        dmlcpu_string_copy(dst + head, src + head, row - head);
    }
}

/*
 * The parts' blocks (each 64 bytes or longer) into one packed destination in cache, a JOIN's
 * output in L2 (dmlcpu_copy_blocks_fn): one aligned walk across the block boundaries instead of
 * one per block, each with its own unaligned ends. JOIN 4 parts along axis 2 at 512 KiB, against
 * a walk per block: 256-byte blocks (int8) 1.75x as fast warm and 1.09x cold on one thread,
 * 1.65x / 1.12x on two; float16 (512 bytes) 1.32x / 1.04x and 1.26x / 1.06x; float32 (1 KiB)
 * 1.10-1.13x / 0.99-1.03x; float64 (2 KiB) 1.00-1.09x. The destination prefetch only where every
 * block is 1 KiB or longer: with it, 256-byte blocks took 1.23x as long (calls back to back);
 * without it, JOIN along axis 1 (64 KiB blocks) 1.04x warm (NOTES.md in git).
 */
static inline void DMLCPU_KERNEL(dmlcpu_copy_blocks_vec)(char *dst, const dmlcpu_copy_part *parts,
                                                        size_t count, size_t first, size_t rows) {
    size_t shortest = (size_t)-1;
    for (size_t k = 0; k < count; k++)
        if (parts[k].bytes < shortest) shortest = parts[k].bytes;
    if (shortest >= DMLCPU_ROWS_PREFETCH_MIN_BYTES)
        DMLCPU_KERNEL(copy_blocks_aligned)(dst, parts, count, first, rows, 0, 1);
    else
        DMLCPU_KERNEL(copy_blocks_aligned)(dst, parts, count, first, rows, 0, 0);
}

/* The parts' blocks with non-temporal stores (dmlcpu_copy_blocks_fn): a JOIN's output far larger
 * than the caches. */
static inline void DMLCPU_KERNEL(dmlcpu_copy_stream_blocks)(char *dst,
                                                           const dmlcpu_copy_part *parts,
                                                           size_t count, size_t first,
                                                           size_t rows) {
    DMLCPU_KERNEL(copy_blocks_aligned)(dst, parts, count, first, rows, 1, 0);
}

#endif /* DMLCPU_COPY_STREAM_H */
