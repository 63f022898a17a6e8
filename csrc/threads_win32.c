/*
 * The Windows thread pool: pool_impl.h's logic on Win32 primitives (SRWLOCKs and
 * CONDITION_VARIABLEs where POSIX has mutexes and condition variables).
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

typedef SRWLOCK pool_mutex;
typedef CONDITION_VARIABLE pool_cond;
#define POOL_MUTEX_INIT SRWLOCK_INIT
static void pool_mutex_init(pool_mutex *m) { InitializeSRWLock(m); }
static void pool_mutex_destroy(pool_mutex *m) { (void)m; } /* nothing to free */
static void pool_cond_init(pool_cond *c) { InitializeConditionVariable(c); }
static void pool_cond_destroy(pool_cond *c) { (void)c; }
static void pool_lock(pool_mutex *m) { AcquireSRWLockExclusive(m); }
static void pool_unlock(pool_mutex *m) { ReleaseSRWLockExclusive(m); }
static void pool_wait(pool_cond *c, pool_mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static void pool_signal(pool_cond *c) { WakeConditionVariable(c); }
static void pool_yield(void) { SwitchToThread(); }
struct pool_slot;
static int pool_spawn(struct pool_slot *slot);
static LARGE_INTEGER frequency; /* set once by dmlcpu_pool_init */
uint64_t dmlcpu_now_ns(void) {
    LARGE_INTEGER now;
    QueryPerformanceCounter(&now);
    return (uint64_t)((double)now.QuadPart * 1e9 / (double)frequency.QuadPart);
}

#include "pool_impl.h"

/* No fork on Windows: nothing to reset in a child. */
void dmlcpu_pool_init(int usable) {
    usable_cpus = usable;
    QueryPerformanceFrequency(&frequency);
}

static unsigned __stdcall worker_main(void *slot) {
    pool_worker_loop(slot);
    return 0;
}

/* The handle is closed at once: workers live as long as the process, like detached threads. */
static int pool_spawn(struct pool_slot *slot) {
    uintptr_t thread = _beginthreadex(NULL, 0, worker_main, slot, 0, NULL);
    if (thread == 0) return 1;
    CloseHandle((HANDLE)thread);
    return 0;
}

#endif /* DMLCPU_POOL_WIN32 */
