/*
 * The POSIX thread pool: the caller plus up to DMLCPU_MAX_THREADS-1 workers, started lazily.
 * One job runs at a time: a caller that finds the pool busy (another Python thread is using
 * it) runs its chunks itself. Chunks are claimed dynamically (threads.h has the contract).
 */
#if !defined(_WIN32)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT: before any system header */
#endif
#include "threads.h"

#if defined(DMLCPU_POOL_POSIX)

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

static struct {
    pthread_mutex_t busy;   /* held by the caller owning the pool for a whole job */
    pthread_mutex_t lock;   /* guards everything below */
    pthread_cond_t wake;    /* workers wait here for a new generation */
    pthread_cond_t done;    /* the caller waits here for pending == 0 */
    int workers;            /* started so far */
    unsigned long generation;
    dmlcpu_task_fn task;
    void *ctx;
    int chunks, next, pending;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, 0, 0, NULL, NULL, 0, 0, 0};

int dmlcpu_pool_default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) n = CPU_COUNT(&set);
#endif
    if (n < 1) n = 1;
    if (n > DMLCPU_MAX_THREADS) n = DMLCPU_MAX_THREADS;
    return (int)n;
}

/* Claims and runs chunks of the current job until none is left. Called with pool.lock held. */
static void run_chunks(void) {
    while (pool.next < pool.chunks) {
        int chunk = pool.next++;
        dmlcpu_task_fn task = pool.task;
        void *ctx = pool.ctx;
        int chunks = pool.chunks;
        pthread_mutex_unlock(&pool.lock);
        task(ctx, chunk, chunks);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
    }
}

static void *worker_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    unsigned long seen = pool.generation;
    for (;;) {
        while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        run_chunks();
    }
    return NULL;
}

/* After fork only the forking thread exists in the child: forget the workers and locks. */
static void reset_in_child(void) {
    pthread_mutex_init(&pool.busy, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.workers = 0;
    pool.chunks = pool.next = pool.pending = 0;
}

void dmlcpu_pool_init(void) { pthread_atfork(NULL, NULL, reset_in_child); }

/* Starts workers up to want - 1; returns how many exist (fewer if the system refused). Workers
 * start with every signal blocked, so signals (Ctrl-C) keep going to Python's threads. */
static int ensure_workers(int want) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool.workers < want - 1) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&thread, &attr, worker_main, NULL);
        pthread_attr_destroy(&attr);
        if (failed) break;
        pool.workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return pool.workers;
}

void dmlcpu_pool_run(dmlcpu_task_fn task, void *ctx, int chunks) {
    if (pthread_mutex_trylock(&pool.busy) != 0) {
        for (int i = 0; i < chunks; i++) task(ctx, i, chunks);
        return;
    }
    pthread_mutex_lock(&pool.lock);
    ensure_workers(chunks);
    pool.task = task;
    pool.ctx = ctx;
    pool.chunks = chunks;
    pool.next = 0;
    pool.pending = chunks;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    run_chunks(); /* the caller works too; if no worker could start it does everything */
    while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.lock);
    pool.task = NULL;
    pool.ctx = NULL;
    pool.chunks = 0;
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.busy);
}

#endif /* DMLCPU_POOL_POSIX */
