/*
 * The thread pool's logic, written once for every platform. A pool file (threads_posix.c,
 * threads_win32.c) defines its primitives, then includes this file:
 *   pool_mutex, pool_cond and their _init/_destroy, pool_lock/pool_unlock, pool_wait (the
 *   mutex held, released while waiting), pool_signal; POOL_MUTEX_INIT (a static initializer)
 *   pool_spawn(slot)            starts a thread running pool_worker_loop(slot); 0 on success
 *   pool_yield()                lets another thread ready on this CPU run first
 *   dmlcpu_now_ns()             a monotonic clock (internal.h)
 *
 * No lock is shared by the whole pool. Each worker has a slot: a caller takes an idle worker by
 * one compare-and-swap on its state, hands it the job through the slot and wakes it only if it
 * sleeps, so a job wakes the workers it needs (its chunks or its thread count, whichever is
 * fewer, less the caller) and no more. Every thread on a job, the caller too, claims chunks by
 * one atomic increment of the job's counter until none is left. A chunk is at least
 * DMLCPU_PARALLEL_CHUNK_BYTES of copying (tens of microseconds), so one increment each is no
 * contention even at 256 threads, and a thread that starts late leaves its chunks to the others.
 * Concurrent callers share the workers: each takes only idle ones (a caller that finds none works
 * alone), so the threads at work never exceed the callers plus the workers one thread count
 * allows. Chunks are independent, so who ran which cannot change a bit.
 *
 * The caller returns once every chunk is done, not once every helper has come: a helper handed
 * the job that the system has not run yet (busy CPUs, more threads than CPUs) costs the caller
 * nothing, it finds no chunk left when it runs. So the job is on the heap, counted: the caller
 * and each helper hold a reference, and whoever lets go last frees it.
 *
 * Waiting: a worker between jobs, and a caller whose helpers are still at its last chunks, spins
 * for dmlcpu_pool_spin_ns() (default POOL_SPIN_NS), then sleeps on its condition. Waking a
 * sleeping thread costs 20-100 us where an idle CPU must first be woken (a VM's idle vCPU is
 * descheduled): more than a whole 2 MiB copy, so calls back to back never sleep. The spin is
 * short so that an idle pool holds no core other work could use (spinning on for 20 ms slowed
 * ONNX Runtime's next calls up to 2.4x: NOTES.md in git), and nothing spins while the thread
 * count exceeds the CPUs the process may use: a spinning thread there holds a CPU a thread with
 * work needs. Past POOL_YIELD_AFTER_NS a spinning thread yields its CPU at every clock check: a
 * woken worker may land on its caller's CPU, and then neither holds the other up.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#include <immintrin.h>
#define pool_cpu_relax() _mm_pause()
#elif defined(__clang__) && (defined(__aarch64__) || defined(_M_ARM64))
#define pool_cpu_relax() __builtin_arm_yield() /* clang's intrin.h clashes with mingw's headers */
#elif defined(_MSC_VER) && defined(_M_ARM64)
#include <intrin.h>
#define pool_cpu_relax() __yield()
#elif defined(__aarch64__) || defined(__arm__)
#define pool_cpu_relax() __asm__ __volatile__("yield")
#else
#define pool_cpu_relax() ((void)0)
#endif

#define POOL_SPIN_NS 50000
#define POOL_YIELD_AFTER_NS 10000

struct pool_job {
    dmlcpu_task_fn task;
    void *ctx;
    int chunks;
    atomic_int next;       /* the next chunk to claim (may run past chunks) */
    atomic_uintptr_t done; /* chunks done */
    atomic_int refs;       /* the caller and the helpers handed the job, until they let go */
    int caller_sleeping;   /* under m */
    pool_mutex m;
    pool_cond finished;
};

enum { SLOT_IDLE = 0, SLOT_TAKEN = 1 };

struct pool_slot {
    atomic_int state;      /* SLOT_IDLE: a caller may take the worker (compare-and-swap) */
    atomic_uintptr_t job;  /* the job handed to the worker, 0 between jobs */
    atomic_uintptr_t sleeping; /* 1 while the worker waits on wake (set under m) */
    pool_mutex m;
    pool_cond wake;
    char apart[64]; /* keeps the next slot's atomics off this one's cache line */
};

static struct pool_slot slots[DMLCPU_MAX_THREADS - 1];
static atomic_int started;                    /* slots with a worker */
static pool_mutex start_lock = POOL_MUTEX_INIT; /* held while starting workers */
static int usable_cpus = 1;                   /* from dmlcpu_pool_init */
static atomic_llong spin_setting = -1;        /* dmlcpu_set_pool_spin_ns; -1: POOL_SPIN_NS */
static atomic_ullong wake_ns;     /* what waking a sleeping worker cost a caller lately */
static atomic_ullong last_end_ns; /* when the last job ended */
static atomic_ullong yields;      /* how many times a spinning thread yielded (tests) */

uint64_t dmlcpu_pool_yields(void) { return atomic_load(&yields); }

void dmlcpu_set_pool_spin_ns(int64_t ns) { atomic_store(&spin_setting, ns < 0 ? -1 : ns); }

int64_t dmlcpu_pool_spin_ns(void) {
    int64_t ns = atomic_load(&spin_setting);
    return ns < 0 ? POOL_SPIN_NS : ns;
}

/* How long a thread may spin now: never while the pool has more threads than usable CPUs. */
static uint64_t spin_limit(void) {
    return dmlcpu_get_num_threads() > usable_cpus ? 0 : (uint64_t)dmlcpu_pool_spin_ns();
}

/* Spins while (*word == value) != until_equal, for at most spin_limit() (the clock read every
 * 64 turns), yielding the CPU at each reading past POOL_YIELD_AFTER_NS. */
static void pool_spin(atomic_uintptr_t *word, uintptr_t value, int until_equal) {
    uint64_t limit = spin_limit();
    if (limit == 0) return;
    uint64_t start = dmlcpu_now_ns();
    for (unsigned turn = 1;
         (atomic_load_explicit(word, memory_order_acquire) == value) != until_equal; turn++) {
        pool_cpu_relax();
        if (turn % 64 != 0) continue;
        uint64_t spun = dmlcpu_now_ns() - start;
        if (spun > limit) return;
        if (spun > POOL_YIELD_AFTER_NS) {
            pool_yield();
            atomic_fetch_add_explicit(&yields, 1, memory_order_relaxed);
        }
    }
}

/* Claims and runs chunks of the job until none is left, or `most` of them; the thread that
 * finishes the last chunk wakes the caller if it sleeps. */
static void pool_run_chunks(struct pool_job *job, int most) {
    while (most-- > 0) {
        int chunk = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (chunk >= job->chunks) return;
        job->task(job->ctx, chunk, job->chunks);
        if (atomic_fetch_add(&job->done, 1) + 1 == (uintptr_t)job->chunks) {
            pool_lock(&job->m);
            if (job->caller_sleeping) pool_signal(&job->finished);
            pool_unlock(&job->m);
        }
    }
}

/* Lets go of the job; the last one to do so frees it. */
static void pool_release(struct pool_job *job) {
    if (atomic_fetch_sub(&job->refs, 1) != 1) return;
    pool_cond_destroy(&job->finished);
    pool_mutex_destroy(&job->m);
    free(job);
}

/* A worker's whole life: wait for a job in its slot, help with it, free the slot, let go. */
static void pool_worker_loop(struct pool_slot *slot) {
    for (;;) {
        uintptr_t handed = atomic_load_explicit(&slot->job, memory_order_acquire);
        if (handed == 0) {
            pool_spin(&slot->job, 0, 0);
            handed = atomic_load(&slot->job);
        }
        if (handed == 0) {
            pool_lock(&slot->m);
            atomic_store(&slot->sleeping, 1); /* then read job: pool_hand's mirror image */
            while ((handed = atomic_load(&slot->job)) == 0) pool_wait(&slot->wake, &slot->m);
            atomic_store(&slot->sleeping, 0);
            pool_unlock(&slot->m);
        }
        struct pool_job *job = (struct pool_job *)handed;
        pool_run_chunks(job, INT_MAX);
        atomic_store_explicit(&slot->job, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->state, SLOT_IDLE, memory_order_release);
        pool_release(job);
    }
}

/* Starts workers until `want` slots have one or the system refuses. */
static void pool_grow(int want) {
    if (atomic_load_explicit(&started, memory_order_acquire) >= want) return;
    pool_lock(&start_lock);
    for (int n = atomic_load(&started); n < want; n++) {
        struct pool_slot *slot = &slots[n];
        atomic_store(&slot->state, SLOT_IDLE);
        atomic_store(&slot->job, 0);
        atomic_store(&slot->sleeping, 0);
        pool_mutex_init(&slot->m);
        pool_cond_init(&slot->wake);
        if (pool_spawn(slot) != 0) break;
        atomic_store_explicit(&started, n + 1, memory_order_release);
    }
    pool_unlock(&start_lock);
}

/* Hands the job to a worker taken for it; returns 1 if the worker slept and was woken. */
static int pool_hand(struct pool_slot *slot, struct pool_job *job) {
    atomic_fetch_add(&job->refs, 1);
    atomic_store(&slot->job, (uintptr_t)job); /* then read sleeping: the worker's mirror image */
    if (!atomic_load(&slot->sleeping)) return 0;
    pool_lock(&slot->m);
    pool_signal(&slot->wake);
    pool_unlock(&slot->m);
    return 1;
}

void dmlcpu_pool_run(dmlcpu_task_fn task, void *ctx, int chunks, int threads) {
    struct pool_job *job = malloc(sizeof *job);
    if (job == NULL) { /* no memory for the job: the caller does it all */
        for (int i = 0; i < chunks; i++) task(ctx, i, chunks);
        return;
    }
    job->task = task;
    job->ctx = ctx;
    job->chunks = chunks;
    atomic_init(&job->next, 0);
    atomic_init(&job->done, 0);
    atomic_init(&job->refs, 1);
    job->caller_sleeping = 0;
    pool_mutex_init(&job->m);
    pool_cond_init(&job->finished);

    int want = (threads < chunks ? threads : chunks) - 1;
    if (want > DMLCPU_MAX_THREADS - 1) want = DMLCPU_MAX_THREADS - 1;
    pool_grow(want);
    /* Take idle workers, lowest slots first (the ones most recently busy, likeliest awake); hand
     * the job at once to the awake ones. */
    struct pool_slot *asleep[DMLCPU_MAX_THREADS - 1];
    int taken = 0, sleeping = 0, have = atomic_load_explicit(&started, memory_order_acquire);
    for (int i = 0; i < have && taken < want; i++) {
        int idle = SLOT_IDLE;
        if (!atomic_compare_exchange_strong(&slots[i].state, &idle, SLOT_TAKEN)) continue;
        taken++;
        if (atomic_load(&slots[i].sleeping))
            asleep[sleeping++] = &slots[i];
        else
            pool_hand(&slots[i], job);
    }
    /* Waking a sleeping worker costs the caller about as long as copying a 512 KiB chunk on one
     * thread. So a small job (fewer than a full share of chunks per thread) with no job just
     * before it (whose workers would still be spinning) starts on the caller alone: its first
     * chunk is timed, and sleeping workers are woken only where the rest would take the caller
     * longer than twice what a wake has cost lately. Only who runs which chunk depends on it. */
    if (sleeping > 0 && chunks < DMLCPU_CHUNKS_PER_THREAD * threads &&
        dmlcpu_now_ns() - atomic_load_explicit(&last_end_ns, memory_order_relaxed) >=
            spin_limit()) {
        uint64_t start = dmlcpu_now_ns();
        pool_run_chunks(job, 1);
        uint64_t chunk_ns = dmlcpu_now_ns() - start;
        int left = chunks - atomic_load_explicit(&job->next, memory_order_relaxed);
        if (left <= 0 || (uint64_t)left * chunk_ns <= 2 * atomic_load(&wake_ns)) {
            for (int i = 0; i < sleeping; i++)
                atomic_store_explicit(&asleep[i]->state, SLOT_IDLE, memory_order_release);
            sleeping = 0;
        }
    }
    if (sleeping > 0) {
        uint64_t start = dmlcpu_now_ns(), woken = 0;
        for (int i = 0; i < sleeping; i++) woken += (uint64_t)pool_hand(asleep[i], job);
        if (woken > 0) {
            uint64_t cost = (dmlcpu_now_ns() - start) / woken, before = atomic_load(&wake_ns);
            atomic_store(&wake_ns, before == 0 ? cost : (3 * before + cost) / 4);
        }
    }
    pool_run_chunks(job, INT_MAX); /* the caller works too; with no helper it does all */
    if (atomic_load(&job->done) != (uintptr_t)chunks)
        pool_spin(&job->done, (uintptr_t)chunks, 1);
    pool_lock(&job->m);
    while (atomic_load(&job->done) != (uintptr_t)chunks) {
        job->caller_sleeping = 1;
        pool_wait(&job->finished, &job->m);
    }
    pool_unlock(&job->m);
    pool_release(job);
    atomic_store_explicit(&last_end_ns, dmlcpu_now_ns(), memory_order_relaxed);
}
