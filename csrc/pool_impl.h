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
 *   pool_now_ns()                      a monotonic clock
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
 * machine up to 2.4x: benchmarks/NOTES.md).
 */
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
static struct {
    int workers; /* started so far */
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
static uint64_t pool_now_ns(void);

/* Spins while (*word == value) != until_equal, for at most POOL_SPIN_NS (the clock is read every
 * 64 turns). Called without the lock; the caller then checks again under it. */
static void pool_spin(atomic_ulong *word, unsigned long value, int until_equal) {
    uint64_t start = pool_now_ns();
    for (unsigned turn = 1;
         (atomic_load_explicit(word, memory_order_acquire) == value) != until_equal; turn++) {
        pool_cpu_relax();
        if (turn % 64 == 0 && pool_now_ns() - start > POOL_SPIN_NS) return;
    }
}

/* Claims and runs chunks of the current job until none is left. Called with the lock held. */
static void pool_run_chunks(void) {
    while (jobs.next < jobs.chunks) {
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
        while (jobs.generation == seen) pool_wait_wake();
        seen = jobs.generation;
        pool_run_chunks();
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
    pool_wake_all();
    pool_run_chunks(); /* the caller works too; if no worker could start it does everything */
    if (jobs.pending > 0) {
        unsigned long generation = jobs.generation;
        pool_unlock();
        pool_spin(&finished_generation, generation, 1);
        pool_lock();
    }
    while (jobs.pending > 0) pool_wait_done();
    jobs.task = NULL;
    jobs.ctx = NULL;
    jobs.chunks = 0;
    pool_unlock();
    pool_disown();
}
