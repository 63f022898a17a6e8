/*
 * The Windows thread pool: pool_impl.h's logic on Win32 primitives (an SRWLOCK and two
 * CONDITION_VARIABLEs where POSIX has a mutex and two condition variables, a second SRWLOCK
 * tried once for the busy flag), the default thread count from the process's processors.
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
    SRWLOCK busy;            /* held by the caller owning the pool for a whole job */
    SRWLOCK lock;            /* guards `jobs` (pool_impl.h) */
    CONDITION_VARIABLE wake; /* workers wait here for a new generation */
    CONDITION_VARIABLE done; /* the caller waits here for pending == 0 */
} locks = {SRWLOCK_INIT, SRWLOCK_INIT, CONDITION_VARIABLE_INIT, CONDITION_VARIABLE_INIT};

static void pool_lock(void) { AcquireSRWLockExclusive(&locks.lock); }
static void pool_unlock(void) { ReleaseSRWLockExclusive(&locks.lock); }
static void pool_wait_wake(void) {
    SleepConditionVariableSRW(&locks.wake, &locks.lock, INFINITE, 0);
}
static void pool_wait_done(void) {
    SleepConditionVariableSRW(&locks.done, &locks.lock, INFINITE, 0);
}
static void pool_wake_all(void) { WakeAllConditionVariable(&locks.wake); }
static void pool_signal_done(void) { WakeConditionVariable(&locks.done); }
static void pool_yield(void) { SwitchToThread(); }
static int pool_try_own(void) { return TryAcquireSRWLockExclusive(&locks.busy) != 0; }
static void pool_disown(void) { ReleaseSRWLockExclusive(&locks.busy); }
static void pool_start_workers(int want);
static LARGE_INTEGER frequency; /* set once by dmlcpu_pool_init */
uint64_t dmlcpu_now_ns(void) {
    LARGE_INTEGER now;
    QueryPerformanceCounter(&now);
    return (uint64_t)((double)now.QuadPart * 1e9 / (double)frequency.QuadPart);
}

#include "pool_impl.h"

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

/* No fork on Windows: nothing to reset in a child. */
void dmlcpu_pool_init(void) { QueryPerformanceFrequency(&frequency); }

static unsigned __stdcall worker_main(void *arg) {
    (void)arg;
    pool_worker_loop();
    return 0;
}

/* The handles are closed at once: workers live as long as the process, like detached threads. */
static void pool_start_workers(int want) {
    while (jobs.workers < want - 1) {
        uintptr_t thread = _beginthreadex(NULL, 0, worker_main, NULL, 0, NULL);
        if (thread == 0) break;
        CloseHandle((HANDLE)thread);
        jobs.workers++;
    }
}

#endif /* DMLCPU_POOL_WIN32 */
