/*
 * The machine model: what the policy (policy.c) derives its tuning from, detected once at
 * initialization (machine.c) or, for tests, given as data.
 */
#ifndef DMLCPU_MACHINE_H
#define DMLCPU_MACHINE_H

#include <stdint.h>

/* One cache level: its size and how many logical CPUs share one instance of it (0 bytes: none). */
typedef struct dmlcpu_cache_level {
    int64_t bytes;
    int32_t sharing;
} dmlcpu_cache_level;

typedef struct dmlcpu_machine {
    dmlcpu_cache_level l1d, l2, l3; /* l3.bytes 0: none, L2 is the last level (Apple M-series) */
    int64_t line_bytes;
    int64_t page_bytes;
    /* the logical CPUs this process may use: its affinity capped by its CPU quota (cpus.c), else
     * the CPUs online (sysconf), else 1 */
    int32_t logical_cpus;
    int32_t hypervisor;      /* 1 where the CPU says it runs under a hypervisor (x86 cpuid) */
    int32_t caches_detected; /* 0: nothing answered, the caches are machine.c's defaults */
} dmlcpu_machine;

/* The model detected at initialization. */
const dmlcpu_machine *dmlcpu_machine_model(void);
/* Detects it (once, from dmlcpu_policy_init). */
void dmlcpu_machine_detect(dmlcpu_machine *m);
/* The last-level cache: L3 where there is one, else L2. */
dmlcpu_cache_level dmlcpu_machine_llc(const dmlcpu_machine *m);
/* 1 where the CPU reports a hypervisor (cpu.c). */
int dmlcpu_cpu_hypervisor(void);

#endif /* DMLCPU_MACHINE_H */
