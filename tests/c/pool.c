/*
 * The C test of the thread pool itself (csrc/pool_impl.h): every chunk of a job runs exactly
 * once, whatever the thread count (up to 64, far past this machine's CPUs), the chunk count
 * and the spin time, and the count the caller sees on return is complete.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "harness.h"

/* internal.h's parallel-for, declared here: the test otherwise sees only the public header */
typedef void (*pool_task_fn)(void *ctx, int chunk, int chunks);
void dmlcpu_parallel(pool_task_fn task, void *ctx, int chunks);

#define MOST_CHUNKS 1000

struct counts {
    atomic_int runs[MOST_CHUNKS];
    atomic_int wrong_total; /* a chunk told another chunk count than the job's */
    int chunks;
};

static void count_chunk(void *ctx, int chunk, int chunks) {
    struct counts *c = ctx;
    if (chunks != c->chunks || chunk < 0 || chunk >= chunks) {
        atomic_fetch_add(&c->wrong_total, 1);
        return;
    }
    atomic_fetch_add(&c->runs[chunk], 1);
}

void test_pool(void) {
    static const int threads[] = {1, 2, 3, 7, 16, 64};
    static const int chunk_counts[] = {2, 3, 7, 64, 257, MOST_CHUNKS};
    static const int64_t spins[] = {-1, 0};
    static struct counts c;
    int initial = dmlcpu_get_num_threads();
    for (size_t s = 0; s < sizeof spins / sizeof spins[0]; s++) {
        dmlcpu_set_pool_spin_ns(spins[s]);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            if (threads[t] > 1 && !dmlcpu_threads_compiled()) continue;
            CHECK(dmlcpu_set_num_threads(threads[t]) == DMLCPU_OK, "set_num_threads");
            for (size_t k = 0; k < sizeof chunk_counts / sizeof chunk_counts[0]; k++) {
                for (int round = 0; round < 3; round++) {
                    c.chunks = chunk_counts[k];
                    atomic_store(&c.wrong_total, 0);
                    for (int i = 0; i < MOST_CHUNKS; i++) atomic_store(&c.runs[i], 0);
                    dmlcpu_parallel(count_chunk, &c, c.chunks);
                    int once = 1;
                    for (int i = 0; i < c.chunks; i++) once &= atomic_load(&c.runs[i]) == 1;
                    snprintf(test_context, sizeof test_context,
                             "pool threads=%d chunks=%d spin=%lld", threads[t], c.chunks,
                             (long long)spins[s]);
                    CHECK(once && atomic_load(&c.wrong_total) == 0, "every chunk once");
                }
            }
        }
    }
    dmlcpu_set_pool_spin_ns(-1);
    dmlcpu_set_num_threads(initial);
    printf("pool: every chunk once, threads 1-64, spin on and off\n");
}
