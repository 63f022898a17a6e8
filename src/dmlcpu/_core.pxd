# Extern declarations of the C core; nothing else lives here.
from libc.stdint cimport int32_t, int64_t, uint64_t, uint32_t


cdef extern from "dmlcpu/dmlcpu.h" nogil:
    enum: DMLCPU_MAX_DIMS

    ctypedef enum dmlcpu_status:
        DMLCPU_OK
        DMLCPU_E_INVALID
        DMLCPU_E_NOMEM
        DMLCPU_E_OVERFLOW

    ctypedef enum dmlcpu_dtype:
        pass

    ctypedef enum dmlcpu_scan_op:
        DMLCPU_SCAN_SUM
        DMLCPU_SCAN_PROD

    ctypedef struct dmlcpu_view:
        char *data
        int32_t ndim
        int64_t sizes[8]
        int64_t strides[8]

    const char *dmlcpu_status_string(dmlcpu_status status)
    size_t dmlcpu_dtype_size(int dtype)
    ctypedef struct dmlcpu_prepared_copy:
        pass
    dmlcpu_status dmlcpu_copy_prepare(dmlcpu_prepared_copy *prepared, const dmlcpu_view *dst,
                                      const dmlcpu_view *src, size_t elsize)
    dmlcpu_status dmlcpu_copy_prepared(const dmlcpu_prepared_copy *prepared, char *dst_base,
                                       const char *src_base)
    dmlcpu_status dmlcpu_copy_group(const dmlcpu_view *dsts, const dmlcpu_view *srcs,
                                    size_t count, int32_t outer_ndim, size_t elsize)
    dmlcpu_status dmlcpu_tile(const dmlcpu_view *dst, const dmlcpu_view *src, size_t elsize)
    dmlcpu_status dmlcpu_scan(const dmlcpu_view *dst, const dmlcpu_view *src, dmlcpu_dtype dtype,
                              int32_t axis, dmlcpu_scan_op op, int32_t reverse, int32_t exclusive)
    dmlcpu_status dmlcpu_scan_carried(const dmlcpu_view *dst, const dmlcpu_view *src,
                                      dmlcpu_dtype dtype, int32_t axis, dmlcpu_scan_op op,
                                      int32_t reverse, int32_t exclusive,
                                      const dmlcpu_view *carry_in, const dmlcpu_view *carry_out)
    dmlcpu_status dmlcpu_numpy_scan(const dmlcpu_view *dst, dmlcpu_dtype dst_dtype,
                                    const dmlcpu_view *src, dmlcpu_dtype src_dtype, int32_t axis,
                                    dmlcpu_scan_op op)

    # runtime configuration: ISA dispatch and threads
    ctypedef enum dmlcpu_isa:
        DMLCPU_ISA_SCALAR
        DMLCPU_ISA_AVX2
        DMLCPU_ISA_AVX512
        DMLCPU_ISA_NEON
        DMLCPU_ISA_COUNT
    enum: DMLCPU_CPU_FEATURE_COUNT
    enum: DMLCPU_MAX_THREADS
    void dmlcpu_init()
    uint32_t dmlcpu_cpu_features()
    const char *dmlcpu_cpu_feature_name(int bit)
    const char *dmlcpu_isa_name(int isa)
    uint32_t dmlcpu_compiled_isas()
    uint32_t dmlcpu_usable_isas()
    int dmlcpu_active_isa()
    const char *dmlcpu_config_note()
    enum: DMLCPU_MACHINE_FIELDS
    void dmlcpu_machine_info(int64_t *out)
    int dmlcpu_tune_count()
    const char *dmlcpu_tune_name(int id)
    int64_t dmlcpu_tune_value(int id, int32_t *source)
    int32_t dmlcpu_tune_ignored()
    int64_t dmlcpu_tune_set(int id, int64_t value)
    void dmlcpu_tune_derive(const int64_t *machine, const int64_t *overrides, int64_t *values,
                            int32_t *sources)
    int64_t dmlcpu_policy_decide(const int64_t *values, int question, const int64_t *facts)
    void dmlcpu_set_stream_threshold(int64_t bytes)
    int64_t dmlcpu_stream_threshold()
    void dmlcpu_set_tile_limit(int64_t bytes)
    int dmlcpu_kernel_slot_count()
    const char *dmlcpu_kernel_slot_name(int slot)
    int dmlcpu_kernel_slot_isa(int slot)
    dmlcpu_status dmlcpu_force_isa(int isa)
    dmlcpu_status dmlcpu_set_num_threads(int n)
    int dmlcpu_get_num_threads()
    uint64_t dmlcpu_pool_yields()
    int dmlcpu_threads_compiled()
    enum: DMLCPU_THREADS_FROM_CPUS
    enum: DMLCPU_THREADS_FROM_ENV
    enum: DMLCPU_THREADS_FROM_SET
    enum: DMLCPU_THREADS_FROM_DASK
    int dmlcpu_threads_source()
    dmlcpu_status dmlcpu_set_num_threads_from(int n, int source)
    enum: DMLCPU_QUOTA_NONE
    enum: DMLCPU_QUOTA_CGROUP2
    enum: DMLCPU_QUOTA_CGROUP1
    enum: DMLCPU_QUOTA_JOB
    ctypedef struct dmlcpu_cpu_budget:
        int32_t affinity
        int32_t cores
        int64_t quota_milli
        int32_t quota_source
        int32_t usable
        int32_t threads
    const dmlcpu_cpu_budget *dmlcpu_cpus()
    int64_t dmlcpu_cgroup_quota_milli(const char *cgroup_file, const char *mountinfo, int *version)
    void dmlcpu_set_pool_spin_ns(int64_t ns)
    int64_t dmlcpu_pool_spin_ns()
