/*
 * The thread pool's platform half. threads.c owns the thread count and the parallel-for; a pool
 * file implements the functions below on one platform's primitives, with the same behaviour
 * everywhere (pool_impl.h): workers started lazily, the caller works too, concurrent callers
 * share the idle workers (one that finds none runs its chunks itself), every chunk done on
 * return. A platform without a pool file runs every call on the calling thread
 * (threads_compiled() = 0). A new pool is one file (guarded by its macro) and one line here.
 */
#ifndef DMLCPU_THREADS_H
#define DMLCPU_THREADS_H

#include "internal.h"

/* Chunks per thread of a call the size of a full share (dmlcpu_chunks_for): a thread that starts
 * late (its CPU was busy or asleep) leaves its share to the others, which claim chunks as they
 * finish theirs, instead of holding the whole call up. A job cut into fewer is a small one to the
 * pool (pool_impl.h). */
#define DMLCPU_CHUNKS_PER_THREAD 4

#if defined(_WIN32)
#define DMLCPU_POOL_WIN32 1 /* threads_win32.c */
#else
#define DMLCPU_POOL_POSIX 1 /* threads_posix.c */
#endif

#if defined(DMLCPU_POOL_POSIX) || defined(DMLCPU_POOL_WIN32)
#define DMLCPU_HAVE_POOL 1
/* Once, from dmlcpu_threads_init: the CPUs the process may keep busy (threads beyond them never
 * spin), and the platform's set-up (fork handlers, the clock). */
void dmlcpu_pool_init(int usable_cpus);
/* Runs task(ctx, i, chunks) for every i on up to `threads` threads; chunks >= 2. */
void dmlcpu_pool_run(dmlcpu_task_fn task, void *ctx, int chunks, int threads);
#endif

#endif /* DMLCPU_THREADS_H */
