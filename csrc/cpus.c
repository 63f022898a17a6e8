/*
 * The CPUs this process may really use, read once by dmlcpu_threads_init: the affinity mask (on
 * Windows the process's processor groups), the physical cores among those CPUs, and a CPU quota
 * (Linux: the cgroup's cpu.max, v2, or cpu.cfs_quota_us / cpu.cfs_period_us, v1, the tightest on
 * the way from the process's cgroup up to its mount's root; Windows: the job object's hard CPU
 * rate cap). The default thread count is the smaller of the physical cores and the quota rounded
 * up: a 4-CPU pod on a 128-CPU node gets 4 threads, not 128 throttled ones, and a copy bound by
 * memory gains nothing from a core's second hardware thread (the two share the core's line-fill
 * buffers, which bound how many cache misses are in flight) while it costs a chunk's worth of
 * imbalance; PyTorch and ONNX Runtime also default to physical cores.
 */
#if !defined(_WIN32)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT: before any system header */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(__linux__)
#include <sched.h>
#endif
#if !defined(_WIN32)
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#define PATH_BYTES 4096

int dmlcpu_read_first_line(const char *path, char *line, size_t size) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    int ok = fgets(line, (int)size, f) != NULL;
    fclose(f);
    if (ok) line[strcspn(line, "\n")] = '\0';
    return ok;
}

/* A whole non-negative decimal number (surrounding blanks allowed), or -1. */
static int64_t parse_count(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    if (*s < '0' || *s > '9') return -1;
    char *end;
    long long v = strtoll(s, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    return *end == '\0' && v >= 0 ? (int64_t)v : -1;
}

/* Thousandths of a CPU that `quota` microseconds in every `period` give, or 0 (no limit). */
static int64_t quota_milli(int64_t quota, int64_t period) {
    if (quota <= 0 || period <= 0) return 0;
    if (quota > INT64_MAX / 1000) return 0;
    int64_t milli = quota * 1000 / period;
    return milli < 1 ? 1 : milli;
}

/* The limit one cgroup directory sets, in thousandths of a CPU (0: none found there). */
static int64_t dir_limit(const char *dir, int v2) {
    char path[PATH_BYTES], line[128];
    if (v2) {
        /* "max 100000" or "50000 100000" */
        if (snprintf(path, sizeof path, "%s/cpu.max", dir) >= (int)sizeof path) return 0;
        if (!dmlcpu_read_first_line(path, line, sizeof line)) return 0;
        char *space = strchr(line, ' ');
        if (space == NULL) return 0;
        *space = '\0';
        if (strcmp(line, "max") == 0) return 0;
        return quota_milli(parse_count(line), parse_count(space + 1));
    }
    char quota[64], period[64];
    if (snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir) >= (int)sizeof path) return 0;
    if (!dmlcpu_read_first_line(path, quota, sizeof quota)) return 0;
    if (snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir) >= (int)sizeof path) return 0;
    if (!dmlcpu_read_first_line(path, period, sizeof period)) return 0;
    return quota_milli(parse_count(quota), parse_count(period)); /* quota -1: none */
}

/* The tightest limit from `mount` + `rel` up to `mount`, each level's own files (0: none). */
static int64_t walk_up(const char *mount, const char *rel, int v2) {
    char dir[PATH_BYTES];
    if (snprintf(dir, sizeof dir, "%s%s", mount, rel) >= (int)sizeof dir) return 0;
    size_t floor = strlen(mount);
    int64_t best = 0;
    for (;;) {
        int64_t limit = dir_limit(dir, v2);
        if (limit > 0 && (best == 0 || limit < best)) best = limit;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < floor) break;
        *slash = '\0';
    }
    return best;
}

/* Whether the comma-separated list `list` holds `word`. */
static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (*p == ',') p++;
        if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == ' ')) return 1;
    }
    return 0;
}

/* The field after `count` spaces of a mountinfo line, cut at the next space (in place). */
static char *field(char *line, int count) {
    for (; count > 0 && line != NULL; count--) {
        line = strchr(line, ' ');
        if (line != NULL) line++;
    }
    if (line == NULL) return NULL;
    char *end = strchr(line, ' ');
    if (end != NULL) *end = '\0';
    return line;
}

/*
 * A cgroup mount of the hierarchy wanted (v2: fstype cgroup2; v1: fstype cgroup with the cpu
 * controller among its super options) from mountinfo: its root within the hierarchy into
 * `root`, its mount point into `mount`. Fields: id parent major:minor root mountpoint options
 * [optional fields] - fstype source superoptions.
 */
static int find_mount(const char *mountinfo, int v2, char *root, char *mount) {
    FILE *f = fopen(mountinfo, "r");
    if (f == NULL) return 0;
    char line[PATH_BYTES];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *dash = strstr(line, " - ");
        if (dash == NULL) continue;
        *dash = '\0';
        char *tail = dash + 3; /* fstype source superoptions */
        char *fstype_end = strchr(tail, ' ');
        if (fstype_end == NULL) continue;
        *fstype_end = '\0';
        char *super = strchr(fstype_end + 1, ' ');
        if (v2 ? strcmp(tail, "cgroup2") != 0
               : strcmp(tail, "cgroup") != 0 || super == NULL || !has_word(super + 1, "cpu"))
            continue;
        char copy[PATH_BYTES];
        memcpy(copy, line, sizeof copy);
        char *r = field(line, 3), *m = field(copy, 4);
        if (r == NULL || m == NULL || strlen(r) >= PATH_BYTES || strlen(m) >= PATH_BYTES)
            continue;
        strcpy(root, r);
        strcpy(mount, m);
        found = 1;
    }
    fclose(f);
    return found;
}

/* The cgroup path from /proc/self/cgroup's line for the hierarchy wanted (v2: "0::PATH"; v1:
 * "N:cpu,cpuacct:PATH"). */
static int find_cgroup(const char *cgroup_file, int v2, char *path) {
    FILE *f = fopen(cgroup_file, "r");
    if (f == NULL) return 0;
    char line[PATH_BYTES];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *colon = strchr(line, ':'), *second = colon ? strchr(colon + 1, ':') : NULL;
        if (second == NULL) continue;
        *colon = '\0';
        *second = '\0';
        const char *controllers = colon + 1;
        int is_v2 = strcmp(line, "0") == 0 && *controllers == '\0';
        if (v2 ? !is_v2 : is_v2 || !has_word(controllers, "cpu")) continue;
        strcpy(path, second + 1);
        found = 1;
    }
    fclose(f);
    return found;
}

/* One hierarchy's limit: the process's cgroup under the mount, relative to the mount's root. A
 * cgroup outside the mount's root (a container seeing the host's path) is read from the mount
 * itself, the container's own cgroup. */
static int64_t hierarchy_limit(const char *cgroup_file, const char *mountinfo, int v2) {
    char path[PATH_BYTES], root[PATH_BYTES], mount[PATH_BYTES];
    if (!find_cgroup(cgroup_file, v2, path) || !find_mount(mountinfo, v2, root, mount)) return 0;
    const char *rel = path;
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0) {
        rel = path;
    } else if (strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0')) {
        rel = path + n;
    } else {
        rel = "";
    }
    if (strcmp(rel, "/") == 0) rel = "";
    return walk_up(mount, rel, v2);
}

int64_t dmlcpu_cgroup_quota_milli(const char *cgroup_file, const char *mountinfo, int *version) {
    int64_t v2 = hierarchy_limit(cgroup_file, mountinfo, 1);
    int64_t v1 = hierarchy_limit(cgroup_file, mountinfo, 0);
    int64_t best = v2;
    if (version != NULL) *version = v2 > 0 ? 2 : 0;
    if (v1 > 0 && (best == 0 || v1 < best)) {
        best = v1;
        if (version != NULL) *version = 1;
    }
    return best;
}

#if defined(__linux__) && defined(CPU_COUNT)
/* The lowest CPU of a sibling list such as "0-1,64-65" that the affinity set holds (-1: none). */
static int first_sibling(const char *list, const cpu_set_t *set) {
    const char *p = list;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p) return -1;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p) return -1;
        }
        for (long cpu = lo; cpu <= hi && cpu < CPU_SETSIZE; cpu++)
            if (cpu >= 0 && CPU_ISSET((int)cpu, set)) return (int)cpu;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0') return -1;
    }
    return -1;
}

/* Physical cores among the affinity set: CPUs that are the first of their core's siblings
 * there (0 if the topology cannot be read). */
static int linux_cores(const cpu_set_t *set) {
    int cores = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, set)) continue;
        char path[128], line[256];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
        if (!dmlcpu_read_first_line(path, line, sizeof line)) {
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
            if (!dmlcpu_read_first_line(path, line, sizeof line)) return 0;
        }
        int first = first_sibling(line, set);
        if (first < 0) return 0;
        cores += first == cpu;
    }
    return cores;
}
#endif

#if defined(_WIN32)
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0602 /* Windows 8: processor groups, job CPU rate caps */
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/* Physical cores whose logical processors the process may use (0 if unknown): in the single
 * group case those meeting its affinity mask, else every core. */
static int windows_cores(int one_group, USHORT group, KAFFINITY mask) {
    DWORD size = 0;
    GetLogicalProcessorInformationEx(RelationProcessorCore, NULL, &size);
    if (size == 0) return 0;
    char *buffer = malloc(size);
    if (buffer == NULL) return 0;
    int cores = 0;
    if (GetLogicalProcessorInformationEx(RelationProcessorCore,
                                         (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)buffer, &size)) {
        for (DWORD at = 0; at < size;) {
            PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX info =
                (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)(buffer + at);
            if (info->Size == 0) break;
            const GROUP_AFFINITY *g = &info->Processor.GroupMask[0];
            cores += !one_group || (g->Group == group && (g->Mask & mask) != 0);
            at += info->Size;
        }
    }
    free(buffer);
    return cores;
}

#if !defined(JOB_OBJECT_CPU_RATE_CONTROL_MIN_MAX_RATE)
#define JOB_OBJECT_CPU_RATE_CONTROL_MIN_MAX_RATE 0x10 /* winnt.h; older headers lack it */
#endif

/* The job object's hard CPU rate cap in thousandths of a CPU (0: none). CpuRate and MaxRate
 * (a WORD pair {MinRate, MaxRate} sharing CpuRate's DWORD) count hundredths of a percent of the
 * whole machine. */
static int64_t job_quota_milli(void) {
    JOBOBJECT_CPU_RATE_CONTROL_INFORMATION rate;
    if (!QueryInformationJobObject(NULL, JobObjectCpuRateControlInformation, &rate, sizeof rate,
                                   NULL))
        return 0;
    if (!(rate.ControlFlags & JOB_OBJECT_CPU_RATE_CONTROL_ENABLE)) return 0;
    int64_t per_10000;
    if (rate.ControlFlags & JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP) {
        per_10000 = rate.CpuRate;
    } else if (rate.ControlFlags & JOB_OBJECT_CPU_RATE_CONTROL_MIN_MAX_RATE) {
        per_10000 = (rate.CpuRate >> 16) & 0xFFFF; /* MaxRate, the union's high word (some
                                                      headers do not name it) */
    } else {
        return 0; /* weight-based: a share, not a cap */
    }
    int64_t total = (int64_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    int64_t milli = per_10000 * total / 10;
    return per_10000 <= 0 || per_10000 >= 10000 ? 0 : (milli < 1 ? 1 : milli);
}
#endif

static int clamp_cpus(int64_t n) {
    return n < 1 ? 1 : n > DMLCPU_MAX_THREADS ? DMLCPU_MAX_THREADS : (int)n;
}

void dmlcpu_detect_cpus(dmlcpu_cpu_budget *out) {
    int64_t affinity = 0, cores = 0, quota = 0;
    int source = DMLCPU_QUOTA_NONE;
#if defined(_WIN32)
    USHORT groups[2];
    USHORT group_count = 2;
    DWORD_PTR process_mask = 0, system_mask;
    if (!GetProcessGroupAffinity(GetCurrentProcess(), &group_count, groups) && group_count <= 2)
        group_count = 1; /* the call failed for another reason than a short buffer */
    if (group_count > 1) {
        affinity = (int64_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    } else if (GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask)) {
        for (DWORD_PTR m = process_mask; m != 0; m &= m - 1) affinity++;
    }
    cores = windows_cores(group_count <= 1, groups[0], (KAFFINITY)process_mask);
    quota = job_quota_milli();
    if (quota > 0) source = DMLCPU_QUOTA_JOB;
#else
    affinity = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        affinity = CPU_COUNT(&set);
        cores = linux_cores(&set);
    }
#endif
#if defined(__linux__)
    int version = 0;
    quota = dmlcpu_cgroup_quota_milli("/proc/self/cgroup", "/proc/self/mountinfo", &version);
    if (quota > 0) source = version == 2 ? DMLCPU_QUOTA_CGROUP2 : DMLCPU_QUOTA_CGROUP1;
#endif
#if defined(__APPLE__)
    int physical = 0;
    size_t size = sizeof physical;
    if (sysctlbyname("hw.physicalcpu", &physical, &size, NULL, 0) == 0) cores = physical;
#endif
#endif
    out->affinity = clamp_cpus(affinity);
    out->cores = cores > 0 && cores < out->affinity ? (int32_t)cores : out->affinity;
    out->quota_milli = quota;
    out->quota_source = source;
    int64_t by_quota = quota > 0 ? (quota + 999) / 1000 : out->affinity;
    out->usable = by_quota < out->affinity ? clamp_cpus(by_quota) : out->affinity;
    out->threads = out->usable < out->cores ? out->usable : out->cores;
}
