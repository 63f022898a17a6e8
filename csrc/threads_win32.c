/*
 * The Windows thread pool: threads_posix.c's pool on Win32 primitives (an SRWLOCK and two
 * CONDITION_VARIABLEs where POSIX has a mutex and two condition variables, a second SRWLOCK
 * tried once for the busy flag). The caller plus up to DMLCPU_MAX_THREADS-1 workers, started
 * lazily; one job at a time, and a caller that finds the pool busy runs its chunks itself
 * (threads.h has the contract). Windows has no fork, so there is nothing to reset in a child.
 */
#include "threads.h"

#if defined(DMLCPU_POOL_WIN32)

#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0601
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* Windows 7: processor groups */
#endif
#define WIN32_LEAN_AND_MEAN
#include <process.h>
#include <windows.h>

static struct {
    SRWLOCK busy;              /* held by the caller owning the pool for a whole job */
    SRWLOCK lock;              /* guards everything below */
    CONDITION_VARIABLE wake;   /* workers wait here for a new generation */
    CONDITION_VARIABLE done;   /* the caller waits here for pending == 0 */
    int workers;               /* started so far */
    unsigned long generation;
    dmlcpu_task_fn task;
    void *ctx;
    int chunks, next, pending;
} pool = {SRWLOCK_INIT, SRWLOCK_INIT, CONDITION_VARIABLE_INIT, CONDITION_VARIABLE_INIT,
          0, 0, NULL, NULL, 0, 0, 0};

/* The processors this process may run on: its affinity mask within its processor group, or
 * every active processor when the process spans several groups (Windows 11 and later). */
int dmlcpu_pool_default_threads(void) {
    long n = 0;
    USHORT groups[2];
    USHORT group_count = 2;
    DWORD_PTR process_mask, system_mask;
    if (!GetProcessGroupAffinity(GetCurrentProcess(), &group_count, groups) && group_count <= 2)
        group_count = 1; /* the call failed for another reason than a short buffer */
    if (group_count > 1) {
        n = (long)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    } else if (GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask)) {
        for (; process_mask != 0; process_mask &= process_mask - 1) n++;
    }
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
        ReleaseSRWLockExclusive(&pool.lock);
        task(ctx, chunk, chunks);
        AcquireSRWLockExclusive(&pool.lock);
        if (--pool.pending == 0) WakeConditionVariable(&pool.done);
    }
}

static unsigned __stdcall worker_main(void *arg) {
    (void)arg;
    AcquireSRWLockExclusive(&pool.lock);
    unsigned long seen = pool.generation;
    for (;;) {
        while (pool.generation == seen) SleepConditionVariableSRW(&pool.wake, &pool.lock, INFINITE, 0);
        seen = pool.generation;
        run_chunks();
    }
    return 0;
}

void dmlcpu_pool_init(void) {}

/* Starts workers up to want - 1; returns how many exist (fewer if the system refused). The
 * handles are closed at once: workers live as long as the process, like detached threads. */
static int ensure_workers(int want) {
    while (pool.workers < want - 1) {
        uintptr_t thread = _beginthreadex(NULL, 0, worker_main, NULL, 0, NULL);
        if (thread == 0) break;
        CloseHandle((HANDLE)thread);
        pool.workers++;
    }
    return pool.workers;
}

void dmlcpu_pool_run(dmlcpu_task_fn task, void *ctx, int chunks) {
    if (!TryAcquireSRWLockExclusive(&pool.busy)) {
        for (int i = 0; i < chunks; i++) task(ctx, i, chunks);
        return;
    }
    AcquireSRWLockExclusive(&pool.lock);
    ensure_workers(chunks);
    pool.task = task;
    pool.ctx = ctx;
    pool.chunks = chunks;
    pool.next = 0;
    pool.pending = chunks;
    pool.generation++;
    WakeAllConditionVariable(&pool.wake);
    run_chunks(); /* the caller works too; if no worker could start it does everything */
    while (pool.pending > 0) SleepConditionVariableSRW(&pool.done, &pool.lock, INFINITE, 0);
    pool.task = NULL;
    pool.ctx = NULL;
    pool.chunks = 0;
    ReleaseSRWLockExclusive(&pool.lock);
    ReleaseSRWLockExclusive(&pool.busy);
}

#endif /* DMLCPU_POOL_WIN32 */
