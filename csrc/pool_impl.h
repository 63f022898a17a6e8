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
 * Workers wait for a new generation, then claim chunks one at a time; the caller claims chunks
 * too and returns once all are done. A caller that finds the pool busy (another Python thread's
 * job) runs its own chunks: one job at a time. threads.h has the contract.
 */
static struct {
    int workers; /* started so far */
    unsigned long generation;
    dmlcpu_task_fn task;
    void *ctx;
    int chunks, next, pending;
} jobs;

static void pool_lock(void);
static void pool_unlock(void);
static void pool_wait_wake(void);
static void pool_wait_done(void);
static void pool_wake_all(void);
static void pool_signal_done(void);
static int pool_try_own(void);
static void pool_disown(void);
static void pool_start_workers(int want);

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
        if (--jobs.pending == 0) pool_signal_done();
    }
}

/* A worker's whole life: every new generation, help with its chunks. */
static void pool_worker_loop(void) {
    pool_lock();
    unsigned long seen = jobs.generation;
    for (;;) {
        while (jobs.generation == seen) pool_wait_wake();
        seen = jobs.generation;
        pool_run_chunks();
    }
}

void dmlcpu_pool_run(dmlcpu_task_fn task, void *ctx, int chunks) {
    if (!pool_try_own()) {
        for (int i = 0; i < chunks; i++) task(ctx, i, chunks);
        return;
    }
    pool_lock();
    pool_start_workers(chunks);
    jobs.task = task;
    jobs.ctx = ctx;
    jobs.chunks = chunks;
    jobs.next = 0;
    jobs.pending = chunks;
    jobs.generation++;
    pool_wake_all();
    pool_run_chunks(); /* the caller works too; if no worker could start it does everything */
    while (jobs.pending > 0) pool_wait_done();
    jobs.task = NULL;
    jobs.ctx = NULL;
    jobs.chunks = 0;
    pool_unlock();
    pool_disown();
}
