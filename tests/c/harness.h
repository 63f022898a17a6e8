/*
 * The C test of the core: shared helpers. The test sees only the public header, as any C caller
 * would, and compares every result byte for byte with a plain reference loop written here.
 */
#ifndef DMLCPU_TEST_HARNESS_H
#define DMLCPU_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "dmlcpu/dmlcpu.h"

extern long test_checks, test_failures;
/* what the run is testing now, printed with a failure: "isa=avx2 threads=3" */
extern char test_context[64];

void test_fail(const char *file, int line, const char *what);
#define CHECK(cond, what)                                                                          \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) test_fail(__FILE__, __LINE__, what);                                          \
    } while (0)

/* A deterministic generator (splitmix64), so a failure reproduces. */
uint64_t test_random(void);
void test_seed(uint64_t seed);
void test_fill_random(void *p, size_t bytes);

/*
 * A view over its own allocation, with guard bytes on both sides so that a write outside the
 * view's elements shows up as a difference from the reference buffer.
 */
typedef struct test_buffer {
    unsigned char *base; /* the allocation: guard, span, guard */
    size_t bytes;
    dmlcpu_view view;
} test_buffer;

/* Bytes by which test_buffer_make shifts the views it makes off their natural alignment. */
extern size_t test_misalign;
/* strides in elements (any sign, 0 allowed); fill: 0 random bytes, else that byte everywhere */
void test_buffer_make(test_buffer *b, int32_t ndim, const int64_t *sizes, const int64_t *strides,
                      size_t elsize, int fill);
/* A second buffer laid out exactly like b, with b's bytes (the expected result starts as this). */
void test_buffer_clone(test_buffer *copy, const test_buffer *b);
void test_buffer_free(test_buffer *b);
int test_buffer_equal(const test_buffer *a, const test_buffer *b);

/* Address of element idx (ndim coordinates) of a view. */
char *test_element(const dmlcpu_view *v, const int64_t *idx, size_t elsize);
/* Advances idx over sizes like an odometer (last dim fastest); 0 after the last element. */
int test_next_index(int64_t *idx, const int64_t *sizes, int32_t ndim);
int64_t test_count(const dmlcpu_view *v);

/* IEEE half precision, written out plainly: the reference for the FLOAT16 scans. */
float test_f16_to_f32(uint16_t h);
uint16_t test_f32_to_f16(float f);

/* The test families (copies.c, scans.c, pool.c). */
void test_pool(void);
void test_copies(void);
void test_groups_and_tiles(void);
void test_scans(void);
void test_numpy_scans(void);
void test_invalid_arguments(void);

#endif
