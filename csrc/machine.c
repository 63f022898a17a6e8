/*
 * The machine model (machine.h), detected once: each data cache level's size and how many
 * logical CPUs share it, the line and page size, the logical CPUs, the hypervisor bit. Sources,
 * first that answers:
 *   Linux:   /sys/devices/system/cpu/cpu0/cache/index*: level, type, size, shared_cpu_list,
 *            coherency_line_size; then sysconf(_SC_LEVEL1_DCACHE_SIZE ... _SC_LEVEL3_CACHE_SIZE)
 *   Windows: GetLogicalProcessorInformationEx(RelationCache): per level CacheSize, LineSize and
 *            the popcount of GroupMask
 *   macOS:   sysctl hw.perflevel0.l1dcachesize, .l2cachesize, .cpusperl2 (the performance
 *            cores'), else hw.l1dcachesize, hw.l2cachesize, hw.l3cachesize; hw.cachelinesize
 *   else:    the defaults below (docs/decisions.md, "machine defaults").
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sysconf(_SC_LEVEL3_CACHE_SIZE) */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "machine.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#include <unistd.h>
#else
#include <unistd.h>
#endif

/* Where nothing answers: caches most machines of the last decade have at least. */
#define DEFAULT_L1D_BYTES ((int64_t)32 << 10)
#define DEFAULT_L2_BYTES ((int64_t)512 << 10)
#define DEFAULT_L3_BYTES ((int64_t)8 << 20)
#define DEFAULT_LINE_BYTES 64
#define DEFAULT_PAGE_BYTES 4096

static void set_level(dmlcpu_machine *m, int level, int64_t bytes, int32_t sharing) {
    dmlcpu_cache_level *c = level == 1 ? &m->l1d : level == 2 ? &m->l2 : &m->l3;
    if (bytes <= 0 || level < 1 || level > 3) return;
    c->bytes = bytes;
    c->sharing = sharing > 0 ? sharing : 1;
    m->caches_detected = 1;
}

#if defined(__linux__)
/* Number of CPUs in a list such as "0-3,8-11", 0 if unreadable. */
static int32_t count_cpu_list(const char *s) {
    int32_t count = 0;
    while (*s >= '0' && *s <= '9') {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (*end == '-') hi = strtol(end + 1, &end, 10);
        if (hi < lo || hi - lo > 1 << 20) return 0;
        count += (int32_t)(hi - lo + 1);
        s = *end == ',' ? end + 1 : end;
    }
    return count;
}

static int read_line(const char *dir, const char *name, char *buf, size_t size) {
    char path[160];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/%s/%s", dir, name);
    return dmlcpu_read_first_line(path, buf, size);
}

static void detect_caches(dmlcpu_machine *m) {
    for (int i = 0; i < 16; i++) {
        char dir[16], level[16], type[32], size[32], cpus[256], line[32];
        snprintf(dir, sizeof dir, "index%d", i);
        if (!read_line(dir, "level", level, sizeof level)) break;
        if (!read_line(dir, "type", type, sizeof type) || strcmp(type, "Instruction") == 0 ||
            !read_line(dir, "size", size, sizeof size))
            continue;
        int32_t sharing = read_line(dir, "shared_cpu_list", cpus, sizeof cpus)
                              ? count_cpu_list(cpus) : 1;
        set_level(m, atoi(level), dmlcpu_parse_bytes(size), sharing);
        if (read_line(dir, "coherency_line_size", line, sizeof line) && atoi(line) >= 16)
            m->line_bytes = atoi(line);
    }
    if (m->caches_detected) return;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    /* sharing unknown: one CPU taken to have each cache whole */
    set_level(m, 1, sysconf(_SC_LEVEL1_DCACHE_SIZE), 1);
    set_level(m, 2, sysconf(_SC_LEVEL2_CACHE_SIZE), 1);
    set_level(m, 3, sysconf(_SC_LEVEL3_CACHE_SIZE), 1);
#endif
}
#elif defined(_WIN32)
static void detect_caches(dmlcpu_machine *m) {
    DWORD length = 0;
    GetLogicalProcessorInformationEx(RelationCache, NULL, &length);
    if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || length == 0) return;
    char *buffer = malloc(length);
    if (buffer == NULL) return;
    PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX all = (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)buffer;
    int seen[4] = {0, 0, 0, 0}; /* the first instance of each level (the first CPU's) */
    if (GetLogicalProcessorInformationEx(RelationCache, all, &length)) {
        for (DWORD at = 0; at < length;) {
            PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX p =
                (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)(buffer + at);
            if (p->Size == 0) break;
            const CACHE_RELATIONSHIP *c = &p->Cache;
            if (p->Relationship == RelationCache && c->Type != CacheInstruction &&
                c->Level >= 1 && c->Level <= 3 && !seen[c->Level]) {
                KAFFINITY mask = c->GroupMask.Mask;
                int32_t n = 0;
                for (; mask != 0; mask &= mask - 1) n++;
                seen[c->Level] = 1;
                set_level(m, c->Level, (int64_t)c->CacheSize, n);
                if (c->LineSize >= 16) m->line_bytes = c->LineSize;
            }
            at += p->Size;
        }
    }
    free(buffer);
}
#elif defined(__APPLE__)
static int64_t sysctl_int(const char *name) {
    int64_t v = 0;
    size_t size = sizeof v;
    if (sysctlbyname(name, &v, &size, NULL, 0) != 0 || size > sizeof v) return 0;
    /* a 4-byte answer sits in the low half on these little-endian machines */
    return size == 4 ? (int64_t)(uint32_t)v : v;
}

static void detect_caches(dmlcpu_machine *m) {
    int64_t l2 = sysctl_int("hw.perflevel0.l2cachesize");
    int64_t per_l2 = sysctl_int("hw.perflevel0.cpusperl2");
    int64_t l1 = sysctl_int("hw.perflevel0.l1dcachesize");
    if (l2 <= 0) l2 = sysctl_int("hw.l2cachesize"), per_l2 = 1;
    if (l1 <= 0) l1 = sysctl_int("hw.l1dcachesize");
    set_level(m, 1, l1, 1);
    set_level(m, 2, l2, per_l2 > 0 && per_l2 < 4096 ? (int32_t)per_l2 : 1);
    set_level(m, 3, sysctl_int("hw.l3cachesize"), 1); /* none on Apple silicon */
    int64_t line = sysctl_int("hw.cachelinesize");
    if (line >= 16) m->line_bytes = line;
}
#else
static void detect_caches(dmlcpu_machine *m) { (void)m; }
#endif

static void detect_cpus_and_pages(dmlcpu_machine *m) {
#if defined(_WIN32)
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    if (si.dwPageSize > 0) m->page_bytes = si.dwPageSize;
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    if (n > 0) m->logical_cpus = (int32_t)n;
#else
    long page = sysconf(_SC_PAGESIZE), n = sysconf(_SC_NPROCESSORS_ONLN);
    if (page > 0) m->page_bytes = page;
    if (n > 0) m->logical_cpus = n > (1 << 20) ? 1 << 20 : (int32_t)n;
#endif
}

void dmlcpu_machine_detect(dmlcpu_machine *m) {
    memset(m, 0, sizeof *m);
    m->line_bytes = DEFAULT_LINE_BYTES;
    m->page_bytes = DEFAULT_PAGE_BYTES;
    m->logical_cpus = 1;
    detect_caches(m);
    if (!m->caches_detected) {
        m->l1d = (dmlcpu_cache_level){DEFAULT_L1D_BYTES, 1};
        m->l2 = (dmlcpu_cache_level){DEFAULT_L2_BYTES, 1};
        m->l3 = (dmlcpu_cache_level){DEFAULT_L3_BYTES, 1};
    }
    if (m->l1d.bytes <= 0) m->l1d = (dmlcpu_cache_level){DEFAULT_L1D_BYTES, 1};
    if (m->l2.bytes <= 0) m->l2 = (dmlcpu_cache_level){DEFAULT_L2_BYTES, 1};
    detect_cpus_and_pages(m);
    int32_t usable = dmlcpu_cpus_detected()->usable; /* affinity and quota, where known */
    if (usable > 0 && usable < m->logical_cpus) m->logical_cpus = usable;
    m->hypervisor = dmlcpu_cpu_hypervisor();
}

dmlcpu_cache_level dmlcpu_machine_llc(const dmlcpu_machine *m) {
    return m->l3.bytes > 0 ? m->l3 : m->l2;
}
