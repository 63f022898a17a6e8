/*
 * dmlcpu_init, the one owner of initialization: detects the CPU and builds the kernel tables
 * (dispatch.c), then sets up the threads (threads.c), detects the machine and derives the tuning
 * (machine.c, policy.c), exactly once per process whichever thread calls first. Every entry
 * point that needs any of them calls dmlcpu_init; none of the parts calls another.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* pthread_once under -std=c11 */
#endif
#include "internal.h"

static void init_once(void) {
    dmlcpu_dispatch_init();
    dmlcpu_threads_init();
    dmlcpu_policy_init();
}

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK init_once_win(PINIT_ONCE o, PVOID p, PVOID *c) {
    (void)o, (void)p, (void)c;
    init_once();
    return TRUE;
}
void dmlcpu_init(void) { InitOnceExecuteOnce(&once, init_once_win, NULL, NULL); }
#else
#include <pthread.h>
static pthread_once_t once = PTHREAD_ONCE_INIT;
void dmlcpu_init(void) { pthread_once(&once, init_once); }
#endif
