/*
 * The kernel table: one struct of function pointers, one section per kernel family.
 *
 * Each ISA translation unit exports a partial table of its own type: the slots it fills are the
 * ones where it measured faster than the narrower ISA (NOTES.md in git); NULL slots fall back.
 * dispatch.c starts from the scalar table, then overlays each usable wider ISA in order.
 * A new ISA registers its tables with one line in dispatch.c (isa_tables). A new family adds a
 * section struct here, a member to dmlcpu_dispatch and a few lines to dispatch.c's overlay and
 * slot listing.
 */
#ifndef DMLCPU_DISPATCH_H
#define DMLCPU_DISPATCH_H

#include "internal.h"

#define DMLCPU_COPY_WIDTHS 4 /* 1, 2, 4, 8 bytes */

/* Copies rows of row_bytes each, src rows src_row_stride apart, into one packed destination.
 * cached: the destination is small enough to be in cache, or the source is (a TILE's repeated
 * input); how a kernel stores may depend on it. */
typedef void (*dmlcpu_copy_rows_fn)(char *dst, const char *src, ptrdiff_t src_row_stride,
                                    size_t row_bytes, size_t rows, int cached);

/* One part of a packed destination filled block by block (dmlcpu_copy_blocks_fn): its block at
 * row r is bytes long, at src + r * stride. */
typedef struct dmlcpu_copy_part {
    const char *src;
    ptrdiff_t stride;
    size_t bytes;
} dmlcpu_copy_part;

/* Fills a packed destination with rows [first, first + rows) of the parts' blocks, each row part
 * 0's block, then part 1's, ... (a JOIN's output), dst at row first's start; count >= 1. */
typedef void (*dmlcpu_copy_blocks_fn)(char *dst, const dmlcpu_copy_part *parts, size_t count,
                                      size_t first, size_t rows);

typedef struct dmlcpu_copy_kernels {
    dmlcpu_copy_run_fn run[DMLCPU_COPY_WIDTHS][DMLCPU_RUN_LAYOUT_COUNT];
    /* Contiguous bytes with non-temporal stores, for outputs far larger than the caches;
     * NULL when the ISA has none (the contiguous run kernel is used). */
    dmlcpu_copy_run_fn stream;
    /* Packed destination filled from rows of at least 64 bytes, with non-temporal stores of
     * whole aligned lines even where a line straddles two rows; NULL when the ISA has none. */
    dmlcpu_copy_rows_fn stream_rows;
    /* Packed destination filled from rows with ordinary stores, in one call for all of them (a
     * TILE's repeats of a cached row, a SLICE's rows). */
    dmlcpu_copy_rows_fn rows;
    /* Packed destination in cache filled from the blocks of several parts (each 64 bytes or
     * longer), in one call: a JOIN's output in L2. */
    dmlcpu_copy_blocks_fn blocks;
    /* The same with non-temporal stores, for a JOIN's output far larger than the caches; NULL
     * when the ISA has none. */
    dmlcpu_copy_blocks_fn stream_blocks;
} dmlcpu_copy_kernels;

typedef struct dmlcpu_copy_isas {
    int8_t run[DMLCPU_COPY_WIDTHS][DMLCPU_RUN_LAYOUT_COUNT];
    int8_t stream;
    int8_t stream_rows;
    int8_t rows;
    int8_t blocks;
    int8_t stream_blocks;
} dmlcpu_copy_isas;

/* ---- scan section: one outer and one line kernel per scan type and operation (internal.h). An
 * ISA unit exports a full-size table of dmlcpu_scan_kernels with NULL where it has no faster
 * kernel. */
typedef struct dmlcpu_scan_isas {
    int8_t outer[DMLCPU_SCAN_TYPE_COUNT][DMLCPU_SCAN_OP_COUNT];
    int8_t line[DMLCPU_SCAN_TYPE_COUNT][DMLCPU_SCAN_OP_COUNT];
} dmlcpu_scan_isas;

extern const dmlcpu_scan_kernels dmlcpu_scan_kernels__avx2[DMLCPU_SCAN_TYPE_COUNT]
                                                          [DMLCPU_SCAN_OP_COUNT];
extern const dmlcpu_scan_kernels dmlcpu_scan_kernels__avx512[DMLCPU_SCAN_TYPE_COUNT]
                                                            [DMLCPU_SCAN_OP_COUNT];
extern const dmlcpu_scan_kernels dmlcpu_scan_kernels__neon[DMLCPU_SCAN_TYPE_COUNT]
                                                          [DMLCPU_SCAN_OP_COUNT];
/* ---- end of the scan section */

typedef struct dmlcpu_dispatch {
    dmlcpu_copy_kernels copy;
    dmlcpu_copy_isas copy_isa; /* which ISA filled each slot, for show_config */
    dmlcpu_scan_kernels scan[DMLCPU_SCAN_TYPE_COUNT][DMLCPU_SCAN_OP_COUNT];
    dmlcpu_scan_isas scan_isa;
} dmlcpu_dispatch;

/* The active table; initializes on first use. Never NULL, never changes under a caller. */
const dmlcpu_dispatch *dmlcpu_dispatch_table(void);

/* Partial tables exported by the ISA units (only those compiled in are referenced). */
extern const dmlcpu_copy_kernels dmlcpu_copy_kernels__scalar;
extern const dmlcpu_copy_kernels dmlcpu_copy_kernels__avx2;
extern const dmlcpu_copy_kernels dmlcpu_copy_kernels__avx512;
extern const dmlcpu_copy_kernels dmlcpu_copy_kernels__avx512vbmi; /* sub-feature of avx512 */
extern const dmlcpu_copy_kernels dmlcpu_copy_kernels__neon;

/* Orders non-temporal stores before what follows (the end of a streaming copy); baseline SSE. */
#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
static inline void dmlcpu_store_fence(void) { _mm_sfence(); }
#else
static inline void dmlcpu_store_fence(void) {}
#endif

/* Asks for the cache line at p ahead of its use (a hint: it never faults). */
#if defined(__GNUC__) || defined(__clang__)
static inline void dmlcpu_prefetch(const void *p) { __builtin_prefetch(p); }
#elif defined(_M_X64) /* MSVC: xmmintrin.h, included above for the fence */
static inline void dmlcpu_prefetch(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T0); }
#else
static inline void dmlcpu_prefetch(const void *p) { (void)p; }
#endif

/* cpu.c */
uint32_t dmlcpu_detect_cpu_features(void);
uint32_t dmlcpu_isa_requirements(int isa);

#endif /* DMLCPU_DISPATCH_H */
