/*
 * The policy (policy.h): the tuning derived from the machine model, DMLCPU_TUNE, and the drivers'
 * questions. Each value's entry in docs/decisions.md says why it is what it is and how it was
 * measured; the comments here say what each formula does.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "threads.h"

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

#define DMLCPU_TUNE_NAME(id, name) name,
static const char *const tune_names[DMLCPU_TUNE_COUNT] = {DMLCPU_TUNING_VALUES(DMLCPU_TUNE_NAME)};
#undef DMLCPU_TUNE_NAME

/* decisions.md "share_cap": the most of the last-level cache one thread is taken to have where
 * the reported caches are not believable. */
#define SHARE_CAP_BYTES ((int64_t)4 << 20)
/* decisions.md "caches_believable": a reported share this many times the cap is no real part's. */
#define FAR_BEYOND_CAP 4

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Value id from the model and the values before it; *source says where it came from. */
static int64_t derive_value(dmlcpu_tune_id id, const dmlcpu_machine *m, const int64_t *v,
                            int32_t *source) {
    dmlcpu_cache_level llc = dmlcpu_machine_llc(m);
    int32_t sharing = llc.sharing > 0 ? llc.sharing : 1;
    int64_t reported_share = llc.bytes / sharing;
    /* the whole last-level cache, capped at share_cap a sharer where not believable */
    int64_t whole = id <= DMLCPU_TUNE_BELIEVABLE || v[DMLCPU_TUNE_BELIEVABLE]
                        ? llc.bytes
                        : min64(llc.bytes, v[DMLCPU_TUNE_SHARE_CAP] * sharing);
    *source = DMLCPU_FROM_DERIVED;
    switch (id) {
    case DMLCPU_TUNE_SHARE_CAP:
        *source = DMLCPU_FROM_DEFAULT;
        return SHARE_CAP_BYTES;
    case DMLCPU_TUNE_BELIEVABLE: /* bare metal, and no share far beyond any real part's */
        return m->caches_detected && !m->hypervisor &&
               reported_share <= FAR_BEYOND_CAP * v[DMLCPU_TUNE_SHARE_CAP];
    case DMLCPU_TUNE_L2:
        *source = m->caches_detected ? DMLCPU_FROM_DETECTED : DMLCPU_FROM_DEFAULT;
        return m->l2.bytes / (m->l2.sharing > 0 ? m->l2.sharing : 1);
    case DMLCPU_TUNE_CACHE_SHARE: /* a thread's L2 or its share of the whole, the larger */
        return max64(v[DMLCPU_TUNE_L2], whole / sharing);
    case DMLCPU_TUNE_STREAM_THRESHOLD: /* glibc: a quarter of the cache, or 3/4 of a share */
        return max64(whole / 4, v[DMLCPU_TUNE_CACHE_SHARE] / 4 * 3);
    case DMLCPU_TUNE_STREAM_THREAD_BYTES:
        return v[DMLCPU_TUNE_CACHE_SHARE] / 4 * 3;
    case DMLCPU_TUNE_STRING_COPY: /* an output the whole cache holds */
        return max64(whole, v[DMLCPU_TUNE_CACHE_SHARE]);
    case DMLCPU_TUNE_PARALLEL_CHUNK:
        *source = DMLCPU_FROM_DEFAULT;
        return (int64_t)256 << 10;
    case DMLCPU_TUNE_CHUNKS_PER_THREAD:
        *source = DMLCPU_FROM_DEFAULT;
        return DMLCPU_CHUNKS_PER_THREAD;
    case DMLCPU_TUNE_STREAM_MIN_RUN:
        *source = DMLCPU_FROM_DEFAULT;
        return (int64_t)16 << 10;
    case DMLCPU_TUNE_STRING_MIN_ROW: /* 32 lines */
        return 32 * m->line_bytes;
    case DMLCPU_TUNE_SHORT_BLOCKS_STREAM:
        *source = DMLCPU_FROM_DEFAULT;
        return (int64_t)64 << 20;
    case DMLCPU_TUNE_TILE_BLOCK:
        *source = DMLCPU_FROM_DEFAULT;
        return (int64_t)64 << 10;
    case DMLCPU_TUNE_TILE_STRAIGHT_RUN:
        *source = DMLCPU_FROM_DEFAULT;
        return 1024;
    case DMLCPU_TUNE_SCAN_STRIP: /* a page, the hardware prefetchers' reach: 4 KiB at most */
        return min64(m->page_bytes, 4096);
    case DMLCPU_TUNE_CALL_THREADS: /* decisions.md "call_threads": no more than the CPUs */
        *source = DMLCPU_FROM_DETECTED;
        return m->logical_cpus > 0 ? m->logical_cpus : 1;
    case DMLCPU_TUNE_COUNT:
        break;
    }
    return 0;
}

void dmlcpu_policy_derive(const dmlcpu_machine *m, const int64_t *overrides, dmlcpu_tuning *out) {
    for (int id = 0; id < DMLCPU_TUNE_COUNT; id++) {
        int32_t source;
        int64_t v = derive_value((dmlcpu_tune_id)id, m, out->value, &source);
        if (overrides != NULL && overrides[id] >= 0) {
            v = overrides[id];
            source = DMLCPU_FROM_TUNE;
        }
        out->value[id] = v;
        out->source[id] = source;
    }
}

/* ---- the tuning in force ---- */

static dmlcpu_machine machine;
static int64_t overrides[DMLCPU_TUNE_COUNT];
/* two tunings: tests and the bench set a value between calls (dmlcpu_tune_set) by deriving into
 * the one not in force and swapping the pointer, so a call never reads a half-written one */
static dmlcpu_tuning tunings[2];
static _Atomic(dmlcpu_tuning *) in_force = &tunings[0];
/* DMLCPU_TUNE's entries that were ignored (unknown name or malformed value) */
static int32_t tune_ignored = 0;

const dmlcpu_machine *dmlcpu_machine_model(void) {
    dmlcpu_init();
    return &machine;
}

const dmlcpu_tuning *dmlcpu_tuning_now(void) {
    return atomic_load_explicit(&in_force, memory_order_acquire);
}

static void publish(void) {
    dmlcpu_tuning *next = dmlcpu_tuning_now() == &tunings[0] ? &tunings[1] : &tunings[0];
    dmlcpu_policy_derive(&machine, overrides, next);
    atomic_store_explicit(&in_force, next, memory_order_release);
}

/*
 * Entries of DMLCPU_TUNE that set something outside the tuning (the pool's, say): name and a
 * setter taking the parsed value. To add one: a line { "name", setter }, the setter declared in
 * internal.h.
 */
typedef struct tune_setter {
    const char *name;
    void (*set)(int64_t value);
} tune_setter;
static const tune_setter setters[] = {{"pool_spin_ns", dmlcpu_set_pool_spin_ns}, {NULL, NULL}};

static int find_tune(const char *name, size_t length) {
    for (int id = 0; id < DMLCPU_TUNE_COUNT; id++)
        if (strlen(tune_names[id]) == length && strncmp(tune_names[id], name, length) == 0)
            return id;
    return -1;
}

/* One "name=value" entry of DMLCPU_TUNE, [s, end); 0 if ignored. */
static int apply_entry(const char *s, const char *end) {
    const char *eq = memchr(s, '=', (size_t)(end - s));
    char value[32];
    if (eq == NULL || (size_t)(end - eq - 1) >= sizeof value) return 0;
    memcpy(value, eq + 1, (size_t)(end - eq - 1));
    value[end - eq - 1] = '\0';
    int64_t v = dmlcpu_parse_bytes(value);
    if (v < 0) return 0;
    int id = find_tune(s, (size_t)(eq - s));
    if (id >= 0) {
        overrides[id] = v;
        return 1;
    }
    for (const tune_setter *k = setters; k->name != NULL; k++)
        if (strlen(k->name) == (size_t)(eq - s) && strncmp(k->name, s, (size_t)(eq - s)) == 0) {
            k->set(v);
            return 1;
        }
    return 0;
}

void dmlcpu_policy_init(void) {
    dmlcpu_machine_detect(&machine);
    for (int id = 0; id < DMLCPU_TUNE_COUNT; id++) overrides[id] = -1;
    /* DMLCPU_STREAM_THRESHOLD, the older name: bytes a thread moves, at any thread count */
    const char *alias = getenv("DMLCPU_STREAM_THRESHOLD");
    if (alias != NULL && *alias != '\0') {
        int64_t v = dmlcpu_parse_bytes(alias);
        if (v >= 0) {
            overrides[DMLCPU_TUNE_STREAM_THRESHOLD] = v;
            overrides[DMLCPU_TUNE_STREAM_THREAD_BYTES] = v;
        } else {
            tune_ignored++;
        }
    }
    const char *env = getenv("DMLCPU_TUNE");
    while (env != NULL && *env != '\0') {
        const char *end = strchr(env, ',');
        if (end == NULL) end = env + strlen(env);
        if (end > env && !apply_entry(env, end)) tune_ignored++;
        env = *end == ',' ? end + 1 : end;
    }
    dmlcpu_policy_derive(&machine, overrides, &tunings[0]);
    atomic_store(&in_force, &tunings[0]);
}

int dmlcpu_tune_count(void) { return DMLCPU_TUNE_COUNT; }

const char *dmlcpu_tune_name(int id) {
    return id >= 0 && id < DMLCPU_TUNE_COUNT ? tune_names[id] : NULL;
}

int64_t dmlcpu_tune_value(int id, int32_t *source) {
    dmlcpu_init();
    const dmlcpu_tuning *t = dmlcpu_tuning_now();
    if (id < 0 || id >= DMLCPU_TUNE_COUNT) return -1;
    if (source != NULL) *source = t->source[id];
    return t->value[id];
}

int32_t dmlcpu_tune_ignored(void) {
    dmlcpu_init();
    return tune_ignored;
}

int64_t dmlcpu_tune_set(int id, int64_t value) {
    dmlcpu_init();
    if (id < 0 || id >= DMLCPU_TUNE_COUNT) return -2;
    int64_t before = overrides[id];
    overrides[id] = value < 0 ? -1 : value;
    publish();
    return before;
}

void dmlcpu_set_stream_threshold(int64_t bytes) {
    dmlcpu_init();
    overrides[DMLCPU_TUNE_STREAM_THRESHOLD] = bytes < 0 ? -1 : bytes;
    overrides[DMLCPU_TUNE_STREAM_THREAD_BYTES] = bytes < 0 ? -1 : bytes;
    publish();
}

int64_t dmlcpu_stream_threshold(void) {
    dmlcpu_init();
    return dmlcpu_tuning_now()->value[DMLCPU_TUNE_STREAM_THRESHOLD];
}

/* ---- the questions ---- */

/* parallel_chunk, at least 1 (DMLCPU_TUNE may set 0) */
static int64_t chunk_bytes(const dmlcpu_tuning *t) {
    return t->value[DMLCPU_TUNE_PARALLEL_CHUNK] > 0 ? t->value[DMLCPU_TUNE_PARALLEL_CHUNK] : 1;
}

int dmlcpu_policy_threads(const dmlcpu_tuning *t, int64_t bytes, int available) {
    int64_t by_size = bytes / chunk_bytes(t), cpus = t->value[DMLCPU_TUNE_CALL_THREADS];
    if (cpus >= 1 && cpus < available) available = (int)cpus;
    if (by_size < 1 || available < 1) return 1;
    return (int)(by_size < available ? by_size : available);
}

int dmlcpu_policy_chunks(const dmlcpu_tuning *t, int64_t bytes, int64_t units, int available) {
    int64_t chunks = dmlcpu_policy_threads(t, bytes, available);
    if (chunks < 2) return 1;
    int64_t per_thread = t->value[DMLCPU_TUNE_CHUNKS_PER_THREAD];
    chunks *= per_thread < 1 ? 1 : per_thread > 1024 ? 1024 : per_thread; /* no overflow */
    int64_t by_size = bytes / chunk_bytes(t);
    if (by_size < chunks) chunks = by_size;
    if (units < chunks) chunks = units;
    return chunks < 1 ? 1 : (int)chunks;
}

/* decisions.md "stream_threshold": half of what the call moves against one thread's threshold,
 * or, on several threads, each thread's part of it against stream_thread_bytes. */
int dmlcpu_policy_streams(const dmlcpu_tuning *t, int64_t written, int64_t read, int threads) {
    int64_t moved_half = written / 2 + read / 2; /* no overflow */
    if (threads < 1) threads = 1;
    if (written < t->value[DMLCPU_TUNE_STREAM_THRESHOLD] && read <= written) return 0;
    return moved_half >= t->value[DMLCPU_TUNE_STREAM_THRESHOLD] &&
           moved_half / threads >= t->value[DMLCPU_TUNE_STREAM_THREAD_BYTES];
}

int dmlcpu_policy_in_l2(const dmlcpu_tuning *t, int64_t written, int threads) {
    return written / (threads < 1 ? 1 : threads) <= t->value[DMLCPU_TUNE_L2];
}

int dmlcpu_policy_string_copy(const dmlcpu_tuning *t, int64_t written) {
    int64_t limit = t->value[DMLCPU_TUNE_STRING_COPY];
    return limit > 0 && written <= limit;
}

/* decisions.md "cached source": a copy reading at most a quarter of what it writes (TILE's
 * repeats of a block) reads it from the cache. */
#define CACHED_SOURCE_MIN_REPEATS 4

dmlcpu_store dmlcpu_policy_copy_store(const dmlcpu_tuning *t, const dmlcpu_copy_facts *f) {
    int64_t call = f->call_bytes > 0 ? f->call_bytes : f->written;
    int64_t long_run = t->value[DMLCPU_TUNE_STREAM_MIN_RUN];
    int streams = f->request == DMLCPU_STREAM_AUTO
                      ? dmlcpu_policy_streams(t, f->written, f->read, f->threads)
                      : f->request == 1;
    if (f->run_bytes >= long_run) {
        if (streams && f->has_stream) return DMLCPU_STORE_STREAM;
        /* decisions.md "long runs": the string copy up to L2's size, or anywhere in a call in L2 */
        if (f->request == DMLCPU_STREAM_STRING || f->run_bytes < t->value[DMLCPU_TUNE_L2] ||
            dmlcpu_policy_in_l2(t, call, f->threads))
            return DMLCPU_STORE_STRING;
        return DMLCPU_STORE_RUNS;
    }
    if (!f->rows_packed) return DMLCPU_STORE_RUNS;
    /* decisions.md "rows": packed rows, in one call */
    int in_l2 = dmlcpu_policy_in_l2(t, call, f->threads);
    int long_rows = f->run_bytes >= t->value[DMLCPU_TUNE_STRING_MIN_ROW];
    int cached_source = f->read <= f->written / CACHED_SOURCE_MIN_REPEATS;
    if (cached_source && long_rows && (streams || !in_l2) && f->has_stream_rows &&
        dmlcpu_policy_string_copy(t, f->written))
        return DMLCPU_STORE_ROWS_STRING;
    if (streams && f->run_bytes >= 64 && f->has_stream_rows) return DMLCPU_STORE_ROWS_STREAM;
    return !long_rows || in_l2 || cached_source ? DMLCPU_STORE_ROWS_ALIGNED
                                                : DMLCPU_STORE_ROWS_STRING;
}

const char *dmlcpu_store_name(dmlcpu_store s) {
    static const char *const names[DMLCPU_STORE_COUNT] = {
        "runs", "stream", "string", "rows_aligned", "rows_string", "rows_stream"};
    return s >= 0 && s < DMLCPU_STORE_COUNT ? names[s] : NULL;
}

/* decisions.md "group streaming": blocks of a few lines and more stream as a copy's runs do;
 * shorter ones, each line gathered from two blocks, only from short_blocks_stream. */
#define GROUP_LONG_BLOCK_BYTES 256

int dmlcpu_policy_group_streams(const dmlcpu_tuning *t, int64_t written, int long_blocks,
                                int threads) {
    return dmlcpu_policy_streams(t, written, written, threads) &&
           (long_blocks || written >= t->value[DMLCPU_TUNE_SHORT_BLOCKS_STREAM]);
}

dmlcpu_tile_plan dmlcpu_policy_tile(const dmlcpu_tuning *t, int64_t written, int64_t run_bytes,
                                    int packed_run, int64_t row_bytes, int threads,
                                    int has_stream_rows) {
    dmlcpu_tile_plan p;
    p.straight = packed_run && run_bytes >= t->value[DMLCPU_TUNE_TILE_STRAIGHT_RUN];
    p.block_bytes = max64(row_bytes, t->value[DMLCPU_TUNE_TILE_BLOCK]);
    /* decisions.md "tile replicas": the replicas, read from L1 or L2, stream by the output's
     * size as one thread's, whatever the threads */
    p.stream = !p.straight && dmlcpu_policy_streams(t, written, 0, 1);
    /* decisions.md "tile slabs" */
    p.slabs = p.stream && threads == 1 && has_stream_rows &&
              dmlcpu_policy_string_copy(t, written);
    return p;
}

int64_t dmlcpu_policy_scan_strip(const dmlcpu_tuning *t, int64_t scans_bytes, int64_t written,
                                 int threads) {
    int64_t strip = t->value[DMLCPU_TUNE_SCAN_STRIP] > 1 ? t->value[DMLCPU_TUNE_SCAN_STRIP] : 2;
    /* decisions.md "scan strips": half strips where whole ones are fewer than the threads */
    if ((scans_bytes + strip - 1) / strip < threads && !dmlcpu_policy_in_l2(t, written, threads))
        return strip / 2;
    return strip;
}

int dmlcpu_policy_scan_streams(const dmlcpu_tuning *t, int outer, int64_t written, int threads) {
    if (outer) return dmlcpu_policy_streams(t, written, written, threads);
    /* decisions.md "line scans": interleaved line blocks stream from half one thread's
     * threshold of output, whatever the threads */
    return written >= t->value[DMLCPU_TUNE_STREAM_THRESHOLD] / 2;
}

/* ---- the drivers' shorthand: the tuning in force and the pool's thread count ---- */

int dmlcpu_threads_for(int64_t bytes) {
    int available = dmlcpu_get_num_threads(); /* first: it initializes */
    return dmlcpu_policy_threads(dmlcpu_tuning_now(), bytes, available);
}

int dmlcpu_chunks_for(int64_t bytes, int64_t units) {
    int available = dmlcpu_get_num_threads();
    return dmlcpu_policy_chunks(dmlcpu_tuning_now(), bytes, units, available);
}

/* ---- the model and the answers as plain numbers (show_config, the decision tables) ---- */

static void machine_to_fields(const dmlcpu_machine *m, int64_t *out) {
    int64_t f[DMLCPU_MACHINE_FIELDS] = {
        m->l1d.bytes, m->l1d.sharing, m->l2.bytes,  m->l2.sharing,   m->l3.bytes,
        m->l3.sharing, m->line_bytes, m->page_bytes, m->logical_cpus, m->hypervisor,
        m->caches_detected};
    memcpy(out, f, sizeof f);
}

static int32_t field32(int64_t v) { return v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : (int32_t)v; }

static void machine_from_fields(const int64_t *f, dmlcpu_machine *m) {
    memset(m, 0, sizeof *m);
    m->l1d = (dmlcpu_cache_level){f[0], field32(f[1])};
    m->l2 = (dmlcpu_cache_level){f[2], field32(f[3])};
    m->l3 = (dmlcpu_cache_level){f[4], field32(f[5])};
    m->line_bytes = f[6] >= 16 ? f[6] : 64;
    m->page_bytes = f[7] >= 512 ? f[7] : 4096;
    m->logical_cpus = field32(f[8]);
    m->hypervisor = f[9] != 0;
    m->caches_detected = f[10] != 0;
}

void dmlcpu_machine_info(int64_t out[DMLCPU_MACHINE_FIELDS]) {
    dmlcpu_init();
    machine_to_fields(&machine, out);
}

void dmlcpu_tune_derive(const int64_t fields[DMLCPU_MACHINE_FIELDS], const int64_t *overrides,
                        int64_t *values, int32_t *sources) {
    dmlcpu_machine m;
    dmlcpu_tuning t;
    machine_from_fields(fields, &m);
    dmlcpu_policy_derive(&m, overrides, &t);
    memcpy(values, t.value, sizeof t.value);
    if (sources != NULL) memcpy(sources, t.source, sizeof t.source);
}

static int int_fact(int64_t v) { return v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : (int)v; }

int64_t dmlcpu_policy_decide(const int64_t *values, int question, const int64_t *f) {
    dmlcpu_tuning t;
    memcpy(t.value, values, sizeof t.value);
    switch (question) {
    case 0: return dmlcpu_policy_threads(&t, f[0], int_fact(f[1]));
    case 1: return dmlcpu_policy_chunks(&t, f[0], f[1], int_fact(f[2]));
    case 2: return dmlcpu_policy_streams(&t, f[0], f[1], int_fact(f[2]));
    case 3: {
        dmlcpu_copy_facts c = {f[0], f[1], f[2], f[3], (int32_t)(f[4] != 0), int_fact(f[5]),
                               (int32_t)f[6], (int32_t)(f[7] != 0), (int32_t)(f[8] != 0)};
        return dmlcpu_policy_copy_store(&t, &c);
    }
    case 4: return dmlcpu_policy_group_streams(&t, f[0], f[1] != 0, int_fact(f[2]));
    case 5: {
        dmlcpu_tile_plan p = dmlcpu_policy_tile(&t, f[0], f[1], f[2] != 0, f[3], int_fact(f[4]),
                                                f[5] != 0);
        return p.straight ? 1 : p.slabs ? 3 : p.stream ? 2 : 0;
    }
    case 6: return dmlcpu_policy_scan_strip(&t, f[0], f[1], int_fact(f[2]));
    case 7: return dmlcpu_policy_scan_streams(&t, f[0] != 0, f[1], int_fact(f[2]));
    }
    return -1;
}
