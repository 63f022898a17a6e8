/*
 * The policy: every tuning value derived from the machine model (machine.h) by one formula each,
 * and the drivers' questions (how to store a call's output, how many threads it gets, how to cut
 * it into chunks) answered as pure functions of the call's facts and the tuning. Nothing here
 * reads what an earlier call did. docs/decisions.md has one entry per value.
 */
#ifndef DMLCPU_POLICY_H
#define DMLCPU_POLICY_H

#include "internal.h"
#include "machine.h"

/*
 * The tuning values, in derivation order (a value may use the ones above it). X(id, name):
 * DMLCPU_TUNE="name=value,..." overrides any of them (sizes with K, M or G). To add one: a line
 * here, its formula in derive_value (policy.c), its entry in docs/decisions.md.
 */
#define DMLCPU_TUNING_VALUES(X)                                                                \
    X(SHARE_CAP, "share_cap")                     /* bytes: a thread's cache share, at most */  \
    X(BELIEVABLE, "caches_believable")            /* 0/1: the reported caches taken as real */ \
    X(L2, "l2_bytes")                             /* bytes: a thread's L2 */                    \
    X(CACHE_SHARE, "cache_share")                 /* bytes: a thread's share of the LLC */      \
    X(STREAM_THRESHOLD, "stream_threshold")       /* bytes moved: one thread streams from */    \
    X(STREAM_THREAD_BYTES, "stream_thread_bytes") /* bytes moved a thread, several threads */   \
    X(STRING_COPY, "string_copy_bytes")           /* bytes: writes-only string copy up to */ \
    X(PARALLEL_CHUNK, "parallel_chunk")           /* bytes: the smallest chunk a thread takes */ \
    X(CHUNKS_PER_THREAD, "chunks_per_thread")     /* chunks a thread of a full call */          \
    X(STREAM_MIN_RUN, "long_run")                 /* bytes: a run long enough to stream */      \
    X(STRING_MIN_ROW, "string_row")               /* bytes: rows by the string copy from */     \
    X(SHORT_BLOCKS_STREAM, "short_blocks_stream") /* bytes: short JOIN/SPLIT blocks stream */   \
    X(TILE_BLOCK, "tile_block")                   /* bytes: a TILE block */                     \
    X(TILE_STRAIGHT_RUN, "tile_straight_run")     /* bytes: TILE input runs copied straight */  \
    X(SCAN_STRIP, "scan_strip")                   /* bytes: an outer scan's column strip */      \
    X(CALL_THREADS, "call_threads")               /* threads one call runs on, at most */

#define DMLCPU_TUNE_ENUM(id, name) DMLCPU_TUNE_##id,
typedef enum dmlcpu_tune_id {
    DMLCPU_TUNING_VALUES(DMLCPU_TUNE_ENUM) DMLCPU_TUNE_COUNT
} dmlcpu_tune_id;
#undef DMLCPU_TUNE_ENUM

/* Where a value came from (show_config prints it). */
typedef enum dmlcpu_tune_source {
    DMLCPU_FROM_DEFAULT = 0,  /* a constant: not derived from the machine */
    DMLCPU_FROM_DETECTED = 1, /* read from the machine model as detected */
    DMLCPU_FROM_DERIVED = 2,  /* a formula over the model and the values above it */
    DMLCPU_FROM_TUNE = 3      /* DMLCPU_TUNE (or DMLCPU_STREAM_THRESHOLD, or a test's setter) */
} dmlcpu_tune_source;

typedef struct dmlcpu_tuning {
    int64_t value[DMLCPU_TUNE_COUNT];
    int32_t source[DMLCPU_TUNE_COUNT];
} dmlcpu_tuning;

/* Every value from the model; overrides[id] >= 0 replaces value id (NULL: none). Pure. */
void dmlcpu_policy_derive(const dmlcpu_machine *m, const int64_t *overrides, dmlcpu_tuning *out);
/* The tuning in force (derived at initialization, DMLCPU_TUNE applied). */
const dmlcpu_tuning *dmlcpu_tuning_now(void);
/* Detects the machine, reads DMLCPU_TUNE and DMLCPU_STREAM_THRESHOLD, derives (dmlcpu_init). */
void dmlcpu_policy_init(void);

/* ---- the drivers' questions: pure functions of the tuning and the call's facts ---- */

/* The threads a call writing `bytes` runs on, of the `available` the pool gives it. */
int dmlcpu_policy_threads(const dmlcpu_tuning *t, int64_t bytes, int available);
/* The chunks a call writing `bytes` in `units` independent pieces is cut into. */
int dmlcpu_policy_chunks(const dmlcpu_tuning *t, int64_t bytes, int64_t units, int available);
/* Whether a call on `threads` threads writing `written` bytes and reading `read` from memory
 * cannot keep its output cached (non-temporal stores pay). */
int dmlcpu_policy_streams(const dmlcpu_tuning *t, int64_t written, int64_t read, int threads);
/* Whether a call's output stays in its threads' L2. */
int dmlcpu_policy_in_l2(const dmlcpu_tuning *t, int64_t written, int threads);
/* Whether an output written from a cached source fits the cache whole, so that the string copy
 * (whole lines, no read for ownership, left cached) beats streaming. */
int dmlcpu_policy_string_copy(const dmlcpu_tuning *t, int64_t written);

/* How copy_nd.c stores a packed copy (its innermost run contiguous in both operands). */
typedef enum dmlcpu_store {
    DMLCPU_STORE_RUNS = 0,      /* the run kernel, ordinary stores */
    DMLCPU_STORE_STREAM,        /* each long run with non-temporal stores */
    DMLCPU_STORE_STRING,        /* each long run as one row: a line in vectors, the string copy */
    DMLCPU_STORE_ROWS_ALIGNED,  /* runs packed in the destination: one aligned walk (cached) */
    DMLCPU_STORE_ROWS_STRING,   /* ... row by row by the string copy (not cached) */
    DMLCPU_STORE_ROWS_STREAM,   /* ... whole lines streamed */
    DMLCPU_STORE_COUNT
} dmlcpu_store;

typedef struct dmlcpu_copy_facts {
    int64_t written;         /* bytes the copy writes */
    int64_t read;            /* bytes it reads (a stride-0 source dim read once) */
    int64_t call_bytes;      /* what the whole operator call writes (0: written) */
    int64_t run_bytes;       /* the innermost run */
    int32_t rows_packed;     /* runs follow one another in the destination */
    int32_t threads;         /* the threads the call runs on */
    int32_t request;         /* DMLCPU_STREAM_AUTO, 0, 1 or DMLCPU_STREAM_STRING (internal.h) */
    int32_t has_stream;      /* the kernels stream runs */
    int32_t has_stream_rows; /* the kernels stream rows (x86: and store rows by the string copy) */
} dmlcpu_copy_facts;
dmlcpu_store dmlcpu_policy_copy_store(const dmlcpu_tuning *t, const dmlcpu_copy_facts *f);
const char *dmlcpu_store_name(dmlcpu_store s);

/* JOIN and SPLIT in one pass (group_nd.c): whether the output streams; `long_blocks` where the
 * blocks average at least a few lines. */
int dmlcpu_policy_group_streams(const dmlcpu_tuning *t, int64_t written, int long_blocks,
                                int threads);

/* TILE (tile.c). */
typedef struct dmlcpu_tile_plan {
    int32_t straight;    /* one strided copy straight from the input */
    int64_t block_bytes; /* else blocks of at most this (or one output row) */
    int32_t stream;      /* the replicas stream */
    int32_t slabs;       /* one thread: slabs by the string copy, cached */
} dmlcpu_tile_plan;
dmlcpu_tile_plan dmlcpu_policy_tile(const dmlcpu_tuning *t, int64_t written, int64_t run_bytes,
                                    int packed_run, int64_t row_bytes, int threads,
                                    int has_stream_rows);

/* Scans (scan_nd.c): an outer scan's strip of columns in bytes; whether the output streams
 * (`outer`: rows stored in order, else line blocks interleaved). */
int64_t dmlcpu_policy_scan_strip(const dmlcpu_tuning *t, int64_t scans_bytes, int64_t written,
                                 int threads);
int dmlcpu_policy_scan_streams(const dmlcpu_tuning *t, int outer, int64_t written, int threads);

#endif /* DMLCPU_POLICY_H */
