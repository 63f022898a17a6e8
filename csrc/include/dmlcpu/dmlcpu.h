/*
 * dmlcpu C core: strided N-d copies and scans over views.
 *
 * This is the only header the Cython layer sees. The core knows nothing of DirectML descriptors
 * or Python: it copies and scans strided views that the caller has already validated. It still
 * re-checks what it can cheaply (dimension counts, negative sizes, overflow of byte extents) and
 * reports a status instead of crashing.
 */
#ifndef DMLCPU_DMLCPU_H
#define DMLCPU_DMLCPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DMLCPU_MAX_DIMS 8

typedef enum dmlcpu_status {
    DMLCPU_OK = 0,
    DMLCPU_E_INVALID = 1,  /* malformed view or argument: a caller bug, validation should catch it */
    DMLCPU_E_NOMEM = 2,    /* a temporary could not be allocated */
    DMLCPU_E_OVERFLOW = 3  /* a size or byte offset does not fit in 64 bits */
} dmlcpu_status;

/* DirectML's DML_TENSOR_DATA_TYPE values. */
typedef enum dmlcpu_dtype {
    DMLCPU_FLOAT32 = 1,
    DMLCPU_FLOAT16 = 2,
    DMLCPU_UINT32 = 3,
    DMLCPU_UINT16 = 4,
    DMLCPU_UINT8 = 5,
    DMLCPU_INT32 = 6,
    DMLCPU_INT16 = 7,
    DMLCPU_INT8 = 8,
    DMLCPU_FLOAT64 = 9,
    DMLCPU_UINT64 = 10,
    DMLCPU_INT64 = 11
} dmlcpu_dtype;

typedef enum dmlcpu_scan_op {
    DMLCPU_SCAN_SUM = 0,
    DMLCPU_SCAN_PROD = 1
} dmlcpu_scan_op;

/*
 * A strided view: the address of element (0, ..., 0), up to 8 sizes, and signed byte strides.
 * Strides may be negative or zero. Sizes of 0 make an empty view (nothing is touched).
 */
typedef struct dmlcpu_view {
    char *data;
    int32_t ndim;
    int64_t sizes[DMLCPU_MAX_DIMS];
    int64_t strides[DMLCPU_MAX_DIMS];
} dmlcpu_view;

const char *dmlcpu_status_string(dmlcpu_status status);

/* Element size in bytes of a DirectML data type, 0 for an unknown value. */
size_t dmlcpu_dtype_size(int dtype);

/*
 * dst[c] = src[c] for every coordinate c. dst and src have the same ndim and sizes, and elements
 * of elsize bytes (1, 2, 4 or 8). dst must not overlap src or itself.
 */
dmlcpu_status dmlcpu_copy(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize);

/*
 * A copy checked and normalized once and run many times at other addresses (a plan's step):
 * dmlcpu_copy_prepare takes the views of dmlcpu_copy with byte offsets in place of their data
 * pointers (any value, 0 included), and dmlcpu_copy_prepared runs that copy with the offsets
 * added to two base addresses. The same copy as dmlcpu_copy on the views the bases make; a
 * run skips only the checks and the normalization already done. Fill it only by
 * dmlcpu_copy_prepare.
 */
typedef struct dmlcpu_prepared_copy {
    size_t elsize;
    int32_t ndim;                             /* 0: nothing to copy (some size was 0) */
    int64_t sizes[DMLCPU_MAX_DIMS];
    int64_t offsets[2];                       /* destination, source: element 0's byte offset */
    int64_t strides[2][DMLCPU_MAX_DIMS];
} dmlcpu_prepared_copy;

dmlcpu_status dmlcpu_copy_prepare(dmlcpu_prepared_copy *prepared, const dmlcpu_view *dst,
                                  const dmlcpu_view *src, size_t elsize);
dmlcpu_status dmlcpu_copy_prepared(const dmlcpu_prepared_copy *prepared, char *dst_base,
                                   const char *src_base);

/*
 * count copies dsts[k][c] = srcs[k][c] (each pair as dmlcpu_copy takes it) whose first
 * outer_ndim sizes are equal: the parts of a JOIN (dsts are blocks of one output) or of a SPLIT
 * (srcs are blocks of one input). When each part's block at one outer index is contiguous, the
 * outer indices are walked once, copying every part's block at each, so a JOIN along an inner
 * axis writes its output front to back; otherwise the parts are copied one after the other.
 * No destination may overlap another or any source. Parts may be empty.
 */
dmlcpu_status dmlcpu_copy_group(const dmlcpu_view *dsts, const dmlcpu_view *srcs, size_t count,
                                int32_t outer_ndim, size_t elsize);

/*
 * dst[c] = src[c mod src.sizes]: dst.sizes[i] is a whole multiple of src.sizes[i] (both > 0).
 * Long input runs are copied straight into every tile; otherwise the input is copied once into
 * the first tile and each repeated dimension is filled from the part already written (tile.c).
 */
dmlcpu_status dmlcpu_tile(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize);

/*
 * Running sum or product along axis, walking in increasing index order (reverse = 0) or
 * decreasing (reverse = 1). exclusive = 1 writes the total before the current element is added,
 * so the first element written is the identity. dst and src have the same sizes; dst may be the
 * identical view of src (in place), otherwise they must not overlap.
 * Integers wrap modulo 2^bits; FLOAT16 accumulates in FLOAT32 and rounds each written value.
 */
dmlcpu_status dmlcpu_scan(const dmlcpu_view *dst, const dmlcpu_view *src, dmlcpu_dtype dtype,
                          int32_t axis, dmlcpu_scan_op op, int32_t reverse, int32_t exclusive);

/*
 * dmlcpu_scan for one piece of a longer scan cut along its axis (dmlcpu.dask's blocks): each
 * scan starts from the running total the walk reached before this piece, and hands on its total
 * after it. carry_in and carry_out are views of dst's sizes with sizes[axis] = 1, one
 * accumulator per scan: float for FLOAT16, the data type itself otherwise. carry_in NULL starts
 * from the identity (then this is dmlcpu_scan); otherwise an exclusive scan writes carry_in
 * first, where it would write the identity. carry_out (or NULL) receives each scan's total after
 * its last element in walk order, exclusive scans included; it is not written when dst is empty.
 * The bits are those of one sequential walk over all the pieces, whatever the kernel or thread
 * count. carry_out must not overlap dst, src or itself; carry_in may be its identical view.
 */
dmlcpu_status dmlcpu_scan_carried(const dmlcpu_view *dst, const dmlcpu_view *src,
                                  dmlcpu_dtype dtype, int32_t axis, dmlcpu_scan_op op,
                                  int32_t reverse, int32_t exclusive,
                                  const dmlcpu_view *carry_in, const dmlcpu_view *carry_out);

/*
 * Runtime configuration: CPU features, ISA dispatch and threads.
 *
 * dmlcpu_init detects the CPU once and fills the kernel table; every entry point calls it, so
 * calling it first is optional (the Python module calls it at import). Environment variables are
 * read once, by the first dmlcpu_init: DMLCPU_FORCE_ISA=scalar|avx2|avx512|neon caps the table
 * at that ISA, DMLCPU_DISABLE_ISA=avx512[,avx2] removes ISAs, DMLCPU_NUM_THREADS sets the thread
 * count.
 */
typedef enum dmlcpu_isa {
    DMLCPU_ISA_SCALAR = 0,
    DMLCPU_ISA_AVX2 = 1,
    DMLCPU_ISA_AVX512 = 2,
    DMLCPU_ISA_NEON = 3,
    DMLCPU_ISA_COUNT = 4
} dmlcpu_isa;

/* Bits of dmlcpu_cpu_features(); AVX-class bits are set only when the OS saves their state. */
enum {
    DMLCPU_CPU_SSE2 = 1u << 0,
    DMLCPU_CPU_AVX = 1u << 1,
    DMLCPU_CPU_AVX2 = 1u << 2,
    DMLCPU_CPU_FMA = 1u << 3,
    DMLCPU_CPU_F16C = 1u << 4,
    DMLCPU_CPU_AVX512F = 1u << 5,
    DMLCPU_CPU_AVX512DQ = 1u << 6,
    DMLCPU_CPU_AVX512BW = 1u << 7,
    DMLCPU_CPU_AVX512VL = 1u << 8,
    DMLCPU_CPU_OS_YMM = 1u << 9,
    DMLCPU_CPU_OS_ZMM = 1u << 10,
    DMLCPU_CPU_NEON = 1u << 11,
    DMLCPU_CPU_AVX512VBMI = 1u << 12, /* byte permutes: a sub-feature the avx512 table checks */
    DMLCPU_CPU_FEATURE_COUNT = 13
};

void dmlcpu_init(void);

/*
 * The machine model and the tuning derived from it (machine.c, policy.c; docs/decisions.md).
 * dmlcpu_machine_info fills the detected model's fields, in this order: L1d bytes, sharing, L2
 * bytes, sharing, L3 bytes, sharing, line bytes, page bytes, logical CPUs, hypervisor, caches
 * detected (DMLCPU_MACHINE_FIELDS of them).
 */
#define DMLCPU_MACHINE_FIELDS 11
void dmlcpu_machine_info(int64_t out[DMLCPU_MACHINE_FIELDS]);
/* Tuning value id (0 .. dmlcpu_tune_count() - 1): its name, its value in force and where it
 * came from (*source: 0 default, 1 detected, 2 derived, 3 DMLCPU_TUNE or a setter). */
int dmlcpu_tune_count(void);
const char *dmlcpu_tune_name(int id);
int64_t dmlcpu_tune_value(int id, int32_t *source);
/* How many entries of DMLCPU_TUNE (and DMLCPU_STREAM_THRESHOLD) were ignored as malformed. */
int32_t dmlcpu_tune_ignored(void);
/* For benchmarks and tests, between calls: value id from now on (-1: derived again); returns
 * the override before (-1: none). */
int64_t dmlcpu_tune_set(int id, int64_t value);
/* The tuning derived from a model given as data (the fields of dmlcpu_machine_info) with
 * overrides (-1: none), into values[dmlcpu_tune_count()] and sources: for decision tables. */
void dmlcpu_tune_derive(const int64_t machine[DMLCPU_MACHINE_FIELDS], const int64_t *overrides,
                        int64_t *values, int32_t *sources);
/* The policy's answers for a tuning given as data (values as dmlcpu_tune_derive fills them):
 *   question 0, the threads a call gets: facts = {bytes, available};
 *   1, its chunks: {bytes, units, available};
 *   2, whether it streams: {written, read, threads};
 *   3, how a packed copy is stored (0 runs, 1 stream, 2 string, 3 rows_aligned, 4 rows_string,
 *      5 rows_stream): {written, read, call_bytes, run_bytes, rows_packed, threads, request
 *      (-1 auto, 0, 1, 2 string), has_stream, has_stream_rows};
 *   4, whether a JOIN or SPLIT streams: {written, long_blocks, threads};
 *   5, TILE's way (1 straight, 2 blocks streamed, 3 slabs, 0 blocks cached): {written,
 *      run_bytes, packed_run, row_bytes, threads, has_stream_rows};
 *   6, an outer scan's strip bytes: {row_bytes, written, threads};
 *   7, whether a scan streams: {outer, written, threads}.
 * Returns -1 for an unknown question. */
int64_t dmlcpu_policy_decide(const int64_t *values, int question, const int64_t *facts);
/* The streaming threshold (stream_threshold) and its setter, as DMLCPU_STREAM_THRESHOLD sets it:
 * bytes moved a thread, at any thread count (-1: derived again). */
void dmlcpu_set_stream_threshold(int64_t bytes);
int64_t dmlcpu_stream_threshold(void);
/* For tests: TILE input runs of this many bytes or more are copied straight into every tile,
 * packed or not; otherwise the output goes in blocks of at most this size, those up to half of it
 * doubled in every dim, larger ones dim by dim as the built-in rule does (-1: the built-in rule,
 * packed runs of 1 KiB straight, blocks of 64 KiB or one output row: tile.c). */
void dmlcpu_set_tile_limit(int64_t bytes);
uint32_t dmlcpu_cpu_features(void);
/* Name of feature bit number bit (0 .. DMLCPU_CPU_FEATURE_COUNT-1), NULL outside. */
const char *dmlcpu_cpu_feature_name(int bit);
/* "scalar", "avx2", "avx512", "neon"; NULL for another value. */
const char *dmlcpu_isa_name(int isa);
/* Bit (1 << isa) for each ISA whose kernels are compiled into this build. */
uint32_t dmlcpu_compiled_isas(void);
/* Bit (1 << isa) for each ISA compiled, supported by this CPU and OS, and not disabled. */
uint32_t dmlcpu_usable_isas(void);
/* The widest ISA the table may use now (after DMLCPU_FORCE_ISA or dmlcpu_force_isa). */
int dmlcpu_active_isa(void);
/* A note on the environment variables (an unknown or unusable ISA was named), or "". */
const char *dmlcpu_config_note(void);
/* The kernel table, slot by slot: a name such as "x32_copy_gc" and the ISA filling it. */
int dmlcpu_kernel_slot_count(void);
const char *dmlcpu_kernel_slot_name(int slot);
int dmlcpu_kernel_slot_isa(int slot);
/*
 * Re-selects the kernel table in this process, capped at isa (-1: the automatic choice again).
 * DMLCPU_E_INVALID if isa is not usable here. Calls already running keep the table they took.
 * Meant for tests; the environment variables are the user-facing switch.
 */
dmlcpu_status dmlcpu_force_isa(int isa);

/* Threads used by one large call: 1..DMLCPU_MAX_THREADS, else DMLCPU_E_INVALID. */
#define DMLCPU_MAX_THREADS 256
dmlcpu_status dmlcpu_set_num_threads(int n);
int dmlcpu_get_num_threads(void);
/* 1 when this build has a thread pool (0: every call runs on the calling thread). */
int dmlcpu_threads_compiled(void);
/* For tests: how many times so far a pool thread spinning past 10 us yielded its CPU. */
uint64_t dmlcpu_pool_yields(void);

/* Where the thread count came from (dmlcpu_threads_source). */
enum {
    DMLCPU_THREADS_FROM_CPUS = 0, /* the default: dmlcpu_cpus()->threads */
    DMLCPU_THREADS_FROM_ENV = 1,  /* DMLCPU_NUM_THREADS */
    DMLCPU_THREADS_FROM_SET = 2,  /* dmlcpu_set_num_threads */
    DMLCPU_THREADS_FROM_DASK = 3  /* dmlcpu.dask: one thread per task slot of a pool nobody set */
};
int dmlcpu_threads_source(void);
/* dmlcpu_set_num_threads, recording `source` (a DMLCPU_THREADS_FROM_ value) as the reason. */
dmlcpu_status dmlcpu_set_num_threads_from(int n, int source);

/* What limits the CPUs (dmlcpu_cpu_budget.quota_source). */
enum {
    DMLCPU_QUOTA_NONE = 0,
    DMLCPU_QUOTA_CGROUP2 = 1, /* cpu.max */
    DMLCPU_QUOTA_CGROUP1 = 2, /* cpu.cfs_quota_us / cpu.cfs_period_us */
    DMLCPU_QUOTA_JOB = 3      /* a Windows job object's CPU rate cap */
};
/* The CPUs this process may use, detected once at initialization (cpus.c). */
typedef struct dmlcpu_cpu_budget {
    int32_t affinity;     /* CPUs in its affinity mask (Windows: its processor groups) */
    int32_t cores;        /* physical cores among them (affinity where unknown) */
    int64_t quota_milli;  /* a CPU quota in thousandths of a CPU; 0: none */
    int32_t quota_source; /* a DMLCPU_QUOTA_ value */
    int32_t usable;       /* affinity, capped by the quota rounded up */
    int32_t threads;      /* the default thread count: the smaller of cores and usable */
} dmlcpu_cpu_budget;
const dmlcpu_cpu_budget *dmlcpu_cpus(void);
void dmlcpu_detect_cpus(dmlcpu_cpu_budget *out);
/* The tightest cgroup CPU quota (thousandths of a CPU, 0: none) for the process described by a
 * /proc/self/cgroup and a /proc/self/mountinfo file; *version (if not NULL) gets 2 or 1 for the
 * hierarchy that set it, 0 for none. Exposed for tests on fixture files. */
int64_t dmlcpu_cgroup_quota_milli(const char *cgroup_file, const char *mountinfo, int *version);

/* Nanoseconds a pool thread spins for its next job, or a caller for its helpers, before it
 * sleeps (-1: the default again; 0: never spin). Threads never spin while the pool has more
 * threads than the CPUs the process may use. */
void dmlcpu_set_pool_spin_ns(int64_t ns);
int64_t dmlcpu_pool_spin_ns(void);

/*
 * NumPy's cumsum / cumprod (dmlcpu.numpy), not DirectML's: dst[..., k, ...] = dst[..., k-1, ...]
 * op src[..., k, ...] along axis, each source element first converted to dst_dtype as NumPy
 * casts it. Pairs: an int8..uint32 source into any integer type at least twice as wide (the
 * source sign- or zero-extended, the total wrapping in dst's width), FLOAT16 into FLOAT16 (each
 * step in float32, rounded to float16 to nearest even). dst must not meet src. DMLCPU_E_INVALID
 * for any other pair, mismatched shapes or a bad axis.
 */
dmlcpu_status dmlcpu_numpy_scan(const dmlcpu_view *dst, dmlcpu_dtype dst_dtype,
                                const dmlcpu_view *src, dmlcpu_dtype src_dtype, int32_t axis,
                                dmlcpu_scan_op op);

#ifdef __cplusplus
}
#endif

#endif /* DMLCPU_DMLCPU_H */
