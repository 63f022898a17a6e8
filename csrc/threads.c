/*
 * The thread count and the parallel-for of every driver. The pool itself is per platform
 * (threads.h); results never depend on it: each chunk's work is fixed by the caller, and chunks
 * are independent, so which thread ran what, and how many there were, cannot change a bit.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "threads.h"

static atomic_int num_threads = 1;
static atomic_int threads_source = DMLCPU_THREADS_FROM_CPUS;
static dmlcpu_cpu_budget cpus = {1, 1, 0, DMLCPU_QUOTA_NONE, 1, 1};

const dmlcpu_cpu_budget *dmlcpu_cpus_detected(void) { return &cpus; }

const dmlcpu_cpu_budget *dmlcpu_cpus(void) {
    dmlcpu_init();
    return &cpus;
}

#if defined(DMLCPU_HAVE_POOL)

static int parse_env_threads(void) {
    const char *s = getenv("DMLCPU_NUM_THREADS");
    if (s == NULL || *s == '\0') return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > DMLCPU_MAX_THREADS) return 0;
    return (int)v;
}

int dmlcpu_threads_compiled(void) { return 1; }

void dmlcpu_threads_init(void) {
    dmlcpu_detect_cpus(&cpus);
    int n = parse_env_threads();
    atomic_store(&num_threads, n ? n : cpus.threads);
    atomic_store(&threads_source, n ? DMLCPU_THREADS_FROM_ENV : DMLCPU_THREADS_FROM_CPUS);
    dmlcpu_pool_init(cpus.usable);
}

#else /* no pool on this platform: one thread, whatever DMLCPU_NUM_THREADS says */

int dmlcpu_threads_compiled(void) { return 0; }
void dmlcpu_threads_init(void) { dmlcpu_detect_cpus(&cpus); }
uint64_t dmlcpu_now_ns(void) { return 0; } /* no clock: nothing is timed */
uint64_t dmlcpu_pool_yields(void) { return 0; }
void dmlcpu_set_pool_spin_ns(int64_t ns) { (void)ns; }
int64_t dmlcpu_pool_spin_ns(void) { return 0; }

#endif

dmlcpu_status dmlcpu_set_num_threads_from(int n, int source) {
    dmlcpu_init();
    if (n < 1 || n > DMLCPU_MAX_THREADS) return DMLCPU_E_INVALID;
    if (n > 1 && !dmlcpu_threads_compiled()) return DMLCPU_E_INVALID;
    if (source < DMLCPU_THREADS_FROM_CPUS || source > DMLCPU_THREADS_FROM_DASK)
        return DMLCPU_E_INVALID;
    atomic_store(&num_threads, n);
    atomic_store(&threads_source, source);
    return DMLCPU_OK;
}

dmlcpu_status dmlcpu_set_num_threads(int n) {
    return dmlcpu_set_num_threads_from(n, DMLCPU_THREADS_FROM_SET);
}

int dmlcpu_get_num_threads(void) {
    dmlcpu_init();
    return atomic_load(&num_threads);
}

int dmlcpu_threads_source(void) {
    dmlcpu_init();
    return atomic_load(&threads_source);
}

/* dmlcpu_threads_for and dmlcpu_chunks_for: policy.c */

/* Start of chunk i of n in units of align: i * (units / n) plus one for each earlier chunk
 * that takes one of the units / n remainder; never a product that could overflow. */
static int64_t share_start(int64_t total, int64_t align, int i, int n) {
    int64_t units = total / align + (total % align != 0);
    int64_t q = units / n, r = units % n;
    int64_t start = i * q + (i < r ? i : r);
    return start >= units ? total : start * align;
}

void dmlcpu_share(int64_t total, int64_t align, int chunk, int chunks, int64_t *lo, int64_t *hi) {
    if (chunks == 1) { /* a tiny call's only chunk, without share_start's divisions */
        *lo = 0;
        *hi = total;
        return;
    }
    *lo = share_start(total, align, chunk, chunks);
    *hi = share_start(total, align, chunk + 1, chunks);
}

void dmlcpu_parallel(dmlcpu_task_fn task, void *ctx, int chunks) {
#if defined(DMLCPU_HAVE_POOL)
    if (chunks > 1) {
        dmlcpu_pool_run(task, ctx, chunks, dmlcpu_get_num_threads());
        return;
    }
#endif
    for (int i = 0; i < chunks; i++) task(ctx, i, chunks);
}
