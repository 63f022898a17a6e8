/*
 * The last-level cache and the streaming-store threshold, detected once at initialization.
 *
 * A copy whose output cannot stay in the cache gains from non-temporal stores (no read for
 * ownership, no eviction of the caller's data); one whose output fits loses by them, since the
 * next reader then fetches the output from memory. The threshold follows glibc's memcpy
 * (sysdeps/x86/dl-cacheinfo.h since 2.38: a quarter of the whole last-level cache, but never less
 * than three quarters of one thread's share of it), over a cache of at most 4 MiB per thread
 * sharing it (MAX_LLC_BYTES_PER_THREAD: what a virtual machine reports is its host's). Sources,
 * first that answers:
 *   Linux:   /sys/devices/system/cpu/cpu0/cache/index*: the highest level's size and
 *            shared_cpu_list (how many logical CPUs share it); then sysconf(_SC_LEVEL3_CACHE_SIZE,
 *            _SC_LEVEL2_CACHE_SIZE)
 *   Windows: GetLogicalProcessorInformationEx(RelationCache): the highest level's CacheSize and
 *            the popcount of its GroupMask
 *   macOS:   sysctl hw.perflevel0.l2cachesize / hw.perflevel0.cpusperl2, else hw.l3cachesize,
 *            hw.l2cachesize
 *   else:    DEFAULT_LLC_BYTES shared by one thread.
 * DMLCPU_STREAM_THRESHOLD (bytes, or with a K, M or G suffix) overrides the threshold.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sysconf(_SC_LEVEL3_CACHE_SIZE) */
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#elif defined(__linux__)
#include <unistd.h>
#endif

/* A cache most machines of the last decade have at least, when nothing can be detected: with one
 * sharer it gives a 3 MiB threshold. */
#define DEFAULT_LLC_BYTES ((int64_t)8 << 20)

static dmlcpu_cache_info info;
/* the threshold the drivers read: info's, or one a benchmark or test set */
static _Atomic int64_t threshold = (int64_t)4 << 20;
/* bytes a thread up to which a copy beyond the threshold that rewrites the last one's output
 * right after it writes cached (dmlcpu_streams_unless_rewrite), as a benchmark or test set it; -1:
 * info's while the threshold is the detected one, else 0 (a threshold set by hand is exact) */
static _Atomic int64_t reuse_set = -1;
/* the same for dmlcpu_string_copy_limit */
static _Atomic int64_t string_copy_set = -1;

/* "123", "32K", "16M", "1G" (case-insensitive suffix) -> bytes; -1 if malformed or > 2^62. */
int64_t dmlcpu_parse_bytes(const char *s) {
    if (s == NULL || *s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0) return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (*end != '\0' || v > ((unsigned long long)1 << 62) >> shift) return -1;
    return (int64_t)(v << shift);
}

/*
 * The most last-level cache one thread is taken to have. A virtual machine reports its host's
 * cache as shared by its own few vCPUs only: this project's Intel Xeon VM (2 vCPUs, model 207)
 * reports 300 MiB shared by two, while a dependent-load probe met memory latency from 16 MiB on
 * (44 ns at 8 MiB, 130 ns at 16), and copies of 2 MiB and more per thread ran 1.16-2.25x as
 * fast streamed, cold and warm (benchmarks/NOTES.md). Real parts give a thread 1-6 MiB.
 */
#define MAX_LLC_BYTES_PER_THREAD ((int64_t)4 << 20)

int64_t dmlcpu_stream_threshold_rule(int64_t llc_bytes, int32_t sharing) {
    if (sharing < 1) sharing = 1;
    if (llc_bytes / sharing > MAX_LLC_BYTES_PER_THREAD)
        llc_bytes = MAX_LLC_BYTES_PER_THREAD * sharing;
    int64_t quarter = llc_bytes / 4, share = llc_bytes / sharing / 4 * 3;
    return quarter > share ? quarter : share;
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
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static int detect(int64_t *bytes, int32_t *sharing) {
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char dir[16], level[16], type[32], size[32], cpus[256];
        snprintf(dir, sizeof dir, "index%d", i);
        if (!read_line(dir, "level", level, sizeof level)) break;
        if (!read_line(dir, "type", type, sizeof type) || strcmp(type, "Instruction") == 0 ||
            !read_line(dir, "size", size, sizeof size))
            continue;
        int lv = atoi(level);
        int64_t b = dmlcpu_parse_bytes(size);
        if (lv <= best_level || b <= 0) continue;
        best_level = lv;
        *bytes = b;
        *sharing = read_line(dir, "shared_cpu_list", cpus, sizeof cpus) ? count_cpu_list(cpus) : 1;
        if (*sharing < 1) *sharing = 1;
    }
    if (best_level > 0) return 1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l3 > 0 || l2 > 0) {
        *bytes = l3 > 0 ? l3 : l2;
        *sharing = 1; /* unknown: a thread's share is taken as the whole cache */
        return 1;
    }
#endif
    return 0;
}
#elif defined(_WIN32)
static int detect(int64_t *bytes, int32_t *sharing) {
    DWORD length = 0;
    GetLogicalProcessorInformationEx(RelationCache, NULL, &length);
    if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || length == 0) return 0;
    char *buffer = malloc(length);
    if (buffer == NULL) return 0;
    int found = 0, best_level = 0;
    PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX all = (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)buffer;
    if (GetLogicalProcessorInformationEx(RelationCache, all, &length)) {
        for (DWORD at = 0; at < length;) {
            PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX p =
                (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)(buffer + at);
            if (p->Size == 0) break;
            const CACHE_RELATIONSHIP *c = &p->Cache;
            if (p->Relationship == RelationCache && c->Type != CacheInstruction &&
                c->Level > best_level && c->CacheSize > 0) {
                KAFFINITY mask = c->GroupMask.Mask;
                int32_t n = 0;
                for (; mask != 0; mask &= mask - 1) n++;
                best_level = c->Level;
                *bytes = (int64_t)c->CacheSize;
                *sharing = n > 0 ? n : 1;
                found = 1;
            }
            at += p->Size;
        }
    }
    free(buffer);
    return found;
}
#elif defined(__APPLE__)
static int64_t sysctl_int(const char *name) {
    int64_t v = 0;
    size_t size = sizeof v;
    if (sysctlbyname(name, &v, &size, NULL, 0) != 0 || size > sizeof v) return 0;
    /* a 4-byte answer sits in the low half on these little-endian machines */
    return size == 4 ? (int64_t)(uint32_t)v : v;
}

static int detect(int64_t *bytes, int32_t *sharing) {
    int64_t b = sysctl_int("hw.perflevel0.l2cachesize");
    int64_t n = sysctl_int("hw.perflevel0.cpusperl2");
    if (b <= 0) b = sysctl_int("hw.l3cachesize"), n = 0;
    if (b <= 0) b = sysctl_int("hw.l2cachesize"), n = 0;
    if (b <= 0) return 0;
    *bytes = b;
    *sharing = n > 0 && n < 4096 ? (int32_t)n : 1;
    return 1;
}
#else
static int detect(int64_t *bytes, int32_t *sharing) {
    (void)bytes;
    (void)sharing;
    return 0;
}
#endif

/* the limits of dmlcpu_streams_unless_rewrite and dmlcpu_writes_by_string_copy (below) */
static int64_t stream_reuse_rule(int64_t llc_bytes, int32_t sharing, int64_t threshold);
static int64_t string_copy_rule(int64_t llc_bytes, int32_t sharing, int32_t detected);

void dmlcpu_cache_init(void) {
    info.llc_bytes = DEFAULT_LLC_BYTES;
    info.llc_sharing = 1;
    info.llc_detected = detect(&info.llc_bytes, &info.llc_sharing);
    info.stream_threshold = dmlcpu_stream_threshold_rule(info.llc_bytes, info.llc_sharing);
    info.threshold_from_env = 0;
    const char *env = getenv("DMLCPU_STREAM_THRESHOLD");
    if (env != NULL && *env != '\0') {
        int64_t v = dmlcpu_parse_bytes(env);
        if (v >= 0) {
            info.stream_threshold = v;
            info.threshold_from_env = 1;
        } else {
            info.threshold_from_env = -1; /* malformed: ignored, and show_config says so */
        }
    }
    info.stream_reuse_bytes = info.threshold_from_env == 1
                                  ? 0
                                  : stream_reuse_rule(info.llc_bytes, info.llc_sharing,
                                                      info.stream_threshold);
    info.string_copy_bytes = info.threshold_from_env == 1
                                 ? 0
                                 : string_copy_rule(info.llc_bytes, info.llc_sharing,
                                                    info.llc_detected);
    atomic_store(&threshold, info.stream_threshold);
}

const dmlcpu_cache_info *dmlcpu_cache(void) {
    dmlcpu_init();
    return &info;
}

int64_t dmlcpu_stream_threshold(void) {
    return atomic_load_explicit(&threshold, memory_order_relaxed);
}

/*
 * A copy: glibc compares the length of one thread's copy with its threshold, so here half the
 * bytes a thread of the call moves to and from memory are (a call on T threads is T such
 * copies). Measured here (benchmarks/NOTES.md): a 6 MiB copy on one thread ran 1.5x faster with
 * ordinary stores when called back to back and 1.3x slower after other work evicted it; from
 * 12 MiB streaming was as fast or faster in both, at two threads from 24 MiB.
 *
 * Writes only (TILE straight from its small cached input, read once): the same rule, so such an
 * output streams where about half of what each thread writes reaches the threshold. On an Intel
 * Xeon (3 MiB threshold), TILE (r,1,1024) x (1,64,1) at 8 MiB on one thread, streamed so rather
 * than from a quarter (a special case this rule once had), ran 2.2-3.4x as fast cold and
 * 1.17-1.52x warm (float16-float64; benchmarks/NOTES.md). On AMD Zen 4 (12 MiB) a quarter had
 * won: at 24-32 MiB on one thread ordinary stores 1.00-1.21x as fast warm in 34 of 36 cells,
 * cold 0.90-1.08x.
 */
int dmlcpu_streams(int64_t written, int64_t read) {
    int64_t threshold = dmlcpu_stream_threshold();
    if (written < threshold && read <= written) return 0; /* what follows would say so too */
    int64_t moved_half = written / 2 + read / 2; /* no overflow */
    return moved_half / dmlcpu_threads_for(written) >= threshold;
}

void dmlcpu_set_stream_threshold(int64_t bytes) {
    dmlcpu_init();
    atomic_store(&threshold, bytes < 0 ? info.stream_threshold : bytes);
}

void dmlcpu_set_stream_reuse(int64_t bytes) {
    dmlcpu_init();
    atomic_store(&reuse_set, bytes < 0 ? -1 : bytes);
}

/* A limit that lets an output past the threshold stay cached: the one a benchmark or test set,
 * else the detected rule's while the threshold is the detected one, else 0 (a threshold set by
 * hand is exact). */
static int64_t limit_in_force(_Atomic int64_t *set_by_hand, int64_t detected) {
    int64_t set = atomic_load_explicit(set_by_hand, memory_order_relaxed);
    if (set >= 0) return set;
    return dmlcpu_stream_threshold() == info.stream_threshold ? detected : 0;
}

static int64_t reuse_limit(void) { return limit_in_force(&reuse_set, info.stream_reuse_bytes); }

int64_t dmlcpu_stream_reuse(void) {
    dmlcpu_init();
    return reuse_limit();
}

/*
 * Where a copy that dmlcpu_streams would stream writes its output cached instead. Whether its
 * output stays cached depends on what runs between calls, which the threshold cannot see: called
 * back to back on the same buffers, a copy finds its source and output still cached, and ordinary
 * stores keep them there; after other work has evicted them, streaming saves the read for
 * ownership. How much a thread can write into the cache faster than to memory nothing reports.
 * On an AMD EPYC (Zen 4) VM (32 MiB L3 reported as shared by two vCPUs; the threshold 3 MiB, by
 * the cap above), A/B of the same copy, back to back (benchmarks/NOTES.md): where a thread moves
 * 3-4 MiB, ordinary stores 1.1-1.75x as fast as streamed; 5-6 MiB, mixed; 7 MiB and more,
 * streamed 1.1-1.6x as fast. Interleaved with other work, streamed as fast or faster (up to 1.5x)
 * at all of those.
 *
 * So a copy moving (half of what it reads and writes, as in dmlcpu_streams, a source that stays in
 * L2 not counted) at most stream_reuse_bytes a thread writes cached when it rewrites the output of
 * the last such copy, which ended less than that copy took ago: a loop, with nothing larger than
 * the copy itself between (back to back, 1.2-2.0x as fast in 22 of 26 cells of the A/B;
 * interleaved, unchanged). A cached source alone did not say the output was: with the output
 * written last by a streaming call, ordinary stores took 1.08-1.32x as long. The limit is a
 * quarter of a thread's share of the cache as reported, where that is above the threshold and the
 * share believable, else 0 (never). On an Intel Xeon VM reporting 300 MiB shared by two (a usable
 * cache between 8 and 16 MiB by a latency probe), streaming had won back to back too, from 2 MiB a
 * thread (1.16-1.68x): a share reported above MAX_REPORTED_SHARE_BYTES is a host's, and the
 * threshold alone decides there.
 */
#define MAX_REPORTED_SHARE_BYTES ((int64_t)16 << 20)

static int64_t stream_reuse_rule(int64_t llc_bytes, int32_t sharing, int64_t threshold) {
    if (sharing < 1) sharing = 1;
    int64_t share = llc_bytes / sharing, limit = share / 4;
    return share <= MAX_REPORTED_SHARE_BYTES && limit > threshold ? limit : 0;
}

static int may_write_cached(int64_t written, int64_t read) {
    int64_t limit = reuse_limit();
    /* a source that stays in L2 (TILE's) takes none of the last-level cache's room */
    int64_t held_half = written / 2 + (read > DMLCPU_L2_CALL_BYTES ? read / 2 : 0);
    return limit > 0 && held_half / dmlcpu_threads_for(written) <= limit;
}

/* The last copy that asked (its output's address, when it ended, how long it took); each field
 * atomic, so that calls from several threads at once can only mislead the choice, never tear a
 * value. */
static _Atomic uintptr_t last_output = 0;
static _Atomic uint64_t last_end_ns = 0, last_took_ns = 0;

/* how many copies were taken as rewrites (for tests: dmlcpu_stream_rewrites) */
static _Atomic uint64_t rewrites = 0;

static int rewrites_last_output(const char *output, uint64_t now_ns) {
    if (now_ns == 0) return 0; /* no clock */
    uint64_t end = atomic_load_explicit(&last_end_ns, memory_order_relaxed);
    if (atomic_load_explicit(&last_output, memory_order_relaxed) != (uintptr_t)output ||
        now_ns < end || now_ns - end >= atomic_load_explicit(&last_took_ns, memory_order_relaxed))
        return 0;
    atomic_fetch_add_explicit(&rewrites, 1, memory_order_relaxed);
    return 1;
}

uint64_t dmlcpu_stream_rewrites(void) { return atomic_load(&rewrites); }

int dmlcpu_streams_unless_rewrite(const char *output, int64_t written, int64_t read,
                                  uint64_t *asked_at) {
    *asked_at = 0;
    if (!may_write_cached(written, read)) return 1;
    *asked_at = dmlcpu_now_ns();
    return !rewrites_last_output(output, *asked_at);
}

void dmlcpu_wrote_output(const char *output, uint64_t asked_at) {
    uint64_t end = dmlcpu_now_ns();
    atomic_store_explicit(&last_output, (uintptr_t)output, memory_order_relaxed);
    atomic_store_explicit(&last_took_ns, end - asked_at, memory_order_relaxed);
    atomic_store_explicit(&last_end_ns, end, memory_order_relaxed);
}

/*
 * Where a copy that dmlcpu_streams would stream, writing only (a source that stays cached: TILE's
 * input) in packed rows that the rows kernel stores by the string copy (2 KiB and more, x86),
 * writes them by the string copy instead (so does such a copy beyond L2 that would not stream:
 * copy_nd.c). The string copy writes whole lines without reading them first, as streaming does,
 * but leaves them cached: a call after it that rewrites them finds them there. On the AMD EPYC
 * (Zen 4) VM (a 16 MiB share a thread), TILE (r,1,1024) x (1,64,1) in float16-float64 (rows of 2-8
 * KiB), the bench beside the peers, two processes each way, the best peer's time over dmlcpu's,
 * streamed / by the string copy (benchmarks/NOTES.md): 8 MiB on one thread 0.90-1.01 / 0.99-1.07
 * cold, 0.83-1.00 / 1.03-1.31 warm; 32 MiB on two 0.88-0.95 / 1.02-1.06 cold, 0.77-0.91 /
 * 1.01-1.11 warm. Without a limit, 32 MiB on one thread measured alike and 128 MiB on one
 * 0.93-1.05 against 1.01-1.24 streamed; rows of 1 KiB (int8) lost 12-14% cold at 8 MiB. So the
 * limit is a thread's share of the cache as reported, where one was detected and the share is
 * believable (as above), else 0 (never).
 */
static int64_t string_copy_rule(int64_t llc_bytes, int32_t sharing, int32_t detected) {
    int64_t share = llc_bytes / (sharing < 1 ? 1 : sharing);
    return detected && share <= MAX_REPORTED_SHARE_BYTES ? share : 0;
}

void dmlcpu_set_string_copy_limit(int64_t bytes) {
    dmlcpu_init();
    atomic_store(&string_copy_set, bytes < 0 ? -1 : bytes);
}

static int64_t string_copy_limit(void) {
    return limit_in_force(&string_copy_set, info.string_copy_bytes);
}

int64_t dmlcpu_string_copy_limit(void) {
    dmlcpu_init();
    return string_copy_limit();
}

/* how many copies were written by the string copy instead of streamed (for tests) */
static _Atomic uint64_t string_copies = 0;

uint64_t dmlcpu_string_copy_writes(void) { return atomic_load(&string_copies); }

int dmlcpu_writes_by_string_copy(int64_t written) {
    int64_t limit = string_copy_limit();
    if (limit <= 0 || written / dmlcpu_threads_for(written) > limit) return 0;
    /* the active kernels' rows kernel stores by the string copy where they stream rows (x86) */
    if (dmlcpu_dispatch_table()->copy.stream_rows == NULL) return 0;
    atomic_fetch_add_explicit(&string_copies, 1, memory_order_relaxed);
    return 1;
}

/*
 * Unaligned vector stores into NumPy's large arrays (16 bytes into a page) straddle a line in
 * every other store. Into a destination in L2 that costs: the packed runs of a window SLICE, a
 * JOIN or SPLIT along axis 1 and a TILE of 512 KiB, one thread, the bench's buffers, ran
 * 0.99-1.12x as fast, cold and warm, with the stores aligned (the rows kernel's aligned walk);
 * JOIN and SPLIT blocks of 1 KiB and more 0.98-1.02x, of 256 bytes 0.63x. At 8 MiB aligned
 * stores lost 14-17% cold, the straddling stores seemingly fetching the next line early
 * (benchmarks/NOTES.md).
 */
int dmlcpu_stays_in_l2(int64_t written) {
    return written / dmlcpu_threads_for(written) <= DMLCPU_L2_CALL_BYTES;
}
