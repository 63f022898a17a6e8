/*
 * CPU feature detection, run once by dmlcpu_init.
 *
 * On x86-64 an ISA is usable only when the CPU reports it (cpuid) AND the operating system saves
 * its register state across context switches (OSXSAVE + xgetbv): a kernel that does not save the
 * upper halves of the vector registers would corrupt them silently. NEON is part of the aarch64
 * baseline. Other platforms report no features and run the scalar kernels.
 */
#include "internal.h"
#include "machine.h"

#if defined(__x86_64__) || defined(_M_X64)
#define DMLCPU_X86_64 1
#if defined(_MSC_VER)
#include <intrin.h>
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    int regs[4];
    __cpuidex(regs, (int)leaf, (int)sub);
    for (int i = 0; i < 4; i++) r[i] = (uint32_t)regs[i];
}
static uint64_t xgetbv0(void) { return _xgetbv(0); }
#else
#include <cpuid.h>
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
/* Inline asm rather than _xgetbv: the intrinsic needs -mxsave, and this file is baseline code. */
static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif
#endif

#if defined(DMLCPU_X86_64) && defined(__APPLE__)
#include <stdio.h>
#include <sys/sysctl.h>
/*
 * macOS turns a thread's AVX-512 state (XCR0 bits 5-7) on lazily, at its first AVX-512
 * instruction, so XCR0 at init says no on Macs that have it; the kernel advertises the state it
 * will keep through sysctl instead. Kernels before Darwin 21.3 (macOS 12.2) could lose the
 * opmask registers k0-k7 across a signal (golang/go#49233), so AVX-512 is refused there.
 */
static int sysctl_flag(const char *name) {
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname(name, &value, &size, NULL, 0) == 0 && value != 0;
}

static int macos_keeps_zmm_state(void) {
    char release[32];
    size_t size = sizeof release;
    int major = 0, minor = 0;
    if (sysctlbyname("kern.osrelease", release, &size, NULL, 0) != 0) return 0;
    release[sizeof release - 1] = '\0';
    if (sscanf(release, "%d.%d", &major, &minor) != 2) return 0;
    if (major < 21 || (major == 21 && minor < 3)) return 0;
    return sysctl_flag("hw.optional.avx512f");
}
#endif

uint32_t dmlcpu_detect_cpu_features(void) {
    uint32_t f = 0;
#if defined(DMLCPU_X86_64)
    uint32_t r[4];
    f |= DMLCPU_CPU_SSE2; /* part of x86-64 */
    cpuid(0, 0, r);
    uint32_t max_leaf = r[0];
    if (max_leaf < 1) return f;
    cpuid(1, 0, r);
    int osxsave = (r[2] >> 27) & 1;
    if ((r[2] >> 12) & 1) f |= DMLCPU_CPU_FMA;
    if ((r[2] >> 29) & 1) f |= DMLCPU_CPU_F16C;
    int avx = (r[2] >> 28) & 1;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    /* XCR0 bits 1-2: SSE and AVX (YMM upper) state; bits 5-7: opmask and ZMM state. */
    int os_ymm = (xcr0 & 0x6) == 0x6;
    int os_zmm = (xcr0 & 0xE6) == 0xE6;
#if defined(__APPLE__)
    if (os_ymm && !os_zmm) os_zmm = macos_keeps_zmm_state();
#endif
    if (os_ymm) f |= DMLCPU_CPU_OS_YMM;
    if (os_zmm) f |= DMLCPU_CPU_OS_ZMM;
    if (avx && os_ymm) f |= DMLCPU_CPU_AVX;
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        if (os_ymm && ((r[1] >> 5) & 1)) f |= DMLCPU_CPU_AVX2;
        if (os_zmm) {
            if ((r[1] >> 16) & 1) f |= DMLCPU_CPU_AVX512F;
            if ((r[1] >> 17) & 1) f |= DMLCPU_CPU_AVX512DQ;
            if ((r[1] >> 30) & 1) f |= DMLCPU_CPU_AVX512BW;
            if ((r[1] >> 31) & 1) f |= DMLCPU_CPU_AVX512VL;
            if ((r[2] >> 1) & 1) f |= DMLCPU_CPU_AVX512VBMI;
        }
    }
    if (!(f & DMLCPU_CPU_AVX)) f &= ~(uint32_t)(DMLCPU_CPU_FMA | DMLCPU_CPU_F16C);
#elif defined(__aarch64__) || defined(_M_ARM64)
    f |= DMLCPU_CPU_NEON;
#endif
    return f;
}

/* 1 where cpuid leaf 1 sets ECX bit 31 (a hypervisor is present): its caches are the host's,
 * as the machine model reports them (machine.c). 0 elsewhere. */
int dmlcpu_cpu_hypervisor(void) {
#if defined(DMLCPU_X86_64)
    uint32_t r[4];
    cpuid(0, 0, r);
    if (r[0] < 1) return 0;
    cpuid(1, 0, r);
    return (int)((r[2] >> 31) & 1);
#else
    return 0;
#endif
}

static const char *const feature_names[DMLCPU_CPU_FEATURE_COUNT] = {
    "sse2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
    "os_ymm", "os_zmm", "neon", "avx512vbmi"};

const char *dmlcpu_cpu_feature_name(int bit) {
    if (bit < 0 || bit >= DMLCPU_CPU_FEATURE_COUNT) return NULL;
    return feature_names[bit];
}

/* Features an ISA's translation unit was compiled for: all must be present to run it. */
uint32_t dmlcpu_isa_requirements(int isa) {
    const uint32_t avx2 = DMLCPU_CPU_AVX | DMLCPU_CPU_AVX2 | DMLCPU_CPU_FMA | DMLCPU_CPU_F16C;
    switch (isa) {
    case DMLCPU_ISA_SCALAR: return 0;
    case DMLCPU_ISA_AVX2: return avx2;
    case DMLCPU_ISA_AVX512:
        return avx2 | DMLCPU_CPU_AVX512F | DMLCPU_CPU_AVX512BW | DMLCPU_CPU_AVX512VL;
    case DMLCPU_ISA_NEON: return DMLCPU_CPU_NEON;
    }
    return UINT32_MAX;
}
