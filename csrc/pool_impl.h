/*
 * The thread pool's logic, written once for every platform. A pool file (threads_posix.c,
 * threads_win32.c) defines its primitives, then includes this file:
 *   pool_lock() / pool_unlock()        the lock that guards `jobs`
 *   pool_wait_wake() / pool_wait_done() wait on the workers' / the caller's condition (lock
 *                                      held, released while waiting)
 *   pool_wake_all() / pool_signal_done()
 *   pool_try_own() / pool_disown()     the busy flag: 1 if this caller now owns the pool
 *   pool_start_workers(want)           starts workers until jobs.workers == want - 1 or the
 *                                      system refuses (lock held); each runs pool_worker_loop()
 *   pool_yield()                       lets another thread ready on this CPU run first
 *   dmlcpu_now_ns()                    a monotonic clock (internal.h)
 * Workers wait for a new generation, then claim chunks one at a time; the caller claims chunks
 * too and returns once all are done. A caller that finds the pool busy (another Python thread's
 * job) runs its own chunks: one job at a time. threads.h has the contract.
 *
 * Before sleeping on a condition, a thread spins for POOL_SPIN_NS watching an atomic copy of
 * what it waits for. Waking a sleeping thread costs 20-100 us where an idle CPU must first be
 * woken (a VM's idle vCPU is descheduled): more than a whole 2 MiB copy. Calls back to back, and
 * a caller whose last chunks finish a little after its own, then never sleep. The spin is short
 * so that an idle pool does not hold a core that other work between calls could use (spinning
 * on for 20 ms, even yielding the CPU at every turn, slowed ONNX Runtime's next calls on this
 * machine up to 2.4x: NOTES.md in git).
 *
 * Past POOL_YIELD_AFTER_NS a spinning thread yields its CPU at every clock check. The system may
 * put a woken worker on its caller's CPU, the other one idle: then a worker spinning for the next
 * job holds up the caller, and a caller spinning for the worker's chunk holds up the worker. On
 * the AMD VM (2 vCPUs) after 60 ms of other work the worker was often found sharing the caller's
 * vCPU for a whole batch of calls: SPLIT along axis 1, int8, 512 KiB on two threads took 32-35 us
 * a call as the median batch mean (one thread: 17-18), 19-23 us yielding after 10 us; the bench at
 * 512 KiB and 8 MiB on two threads, two processes each way: 2 and 4 cells under the best peer
 * without, none with (NOTES.md in git). Calls back to back, whose gaps and waits are shorter,
 * never reach it.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
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
static struct {
    int workers;  /* started so far */
    int sleeping; /* workers waiting on the wake condition */
    uint64_t wake_ns;     /* what waking sleeping workers cost the caller lately (0: not yet) */
    uint64_t last_end_ns; /* when the last job ended */
    unsigned long generation;
    dmlcpu_task_fn task;
    void *ctx;
    int chunks, next, pending;
} jobs;
/* Atomic copies for the spinning threads, written under the lock: the newest generation, and
 * the newest generation whose every chunk is done. */
static atomic_ulong started_generation, finished_generation;

static void pool_lock(void);
static void pool_unlock(void);
static void pool_wait_wake(void);
static void pool_wait_done(void);
static void pool_wake_all(void);
static void pool_signal_done(void);
static int pool_try_own(void);
static void pool_disown(void);
static void pool_start_workers(int want);
static void pool_yield(void);

/* how many times a spinning thread yielded (for tests: dmlcpu_pool_yields) */
static atomic_ullong yields;

uint64_t dmlcpu_pool_yields(void) { return atomic_load(&yields); }

/* Spins while (*word == value) != until_equal, for at most POOL_SPIN_NS (the clock is read every
 * 64 turns), yielding the CPU at each reading past POOL_YIELD_AFTER_NS. Called without the lock;
 * the caller then checks again under it. */
static void pool_spin(atomic_ulong *word, unsigned long value, int until_equal) {
    uint64_t start = dmlcpu_now_ns();
    for (unsigned turn = 1;
         (atomic_load_explicit(word, memory_order_acquire) == value) != until_equal; turn++) {
        pool_cpu_relax();
        if (turn % 64 != 0) continue;
        uint64_t spun = dmlcpu_now_ns() - start;
        if (spun > POOL_SPIN_NS) return;
        if (spun > POOL_YIELD_AFTER_NS) {
            pool_yield();
            atomic_fetch_add_explicit(&yields, 1, memory_order_relaxed);
        }
    }
}

/* Claims and runs chunks of the current job until none is left, or only `most` of them. Called
 * with the lock held. */
static void pool_run_chunks(int most) {
    while (jobs.next < jobs.chunks && most-- > 0) {
        int chunk = jobs.next++;
        dmlcpu_task_fn task = jobs.task;
        void *ctx = jobs.ctx;
        int chunks = jobs.chunks;
        pool_unlock();
        task(ctx, chunk, chunks);
        pool_lock();
        if (--jobs.pending == 0) {
            atomic_store_explicit(&finished_generation, jobs.generation, memory_order_release);
            pool_signal_done();
        }
    }
}

/* A worker's whole life: every new generation, help with its chunks. */
static void pool_worker_loop(void) {
    pool_lock();
    unsigned long seen = jobs.generation;
    for (;;) {
        if (jobs.generation == seen) {
            pool_unlock();
            pool_spin(&started_generation, seen, 0);
            pool_lock();
        }
        while (jobs.generation == seen) {
            jobs.sleeping++;
            pool_wait_wake();
            jobs.sleeping--;
        }
        seen = jobs.generation;
        pool_run_chunks(INT_MAX);
    }
}

void dmlcpu_pool_run(dmlcpu_task_fn task, void *ctx, int chunks, int threads) {
    if (!pool_try_own()) {
        for (int i = 0; i < chunks; i++) task(ctx, i, chunks);
        return;
    }
    pool_lock();
    pool_start_workers(threads < chunks ? threads : chunks);
    jobs.task = task;
    jobs.ctx = ctx;
    jobs.chunks = chunks;
    jobs.next = 0;
    jobs.pending = chunks;
    jobs.generation++;
    atomic_store_explicit(&started_generation, jobs.generation, memory_order_release);
    /* Spinning workers take the job by themselves; sleeping ones are woken where that pays.
     * Waking one costs the caller the wake-up call, 16-30 us on this project's AMD VM (a 512
     * KiB copy takes 17 us on one thread). So a small job (cut into fewer than a full share of
     * chunks per thread), with no job just before it (whose workers would still be spinning had
     * they been woken), starts on the caller alone: its first chunk is timed, and the rest wait
     * for a worker only where they would take the caller longer than twice what a wake has
     * cost lately. A larger job wakes them first, not a chunk late. */
    int wake = jobs.sleeping > 0;
    if (wake && chunks < DMLCPU_CHUNKS_PER_THREAD * threads &&
        dmlcpu_now_ns() - jobs.last_end_ns > POOL_SPIN_NS) {
        uint64_t start = dmlcpu_now_ns();
        pool_run_chunks(1);
        uint64_t chunk_ns = dmlcpu_now_ns() - start;
        wake = (uint64_t)(jobs.chunks - jobs.next) * chunk_ns > 2 * jobs.wake_ns;
    }
    if (wake) {
        pool_unlock(); /* a woken worker's first step is to take the lock */
        uint64_t start = dmlcpu_now_ns();
        pool_wake_all();
        uint64_t cost = dmlcpu_now_ns() - start;
        jobs.wake_ns = jobs.wake_ns == 0 ? cost : (3 * jobs.wake_ns + cost) / 4;
        pool_lock();
    }
    pool_run_chunks(INT_MAX); /* the caller works too; if no worker could start it does all */
    if (jobs.pending > 0) {
        unsigned long generation = jobs.generation;
        pool_unlock();
        pool_spin(&finished_generation, generation, 1);
        pool_lock();
    }
    while (jobs.pending > 0) pool_wait_done();
    jobs.last_end_ns = dmlcpu_now_ns();
    jobs.task = NULL;
    jobs.ctx = NULL;
    jobs.chunks = 0;
    pool_unlock();
    pool_disown();
}
