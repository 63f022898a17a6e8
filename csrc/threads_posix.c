/*
 * The POSIX thread pool: the caller plus up to DMLCPU_MAX_THREADS-1 workers, started lazily.
 * The logic is pool_impl.h's; this file gives it pthread primitives and the fork handling.
 */
#if !defined(_WIN32)
#define _GNU_SOURCE /* clock_gettime, sched_yield under -std=c11: before any system header */
#endif
#include "threads.h"

#if defined(DMLCPU_POOL_POSIX)

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

typedef pthread_mutex_t pool_mutex;
typedef pthread_cond_t pool_cond;
#define POOL_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
static void pool_mutex_init(pool_mutex *m) { pthread_mutex_init(m, NULL); }
static void pool_mutex_destroy(pool_mutex *m) { pthread_mutex_destroy(m); }
static void pool_cond_init(pool_cond *c) { pthread_cond_init(c, NULL); }
static void pool_cond_destroy(pool_cond *c) { pthread_cond_destroy(c); }
static void pool_lock(pool_mutex *m) { pthread_mutex_lock(m); }
static void pool_unlock(pool_mutex *m) { pthread_mutex_unlock(m); }
static void pool_wait(pool_cond *c, pool_mutex *m) { pthread_cond_wait(c, m); }
static void pool_signal(pool_cond *c) { pthread_cond_signal(c); }
static void pool_yield(void) { sched_yield(); }
struct pool_slot;
static int pool_spawn(struct pool_slot *slot);
uint64_t dmlcpu_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

#include "pool_impl.h"

/* After fork only the forking thread exists in the child: forget the workers (pool_grow sets
 * each slot up again as it starts a new one). */
static void reset_in_child(void) {
    pthread_mutex_init(&start_lock, NULL);
    atomic_store(&started, 0);
}

void dmlcpu_pool_init(int usable) {
    usable_cpus = usable;
    pthread_atfork(NULL, NULL, reset_in_child);
}

static void *worker_main(void *slot) {
    pool_worker_loop(slot);
    return NULL;
}

/* Workers start with every signal blocked, so signals (Ctrl-C) keep going to Python's threads. */
static int pool_spawn(struct pool_slot *slot) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create(&thread, &attr, worker_main, slot);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return failed;
}

#endif /* DMLCPU_POOL_POSIX */
