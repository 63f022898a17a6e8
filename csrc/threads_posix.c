/*
 * The POSIX thread pool: the caller plus up to DMLCPU_MAX_THREADS-1 workers, started lazily.
 * The logic is pool_impl.h's; this file gives it pthread primitives, the default thread count
 * and the fork handling.
 */
#if !defined(_WIN32)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT: before any system header */
#endif
#include "threads.h"

#if defined(DMLCPU_POOL_POSIX)

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_mutex_t busy; /* held by the caller owning the pool for a whole job */
    pthread_mutex_t lock; /* guards `jobs` (pool_impl.h) */
    pthread_cond_t wake;  /* workers wait here for a new generation */
    pthread_cond_t done;  /* the caller waits here for pending == 0 */
} locks = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER};

static void pool_lock(void) { pthread_mutex_lock(&locks.lock); }
static void pool_unlock(void) { pthread_mutex_unlock(&locks.lock); }
static void pool_wait_wake(void) { pthread_cond_wait(&locks.wake, &locks.lock); }
static void pool_wait_done(void) { pthread_cond_wait(&locks.done, &locks.lock); }
static void pool_wake_all(void) { pthread_cond_broadcast(&locks.wake); }
static void pool_signal_done(void) { pthread_cond_signal(&locks.done); }
static void pool_yield(void) { sched_yield(); }
static int pool_try_own(void) { return pthread_mutex_trylock(&locks.busy) == 0; }
static void pool_disown(void) { pthread_mutex_unlock(&locks.busy); }
static void pool_start_workers(int want);
uint64_t dmlcpu_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

#include "pool_impl.h"

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

/* After fork only the forking thread exists in the child: forget the workers and locks. */
static void reset_in_child(void) {
    pthread_mutex_init(&locks.busy, NULL);
    pthread_mutex_init(&locks.lock, NULL);
    pthread_cond_init(&locks.wake, NULL);
    pthread_cond_init(&locks.done, NULL);
    jobs.workers = 0;
    jobs.chunks = jobs.next = jobs.pending = 0;
}

void dmlcpu_pool_init(void) { pthread_atfork(NULL, NULL, reset_in_child); }

static void *worker_main(void *arg) {
    (void)arg;
    pool_worker_loop();
    return NULL;
}

/* Workers start with every signal blocked, so signals (Ctrl-C) keep going to Python's threads. */
static void pool_start_workers(int want) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (jobs.workers < want - 1) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&thread, &attr, worker_main, NULL);
        pthread_attr_destroy(&attr);
        if (failed) break;
        jobs.workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

#endif /* DMLCPU_POOL_POSIX */
